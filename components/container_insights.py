"""Container Insights with managed-identity authentication: the data collection rule ``MSCI-<region>-<cluster>`` and
its association with the cluster, beside the ``omsagent`` add-on's ``useAADAuth: "true"``
(:func:`omsagent_config`, which :mod:`components.aks_cluster` sends).

Legacy (workspace-key) authentication is retired: after 2026-09-30 its ingestion stops (MicrosoftDocs/azure-monitor-docs
``containers/container-insights-authentication.md``). Every field here is what Microsoft's managed-identity onboarding
template sends (microsoft/Docker-Provider ``scripts/onboarding/aks/onboarding-using-msi-auth/``), recorded in
``gpu_catalog/facts/gpu_monitoring.json`` (``containerInsights``): a ``ContainerInsights`` extension data source with
its streams to the Log Analytics workspace, and the association ``ContainerInsightsExtension``. No data collection
endpoint: the template makes one only for a private link scope or high log scale mode.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_azure_native import monitor

from gpu_catalog.monitoring import load_monitoring_facts

CI = load_monitoring_facts().container_insights


def omsagent_config(workspace_id: pulumi.Input[str]) -> dict[str, pulumi.Input[str]]:
    """The ``omsagent`` add-on's ``config``: the workspace and managed-identity authentication."""
    return {CI.workspace_config_key: workspace_id, **CI.addon_config}


def msci_name(workspace_location: str, cluster_name: str) -> str:
    """``MSCI-<workspace region>-<cluster>``, cut at 64 characters as the template does."""
    return f"{CI.dcr_name_prefix}-{workspace_location}-{cluster_name}"[: CI.dcr_name_max_length]


@dataclass(frozen=True)
class ContainerInsightsArgs:
    cluster_name: str
    resource_group_name: str
    workspace_location: str
    """The Log Analytics workspace's region (the rule is created there, as the template does)."""
    tags: dict[str, str]


def container_insights_collection(
    name: str,
    args: ContainerInsightsArgs,
    *,
    workspace_id: pulumi.Input[str],
    cluster: pulumi.CustomResource,
    parent: pulumi.Resource,
) -> tuple[monitor.DataCollectionRule, monitor.DataCollectionRuleAssociation]:
    """The Container Insights data collection rule and its association with ``cluster``."""
    opts = pulumi.ResourceOptions(parent=parent)
    settings = {"dataCollectionSettings": dict(CI.data_collection_settings)}
    rule = monitor.DataCollectionRule(
        f"{name}-ci-dcr",
        data_collection_rule_name=msci_name(args.workspace_location, args.cluster_name),
        resource_group_name=args.resource_group_name,
        location=args.workspace_location,
        kind=CI.dcr_kind,
        data_sources=monitor.DataCollectionRuleDataSourcesArgs(
            extensions=[
                monitor.ExtensionDataSourceArgs(
                    name=CI.data_source_name,
                    extension_name=CI.extension_name,
                    streams=list(CI.streams),
                    extension_settings=settings,
                )
            ]
        ),
        destinations=monitor.DataCollectionRuleDestinationsArgs(
            log_analytics=[
                monitor.LogAnalyticsDestinationArgs(workspace_resource_id=workspace_id, name=CI.destination_name)
            ]
        ),
        data_flows=[monitor.DataFlowArgs(streams=list(CI.streams), destinations=[CI.destination_name])],
        tags=args.tags,
        opts=opts,
    )
    association = monitor.DataCollectionRuleAssociation(
        f"{name}-ci-dcra",
        association_name=CI.association_name,
        resource_uri=cluster.id,
        data_collection_rule_id=rule.id,
        description=CI.association_description,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[cluster]),
    )
    return rule, association
