"""GPU monitoring rules: the stack's alert thresholds and ids, the Azure Monitor workspace region, and the alert
rules themselves (PromQL over the DCGM exporter's metric names in ``gpu_catalog/facts/gpu_monitoring.json``).

The alert expressions name only metrics that **both** DCGM exporters the platform can deploy expose by default (the
standalone chart's ``default-counters.csv`` and the GPU operator's ``dcp-metrics-included.csv``), so a pool's alerts
work whichever exporter runs on it; a test parses every expression with a PromQL parser and checks the names. Per-pool
rules read the pool from kube-state-metrics' ``kube_node_labels`` (the add-on's ``metricLabelsAllowlist`` adds the
platform's pool label to it) joined on the node name the exporter writes as ``Hostname``. No Pulumi import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpu_catalog.monitoring import load_monitoring_facts

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
    """A new Azure Monitor workspace must be created in a region that offers them (positive evidence only: the
    regions Microsoft's onboarding template allows, ``gpu_monitoring.json``)."""
    if location.lower() in FACTS.workspace_regions:
        return []
    return [
        Finding(
            field,
            f"{location!r} is not a region the facts record Azure Monitor workspaces in "
            f"(Azure/prometheus-collector AddonArmTemplate/FullAzureMonitorMetricsProfile.json). Allowed: "
            f"{', '.join(FACTS.workspace_regions)}. The workspace may be in another region than the cluster "
            "(set monitoring.workspaceLocation), or name an existing one (monitoring.workspaceId); if Microsoft "
            "lists the region, add it to gpu_catalog/facts/gpu_monitoring.json with its source.",
        )
    ]


# --------------------------------------------------------------------------------------------------- alert rules


@dataclass(frozen=True, slots=True)
class Thresholds:
    idle_percent: float = 5
    """A GPU counts as idle while its utilisation stays below this."""
    idle_minutes: int = 60
    memory_percent: float = 95
    """GPU memory near full: used / (used + free) above this."""


@dataclass(frozen=True, slots=True)
class ScaledPool:
    """An autoscaled GPU pool and the most it may grow to, known at deploy time."""

    name: str
    max_nodes: int | None = None
    """An agent pool's ``maxCount``."""
    max_gpus: int | None = None
    """A NAP NodePool's GPU limit (``limits.nvidia.com/gpu``)."""


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
FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
XID = "DCGM_FI_DEV_XID_ERRORS"
ROW_REMAP_FAILURE = "DCGM_FI_DEV_ROW_REMAP_FAILURE"
UNCORRECTABLE_ROWS = "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS"
POWER = "DCGM_FI_DEV_POWER_USAGE"
TEMP = "DCGM_FI_DEV_GPU_TEMP"


def by_pool(expr: str, pool: str | None = None) -> str:
    """``expr`` (a DCGM series) with the pool label of its node attached (kube-state-metrics' node labels joined on
    the node name the exporter writes); ``pool``: only that pool's nodes."""
    node = FACTS.labels["node"]
    label = ksm_label(POOL_NODE_LABEL)
    nodes = f'{FACTS.node_labels_metric}{{{label}="{pool}"}}' if pool else FACTS.node_labels_metric
    return (
        f'label_replace({expr}, "node", "$1", "{node}", "(.+)") * on (node) group_left ({label}) '
        f"max by (node, {label}) ({nodes})"
    )


def pool_at_max_alert(pool: str) -> str:
    """``GpuPoolAtMax_<pool>``: Azure's rule schema wants an alert name that is a valid metric name
    (``[a-zA-Z_:][a-zA-Z0-9_:]*``), so a NodePool name's ``-`` and ``.`` become ``_``."""
    return "GpuPoolAtMax_" + re.sub(r"[^a-zA-Z0-9_]", "_", pool)


def gpu_alert_rules(thresholds: Thresholds, pools: Sequence[ScaledPool] = ()) -> tuple[AlertRule, ...]:
    """The GPU alert rules of one cluster: idle while allocated / while not allocated, memory near full, XID errors,
    row-remap failures, and every autoscaled pool at its maximum."""
    pod = FACTS.labels["pod"]
    used, free = exported_metric(FB_USED), exported_metric(FB_FREE)
    window = f"{thresholds.idle_minutes}m"
    idle = f"{thresholds.idle_percent:g}"
    rules = [
        AlertRule(
            "GpuIdleWhileAllocated",
            f'max_over_time({exported_metric(UTIL)}{{{pod}!=""}}[{window}]) < {idle}',
            0,
            3,
            f"A GPU allocated to a pod stayed below {idle}% utilisation for {thresholds.idle_minutes} minutes: the "
            "pod holds a GPU it does not use.",
        ),
        AlertRule(
            "GpuIdleUnallocated",
            f'max_over_time({exported_metric(UTIL)}{{{pod}=""}}[{window}]) < {idle}',
            0,
            3,
            f"A GPU no pod was allocated stayed below {idle}% utilisation for {thresholds.idle_minutes} minutes: the "
            "node costs money without work; scale the pool down or share the GPU.",
        ),
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
    pool_label = ksm_label(POOL_NODE_LABEL)
    metric = FACTS.node_labels_metric
    for p in pools:
        if p.max_nodes is not None:
            rules.append(
                AlertRule(
                    pool_at_max_alert(p.name),
                    f'count({metric}{{{pool_label}="{p.name}"}}) >= {p.max_nodes}',
                    30,
                    2,
                    f"GPU pool {p.name} has run at its maximum of {p.max_nodes} nodes for 30 minutes: pending GPU pods "
                    "may wait; raise maxCount or check quota.",
                )
            )
        elif p.max_gpus is not None:
            count = f"count({by_pool(exported_metric(UTIL), p.name)})"
            rules.append(
                AlertRule(
                    pool_at_max_alert(p.name),
                    f"{count} >= {p.max_gpus}",
                    30,
                    2,
                    f"GPU NodePool {p.name} has run at its GPU limit of {p.max_gpus} for 30 minutes: NAP provisions "
                    "no more nodes; raise the limit or check quota.",
                )
            )
    return tuple(rules)
