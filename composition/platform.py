"""``build_platform(cfg)`` wires the components of one environment; ``export_contract(...)`` exports the contract.

Each component gets typed Args built from the stack config by :mod:`composition.wiring` (every Args is built, and
checks itself, before the first resource is registered, except the GPU operator's, which is made of the pools). The
contract reads what the components computed (a pool's contract entry, a workspace's service) instead of deriving it
again.

Resource tree (URNs are pinned by the snapshot tests in ``tests/components/snapshots/``)::

    AksGpuCluster "aks"
      ResourceGroup "aks-rg"            (unless resourceGroup.existing)
      ManagedCluster "aks-cluster"
      GpuNodePool "aks-<pool>" → AgentPool "aks-<pool>"   (chained: each after the previous)
      kubernetes Provider "aks-k8s"     (when something runs in the cluster)
    GpuOperator "gpu-operator" → helm.sh/v3 Release "gpu-operator-release"   (when gpuOperator.enabled)
    NvidiaDevicePlugin "nvidia-device-plugin" → helm.sh/v3 Release "nvidia-device-plugin-release"
      (when the operator is off and a Linux GPU pool or NodePool needs a device plugin)
    NapGpuPool "nap-<pool>" → karpenter.azure.com AKSNodeClass "nap-<pool>-nodeclass",
      karpenter.sh/v1 NodePool "nap-<pool>-nodepool"        (per gpuNodePools entry; NAP on the cluster)
    KaitoWorkspace "kaito-<name>" → kaito.sh/v1beta1 Workspace "kaito-<name>"  (per kaito.workspaces entry)
      (+ v1 Secret "kaito-<name>-model-access" before it, for presets downloaded at run time)
    DatabricksWorkspace "databricks" → databricks Workspace "databricks-workspace" (unless url), Provider
    DatabricksGpuClusterPolicy "databricks-gpu-policy" → databricks ClusterPolicy  (databricks.clusterPolicy.enabled)
    DatabricksGpuCluster "databricks-<cluster>" → databricks Cluster            (per databricks.clusters entry)
    AksGpuSizePolicy "azure-policy" → PolicyDefinition "azure-policy-definition",
      PolicyAssignment "azure-policy-assignment"                               (azurePolicy.enabled)
      (registered before the cluster, after the resource group: the ManagedCluster depends on the assignment)
    GpuMonitoring "monitoring" → AzureMonitorWorkspace, DataCollectionEndpoint, DataCollectionRule,
      DataCollectionRuleAssociation, ActionGroup, PrometheusRuleGroup, ServiceMonitor,
      DcgmExporter "monitoring-dcgm-exporter" (without the operator's exporter)  (monitoring.enabled)

``pulumi_databricks`` is imported only when the stack has a ``databricks`` section, and the component modules of
NAP pools, KAITO workspaces, Databricks, Azure Policy and monitoring only when the stack has that section
(``tests/components/test_databricks_lazy_import.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pulumi

from components.aks_cluster import AksGpuCluster
from components.contract import CONTRACT_VERSION
from components.device_plugin import NvidiaDevicePlugin
from components.gpu_operator import GpuOperator
from composition import wiring
from composition.landing_zone_wiring import network_contract
from stack_config import StackConfig
from stack_config.specs import pool_gpu_operator

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pulumi_azure_native.resources import ResourceGroup

    from components.aks_cluster import AksGpuClusterArgs
    from components.azure_policy import AksGpuSizePolicy, AksGpuSizePolicyArgs
    from components.databricks import DatabricksClusterPolicyArgs, DatabricksDeployment, DatabricksGpuClusterArgs
    from components.kaito import KaitoWorkspace, KaitoWorkspaceArgs
    from components.monitoring import GpuMonitoring, GpuMonitoringArgs
    from components.nap_pool import NapGpuPool, NapGpuPoolArgs
    from components.pool_scheduling import PoolGpuOperator

CLUSTER_COMPONENT = "aks"
OPERATOR_COMPONENT = "gpu-operator"
DEVICE_PLUGIN_COMPONENT = "nvidia-device-plugin"
AZURE_POLICY_COMPONENT = "azure-policy"
MONITORING_COMPONENT = "monitoring"


@dataclass
class Platform:
    """What :func:`build_platform` created (for the export and for further components)."""

    cfg: StackConfig
    cluster: AksGpuCluster
    gpu_operator: GpuOperator | None = None
    device_plugin: NvidiaDevicePlugin | None = None
    kaito_workspaces: list[KaitoWorkspace] = field(default_factory=list)
    databricks: DatabricksDeployment | None = None
    nap_pools: list[NapGpuPool] = field(default_factory=list)
    azure_policy: AksGpuSizePolicy | None = None
    monitoring: GpuMonitoring | None = None


@dataclass(frozen=True)
class _ComponentArgs:
    """Every component's Args but the GPU operator's, built (and so checked) before the first resource."""

    tags: dict[str, str]
    operator: PoolGpuOperator | None
    cluster: AksGpuClusterArgs
    kaito: list[KaitoWorkspaceArgs]
    nap: list[NapGpuPoolArgs]
    policy: AksGpuSizePolicyArgs | None
    monitoring: GpuMonitoringArgs | None
    databricks_policy: DatabricksClusterPolicyArgs | None
    databricks_clusters: list[DatabricksGpuClusterArgs]


def _component_args(cfg: StackConfig, member: str | None = None) -> _ComponentArgs:
    """The Args of every component the stack config asks for, from :mod:`composition.wiring`, in this order (a fleet
    member's Azure Policy and Databricks cluster policy names end with the member's name)."""
    tags = wiring.platform_tags(cfg)
    operator = pool_gpu_operator(cfg)
    cluster_args = wiring.aks_cluster_args(cfg, tags)
    kaito_args = [wiring.kaito_workspace_args(cfg, ws) for ws in cfg.kaito.workspaces]
    nap_args = [wiring.nap_pool_args(cfg, pool, tags) for pool in cfg.gpuNodePools]
    policy_args = wiring.azure_policy_args(cfg, cluster_args, member) if cfg.azurePolicy.enabled else None
    monitoring_args = _monitoring_args(cfg, tags)
    databricks_policy = wiring.databricks_cluster_policy_args(cfg, member)
    databricks_clusters = (
        [wiring.databricks_cluster_args(cfg, c, tags) for c in cfg.databricks.clusters] if cfg.databricks else []
    )
    return _ComponentArgs(
        tags=tags,
        operator=operator,
        cluster=cluster_args,
        kaito=kaito_args,
        nap=nap_args,
        policy=policy_args,
        monitoring=monitoring_args,
        databricks_policy=databricks_policy,
        databricks_clusters=databricks_clusters,
    )


def _monitoring_args(cfg: StackConfig, tags: Mapping[str, str]) -> GpuMonitoringArgs | None:
    """The monitoring Args (``monitoring.enabled``), from :mod:`composition.monitoring_wiring`."""
    if not cfg.monitoring.enabled:
        return None
    from composition.monitoring_wiring import gpu_monitoring_args

    return gpu_monitoring_args(cfg, tags)


def build_platform(cfg: StackConfig, member: str | None = None, *, version_owned_by_fleet: bool = False) -> Platform:
    """Create every resource of the environment described by a validated :class:`StackConfig`.

    ``member`` (a fleet member's name, :mod:`composition.fleet`) starts the Pulumi name of every resource (``weu-aks``,
    ``weu-aks-cluster``, ...: every child's name starts with its component's name), so several platforms live in one
    stack with unique URNs, and ends the Azure names that are one per subscription or workspace (the Azure Policy
    definition and assignment, the Databricks cluster policy). Without it the names (and URNs) are the single stack's.
    ``version_owned_by_fleet``: the fleet's auto-upgrade profile moves the member's Kubernetes version
    (:func:`rules.fleet.fleet_owns_version`), so the cluster ignores drift on it.

    A section's component module is imported only when the stack has the section (NAP pools, KAITO workspaces,
    Databricks, Azure Policy, monitoring): a program pays for the components its stack uses."""
    prefix = f"{member}-" if member else ""
    args = _component_args(cfg, member)
    if version_owned_by_fleet:
        args = replace(args, cluster=replace(args.cluster, version_owned_by_fleet=True))
    azure_policy = _AzurePolicyFirst(cfg, args.policy, prefix) if args.policy is not None else None
    cluster = AksGpuCluster(f"{prefix}{CLUSTER_COMPONENT}", args.cluster, before_cluster=azure_policy)
    nap_pools = _nap_pools(cluster, args.nap, prefix)
    gpu_operator, device_plugin = _node_stack(cfg, args.operator, cluster, nap_pools, prefix)
    kaito = _kaito_workspaces(cluster, args.kaito, prefix)
    databricks = (
        _build_databricks(cfg, cluster, args.tags, args.databricks_clusters, args.databricks_policy, prefix=prefix)
        if cfg.databricks is not None
        else None
    )
    monitoring = _monitoring(cluster, args.monitoring, gpu_operator, prefix)
    return Platform(
        cfg=cfg,
        cluster=cluster,
        gpu_operator=gpu_operator,
        device_plugin=device_plugin,
        kaito_workspaces=kaito,
        databricks=databricks,
        nap_pools=nap_pools,
        azure_policy=azure_policy.policy if azure_policy is not None else None,
        monitoring=monitoring,
    )


def _nap_pools(cluster: AksGpuCluster, nap_args: Sequence[NapGpuPoolArgs], prefix: str = "") -> list[NapGpuPool]:
    """One ``NapGpuPool`` per ``gpuNodePools`` entry, in the cluster once it is reachable."""
    if not nap_args:
        return []
    from components.nap_pool import NapGpuPool

    return [
        NapGpuPool(
            f"{prefix}nap-{nap.name}", nap, provider=cluster.kubernetes_provider(), depends_on=cluster.kubernetes_access
        )
        for nap in nap_args
    ]


def _kaito_workspaces(
    cluster: AksGpuCluster, kaito_args: Sequence[KaitoWorkspaceArgs], prefix: str = ""
) -> list[KaitoWorkspace]:
    """One ``KaitoWorkspace`` per ``kaito.workspaces`` entry, in the cluster once it is reachable."""
    if not kaito_args:
        return []
    from components.kaito import KaitoWorkspace

    return [
        KaitoWorkspace(
            f"{prefix}kaito-{ws.workspace_name}",
            ws,
            provider=cluster.kubernetes_provider(),
            depends_on=cluster.kubernetes_access,
        )
        for ws in kaito_args
    ]


def _node_stack(
    cfg: StackConfig,
    operator: PoolGpuOperator | None,
    cluster: AksGpuCluster,
    nap_pools: list[NapGpuPool],
    prefix: str = "",
) -> tuple[GpuOperator | None, NvidiaDevicePlugin | None]:
    """The GPU operator (when the pools run one) and the standalone device plugin (when the stack needs the chart),
    each after the GPU pools (or the cluster) and the data-plane role assignments."""
    gpu_operator = None
    if operator is not None:
        gpu_operator = GpuOperator(
            f"{prefix}{OPERATOR_COMPONENT}",
            wiring.gpu_operator_args(cfg.gpuOperator, operator, cluster.pools, nap_pools),
            provider=cluster.kubernetes_provider(),
            # After the GPU pools: the operator's daemonsets land on nodes that exist, and a pool replacement (new
            # name) is in place before the operator is reconfigured for it; and after the data-plane role
            # assignments have propagated (the first `pulumi up`).
            depends_on=[*([p.agent_pool for p in cluster.pools] or [cluster.cluster]), *cluster.kubernetes_access],
        )
    device_plugin = None
    if cfg.device_plugin_chart:
        device_plugin = NvidiaDevicePlugin(
            f"{prefix}{DEVICE_PLUGIN_COMPONENT}",
            wiring.device_plugin_args(cfg, cluster.pools, nap_pools),
            provider=cluster.kubernetes_provider(),
            depends_on=[*([p.agent_pool for p in cluster.pools] or [cluster.cluster]), *cluster.kubernetes_access],
        )
    return gpu_operator, device_plugin


@dataclass
class _AzurePolicyFirst:
    """``AksGpuCluster``'s ``before_cluster``: the Azure Policy definition and assignment (``azurePolicy.enabled``),
    created once the resource group is registered and before the cluster and its GPU pools, which depend on the
    assignment: under ``Deny`` every pool PUT (create, replace) and cluster PUT is judged with the assignment's current
    exempted pools (docs/exemptions.md)."""

    cfg: StackConfig
    args: AksGpuSizePolicyArgs
    prefix: str = ""
    policy: AksGpuSizePolicy | None = None

    def __call__(self, resource_group: ResourceGroup | None) -> list[pulumi.Resource]:
        from components.azure_policy import AksGpuSizePolicy

        rg_id = _resource_group_id(self.cfg, resource_group)[0] if self.args.scope == "resourceGroup" else None
        self.policy = AksGpuSizePolicy(f"{self.prefix}{AZURE_POLICY_COMPONENT}", self.args, resource_group_id=rg_id)
        return [self.policy.assignment]


def _monitoring(
    cluster: AksGpuCluster,
    monitoring_args: GpuMonitoringArgs | None,
    gpu_operator: GpuOperator | None,
    prefix: str = "",
) -> GpuMonitoring | None:
    """GPU monitoring (``monitoring.enabled``), after the GPU pools, the operator and the role propagation."""
    if monitoring_args is None:
        return None
    from components.monitoring import GpuMonitoring

    return GpuMonitoring(
        f"{prefix}{MONITORING_COMPONENT}",
        monitoring_args,
        cluster_id=cluster.cluster_id,
        provider=cluster.kubernetes_provider(),
        # After the GPU pools and the operator (the exporter's Service exists) and the role propagation.
        depends_on=[
            *([p.agent_pool for p in cluster.pools] or [cluster.cluster]),
            *([gpu_operator.release] if gpu_operator is not None else []),
            *cluster.kubernetes_access,
        ],
    )


def _resource_group_id(
    cfg: StackConfig, resource_group: ResourceGroup | None
) -> tuple[pulumi.Output[str], list[pulumi.Resource]]:
    """The cluster's resource group id, and the resource to depend on when the stack creates the group."""
    if resource_group is not None:
        return resource_group.id, [resource_group]
    from pulumi_azure_native import resources

    return resources.get_resource_group_output(resource_group_name=cfg.resource_group_name).id, []


