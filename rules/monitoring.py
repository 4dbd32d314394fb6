"""GPU monitoring rules: the stack's alert thresholds and ids, the Azure Monitor workspace region, and the alert
rules themselves (PromQL over the DCGM exporter's metric names in ``gpu_catalog/facts/gpu_monitoring.json``).

The alert expressions name only metrics that **both** DCGM exporters the platform can deploy expose by default (the
standalone chart's ``default-counters.csv`` and the GPU operator's ``dcp-metrics-included.csv``), and read every label
as the managed agent stores it (:class:`gpu_catalog.monitoring.StoredLabels`): the workload labels under
``exported_pod`` / ``exported_namespace`` / ``exported_container`` (the scrape keeps the exporter pod's own ``pod``),
the node and GPU labels as the exporter version spells them (``hostname`` from 4.6.0-4.8.3, ``Hostname`` before).
Utilisation comes from the metric that exists on the GPU: ``DCGM_FI_DEV_GPU_UTIL`` on whole and shared GPUs,
``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` on MIG instances (which report no ``GPU_UTIL``). GPUs are counted as distinct
(node, ``UUID``) pairs, so a shared GPU the exporter reports once per pod counts once. Per-pool rules read the pool
from kube-state-metrics' ``kube_node_labels`` (the add-on's ``metricLabelsAllowlist`` adds the platform's pool label to
it) joined on the node name. No Pulumi import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gpu_catalog.monitoring import ExporterFacts, StoredLabels, load_monitoring_facts

from . import Finding

FACTS = load_monitoring_facts()

PERCENT_RANGE = (0, 100)
"""Utilisation and memory thresholds are percentages: 0–100 inclusive."""

ACTION_GROUP_ID_RE = re.compile(
    r"^/subscriptions/[0-9a-fA-F-]{36}/resourceGroups/[-\w.()]{1,90}/providers/microsoft\.insights/actionGroups/"
    r"[-\w.]{1,260}$",
    re.IGNORECASE,
)
ACTION_GROUP_ID_FORMAT = (
    "/subscriptions/<subscription GUID>/resourceGroups/<group>/providers/microsoft.insights/actionGroups/<name>"
)
WORKSPACE_ID_RE = re.compile(
    r"^/subscriptions/[0-9a-fA-F-]{36}/resourceGroups/[-\w.()]{1,90}/providers/microsoft\.monitor/accounts/"
    r"[-\w]{1,260}$",
    re.IGNORECASE,
)
WORKSPACE_ID_FORMAT = (
    "/subscriptions/<subscription GUID>/resourceGroups/<group>/providers/Microsoft.Monitor/accounts/<name>"
)
POOL_NODE_LABEL = "azure-gpu-platform/pool"
"""The node label every platform GPU pool's nodes carry (``components.gpu_node_pool.POOL_LABEL``)."""


def ksm_label(label: str) -> str:
    """The label name kube-state-metrics gives a Kubernetes label on ``kube_<resource>_labels``: ``label_`` + the key
    with every character outside ``[a-zA-Z0-9_]`` replaced by ``_``."""
    return FACTS.node_label_prefix + re.sub(r"[^a-zA-Z0-9_]", "_", label)


def percent(field: str, value: float) -> list[Finding]:
    low, high = PERCENT_RANGE
    if low <= value <= high:
        return []
    return [Finding(field, f"{value:g} is not a percentage. Allowed: {low} to {high}.")]


def action_group_id(field: str, value: str) -> list[Finding]:
    if ACTION_GROUP_ID_RE.match(value):
        return []
    return [Finding(field, f"{value!r} is not an action group resource id. Allowed: {ACTION_GROUP_ID_FORMAT}.")]


EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def email_address(field: str, value: str) -> list[Finding]:
    if EMAIL_RE.match(value):
        return []
    return [Finding(field, f"{value!r} is not an e-mail address. Allowed: one address, name@domain.")]


def workspace_id(field: str, value: str) -> list[Finding]:
    if WORKSPACE_ID_RE.match(value):
        return []
    return [Finding(field, f"{value!r} is not an Azure Monitor workspace resource id. Allowed: {WORKSPACE_ID_FORMAT}.")]


