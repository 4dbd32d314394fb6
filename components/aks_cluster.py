"""``AksGpuCluster``: resource group, AKS managed cluster with an inline system pool, and its GPU pools.

Secure defaults: system-assigned managed identity, Entra ID (managed AAD) with Azure RBAC for Kubernetes
authorization and local accounts disabled, OIDC issuer + workload identity, no public IPs on nodes, an auto-upgrade
channel and a node-OS upgrade channel. The inline ``agentPoolProfiles`` hold only the System pool (a non-GPU size,
≥2 nodes): GPU pools are separate ``AgentPool`` resources (editing inline profiles would disturb every pool),
created **one after another** because AKS rejects concurrent agent-pool operations on one cluster
(409 OperationNotAllowed; Azure/AKS #1913, #2720).

Kubernetes API access (first ``pulumi up``)
-------------------------------------------
Local accounts are disabled and Azure RBAC authorizes the Kubernetes API, so nothing can reach the cluster until
someone holds an AKS data-plane role. Unless ``access.grant_deployer`` is false (``cluster.access.grantDeployer`` in
a stack file), the component assigns *Azure Kubernetes Service RBAC Cluster Admin*
(``gpu_catalog/facts/aks_access.json``) at the cluster's scope to the identity running ``pulumi up``
(``authorization.getClientConfig``) and to every ``admin_group_object_ids`` group, then waits
``access.propagation_wait_seconds`` (default 300: Microsoft documents up to five minutes before a new
assignment is enforced) with a ``time.Sleep`` that re-runs when an assignment is replaced. The Kubernetes provider
and every Kubernetes resource depend on that wait (:attr:`AksGpuCluster.kubernetes_access`). Creating role
assignments needs Owner or User Access Administrator on the cluster's resource group.

Credentials and kubelogin
-------------------------
Local accounts are disabled, so admin credentials are refused. :attr:`AksGpuCluster.kubeconfig` is the *user*
kubeconfig (``listClusterUserCredential`` with ``format=exec``), kept secret. It authenticates through the
``kubelogin`` exec plugin: whoever runs ``pulumi up`` needs ``kubelogin`` on ``PATH`` and an Entra identity with an
AKS RBAC role on the cluster (see ``admin_group_object_ids``). Pick the login method with the environment
variable ``AAD_LOGIN_METHOD`` (``azurecli`` on a workstation after ``az login``; ``workloadidentity``, ``spn`` or
``msi`` in CI).

Arguments and validation
------------------------
:class:`AksGpuClusterArgs` checks itself when built, with the rules the stack config and the policy pack apply: the
Kubernetes version AKS creates today for the tier and support plan (:mod:`gpu_catalog.lifecycle`), long-term support
needs Premium, cost analysis needs a paid tier, KAITO needs the OIDC issuer (:mod:`rules.aks`); its GPU pools
(:class:`~components.gpu_node_pool.GpuPoolSpec`) check themselves. A wrong value raises
:class:`~components.validation.InvalidArgsError` before anything is registered.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pulumi
from pulumi.resource import DependencyResource
from pulumi_azure_native import authorization, containerservice, operationalinsights, resources
from pulumiverse_time import Sleep

from gpu_catalog import clock
from gpu_catalog.access import cluster_admin_role, load_access_facts
from gpu_catalog.lifecycle import DEFAULT_SUPPORT_PLAN
from gpu_catalog.node_disks import node_disks
from rules import Finding
from rules import aks as rules_aks
from rules.access import deployer_principal_type
from rules.aks import (
    pool_version_skew,
    system_pool_size,
)
from rules.checklists import aks_cluster
from rules.hardening import (
    DEFAULT_MAX_PODS,
    DEFAULT_OS_DISK_GIB,
    DEFAULT_ROTATION_POLL,
    ApiServer,
    api_server_access,
    api_server_open,
    container_insights_off,
    encryption_at_host_off,
    encryption_at_host_unverified,
    network_policy,
    network_policy_off,
    node_hardening,
    rotation_poll_interval,
)
from rules.karpenter import AgentPoolFacts, nap_agent_pools
from rules.lifecycle import check_kubernetes_version
from rules.node_stack import kaito_addon_with_nap
from rules.upgrade import channel_owns_version, upgrade_channel_range, validated_minors, version_pin_fits_channel

from .container_insights import ContainerInsightsArgs, container_insights_collection, omsagent_config
from .gpu_node_pool import GpuNodePool, GpuNodePoolArgs, GpuPoolSpec
from .validation import refuse_findings

if TYPE_CHECKING:
    import pulumi_kubernetes as k8s

TYPE_TOKEN = "azure-gpu-platform:components:AksGpuCluster"
COMPONENT = "AksGpuCluster"
SYSTEM_POOL_NAME = "system"

CHANNEL_OWNED_CLUSTER_PROPERTIES: tuple[str, ...] = ("kubernetesVersion", "agentPoolProfiles[0].orchestratorVersion")
"""The ``ManagedCluster`` inputs (wire names, as ``ignore_changes`` takes them) an auto-upgrade channel that moves the
minor (``stable``, ``rapid``) owns: the control plane's version and the inline system pool's (index 0). AKS moves
them; the program ignores the drift instead of asking for a downgrade (:func:`rules.upgrade.channel_owns_version`)."""


@dataclass(frozen=True)
class SystemPoolSpec:
    """The inline System-mode pool (never a GPU size: GPU pools are separate AgentPools)."""

    vm_size: str = "Standard_D4ds_v5"
    count: int = 2
    """At least two nodes so system add-ons survive a node upgrade or failure."""
    zones: tuple[str, ...] = ()
    os_sku: str = "AzureLinux"
    only_critical_addons: bool = False
    """Taint the pool ``CriticalAddonsOnly=true:NoSchedule``."""
    encryption_at_host: bool = False
    """Needs the subscription feature ``Microsoft.Compute/EncryptionAtHost``."""
    os_disk_type: str = "Managed"
    """``Ephemeral`` or ``Managed``; the OS disk is :data:`rules.hardening.DEFAULT_OS_DISK_GIB` GiB."""
    max_pods: int = DEFAULT_MAX_PODS


@dataclass(frozen=True)
class ClusterAccess:
    """Who gets AKS RBAC Cluster Admin on the Kubernetes API (module docstring)."""

    grant_deployer: bool = True
    """The identity running ``pulumi up`` (with every admin group)."""
    deployer_principal_type: str | None = None
    """``User`` or ``ServicePrincipal`` (a service principal or managed identity); required while ``grant_deployer``
    (:func:`rules.access.deployer_principal_type`): unset, pulumi-azure-native 3.29.0 would send ``User``."""
    propagation_wait_seconds: int = field(default_factory=lambda: load_access_facts().propagation_seconds)
    """How long Kubernetes resources wait after the role assignments (0: not at all)."""


_FIELDS = {
    "kubernetesVersion": "kubernetes_version",
    "tier": "sku_tier",
    "supportPlan": "support_plan",
    "oidcIssuer": "oidc_issuer",
    "workloadIdentity": "workload_identity",
    "deployerPrincipalType": "access.deployer_principal_type",
    "autoUpgradeChannel": "auto_upgrade_channel",
    "dataplane": "network_dataplane",
    "policy": "network_policy",
    "rotationPollInterval": "secret_rotation_poll_interval",
}
"""A rule's field → the :class:`AksGpuClusterArgs` field."""


