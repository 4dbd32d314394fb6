"""The AKS control plane's resource logs to a Log Analytics workspace: one diagnostic setting on the cluster.

AKS keeps no control-plane log unless a diagnostic setting sends it somewhere (MicrosoftDocs/azure-aks-docs
``articles/aks/monitor-aks.md``). The setting (``Microsoft.Insights/diagnosticSettings``, pulumi-azure-native 3.29
``monitor.DiagnosticSetting``, API 2021-05-01-preview) is an extension resource of the cluster (``resourceUri``: the
cluster's id). It sends :data:`rules.hardening.CONTROL_PLANE_LOG_CATEGORIES` (``kube-audit-admin`` rather than
``kube-audit``, as the page recommends for cost) into resource-specific tables (``logAnalyticsDestinationType:
Dedicated``, the mode the page recommends). Microsoft's built-in definition 'Resource logs in Azure Kubernetes
Service should be enabled' (245fc9df-fa96-4414-9a0b-3738c2f7341c) audits for it; the policy pack's
``aks-control-plane-logs`` judges raw programs for the same.
"""

from __future__ import annotations

import pulumi
from pulumi_azure_native import monitor

from rules.hardening import CONTROL_PLANE_LOG_CATEGORIES, LOG_DESTINATION_TYPE

SETTING_NAME = "aks-control-plane"
"""The diagnostic setting's name on the cluster (a cluster takes up to five settings)."""


def control_plane_logs(
    name: str,
    *,
    cluster_id: pulumi.Input[str],
    workspace_id: pulumi.Input[str],
    parent: pulumi.Resource,
    depends_on: list[pulumi.Resource],
) -> monitor.DiagnosticSetting:
    """The cluster's diagnostic setting sending its control-plane log categories to ``workspace_id``."""
    return monitor.DiagnosticSetting(
        f"{name}-control-plane-logs",
        name=SETTING_NAME,
        resource_uri=cluster_id,
        workspace_id=workspace_id,
        log_analytics_destination_type=LOG_DESTINATION_TYPE,
        logs=[
            monitor.DiagnosticsLogSettingsArgs(category=category, enabled=True)
            for category in CONTROL_PLANE_LOG_CATEGORIES
        ],
        opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on),
    )
