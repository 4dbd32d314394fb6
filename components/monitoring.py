"""``GpuMonitoring``: GPU metrics in Azure Monitor managed service for Prometheus, GPU alerts, and the DCGM exporter
chart for pools without the GPU operator.

What AKS and Azure Monitor need for managed Prometheus (Azure/prometheus-collector ``AddonArmTemplate``,
MicrosoftDocs ``prometheus-metrics-enable.md``; facts and API versions: ``gpu_catalog/facts/gpu_monitoring.json``):

* the cluster's ``azureMonitorProfile.metrics.enabled`` (set by :class:`~components.aks_cluster.AksGpuCluster`, with
  the pool label on kube-state-metrics' ``kube_node_labels``);
* an Azure Monitor workspace (``Microsoft.Monitor/accounts``), unless the stack names one;
* a data collection endpoint and rule ``MSProm-<workspace region>-<cluster>`` (kind Linux; the rule forwards the
  ``Microsoft-PrometheusMetrics`` stream to the workspace), in the workspace's region;
* the rule's association with the cluster (``MSProm-<cluster region>-<cluster>``).

The scrape configuration: one ``azmonitoring.coreos.com/v1`` ServiceMonitor per DCGM exporter Service (the metrics
add-on's own CRD group; MicrosoftDocs ``prometheus-metrics-scrape-crd.md``), with the label limits the docs ask for.

Alerts: one ``PrometheusRuleGroup`` on the workspace and the cluster, its rules from
:func:`rules.monitoring.gpu_alert_rules`,
notifying an action group the stack names (created with an e-mail receiver, or an existing one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi_azure_native import alertsmanagement, monitor

from gpu_catalog.device_plugins import load_device_plugin_facts
from gpu_catalog.monitoring import ExporterFacts, StoredLabels, load_monitoring_facts
from rules import Finding
from rules import monitoring as rules_monitoring
from rules.monitoring import (
    ScaledPool,
    Thresholds,
    email_address,
    gpu_alert_rules,
    kaito_nodes_unmonitored,
    percent,
    workspace_region,
)
from rules.prometheus_rules import iso_minutes

from .contract import Toleration
from .helm import helm_release
from .validation import refuse_findings

TYPE_TOKEN = "azure-gpu-platform:components:GpuMonitoring"
COMPONENT = "GpuMonitoring"
DCGM_TYPE_TOKEN = "azure-gpu-platform:components:DcgmExporter"
FACTS = load_monitoring_facts()
CHART = FACTS.chart
SERVICE_MONITOR_TYPE = f"kubernetes:{FACTS.scrape_crd_group}:ServiceMonitor"
ACTION_GROUP_SHORT_NAME_MAX = 12
"""``groupShortName``: at most 12 characters (REST spec ActionGroup, 2024-10-01-preview)."""


@dataclass(frozen=True)
class DcgmExporterArgs:
    """The dcgm-exporter chart for the pools without the GPU operator's exporter."""

    pools: Sequence[str]
    """The pools it serves (their nodes carry ``azure-gpu-platform/pool: <name>``)."""
    pool_label: str
    tolerations: Sequence[Toleration] = ()
    version: str = CHART.version
    namespace: str = CHART.namespace


def dcgm_exporter_values(args: DcgmExporterArgs) -> dict[str, Any]:
    """Helm values: node affinity on the pool label, the pools' tolerations; the chart's own ServiceMonitor (group
    monitoring.coreos.com, which managed Prometheus does not read) off."""
    tolerations: list[dict[str, str]] = []
    for tol in args.tolerations:
        if tol.to_dict() not in tolerations:
            tolerations.append(tol.to_dict())
    return {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": args.pool_label, "operator": "In", "values": list(args.pools)}]}
                    ]
                }
            }
        },
        "tolerations": tolerations,
        "serviceMonitor": {"enabled": False},
    }


@dataclass(frozen=True)
class ScrapeTarget:
    """A DCGM exporter Service the metrics add-on scrapes."""

    namespace: str
    exporter: ExporterFacts


