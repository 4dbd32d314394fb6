"""``monitoring`` of a stack file → :class:`~components.monitoring.GpuMonitoringArgs` (beside ``wiring.py`` so the
monitoring hook there stays one line)."""

from __future__ import annotations

from collections.abc import Mapping

from components.contract import Toleration
from components.monitoring import DcgmExporterArgs, GpuMonitoringArgs, ScrapeTarget
from components.pool_scheduling import POOL_LABEL, taint_tolerations
from gpu_catalog.monitoring import load_monitoring_facts
from rules.monitoring import PoolKind, ScaledPool
from stack_config import StackConfig
from stack_config.checks import exporter_stacks


def _tolerations(cfg: StackConfig) -> list[Toleration]:
    """What tolerates every taint of the pools the chart serves (spot pools' AKS taint included)."""
    return taint_tolerations([t for stack in exporter_stacks(cfg) for t in stack.node.taints])


_KINDS: dict[str, PoolKind] = {"none": "whole", "timeSlicing": "time-slicing", "mps": "mps"}


def _kind(mig_profile: str | None, sharing_mode: str) -> PoolKind:
    """How a pool's GPUs reach pods: MIG instances, shared (time-slicing, MPS), or whole GPUs."""
    return "mig" if mig_profile else _KINDS[sharing_mode]


def gpu_monitoring_args(cfg: StackConfig, tags: Mapping[str, str]) -> GpuMonitoringArgs:
    """The monitoring component's Args: the operator's exporter where the operator runs with ``dcgmExporter``, else
    the dcgm-exporter chart for every Linux GPU pool and NodePool (``exporter_stacks`` is the same decision, checked
    for exactly one exporter per node when the stack loads)."""
    facts = load_monitoring_facts()
    m = cfg.monitoring
    operator_exporter = cfg.gpuOperator.enabled and cfg.gpuOperator.dcgmExporter
    chart_pools = [p.name for p in cfg.gpuPools if p.os == "Linux"] + [p.name for p in cfg.gpuNodePools]
    chart = None
    if operator_exporter:
        targets = [ScrapeTarget(cfg.gpuOperator.namespace, facts.operator)]
    elif chart_pools:
        chart = DcgmExporterArgs(pools=chart_pools, pool_label=POOL_LABEL, tolerations=_tolerations(cfg))
        targets = [ScrapeTarget(chart.namespace, facts.chart.exporter)]
    else:
        targets = []
    scaled = [
        ScaledPool(p.name, max_nodes=p.maxCount, kind=_kind(p.migProfile, p.sharing_mode))
        for p in cfg.gpuPools
        if p.os == "Linux"
    ]
    scaled += [ScaledPool(p.name, max_gpus=p.limits.gpus, kind=_kind(None, p.sharing_mode)) for p in cfg.gpuNodePools]
    kaito = [w.name for w in cfg.kaito.workspaces]
    return GpuMonitoringArgs(
        cluster_name=cfg.cluster_name,
        cluster_location=cfg.location,
        resource_group_name=cfg.resource_group_name,
        workspace_location=m.workspaceLocation or cfg.location,
        workspace_id=m.workspaceId,
        action_group_id=m.actionGroup.existingId,
        email=m.actionGroup.email,
        thresholds=m.alerts.thresholds,
        scaled_pools=scaled,
        targets=targets,
        dcgm_chart=chart,
        tags=dict(tags),
        unmonitored_kaito_workspaces=kaito,
    )
