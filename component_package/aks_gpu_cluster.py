"""The package's ``AksGpuCluster`` component over :class:`components.aks_cluster.AksGpuCluster`.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

import dataclasses
import typing
from typing import Any, NotRequired, TypedDict

import pulumi

from component_package.args import checked, plain, pool_spec, present
from component_package.enums import (
    AutoUpgradeChannel,
    NetworkDataplane,
    NetworkPolicy,
    NodeOsUpgradeChannel,
    SkuTier,
    SshAccess,
    SupportPlan,
)
from component_package.inputs import (
    ApiServerAccess,
    ClusterAccess,
    ClusterDefender,
    ClusterIdentity,
    ClusterMaintenance,
    ClusterNetwork,
    GpuPool,
    SystemPool,
)
from component_package.landing_zone import LANDING_ZONE_PATHS, landing_zone
from component_package.outputs import GpuPoolInfo
from component_package.package import PACKAGE_NAME
from components import aks_cluster, gpu_node_pool
from rules.hardening import (
    ApiServer,
)
from rules.network import UpgradeSettings


class AksGpuClusterArgs(TypedDict):
    """An AKS cluster with secure defaults and its GPU pools."""

    cluster_name: str
    """The AKS cluster's name (also its DNS prefix)."""
    resource_group_name: str
    """The resource group (created unless `createResourceGroup` is false)."""
    location: str
    """The Azure region."""
    kubernetes_version: str
    """A version AKS creates today (`1.36` or `1.36.2`), checked against the release calendar."""
    create_resource_group: NotRequired[bool]
    """False: the resource group exists already. Default true."""
    sku_tier: NotRequired[SkuTier]
    """Default `Standard`."""
    support_plan: NotRequired[SupportPlan]
    """Default `KubernetesOfficial`; `AKSLongTermSupport` needs tier `Premium`."""
    system_pool: NotRequired[SystemPool]
    """The inline System pool."""
    access: NotRequired[ClusterAccess]
    """Who gets Cluster Admin on the Kubernetes API. The deployer is granted by default, so give its
    `deployerPrincipalType` (or `grantDeployer: false`)."""
    admin_group_object_ids: NotRequired[list[str]]
    """Entra ID groups granted Cluster Admin through Azure RBAC."""
    auto_upgrade_channel: NotRequired[AutoUpgradeChannel]
    """Default `stable`. `stable` and `rapid` own the Kubernetes version (drift on it is ignored) and are refused when
    they can move the cluster past the pinned GPU operator's or KAITO add-on's validated minor; a patch pin
    (`1.36.2`) needs `none` or `node-image`."""
    node_os_upgrade_channel: NotRequired[NodeOsUpgradeChannel]
    """Default `NodeImage`."""
    oidc_issuer: NotRequired[bool]
    """The OIDC issuer (workload identity, KAITO); default true."""
    workload_identity: NotRequired[bool]
    """Default true."""
    cost_analysis: NotRequired[bool]
    """The cost analysis add-on (needs tier Standard or Premium)."""
    kaito_addon: NotRequired[bool]
    """The KAITO (AI toolchain operator) add-on (needs the OIDC issuer)."""
    protect: NotRequired[bool]
    """Protect the cluster and a resource group it creates from deletion."""
    tags: NotRequired[dict[str, str]]
    """Azure tags."""
    gpu_pools: NotRequired[list[GpuPool]]
    """GPU pools, created one after another in this order (AKS refuses concurrent agent-pool operations)."""
    api_server: NotRequired[ApiServerAccess]
    """Authorized IP ranges or a private cluster; neither: the API server is open to the internet (a warning)."""
    network_dataplane: NotRequired[NetworkDataplane]
    """Default `azure`; `cilium` with network policy `cilium` is AKS's recommendation."""
    network_policy: NotRequired[NetworkPolicy]
    """Default `none` (a warning)."""
    container_insights: NotRequired[bool]
    """Container Insights (`omsagent`) to `logAnalyticsWorkspaceId` or to a workspace the component creates."""
    log_analytics_workspace_id: NotRequired[str]
    """An existing Log Analytics workspace's resource id."""
    secrets_store: NotRequired[bool]
    """The Key Vault Secrets Store CSI add-on with secret rotation."""
    secret_rotation_poll_interval: NotRequired[str]
    """Default `2m`."""
    node_auto_provisioning: NotRequired[bool]
    """Node auto-provisioning (`nodeProvisioningProfile.mode: Auto`), for `NapGpuPool` NodePools; default false."""
    prometheus_node_labels: NotRequired[list[str]]
    """Azure Monitor managed Prometheus on, with these node label keys in kube-state-metrics' `kube_node_labels`
    (e.g. `azure-gpu-platform/pool`); default: off."""
    ssh_access: NotRequired[SshAccess]
    """SSH to the nodes of the system pool and every GPU pool; `Disabled` turns it off; default: AKS's (`LocalUser`,
    a warning)."""
    image_cleaner: NotRequired[bool]
    """Image Cleaner removes unused images from the nodes; default false (a warning)."""
    image_cleaner_interval_hours: NotRequired[int]
    """How often Image Cleaner runs, 24 to 2160 hours; default 168."""
    control_plane_logs: NotRequired[bool]
    """A diagnostic setting sending the control-plane logs (`kube-audit-admin` and the others) to the Log Analytics
    workspace; default false (a warning)."""
    network: NotRequired[ClusterNetwork]
    """The cluster in your network: mode, CIDRs, outbound type, route tables (docs/landing-zone.md); the subnets are
    the pools' `vnetSubnetId`. Default: an AKS-managed VNet, AKS's egress."""
    identity: NotRequired[ClusterIdentity]
    """User-assigned control-plane and kubelet identities; default: system-assigned."""
    container_registries: NotRequired[list[str]]
    """Container registry ids the kubelet identity may pull from (`AcrPull`)."""
    maintenance: NotRequired[ClusterMaintenance]
    """Planned maintenance windows for the auto-upgrade and node OS channels."""
    defender: NotRequired[ClusterDefender]
    """Microsoft Defender for Containers' security monitoring; default off."""
    azure_policy_addon: NotRequired[bool]
    """The Azure Policy add-on (Gatekeeper enforcing the policies assigned to the cluster); default false."""


