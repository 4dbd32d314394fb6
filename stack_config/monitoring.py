"""The ``monitoring`` key of a stack file: GPU metrics in Azure Monitor managed service for Prometheus, GPU alerts and
the action group they notify (``components/monitoring.py``, ``docs/monitoring.md``).

``monitoring`` is about **metrics** (the DCGM exporter's GPU metrics, scraped by the AKS metrics add-on into an Azure
Monitor workspace); ``cluster.monitoring`` is about **logs** (Container Insights into a Log Analytics workspace).
They are independent add-ons and either can be on without the other.

The model takes the keys as written; :func:`monitoring_problems` checks them against the rules
(:mod:`rules.monitoring`) and against the rest of the stack (one DCGM exporter per GPU node,
:func:`rules.node_stack.metrics_exporter_findings`), reporting every problem at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from gpu_catalog.problems import Problem
from rules import Finding
from rules.monitoring import (
    POOL_NODE_LABEL,
    Thresholds,
    action_group_id,
    email_address,
    percent,
    workspace_id,
    workspace_region,
)
from rules.node_stack import (
    OPERATOR_DEFAULT_TOLERATION,
    SPOT_TAINT,
    GpuNode,
    NodeStack,
    Toleration,
    metrics_exporter_findings,
    metrics_exporters,
    taint_tolerations,
)

from .base import StrictModel

if TYPE_CHECKING:
    from .models import StackConfig

_DEFAULTS = Thresholds()


class GpuAlertsConfig(StrictModel):
    """``monitoring.alerts``: when the GPU alerts fire (percentages 0–100)."""

    idleUtilisationPercent: float = _DEFAULTS.idle_percent
    """A GPU is idle while its utilisation (``DCGM_FI_DEV_GPU_UTIL``) stays below this."""
    idleMinutes: Annotated[int, Field(ge=5, le=1440)] = _DEFAULTS.idle_minutes
    """How long a GPU must stay idle before the idle alerts fire (5 minutes to a day)."""
    memoryPercent: float = _DEFAULTS.memory_percent
    """GPU memory near full: framebuffer used above this share."""

    @property
    def thresholds(self) -> Thresholds:
        return Thresholds(self.idleUtilisationPercent, self.idleMinutes, self.memoryPercent)


class ActionGroupConfig(StrictModel):
    """``monitoring.actionGroup``: who is notified: an e-mail address (the platform creates the action group) or an
    existing action group's resource id. Exactly one."""

    email: str | None = None
    existingId: str | None = None


class GpuMonitoringConfig(StrictModel):
    """``monitoring``: GPU metrics, alerts and the dashboard export. Off by default."""

    enabled: bool = False
    workspaceId: str | None = None
    """An existing Azure Monitor workspace (``Microsoft.Monitor/accounts``) to send metrics to; unset: the platform
    creates ``amw-<cluster name>``. Retention is not a setting: the workspace API the SDK uses (2023-04-03) has no
    retention property (Azure Monitor keeps Prometheus metrics for a fixed period; see docs/monitoring.md)."""
    workspaceLocation: str | None = None
    """Region of the workspace the platform creates (and of its data collection endpoint and rule); defaults to the
    stack's ``location``. Must be a region with Azure Monitor workspaces."""
    alerts: GpuAlertsConfig = GpuAlertsConfig()
    actionGroup: ActionGroupConfig = ActionGroupConfig()


def _at(prefix: str, found: Sequence[Finding]) -> list[Problem]:
    return [Problem(f"{prefix}.{f.field}" if f.field else prefix, f.message) for f in found]


def exporter_stacks(cfg: StackConfig) -> list[NodeStack]:
    """The DCGM exporters on each Linux GPU pool and NodePool of the stack, as the platform deploys them: the GPU
    operator's exporter when the operator runs with ``dcgmExporter``, else the dcgm-exporter chart for every pool."""
    pools = [(f"gpuPools[{i}] ({p.name})", p.name, p, p.spot) for i, p in enumerate(cfg.gpuPools) if p.os == "Linux"]
    pools += [(f"gpuNodePools[{i}] ({p.name})", p.name, p, False) for i, p in enumerate(cfg.gpuNodePools)]
    all_taints = [t for _, _, p, spot in pools for t in (*cfg.pool_taints(p), *((SPOT_TAINT,) if spot else ()))]
    operator: list[Toleration] | None = None
    chart: tuple[list[Toleration], dict[str, tuple[str, ...]]] | None = None
    if cfg.gpuOperator.enabled and cfg.gpuOperator.dcgmExporter:
        operator = [OPERATOR_DEFAULT_TOLERATION, *taint_tolerations(all_taints)]
    elif pools:
        chart = (list(taint_tolerations(all_taints)), {POOL_NODE_LABEL: tuple(name for _, name, _, _ in pools)})
    out: list[NodeStack] = []
    for where, name, pool, spot in pools:
        node = GpuNode(
            where=where,
            os="Linux",
            gpus=1,
            taints=(*cfg.pool_taints(pool), *((SPOT_TAINT,) if spot else ())),
            labels={POOL_NODE_LABEL: name},
        )
        out.append(metrics_exporters(node, operator=operator, chart=chart))
    return out


def monitoring_problems(cfg: StackConfig) -> list[Problem]:
    """Every problem of ``monitoring`` at once (nothing when it is off)."""
    m: GpuMonitoringConfig = cfg.monitoring
    if not m.enabled:
        return []
    found: list[Problem] = []
    found += _at("monitoring.alerts.idleUtilisationPercent", percent("", m.alerts.idleUtilisationPercent))
    found += _at("monitoring.alerts.memoryPercent", percent("", m.alerts.memoryPercent))
    group = m.actionGroup
    if (group.email is None) == (group.existingId is None):
        both = group.email is not None
        found.append(
            Problem(
                "monitoring.actionGroup" if both or "actionGroup" in m.model_fields_set else "monitoring",
                (
                    "GPU alerts need exactly one receiver, not both"
                    if both
                    else "actionGroup is required with enabled: true: GPU alerts need exactly one receiver"
                )
                + ". Allowed: email (the platform creates the action group) or existingId (an action group's "
                "resource id).",
            )
        )
    if group.email is not None:
        found += _at("monitoring.actionGroup.email", email_address("", group.email))
    if group.existingId is not None:
        found += _at("monitoring.actionGroup.existingId", action_group_id("", group.existingId))
    if m.workspaceId is not None:
        found += _at("monitoring.workspaceId", workspace_id("", m.workspaceId))
        if m.workspaceLocation is not None:
            found.append(
                Problem(
                    "monitoring.workspaceLocation",
                    "set together with workspaceId: the location applies only to a workspace the platform creates. "
                    "Remove one of them.",
                )
            )
    else:
        key = "monitoring.workspaceLocation" if m.workspaceLocation is not None else "location"
        found += _at(key, workspace_region("", m.workspaceLocation or cfg.location))
    for stack in exporter_stacks(cfg):
        found += _at("monitoring", metrics_exporter_findings(stack))
    return found