def workspace_region(field: str, location: str) -> list[Finding]:
    """Advisory: a new Azure Monitor workspace in a region the facts do not record workspaces in. Never a refusal:
    the recorded list (the ``allowedValues`` of Microsoft's onboarding template) is positive evidence for the regions
    it names and no evidence against the others; no source read says a region has no workspaces."""
    if location.lower() in FACTS.workspace_regions:
        return []
    return [
        Finding(
            field,
            f"{location!r} is unverified for Azure Monitor workspaces: the facts record only "
            f"{', '.join(FACTS.workspace_regions)} (Azure/prometheus-collector "
            "AddonArmTemplate/FullAzureMonitorMetricsProfile.json), which is no evidence against other regions. ARM "
            "decides at pulumi up; to be sure, set monitoring.workspaceLocation to a recorded region or name an "
            "existing workspace (monitoring.workspaceId), or add the region to gpu_catalog/facts/gpu_monitoring.json "
            "with its source.",
        )
    ]


# --------------------------------------------------------------------------------------------------- alert rules


PoolKind = Literal["whole", "mig", "time-slicing", "mps"]
"""How a pool's GPUs reach pods: whole GPUs, MIG instances, or one GPU shared by time-slicing or MPS."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    idle_percent: float = 5
    """A GPU counts as idle while its utilisation stays below this."""
    idle_minutes: int = 60
    memory_percent: float = 95
    """GPU memory near full: used / (used + free) above this."""


@dataclass(frozen=True, slots=True)
class ScaledPool:
    """A GPU pool of the stack: how its GPUs reach pods, and (autoscaled) the most it may grow to."""

    name: str
    max_nodes: int | None = None
    """An agent pool's ``maxCount``."""
    max_gpus: int | None = None
    """A NAP NodePool's GPU limit (``limits.nvidia.com/gpu``, physical GPUs: kubernetes-sigs/karpenter #729)."""
    kind: PoolKind = "whole"


@dataclass(frozen=True, slots=True)
class AlertRule:
    alert: str
    expression: str
    for_minutes: int
    severity: int
    """Azure Monitor severity: 0 critical … 4 verbose."""
    summary: str


def exported_metric(metric: str) -> str:
    """``metric``, checked to be one both DCGM exporters expose by default (the names alerts and the dashboard use)."""
    if metric not in FACTS.common_metrics:  # pragma: no cover - a programming error, caught by the tests
        raise KeyError(f"{metric} is not a metric both DCGM exporters expose (gpu_monitoring.json)")
    return metric


UTIL = "DCGM_FI_DEV_GPU_UTIL"
"""Whole and shared GPUs: percent 0–100. Not reported for MIG instances (NVIDIA/dcgm-exporter #216, #430)."""
GR_ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
"""MIG instances (and whole GPUs): the ratio 0–1 of time the graphics/compute engine was active."""
FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
XID = "DCGM_FI_DEV_XID_ERRORS"
ROW_REMAP_FAILURE = "DCGM_FI_DEV_ROW_REMAP_FAILURE"
UNCORRECTABLE_ROWS = "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS"
POWER = "DCGM_FI_DEV_POWER_USAGE"
TEMP = "DCGM_FI_DEV_GPU_TEMP"
NODE = "node"
"""The label kube-state-metrics names a node by; the exporter's node label is copied to it for joins."""
SHARED_KINDS: frozenset[PoolKind] = frozenset({"time-slicing", "mps"})


def labels_of(exporter: ExporterFacts | None = None) -> StoredLabels:
    """The stored label names of ``exporter``'s series (default: the GPU operator's exporter)."""
    return FACTS.stored_labels(exporter or FACTS.operator)


def whole_gpu_util(labels: StoredLabels, selector: str = "") -> str:
    """Utilisation (percent) of whole and shared GPUs: ``DCGM_FI_DEV_GPU_UTIL`` of series that are no MIG instance,
    less any GPU that has MIG instances (its parent series, should an exporter report one)."""
    sel = ", ".join(x for x in (f'{labels.mig_profile}=""', selector) if x)
    mig = f'{exported_metric(GR_ENGINE_ACTIVE)}{{{labels.mig_profile}!=""}}'
    return f"{exported_metric(UTIL)}{{{sel}}} unless on ({labels.node}, {labels.uuid}) {mig}"


def mig_util(labels: StoredLabels, selector: str = "") -> str:
    """Utilisation (percent) of MIG instances: ``100 * DCGM_FI_PROF_GR_ENGINE_ACTIVE`` of series with a profile."""
    sel = ", ".join(x for x in (f'{labels.mig_profile}!=""', selector) if x)
    return f"100 * {exported_metric(GR_ENGINE_ACTIVE)}{{{sel}}}"