@dataclass(frozen=True)
class AksGpuClusterArgs:
    """One AKS cluster and its GPU pools. Checks itself when built (module docstring)."""

    cluster_name: str
    resource_group_name: str
    location: str
    kubernetes_version: str
    """A version AKS creates today (``1.36`` or ``1.36.2``), checked against the release calendar."""
    create_resource_group: bool = True
    """``False``: the resource group exists already."""
    sku_tier: str = "Standard"
    support_plan: str = DEFAULT_SUPPORT_PLAN
    system_pool: SystemPoolSpec = field(default_factory=SystemPoolSpec)
    access: ClusterAccess = field(default_factory=ClusterAccess)
    admin_group_object_ids: tuple[str, ...] = ()
    """Entra ID groups granted cluster-admin through Azure RBAC (local accounts are always disabled)."""
    auto_upgrade_channel: str = "stable"
    """``stable``/``rapid`` own the Kubernetes version: drift on ``kubernetesVersion`` and the pools'
    ``orchestratorVersion`` is ignored (:data:`CHANNEL_OWNED_CLUSTER_PROPERTIES`); refused when it can move the cluster
    past the pinned GPU operator's or KAITO add-on's validated range (:mod:`rules.upgrade`)."""
    node_os_upgrade_channel: str = "NodeImage"
    oidc_issuer: bool = True
    workload_identity: bool = True
    cost_analysis: bool = False
    kaito_addon: bool = False
    """The KAITO (AI toolchain operator) add-on."""
    protect: bool = False
    """Protect the cluster and a resource group it creates from deletion and replacement."""
    tags: Mapping[str, str] = field(default_factory=dict)
    gpu_pools: Sequence[GpuPoolSpec] = ()
    """Created one after another, in this order."""
    node_auto_provisioning: bool = False
    """``nodeProvisioningProfile.mode: Auto`` (node auto-provisioning, for Karpenter GPU NodePools):
    :mod:`components.nap_pool`."""
    api_server: ApiServer = field(default_factory=ApiServer)
    """``apiServerAccessProfile``: authorized IPv4 CIDRs or a private cluster; neither is an advisory warning."""
    network_dataplane: str = "azure"
    network_policy: str = "none"
    """With the dataplane (:data:`rules.hardening.ALLOWED_POLICIES`); ``none`` is an advisory warning."""
    container_insights: bool = False
    """The ``omsagent`` add-on (Container Insights) to :attr:`log_analytics_workspace_id`, or to a workspace this
    component creates (``log-<cluster name>``)."""
    log_analytics_workspace_id: str | None = None
    log_retention_days: int = 30
    secrets_store: bool = False
    """The ``azureKeyvaultSecretsProvider`` add-on (Secrets Store CSI driver) with secret rotation."""
    secret_rotation_poll_interval: str = DEFAULT_ROTATION_POLL
    prometheus_node_labels: tuple[str, ...] | None = None
    """``azureMonitorProfile.metrics`` (Azure Monitor managed Prometheus, :mod:`components.monitoring`) on, with these
    node label keys added to kube-state-metrics' ``kube_node_labels``; ``None``: off."""

    def __post_init__(self) -> None:
        refuse_findings(COMPONENT, self.cluster_name, cluster_findings(self), _FIELDS)

    @property
    def facts(self) -> rules_aks.Cluster:
        """The cluster as the AKS rules see it."""
        return rules_aks.Cluster(
            tier=self.sku_tier,
            support_plan=self.support_plan,
            cost_analysis=self.cost_analysis,
            kaito_addon=self.kaito_addon,
            oidc_issuer=self.oidc_issuer,
            workload_identity=self.workload_identity,
        )