class AksGpuCluster(pulumi.ComponentResource):
    """An AKS cluster with secure defaults (Entra ID + Azure RBAC, local accounts disabled, OIDC issuer, workload
    identity, no node public IPs) and its guard-railed GPU pools, chained one after another."""

    cluster_name: pulumi.Output[str]
    """The AKS cluster's name."""
    cluster_id: pulumi.Output[str]
    """The cluster's Azure resource ID."""
    resource_group_name: pulumi.Output[str]
    """The cluster's resource group."""
    oidc_issuer_url: pulumi.Output[str | None]
    """The OIDC issuer URL (for workload identity federated credentials)."""
    kubeconfig: pulumi.Output[str]
    """Secret: the user kubeconfig (exec plugin `kubelogin`; local accounts are disabled)."""
    gpu_pools: pulumi.Output[dict[str, GpuPoolInfo]]
    """Each GPU pool's output-contract entry, with its scheduling data, by pool name."""

    def __init__(self, name: str, args: AksGpuClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        kaito = bool(plain(args.get("kaito_addon", False)))
        specs = [
            checked(lambda p=p: pool_spec(p, kaito_addon=kaito), f"gpuPools[{i}].")
            for i, p in enumerate(args.get("gpu_pools", []))
        ]
        cluster_args = checked(
            lambda: aks_cluster.AksGpuClusterArgs(**_cluster_kwargs(args, specs, name)), paths=LANDING_ZONE_PATHS
        )
        super().__init__(f"{PACKAGE_NAME}:index:AksGpuCluster", name, None, opts)
        cluster = aks_cluster.AksGpuCluster(name, cluster_args, opts=pulumi.ResourceOptions(parent=self))
        self.cluster_name = cluster.cluster_name
        self.cluster_id = cluster.cluster_id
        self.resource_group_name = cluster.resource_group_name
        self.oidc_issuer_url = cluster.oidc_issuer_url
        self.kubeconfig = cluster.kubeconfig
        # Values of a map are passed on as they are (not renamed): the contract's own camelCase form is the schema's.
        pools: dict[str, Any] = {p.pool.name: p.contract.to_dict() for p in cluster.pools}
        self.gpu_pools = pulumi.Output.from_input(typing.cast(dict[str, GpuPoolInfo], pools))
        self.register_outputs({"clusterName": self.cluster_name, "clusterId": self.cluster_id})


def _cluster_kwargs(args: AksGpuClusterArgs, specs: list[gpu_node_pool.GpuPoolSpec], name: str) -> dict[str, Any]:
    kwargs = present(
        args,
        "cluster_name",
        "resource_group_name",
        "location",
        "kubernetes_version",
        "create_resource_group",
        "sku_tier",
        "support_plan",
        "auto_upgrade_channel",
        "node_os_upgrade_channel",
        "oidc_issuer",
        "workload_identity",
        "cost_analysis",
        "kaito_addon",
        "protect",
        "tags",
        "network_dataplane",
        "network_policy",
        "container_insights",
        "log_analytics_workspace_id",
        "secrets_store",
        "secret_rotation_poll_interval",
        "node_auto_provisioning",
        "image_cleaner",
        "image_cleaner_interval_hours",
        "control_plane_logs",
    )
    if api := args.get("api_server"):
        kwargs["disable_run_command"] = bool(api.get("disable_run_command", False))
    ssh = args.get("ssh_access")
    labels = args.get("prometheus_node_labels")
    if labels is not None:
        kwargs["prometheus_node_labels"] = tuple(labels)
    api = args.get("api_server")
    if api is not None:
        kwargs["api_server"] = ApiServer(
            tuple(api.get("authorized_ip_ranges", [])), bool(api.get("private_cluster", False))
        )
    system = args.get("system_pool") or SystemPool()
    sp = present(
        system,
        *("vm_size", "count", "os_sku", "only_critical_addons", "encryption_at_host", "os_disk_type", "max_pods"),
        *("vnet_subnet_id", "pod_subnet_id"),
    )
    upgrade = system.get("upgrade")
    if upgrade is not None:
        sp["upgrade"] = UpgradeSettings(
            **present(upgrade, "max_surge", "max_unavailable", "drain_timeout_minutes", "node_soak_minutes")
        )
    if ssh is not None:
        sp["ssh_access"] = ssh
    zones = system.get("zones")
    if zones is not None:
        sp["zones"] = tuple(zones)
    kwargs["system_pool"] = aks_cluster.SystemPoolSpec(**sp)
    access = args.get("access")
    if access is not None:
        kwargs["access"] = aks_cluster.ClusterAccess(
            **present(access, "grant_deployer", "deployer_principal_type", "propagation_wait_seconds")
        )
    groups = args.get("admin_group_object_ids")
    if groups is not None:
        kwargs["admin_group_object_ids"] = tuple(groups)
    # one VNet per cluster: a GPU pool without its own subnet joins the system pool's (as a stack file's)
    subnet = system.get("vnet_subnet_id")
    specs = [dataclasses.replace(s, vnet_subnet_id=subnet) if s.vnet_subnet_id is None and subnet else s for s in specs]
    kwargs["gpu_pools"] = tuple(specs if ssh is None else (dataclasses.replace(s, ssh_access=ssh) for s in specs))
    kwargs["landing_zone"] = landing_zone(args, specs, name)
    return kwargs