def with_node(expr: str, labels: StoredLabels) -> str:
    """``expr`` with the exporter's node label copied to ``node`` (kube-state-metrics' name) for joins."""
    return f'label_replace({expr}, "{NODE}", "$1", "{labels.node}", "(.+)")'


def by_pool(expr: str, labels: StoredLabels, pool: str | None = None) -> str:
    """``expr`` (a DCGM series) with the pool label of its node attached (kube-state-metrics' node labels joined on
    the node name the exporter writes); ``pool``: only that pool's nodes."""
    label = ksm_label(POOL_NODE_LABEL)
    nodes = f'{FACTS.node_labels_metric}{{{label}="{pool}"}}' if pool else FACTS.node_labels_metric
    return f"{with_node(expr, labels)} * on ({NODE}) group_left ({label}) max by ({NODE}, {label}) ({nodes})"


def distinct_gpus(expr: str, labels: StoredLabels, *, instances: bool = False) -> str:
    """One series per physical GPU (node, ``UUID``) of ``expr`` — or per MIG instance with ``instances`` — however
    many series per GPU the exporter emits (one per pod with ``KUBERNETES_VIRTUAL_GPUS``)."""
    keys = [NODE, labels.uuid] + ([labels.mig_instance] if instances else [])
    return f"count by ({', '.join(keys)}) ({expr})"


def pool_at_max_alert(pool: str) -> str:
    """``GpuPoolAtMax_<pool>``: Azure's rule schema wants an alert name that is a valid metric name
    (``[a-zA-Z_:][a-zA-Z0-9_:]*``), so a NodePool name's ``-`` and ``.`` become ``_``."""
    return "GpuPoolAtMax_" + re.sub(r"[^a-zA-Z0-9_]", "_", pool)


def _idle_rules(thresholds: Thresholds, kinds: set[PoolKind], labels: StoredLabels) -> list[AlertRule]:
    """Idle while allocated / unallocated, for whole and shared GPUs (``GPU_UTIL``) and MIG instances
    (``GR_ENGINE_ACTIVE``): the signal stays below the threshold for the whole window (``for``)."""
    idle, minutes = f"{thresholds.idle_percent:g}", thresholds.idle_minutes
    held, free = f'{labels.pod}!=""', f'{labels.pod}=""'
    gpu_keys = f"{labels.node}, {labels.uuid}"
    workload = f"{labels.namespace}, {labels.pod}"
    mig_keys = f"{gpu_keys}, {labels.mig_instance}, {labels.mig_profile}"
    rules: list[AlertRule] = []
    if kinds - {"mig"}:
        rules += [
            AlertRule(
                "GpuIdleWhileAllocated",
                f"max by ({gpu_keys}, {workload}) ({whole_gpu_util(labels, held)}) < {idle}",
                minutes,
                3,
                f"A GPU allocated to a pod (labels {labels.namespace}, {labels.pod}) stayed below {idle}% "
                f"utilisation for {minutes} minutes: the pod holds a GPU it does not use (on a shared GPU: every pod "
                "on it).",
            ),
            AlertRule(
                "GpuIdleUnallocated",
                f"max by ({gpu_keys}) ({whole_gpu_util(labels, free)}) < {idle}",
                minutes,
                3,
                f"A GPU no pod was allocated stayed below {idle}% utilisation for {minutes} minutes: the node costs "
                "money without work; scale the pool down or share the GPU.",
            ),
        ]
    if "mig" in kinds:
        rules += [
            AlertRule(
                "MigInstanceIdleWhileAllocated",
                f"max by ({mig_keys}, {workload}) ({mig_util(labels, held)}) < {idle}",
                minutes,
                3,
                f"A MIG instance allocated to a pod (labels {labels.namespace}, {labels.pod}) had its engine active "
                f"below {idle}% of the time for {minutes} minutes: the pod holds a slice it does not use.",
            ),
            AlertRule(
                "MigInstanceIdleUnallocated",
                f"max by ({mig_keys}) ({mig_util(labels, free)}) < {idle}",
                minutes,
                3,
                f"A MIG instance no pod was allocated had its engine active below {idle}% of the time for {minutes} "
                "minutes: repartition the GPU or scale the pool down.",
            ),
        ]
    return rules