def cluster_findings(args: AksGpuClusterArgs) -> list[Finding]:
    """Every guard rail the cluster breaks (its GPU pools check themselves), on :func:`gpu_catalog.clock.today` (read
    once)."""
    today = clock.today()
    found: list[Finding] = []
    version = check_kubernetes_version(
        args.kubernetes_version, today=today, tier=args.sku_tier, support_plan=args.support_plan
    )
    if version is not None:
        found.append(Finding("kubernetesVersion", version.message))
    for pool in args.gpu_pools:  # each pool's own version, with this cluster's tier and support plan
        if pool.orchestrator_version is not None:
            ended = check_kubernetes_version(
                pool.orchestrator_version, today=today, tier=args.sku_tier, support_plan=args.support_plan
            )
            found += [Finding("gpu_pools", f"{pool.name}: {ended.message}")] if ended is not None else []
    facts = args.facts
    found += [Finding("system_pool", f"vmSize: {f.message}") for f in system_pool_size(args.system_pool.vm_size)]
    found += deployer_principal_type(args.access.grant_deployer, args.access.deployer_principal_type)
    channel = args.auto_upgrade_channel
    operator = next((p.gpu_operator for p in args.gpu_pools if p.gpu_operator is not None), None)
    validated = validated_minors(
        gpu_operator_version=operator.version if operator is not None else None, kaito_addon=args.kaito_addon
    )
    found += upgrade_channel_range(channel, args.kubernetes_version, validated, today=today)
    found += version_pin_fits_channel(args.kubernetes_version, channel)
    for pool in args.gpu_pools:  # a pool's own rules run in its spec; its version against this control plane here
        if pool.orchestrator_version is not None:
            skew = pool_version_skew(pool.orchestrator_version, args.kubernetes_version)
            found += [Finding("gpu_pools", f"{pool.name}: {f.message}") for f in skew]
            if pool.orchestrator_version != args.kubernetes_version:  # the same pin is reported once, on the cluster
                pin = version_pin_fits_channel(pool.orchestrator_version, channel, "orchestratorVersion")
                found += [Finding("gpu_pools", f"{pool.name}: {f.message}") for f in pin]
    if args.node_auto_provisioning:
        nap = nap_agent_pools([AgentPoolFacts(p.name, p.autoscaling, p.os) for p in args.gpu_pools])
        found += [Finding("gpu_pools", f.message) for f in nap]
    found += [Finding(f"api_server.{f.field}", f.message) for f in api_server_access(args.api_server)]
    windows = [p.name for p in args.gpu_pools if p.os == "Windows"]
    found += network_policy(
        args.network_dataplane,
        args.network_policy,
        windows_pools=windows,
        node_auto_provisioning=args.node_auto_provisioning,
    )
    found += rotation_poll_interval(args.secret_rotation_poll_interval)
    sp = args.system_pool
    found += [
        Finding(f"system_pool.{f.field}", f.message)
        for f in node_hardening(
            sp.vm_size, node_disks(sp.vm_size), encryption_at_host=sp.encryption_at_host, os_disk_type=sp.os_disk_type
        )
    ]
    return [*found, *aks_cluster(facts, today=today)]