@dataclass(frozen=True)
class GpuMonitoringArgs:
    cluster_name: str
    cluster_location: str
    resource_group_name: str
    workspace_location: str
    workspace_id: str | None = None
    """An existing Azure Monitor workspace; ``None``: create ``amw-<cluster>``."""
    action_group_id: str | None = None
    email: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    scaled_pools: Sequence[ScaledPool] = ()
    targets: Sequence[ScrapeTarget] = ()
    dcgm_chart: DcgmExporterArgs | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    unmonitored_kaito_workspaces: Sequence[str] = ()
    """KAITO workspaces whose GPU nodes no exporter reaches (an advisory warning names them)."""

    @property
    def labels(self) -> StoredLabels:
        """The label names the alerts read: those of the exporter the targets scrape, as the agent stores them (the
        operator's exporter when there is no target)."""
        stored = {FACTS.stored_labels(t.exporter) for t in self.targets} or {FACTS.stored_labels(FACTS.operator)}
        if len(stored) > 1:  # pragma: no cover - one exporter per stack (stack_config.checks.exporter_stacks)
            raise ValueError(
                f"the scrape targets' exporters spell their labels differently: {sorted(map(str, stored))}"
            )
        return stored.pop()

    def __post_init__(self) -> None:
        """The stack config's checks (rules.monitoring), for Args built without a stack file."""
        found = [
            *percent("idle_percent", self.thresholds.idle_percent),
            *percent("memory_percent", self.thresholds.memory_percent),
        ]
        if (self.email is None) == (self.action_group_id is None):
            found.append(Finding("email", "GPU alerts need exactly one receiver: email or action_group_id."))
        if self.email is not None:
            found += email_address("email", self.email)
        if self.action_group_id is not None:
            found += rules_monitoring.action_group_id("action_group_id", self.action_group_id)
        if self.workspace_id is not None:
            found += rules_monitoring.workspace_id("workspace_id", self.workspace_id)
        refuse_findings(COMPONENT, self.cluster_name, found, {})


def advisory_findings(args: GpuMonitoringArgs) -> list[Finding]:
    """What the stack can deploy but should know: a new workspace's unverified region, unmonitored KAITO nodes."""
    found = [] if args.workspace_id is not None else workspace_region("workspace_location", args.workspace_location)
    return found + kaito_nodes_unmonitored(
        args.unmonitored_kaito_workspaces, ", ".join(load_device_plugin_facts().kaito_node_taints)
    )


def msprom_name(location: str, cluster_name: str) -> str:
    """``MSProm-<region>-<cluster>``, cut at 44 characters (the data collection endpoint name limit the onboarding
    templates apply)."""
    return f"{FACTS.name_prefix}-{location}-{cluster_name}"[:44]


def action_group_short_name(cluster_name: str) -> str:
    return ("gpu" + "".join(c for c in cluster_name if c.isalnum()))[:ACTION_GROUP_SHORT_NAME_MAX]


def service_monitor_manifest(target: ScrapeTarget) -> dict[str, Any]:
    return {
        "metadata": {"name": f"{target.exporter.name}-gpu-metrics", "namespace": target.namespace},
        "spec": {
            **FACTS.service_monitor_limits,
            "selector": {"matchLabels": dict(target.exporter.service_selector)},
            "namespaceSelector": {"matchNames": [target.namespace]},
            "endpoints": [
                {"port": target.exporter.service_port_name, "interval": "30s", "honorLabels": FACTS.honor_labels}
            ],
        },
    }


def rule_args(
    thresholds: Thresholds,
    pools: Sequence[ScaledPool],
    action_group_id: pulumi.Input[str],
    labels: StoredLabels | None = None,
) -> list[alertsmanagement.PrometheusRuleArgs]:
    return [
        alertsmanagement.PrometheusRuleArgs(
            alert=rule.alert,
            expression=rule.expression,
            for_=iso_minutes(rule.for_minutes) if rule.for_minutes else None,
            severity=rule.severity,
            enabled=True,
            annotations={"summary": rule.summary},
            actions=[alertsmanagement.PrometheusRuleGroupActionArgs(action_group_id=action_group_id)],
            resolve_configuration=alertsmanagement.PrometheusRuleResolveConfigurationArgs(
                auto_resolved=True, time_to_resolve="PT10M"
            ),
        )
        for rule in gpu_alert_rules(thresholds, pools, labels)
    ]