def _health_rules(thresholds: Thresholds) -> list[AlertRule]:
    """Memory near full, XID errors, row-remap failures: per series, whatever the pool kind."""
    used, free = exported_metric(FB_USED), exported_metric(FB_FREE)
    return [
        AlertRule(
            "GpuMemoryNearFull",
            f"100 * {used} / ({used} + {free}) > {thresholds.memory_percent:g}",
            10,
            2,
            f"GPU memory above {thresholds.memory_percent:g}% for 10 minutes: the next allocation fails with CUDA "
            "out of memory.",
        ),
        AlertRule(
            "GpuXidError",
            f"changes({exported_metric(XID)}[15m]) > 0 and {exported_metric(XID)} > 0",
            0,
            1,
            "The GPU driver reported an XID error (the value is the last XID code; NVIDIA's XID catalogue says what "
            "it means): drain the node if it repeats.",
        ),
        AlertRule(
            "GpuRowRemapFailure",
            f"{exported_metric(ROW_REMAP_FAILURE)} > 0 or increase({exported_metric(UNCORRECTABLE_ROWS)}[1h]) > 0",
            0,
            1,
            "GPU memory health: a row remap failed or uncorrectable errors remapped rows; the GPU needs a reset or "
            "replacement (report the node to Azure).",
        ),
    ]


def _pool_at_max_rule(p: ScaledPool, labels: StoredLabels) -> AlertRule | None:
    """An agent pool at ``maxCount`` nodes (kube-state-metrics), or a NAP pool whose nodes hold its GPU limit
    (distinct physical GPUs the exporter reports on the pool's nodes)."""
    pool_label = ksm_label(POOL_NODE_LABEL)
    if p.max_nodes is not None:
        return AlertRule(
            pool_at_max_alert(p.name),
            f'count({FACTS.node_labels_metric}{{{pool_label}="{p.name}"}}) >= {p.max_nodes}',
            30,
            2,
            f"GPU pool {p.name} has run at its maximum of {p.max_nodes} nodes for 30 minutes: pending GPU pods "
            "may wait; raise maxCount or check quota.",
        )
    if p.max_gpus is not None:
        gpus = distinct_gpus(by_pool(exported_metric(FB_USED), labels, p.name), labels)
        return AlertRule(
            pool_at_max_alert(p.name),
            f"count({gpus}) >= {p.max_gpus}",
            30,
            2,
            f"GPU NodePool {p.name} has run at its GPU limit of {p.max_gpus} physical GPUs for 30 minutes: NAP "
            "provisions no more nodes; raise the limit or check quota.",
        )
    return None


def gpu_alert_rules(
    thresholds: Thresholds, pools: Sequence[ScaledPool] = (), labels: StoredLabels | None = None
) -> tuple[AlertRule, ...]:
    """The GPU alert rules of one cluster, reading ``labels`` (default: the operator exporter's, as stored): idle
    while allocated / unallocated per pool kind (whole and shared GPUs; MIG instances — only the kinds the stack
    has, both when it names no pool), memory near full, XID errors, row-remap failures, and every autoscaled pool at
    its maximum."""
    stored = labels or labels_of()
    kinds: set[PoolKind] = {p.kind for p in pools} or {"whole", "mig"}
    rules = [*_idle_rules(thresholds, kinds, stored), *_health_rules(thresholds)]
    rules += [r for p in pools if (r := _pool_at_max_rule(p, stored)) is not None]
    return tuple(rules)


def kaito_nodes_unmonitored(workspaces: Sequence[str], kaito_taint: str) -> list[Finding]:
    """Advisory: the GPU nodes KAITO provisions for ``workspaces`` run no DCGM exporter the platform deploys. Their
    taint keeps the GPU operator's exporter off (it tolerates only ``nvidia.com/gpu``: gpu-operator
    ``assets/state-dcgm-exporter/0800_daemonset.yaml``) and the dcgm-exporter chart selects platform pools only."""
    if not workspaces:
        return []
    return [
        Finding(
            "kaito.workspaces",
            f"the GPU nodes of the KAITO workspaces {', '.join(workspaces)} are not monitored: their taint "
            f"{kaito_taint} keeps the GPU operator's DCGM exporter off (it tolerates only nvidia.com/gpu) and the "
            "dcgm-exporter chart the platform deploys selects platform pool nodes only, so their GPUs are in no "
            "alert, panel or pool count. An exporter for them must tolerate that taint and select those nodes without "
            "being a second device plugin (NVIDIA's dcgm-exporter chart is one); this version does not deploy it "
            "(docs/monitoring.md).",
        )
    ]