def advisory_findings(args: AksGpuClusterArgs) -> list[Finding]:
    """What the cluster leaves open (reported as warnings, never refused): an API server open to the internet, no
    network policy, no Container Insights, encryption at host not verifiable offline."""
    sp = args.system_pool
    return [
        *api_server_open(args.api_server),
        *network_policy_off(args.network_policy),
        *container_insights_off(args.container_insights),
        *encryption_at_host_unverified(sp.vm_size, node_disks(sp.vm_size), sp.encryption_at_host),
        *encryption_at_host_off(
            [
                *([SYSTEM_POOL_NAME] if not sp.encryption_at_host else []),
                *(p.name for p in args.gpu_pools if not p.encryption_at_host),
            ]
        ),
    ]


def after(previous: pulumi.Resource) -> pulumi.Output[pulumi.Resource]:
    """What a pool ``depends_on`` to wait for ``previous``: a stand-in carrying only ``previous``'s URN.

    The engine gets exactly the dependency ``depends_on=[previous]`` gives (the URN, so creation, update and deletion
    stay ordered, one agent-pool operation at a time) and the registration waits for ``previous`` as before. What
    changes is the SDK's own cycle check: it records every ``depends_on`` edge and, for each new one, walks everything
    the dependency depends on — recursively, one Python frame per link. Depending on ``previous`` itself made that walk
    as deep as the chain (pool n → pool n-1 → … → cluster: ``RecursionError`` at about 1,000 pools, quadratic time
    before that); the stand-in (``pulumi.resource.DependencyResource``, the SDK's own reference to a resource known by
    URN, never registered) depends on nothing, so the walk is one step at any length.
    """

    async def stand_in() -> pulumi.Resource:
        return DependencyResource(await previous.urn.future() or "")

    async def known() -> bool:
        return True

    return pulumi.Output(set(), asyncio.ensure_future(stand_in()), asyncio.ensure_future(known()))


def _decode_kubeconfig(result: containerservice.ListManagedClusterUserCredentialsResult) -> str:
    if not result.kubeconfigs:
        raise pulumi.RunError("AKS returned no user kubeconfig for the cluster")
    return base64.b64decode(result.kubeconfigs[0].value).decode("utf-8")


def _system_pool_profile(args: AksGpuClusterArgs) -> containerservice.ManagedClusterAgentPoolProfileArgs:
    """The inline System pool: a non-GPU size, critical add-ons only when asked, the control plane's version."""
    sp = args.system_pool
    return containerservice.ManagedClusterAgentPoolProfileArgs(
        name=SYSTEM_POOL_NAME,
        mode="System",
        vm_size=sp.vm_size,
        count=sp.count,
        enable_auto_scaling=False,
        os_type="Linux",
        os_sku=sp.os_sku,
        type="VirtualMachineScaleSets",
        availability_zones=list(sp.zones) or None,
        enable_node_public_ip=False,
        node_taints=["CriticalAddonsOnly=true:NoSchedule"] if sp.only_critical_addons else None,
        orchestrator_version=args.kubernetes_version,
        enable_encryption_at_host=sp.encryption_at_host,
        os_disk_type=sp.os_disk_type,
        os_disk_size_gb=DEFAULT_OS_DISK_GIB,
        max_pods=sp.max_pods,
    )


