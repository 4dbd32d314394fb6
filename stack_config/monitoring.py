"""The ``monitoring`` key of a stack file: GPU metrics in Azure Monitor managed service for Prometheus, GPU alerts and
the action group they notify (``components/monitoring.py``, ``docs/monitoring.md``).

``monitoring`` is about **metrics** (the DCGM exporter's GPU metrics, scraped by the AKS metrics add-on into an Azure
Monitor workspace); ``cluster.monitoring`` is about **logs** (Container Insights into a Log Analytics workspace).
They are independent add-ons and either can be on without the other.

The model takes the keys as written; :func:`stack_config.checks.monitoring_problems` checks them against the rules
(:mod:`rules.monitoring`) and against the rest of the stack (one DCGM exporter per GPU node,
:func:`rules.node_stack.metrics_exporter_findings`), reporting every problem at once.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from rules.monitoring import (
    Thresholds,
)

from .base import StrictModel, empty_section

_DEFAULTS = Thresholds()


class GpuAlertsConfig(StrictModel):
    """``monitoring.alerts``: when the GPU alerts fire (percentages 0–100)."""

    idleUtilisationPercent: float = _DEFAULTS.idle_percent
    """A GPU is idle while its utilisation stays below this: ``DCGM_FI_DEV_GPU_UTIL`` on whole and shared GPUs, the
    engine activity (``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` × 100) on MIG instances."""
    idleMinutes: Annotated[int, Field(ge=5, le=1440)] = _DEFAULTS.idle_minutes
    """How long a GPU must stay idle before the idle alerts fire (5 minutes to a day; the rules' ``for``)."""
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
    alerts: GpuAlertsConfig = empty_section()
    actionGroup: ActionGroupConfig = empty_section()