def _build_databricks(
    cfg: StackConfig,
    cluster: AksGpuCluster,
    tags: Mapping[str, str],
    clusters: Sequence[DatabricksGpuClusterArgs],
    cluster_policy: DatabricksClusterPolicyArgs | None,
    *,
    prefix: str = "",
) -> DatabricksDeployment:
    """The Databricks workspace and GPU clusters, in the cluster's resource group (imports ``pulumi_databricks``)."""
    from components.databricks import build_databricks

    if cfg.databricks is None:  # pragma: no cover - the caller checks
        raise ValueError("no databricks section")
    rg_id, deps = _resource_group_id(cfg, cluster.resource_group)
    return build_databricks(
        wiring.databricks_workspace_args(cfg, cfg.databricks.workspace, tags, rg_id),
        clusters,
        prefix=f"{prefix}databricks",
        cluster_policy=cluster_policy,
        opts=pulumi.ResourceOptions(depends_on=deps) if deps else None,
    )


def _databricks_contract(platform: Platform) -> dict[str, Any] | None:
    cfg = platform.cfg.databricks
    deployment = platform.databricks
    if cfg is None or deployment is None:
        return None
    clusters: dict[str, Any] = {}
    for c in cfg.clusters:
        clusters[c.name] = {
            "clusterId": deployment.clusters[c.name].cluster_id,
            "nodeTypeId": c.nodeTypeId,
            "driverNodeTypeId": c.driver_node_type,
            "gpusPerWorker": int(c.worker_size.gpu_count),
            "workload": c.workload,
            "tasksPerGpu": c.tasksPerGpu,
            "sparkVersion": c.sparkVersion,
        }
    policy = deployment.cluster_policy
    return {
        "workspaceUrl": deployment.url,
        "clusters": clusters,
        "clusterPolicyId": policy.policy_id if policy is not None else None,
    }