def _addon_profiles(
    args: AksGpuClusterArgs, workspace_id: pulumi.Input[str] | None
) -> dict[str, containerservice.ManagedClusterAddonProfileArgs]:
    """Container Insights (omsagent) and the Key Vault Secrets Store CSI add-on, when on."""
    addons: dict[str, containerservice.ManagedClusterAddonProfileArgs] = {}
    if args.container_insights and workspace_id is not None:
        addons["omsagent"] = containerservice.ManagedClusterAddonProfileArgs(
            enabled=True, config=omsagent_config(workspace_id)
        )
    if args.secrets_store:
        addons["azureKeyvaultSecretsProvider"] = containerservice.ManagedClusterAddonProfileArgs(
            enabled=True,
            config={"enableSecretRotation": "true", "rotationPollInterval": args.secret_rotation_poll_interval},
        )
    return addons


class AksGpuCluster(pulumi.ComponentResource):
    """The AKS cluster of one environment and its GPU node pools (chained)."""

    resource_group: resources.ResourceGroup | None
    cluster: containerservice.ManagedCluster
    log_analytics_workspace: operationalinsights.Workspace | None
    """The Container Insights workspace this component created (``None``: none, or one given by id)."""
    pools: list[GpuNodePool]
    resource_group_name: pulumi.Output[str]
    cluster_name: pulumi.Output[str]
    cluster_id: pulumi.Output[str]
    oidc_issuer_url: pulumi.Output[str | None]
    kubeconfig: pulumi.Output[str]
    role_assignments: list[authorization.RoleAssignment]
    kubernetes_access: list[pulumi.Resource]
    """What every Kubernetes resource must wait for: the data-plane role assignments' propagation wait (or the
    cluster when access is granted elsewhere)."""

    def __init__(self, name: str, args: AksGpuClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        self._name = name
        self._k8s_provider: k8s.Provider | None = None
        protect = args.protect
        tags = dict(args.tags)
        rg_name = args.resource_group_name

        if args.create_resource_group:
            self.resource_group = resources.ResourceGroup(
                f"{name}-rg",
                resource_group_name=rg_name,
                location=args.location,
                tags=tags,
                opts=pulumi.ResourceOptions(parent=self, protect=protect),
            )
            rg_deps: list[pulumi.Resource] = [self.resource_group]
        else:
            self.resource_group = None
            rg_deps = []

        owned_by_channel = channel_owns_version(args.auto_upgrade_channel)
        system_pool = _system_pool_profile(args)
        log_workspace_id = self._log_workspace(name, args, rg_deps)
        addons = _addon_profiles(args, log_workspace_id)
        self.cluster = self._managed_cluster(
            name, args, system_pool=system_pool, addons=addons, rg_deps=rg_deps, owned_by_channel=owned_by_channel
        )
        if "omsagent" in addons and log_workspace_id is not None:  # managed-identity Container Insights
            ci = ContainerInsightsArgs(args.cluster_name, rg_name, args.location, tags)
            container_insights_collection(name, ci, workspace_id=log_workspace_id, cluster=self.cluster, parent=self)

        # Known strings (not provider outputs) for names, with explicit dependencies: values stay known in a
        # preview and under mocks, and ordering is still right.
        self.resource_group_name = pulumi.Output.from_input(rg_name)
        self.cluster_name = pulumi.Output.from_input(args.cluster_name)
        self.cluster_id = self.cluster.id
        self.oidc_issuer_url = self.cluster.oidc_issuer_profile.apply(lambda p: p.issuer_url if p is not None else None)
        creds = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=rg_name,
            resource_name=args.cluster_name,
            format="exec",
            opts=pulumi.InvokeOutputOptions(parent=self, depends_on=[self.cluster]),
        )
        self.kubeconfig = pulumi.Output.secret(creds.apply(_decode_kubeconfig))
        self.role_assignments, self.kubernetes_access = self._grant_kubernetes_access(name, args)

        for finding in [*kaito_addon_with_nap(args.kaito_addon, args.node_auto_provisioning), *advisory_findings(args)]:
            pulumi.log.warn(f"{COMPONENT} '{args.cluster_name}': {finding.message}", resource=self)

        self.pools = self._gpu_pools(name, args, owned_by_channel)

        self.register_outputs(
            {
                "clusterName": self.cluster_name,
                "clusterId": self.cluster_id,
                "resourceGroupName": self.resource_group_name,
                "oidcIssuerUrl": self.oidc_issuer_url,
            }
        )

    def _managed_cluster(
        self,
        name: str,
        args: AksGpuClusterArgs,
        *,
        system_pool: containerservice.ManagedClusterAgentPoolProfileArgs,
        addons: dict[str, containerservice.ManagedClusterAddonProfileArgs],
        rg_deps: list[pulumi.Resource],
        owned_by_channel: bool,
    ) -> containerservice.ManagedCluster:
        """The ManagedCluster (Entra ID + Azure RBAC, Azure CNI Overlay, the System pool inline, GPU pools apart)."""
        api = args.api_server
        return containerservice.ManagedCluster(
            f"{name}-cluster",
            resource_group_name=args.resource_group_name,
            resource_name_=args.cluster_name,
            location=args.location,
            dns_prefix=args.cluster_name,
            kubernetes_version=args.kubernetes_version,
            sku=containerservice.ManagedClusterSKUArgs(name="Base", tier=args.sku_tier),
            support_plan=args.support_plan,
            identity=containerservice.ManagedClusterIdentityArgs(
                type=containerservice.ResourceIdentityType.SYSTEM_ASSIGNED
            ),
            agent_pool_profiles=[system_pool],
            enable_rbac=True,
            disable_local_accounts=True,
            aad_profile=containerservice.ManagedClusterAADProfileArgs(
                managed=True,
                enable_azure_rbac=True,
                admin_group_object_ids=list(args.admin_group_object_ids) or None,
            ),
            oidc_issuer_profile=containerservice.ManagedClusterOIDCIssuerProfileArgs(enabled=args.oidc_issuer),
            security_profile=containerservice.ManagedClusterSecurityProfileArgs(
                workload_identity=containerservice.ManagedClusterSecurityProfileWorkloadIdentityArgs(
                    enabled=args.workload_identity
                ),
            ),
            auto_upgrade_profile=containerservice.ManagedClusterAutoUpgradeProfileArgs(
                upgrade_channel=args.auto_upgrade_channel,
                node_os_upgrade_channel=args.node_os_upgrade_channel,
            ),
            network_profile=containerservice.ContainerServiceNetworkProfileArgs(
                network_plugin="azure",
                network_plugin_mode="overlay",
                network_dataplane=args.network_dataplane,
                network_policy=args.network_policy,
                load_balancer_sku="standard",
            ),
            api_server_access_profile=containerservice.ManagedClusterAPIServerAccessProfileArgs(
                authorized_ip_ranges=list(api.authorized_ip_ranges) or None,
                enable_private_cluster=True if api.private_cluster else None,
            )
            if api.restricted
            else None,
            addon_profiles=addons or None,
            metrics_profile=containerservice.ManagedClusterMetricsProfileArgs(
                cost_analysis=containerservice.ManagedClusterCostAnalysisArgs(enabled=True)
            )
            if args.cost_analysis
            else None,
            ai_toolchain_operator_profile=containerservice.ManagedClusterAIToolchainOperatorProfileArgs(enabled=True)
            if args.kaito_addon
            else None,
            azure_monitor_profile=_azure_monitor_profile(args.prometheus_node_labels),
            # NAP for Karpenter GPU NodePools (default NodePools stay); its limits: gpu_catalog/facts/karpenter.json.
            node_provisioning_profile=containerservice.ManagedClusterNodeProvisioningProfileArgs(
                mode="Auto", default_node_pools="Auto"
            )
            if args.node_auto_provisioning
            else None,
            tags=dict(args.tags),
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=args.protect,
                depends_on=rg_deps,
                ignore_changes=list(CHANNEL_OWNED_CLUSTER_PROPERTIES) if owned_by_channel else None,
            ),
        )

    def _log_workspace(
        self, name: str, args: AksGpuClusterArgs, rg_deps: list[pulumi.Resource]
    ) -> pulumi.Input[str] | None:
        """The Log Analytics workspace Container Insights sends to: the stack's, or one created here."""
        self.log_analytics_workspace = None
        workspace_id: pulumi.Input[str] | None = args.log_analytics_workspace_id
        if args.container_insights and workspace_id is None:
            self.log_analytics_workspace = operationalinsights.Workspace(
                f"{name}-logs",
                resource_group_name=args.resource_group_name,
                workspace_name=f"log-{args.cluster_name}",
                location=args.location,
                sku=operationalinsights.WorkspaceSkuArgs(name="PerGB2018"),
                retention_in_days=args.log_retention_days,
                tags=dict(args.tags),
                opts=pulumi.ResourceOptions(parent=self, depends_on=rg_deps),
            )
            workspace_id = self.log_analytics_workspace.id
        return workspace_id

    def _gpu_pools(self, name: str, args: AksGpuClusterArgs, owned_by_channel: bool) -> list[GpuNodePool]:
        """The GPU pools, one after another (AKS: one agent-pool operation at a time), a flat chain."""
        pools: list[GpuNodePool] = []
        previous: pulumi.Resource = self.cluster
        for spec in args.gpu_pools:
            node_pool = GpuNodePool(
                f"{name}-{spec.name}",
                GpuNodePoolArgs(
                    pool=spec,
                    resource_group_name=args.resource_group_name,
                    cluster_name=args.cluster_name,
                    version_owned_by_channel=owned_by_channel,
                ),
                opts=pulumi.ResourceOptions(parent=self),
                after=after(previous),
            )
            pools.append(node_pool)
            previous = node_pool.agent_pool
        return pools

    def _grant_kubernetes_access(
        self, name: str, args: AksGpuClusterArgs
    ) -> tuple[list[authorization.RoleAssignment], list[pulumi.Resource]]:
        """Cluster Admin for the deploying identity and the admin groups, then the propagation wait."""
        access = args.access
        groups = list(args.admin_group_object_ids)
        if not access.grant_deployer and not groups:
            return [], [self.cluster]
        role = cluster_admin_role()
        client = authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(parent=self))
        definition = client.subscription_id.apply(role.definition_id)
        principals: list[tuple[str, pulumi.Input[str], str | None]] = []
        if access.grant_deployer:
            principals.append(("deployer", client.object_id, access.deployer_principal_type))
        principals += [(f"group-{group.lower()}", group, "Group") for group in groups]
        assignments = [
            authorization.RoleAssignment(
                f"{name}-access-{suffix}",
                scope=self.cluster.id,
                role_definition_id=definition,
                principal_id=principal,
                principal_type=principal_type,
                description=f"{role.name} for azure-gpu-platform ({suffix})",
                opts=pulumi.ResourceOptions(parent=self),
            )
            for suffix, principal, principal_type in principals
        ]
        if access.propagation_wait_seconds == 0:
            return assignments, list(assignments)
        wait = Sleep(
            f"{name}-access-wait",
            create_duration=f"{access.propagation_wait_seconds}s",
            triggers={suffix: a.id for (suffix, _, _), a in zip(principals, assignments, strict=True)},
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(assignments)),
        )
        return assignments, [wait]

    def kubernetes_provider(self) -> k8s.Provider:
        """A Kubernetes provider for this cluster (created once, on first use), from the secret user kubeconfig.

        Needs ``kubelogin`` where ``pulumi up`` runs (see the module docstring).
        """
        if self._k8s_provider is None:
            import pulumi_kubernetes as k8s

            self._k8s_provider = k8s.Provider(
                f"{self._name}-k8s",
                kubeconfig=self.kubeconfig,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[self.cluster, *self.kubernetes_access]),
            )
        return self._k8s_provider


def _azure_monitor_profile(
    node_labels: tuple[str, ...] | None,
) -> containerservice.ManagedClusterAzureMonitorProfileArgs | None:
    """The metrics add-on (managed Prometheus); kube-state-metrics keeps ``node_labels`` on ``kube_node_labels``."""
    if node_labels is None:
        return None
    allow = f"nodes=[{','.join(node_labels)}]" if node_labels else None
    return containerservice.ManagedClusterAzureMonitorProfileArgs(
        metrics=containerservice.ManagedClusterAzureMonitorProfileMetricsArgs(
            enabled=True,
            kube_state_metrics=containerservice.ManagedClusterAzureMonitorProfileKubeStateMetricsArgs(
                metric_labels_allowlist=allow
            )
            if allow
            else None,
        )
    )