class DcgmExporter(pulumi.ComponentResource):
    """The dcgm-exporter Helm release."""

    def __init__(
        self,
        name: str,
        args: DcgmExporterArgs,
        *,
        provider: pulumi.ProviderResource,
        depends_on: Sequence[pulumi.Resource] = (),
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__(DCGM_TYPE_TOKEN, name, None, opts)
        self.version = args.version
        self.release = helm_release(
            f"{name}-release",
            release_name=CHART.name,
            chart=CHART.name,
            repo=CHART.repository,
            version=args.version,
            namespace=args.namespace,
            values=dcgm_exporter_values(args),
            parent=self,
            provider=provider,
            depends_on=depends_on,
        )
        self.register_outputs({"version": self.version})


class GpuMonitoring(pulumi.ComponentResource):
    """Managed Prometheus for one cluster: workspace, data collection, scrape config, alerts (and the exporter chart).

    ``cluster_id``: the managed cluster's id (the association's scope, the rule group's scope); ``provider``: the
    cluster's Kubernetes provider; ``depends_on``: what the Kubernetes objects wait for (the cluster, whose
    metrics add-on installs the ServiceMonitor CRD, and the data-plane role assignments).
    """

    workspace_id: pulumi.Output[str]
    action_group_id: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        args: GpuMonitoringArgs,
        *,
        cluster_id: pulumi.Input[str],
        provider: pulumi.ProviderResource,
        depends_on: Sequence[pulumi.Resource] = (),
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        for finding in advisory_findings(args):
            pulumi.log.warn(f"{COMPONENT} '{args.cluster_name}': {finding.field}: {finding.message}", resource=self)
        workspace_id = self._workspace(name, args, tags, child)
        self._data_collection(name, args, cluster_id=cluster_id, workspace_id=workspace_id, tags=tags, child=child)
        action_group_id = self._action_group(name, args, tags, child)
        self._alerts(
            name,
            args,
            cluster_id=cluster_id,
            workspace_id=workspace_id,
            action_group_id=action_group_id,
            tags=tags,
            child=child,
        )
        self.dcgm_exporter = (
            DcgmExporter(f"{name}-dcgm-exporter", args.dcgm_chart, provider=provider, depends_on=depends_on, opts=child)
            if args.dcgm_chart is not None
            else None
        )
        self._scrape_configs(
            name, args, pulumi.ResourceOptions(parent=self, provider=provider, depends_on=list(depends_on))
        )
        self.workspace_id = pulumi.Output.from_input(workspace_id)
        self.action_group_id = pulumi.Output.from_input(action_group_id)
        self.register_outputs({"workspaceId": self.workspace_id, "actionGroupId": self.action_group_id})

    def _workspace(
        self, name: str, args: GpuMonitoringArgs, tags: dict[str, str], child: pulumi.ResourceOptions
    ) -> pulumi.Input[str]:
        """The Azure Monitor workspace's id: the stack's, or a new ``amw-<cluster>``."""
        if args.workspace_id is not None:
            return args.workspace_id
        workspace = monitor.AzureMonitorWorkspace(
            f"{name}-workspace",
            azure_monitor_workspace_name=f"amw-{args.cluster_name}",
            resource_group_name=args.resource_group_name,
            location=args.workspace_location,
            tags=tags,
            opts=child,
        )
        return workspace.id

    def _data_collection(
        self,
        name: str,
        args: GpuMonitoringArgs,
        *,
        cluster_id: pulumi.Input[str],
        workspace_id: pulumi.Input[str],
        tags: dict[str, str],
        child: pulumi.ResourceOptions,
    ) -> None:
        """The data collection endpoint and rule ``MSProm-<workspace region>-<cluster>`` (the Prometheus stream to the
        workspace) and the rule's association with the cluster."""
        dcr_name = msprom_name(args.workspace_location, args.cluster_name)
        endpoint = monitor.DataCollectionEndpoint(
            f"{name}-dce",
            data_collection_endpoint_name=dcr_name,
            resource_group_name=args.resource_group_name,
            location=args.workspace_location,
            kind="Linux",
            tags=tags,
            opts=child,
        )
        account = "MonitoringAccount1"
        rule = monitor.DataCollectionRule(
            f"{name}-dcr",
            data_collection_rule_name=dcr_name,
            resource_group_name=args.resource_group_name,
            location=args.workspace_location,
            kind="Linux",
            description="GPU platform: Prometheus metrics of the AKS metrics add-on to the Azure Monitor workspace",
            data_collection_endpoint_id=endpoint.id,
            data_sources=monitor.DataCollectionRuleDataSourcesArgs(
                prometheus_forwarder=[
                    monitor.PrometheusForwarderDataSourceArgs(
                        name="PrometheusDataSource", streams=[FACTS.stream], label_include_filter={}
                    )
                ]
            ),
            destinations=monitor.DataCollectionRuleDestinationsArgs(
                monitoring_accounts=[
                    monitor.MonitoringAccountDestinationArgs(account_resource_id=workspace_id, name=account)
                ]
            ),
            data_flows=[monitor.DataFlowArgs(streams=[FACTS.stream], destinations=[account])],
            tags=tags,
            opts=child,
        )
        monitor.DataCollectionRuleAssociation(
            f"{name}-dcra",
            association_name=msprom_name(args.cluster_location, args.cluster_name),
            resource_uri=cluster_id,
            data_collection_rule_id=rule.id,
            description="Association of the GPU platform's Prometheus data collection rule with the AKS cluster.",
            opts=child,
        )

    def _action_group(
        self, name: str, args: GpuMonitoringArgs, tags: dict[str, str], child: pulumi.ResourceOptions
    ) -> pulumi.Input[str]:
        """The alerts' action group id: the stack's, or a new ``ag-<cluster>-gpu`` with the e-mail receiver."""
        if args.action_group_id is not None:
            return args.action_group_id
        group = monitor.ActionGroup(
            f"{name}-action-group",
            action_group_name=f"ag-{args.cluster_name}-gpu",
            resource_group_name=args.resource_group_name,
            location="Global",
            group_short_name=action_group_short_name(args.cluster_name),
            enabled=True,
            email_receivers=[
                monitor.MicrosoftCommonEmailReceiverArgs(
                    name="gpu-alerts", email_address=args.email, use_common_alert_schema=True
                )
            ]
            if args.email
            else None,
            tags=tags,
            opts=child,
        )
        return group.id

    def _alerts(
        self,
        name: str,
        args: GpuMonitoringArgs,
        *,
        cluster_id: pulumi.Input[str],
        workspace_id: pulumi.Input[str],
        action_group_id: pulumi.Input[str],
        tags: dict[str, str],
        child: pulumi.ResourceOptions,
    ) -> None:
        """The ``PrometheusRuleGroup`` of the GPU alerts (:func:`rule_args`) on the workspace and the cluster."""
        alertsmanagement.PrometheusRuleGroup(
            f"{name}-gpu-alerts",
            rule_group_name=f"gpu-alerts-{args.cluster_name}",
            resource_group_name=args.resource_group_name,
            location=args.workspace_location,
            cluster_name=args.cluster_name,
            description="GPU platform alerts: idle GPUs, GPU memory near full, XID errors, GPU pools at their maximum",
            scopes=[workspace_id, cluster_id],
            interval="PT1M",
            enabled=True,
            rules=rule_args(args.thresholds, args.scaled_pools, action_group_id, args.labels),
            tags=tags,
            opts=child,
        )

    def _scrape_configs(self, name: str, args: GpuMonitoringArgs, k8s: pulumi.ResourceOptions) -> None:
        """One ServiceMonitor per scrape target (after the exporter chart, when this component installs it)."""
        from pulumi_kubernetes.apiextensions import CustomResource

        for target in args.targets:
            manifest = service_monitor_manifest(target)
            CustomResource(
                f"{name}-{target.exporter.name}-scrape",
                api_version=FACTS.scrape_crd_group,
                kind="ServiceMonitor",
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                opts=pulumi.ResourceOptions.merge(
                    k8s,
                    pulumi.ResourceOptions(depends_on=[self.dcgm_exporter.release])
                    if self.dcgm_exporter is not None
                    else None,
                ),
            )