def contract_outputs(platform: Platform) -> dict[str, Any]:
    """The output contract (version ``CONTRACT_VERSION``): see :mod:`components.contract`."""
    cfg = platform.cfg
    cluster = platform.cluster
    return {
        "contractVersion": CONTRACT_VERSION,
        "environment": cfg.environment,
        "location": cfg.location,
        "resourceGroupName": cluster.resource_group_name,
        "clusterName": cluster.cluster_name,
        "clusterId": cluster.cluster_id,
        "kubernetesVersion": cfg.cluster.kubernetesVersion,
        "oidcIssuerUrl": cluster.oidc_issuer_url,
        "kubeconfig": cluster.kubeconfig,
        "gpuPools": {p.pool.name: p.contract.to_dict() for p in cluster.pools},
        "gpuNodePools": {p.args.name: p.contract.to_dict() for p in platform.nap_pools},
        "gpuOperatorVersion": platform.gpu_operator.version if platform.gpu_operator is not None else None,
        "devicePluginVersion": platform.device_plugin.version if platform.device_plugin is not None else None,
        "kaitoWorkspaces": {ws.workspace_name: ws.contract.to_dict() for ws in platform.kaito_workspaces},
        "databricks": _databricks_contract(platform),
        "network": network_contract(cfg).to_dict(),
        "monitoringWorkspaceId": platform.monitoring.workspace_id if platform.monitoring is not None else None,
        "alertActionGroupId": platform.monitoring.action_group_id if platform.monitoring is not None else None,
    }


def export_contract(platform: Platform) -> None:
    """Export the contract as stack outputs (``kubeconfig`` stays secret)."""
    for key, value in contract_outputs(platform).items():
        pulumi.export(key, value)
