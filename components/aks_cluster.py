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
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi.resource import DependencyResource
from pulumi_azure_native import authorization, containerservice, monitor, operationalinsights, resources
from pulumiverse_time import Sleep

from gpu_catalog.access import cluster_admin_role
from rules.hardening import (
    DEFAULT_OS_DISK_GIB,
)
from rules.node_stack import kaito_addon_with_nap
from rules.specs import ClusterAccess, SystemPoolSpec
from rules.upgrade import channel_owns_version

from .aks_cluster_args import (
    COMPONENT,
    SYSTEM_POOL_NAME,
    AksGpuClusterArgs,
    advisory_findings,
)
from .container_insights import ContainerInsightsArgs, container_insights_collection, omsagent_config
from .control_plane_logs import control_plane_logs
from .gpu_node_pool import GpuNodePool, GpuNodePoolArgs, upgrade_settings_args
from .landing_zone import (
    ClusterLandingZone,
    ResolvedIdentity,
    after_cluster,
    cluster_identity_kwargs,
    landing_identities,
)

if TYPE_CHECKING:
    import pulumi_kubernetes as k8s

TYPE_TOKEN = "azure-gpu-platform:components:AksGpuCluster"

__all__ = [
    "CHANNEL_OWNED_CLUSTER_PROPERTIES",
    "AksGpuCluster",
    "AksGpuClusterArgs",
    "ClusterAccess",
    "SystemPoolSpec",
    "advisory_findings",
    "after",
]

CHANNEL_OWNED_CLUSTER_PROPERTIES: tuple[str, ...] = ("kubernetesVersion", "agentPoolProfiles[0].orchestratorVersion")
"""The ``ManagedCluster`` inputs (wire names, as ``ignore_changes`` takes them) an auto-upgrade channel that moves the
minor (``stable``, ``rapid``) owns: the control plane's version and the inline system pool's (index 0). AKS moves
them; the program ignores the drift instead of asking for a downgrade (:func:`rules.upgrade.channel_owns_version`)."""


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
        vnet_subnet_id=sp.vnet_subnet_id,
        pod_subnet_id=sp.pod_subnet_id,
        upgrade_settings=upgrade_settings_args(sp.upgrade),
        security_profile=containerservice.AgentPoolSecurityProfileArgs(ssh_access=sp.ssh_access)
        if sp.ssh_access is not None
        else None,
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
    if args.landing_zone.azure_policy_addon:
        addons["azurepolicy"] = containerservice.ManagedClusterAddonProfileArgs(enabled=True)
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
    """The Container Insights / control-plane log workspace this component created (``None``: none, or one given by
    id)."""
    control_plane_logs: monitor.DiagnosticSetting | None
    """The diagnostic setting sending the control-plane logs to the workspace (``None``: off)."""
    pools: list[GpuNodePool]
    resource_group_name: pulumi.Output[str]
    cluster_name: pulumi.Output[str]
    cluster_id: pulumi.Output[str]
    oidc_issuer_url: pulumi.Output[str | None]
    kubeconfig: pulumi.Output[str]
    role_assignments: list[authorization.RoleAssignment]
    identities: dict[str, ResolvedIdentity]
    """The user-assigned identities (``controlPlane``, ``kubelet``) of the landing zone; empty: AKS's own."""
    landing_role_assignments: list[authorization.RoleAssignment]
    """The roles AKS needs in the landing zone (:func:`rules.identity.required_roles`)."""
    maintenance_configurations: list[containerservice.MaintenanceConfiguration]
    kubernetes_access: list[pulumi.Resource]
    """What every Kubernetes resource must wait for: the data-plane role assignments' propagation wait (or the
    cluster when access is granted elsewhere)."""

    def __init__(
        self,
        name: str,
        args: AksGpuClusterArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        before_cluster: Callable[[resources.ResourceGroup | None], Sequence[pulumi.Resource]] | None = None,
    ) -> None:
        """``before_cluster``: called once the resource group is registered (with it, or ``None`` for an existing
        group); the ManagedCluster — and so every GPU pool after it — depends on what it returns (e.g. an Azure Policy
        assignment that must judge their PUTs with its current parameters)."""
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

        guards = list(before_cluster(self.resource_group)) if before_cluster is not None else []
        owned_by_channel = channel_owns_version(args.auto_upgrade_channel) or args.version_owned_by_fleet
        rg_deps = [*rg_deps, *self._landing_identities(name, args, rg_deps)]
        system_pool = _system_pool_profile(args)
        log_workspace_id = self._log_workspace(name, args, rg_deps)
        addons = _addon_profiles(args, log_workspace_id)
        self.cluster = self._managed_cluster(
            name,
            args,
            system_pool=system_pool,
            addons=addons,
            rg_deps=[*rg_deps, *guards],
            owned_by_channel=owned_by_channel,
        )
        self.control_plane_logs = self._cluster_logs(name, args, addons, log_workspace_id)

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
        self._landing_after_cluster(name, args)

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

    def _cluster_logs(
        self,
        name: str,
        args: AksGpuClusterArgs,
        addons: Mapping[str, containerservice.ManagedClusterAddonProfileArgs],
        log_workspace_id: pulumi.Input[str] | None,
    ) -> monitor.DiagnosticSetting | None:
        """What goes to the Log Analytics workspace after the cluster: Container Insights' data collection rule and
        association (managed identity, with the ``omsagent`` add-on) and the control-plane logs' diagnostic setting."""
        if log_workspace_id is None:
            return None
        if "omsagent" in addons:  # managed-identity Container Insights
            ci = ContainerInsightsArgs(args.cluster_name, args.resource_group_name, args.location, dict(args.tags))
            container_insights_collection(name, ci, workspace_id=log_workspace_id, cluster=self.cluster, parent=self)
        if not args.control_plane_logs:
            return None
        return control_plane_logs(
            name, cluster_id=self.cluster.id, workspace_id=log_workspace_id, parent=self, depends_on=[self.cluster]
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
        return containerservice.ManagedCluster(
            f"{name}-cluster",
            resource_group_name=args.resource_group_name,
            resource_name_=args.cluster_name,
            location=args.location,
            dns_prefix=args.cluster_name,
            kubernetes_version=args.kubernetes_version,
            sku=containerservice.ManagedClusterSKUArgs(name="Base", tier=args.sku_tier),
            support_plan=args.support_plan,
            **self._identity_kwargs(),
            agent_pool_profiles=[system_pool],
            enable_rbac=True,
            disable_local_accounts=True,
            aad_profile=containerservice.ManagedClusterAADProfileArgs(
                managed=True,
                enable_azure_rbac=True,
                admin_group_object_ids=list(args.admin_group_object_ids) or None,
            ),
            oidc_issuer_profile=containerservice.ManagedClusterOIDCIssuerProfileArgs(enabled=args.oidc_issuer),
            security_profile=_security_profile(args),
            auto_upgrade_profile=containerservice.ManagedClusterAutoUpgradeProfileArgs(
                upgrade_channel=args.auto_upgrade_channel,
                node_os_upgrade_channel=args.node_os_upgrade_channel,
            ),
            network_profile=_network_profile(args),
            api_server_access_profile=_api_server_access_profile(args),
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

    def _landing_identities(
        self, name: str, args: AksGpuClusterArgs, rg_deps: list[pulumi.Resource]
    ) -> list[pulumi.Resource]:
        """The landing zone's user-assigned identities and the control plane's role assignments: what the cluster
        waits for (:mod:`components.landing_zone`)."""
        self.identities, self.landing_role_assignments = landing_identities(
            self,
            name,
            args.landing_zone,
            resource_group_name=args.resource_group_name,
            location=args.location,
            tags=dict(args.tags),
            depends_on=rg_deps,
        )
        created = [i.created for i in self.identities.values() if i.created is not None]
        return [*created, *self.landing_role_assignments]

    def _identity_kwargs(self) -> dict[str, Any]:
        return cluster_identity_kwargs(self.identities)

    def _landing_after_cluster(self, name: str, args: AksGpuClusterArgs) -> None:
        """AcrPull for the kubelet identity and the planned maintenance windows, after the cluster."""
        pulls, self.maintenance_configurations = after_cluster(
            self,
            name,
            args.landing_zone,
            self.identities,
            cluster=self.cluster,
            resource_group_name=args.resource_group_name,
            cluster_name=args.cluster_name,
        )
        self.landing_role_assignments = [*self.landing_role_assignments, *pulls]

    def _log_workspace(
        self, name: str, args: AksGpuClusterArgs, rg_deps: list[pulumi.Resource]
    ) -> pulumi.Input[str] | None:
        """The Log Analytics workspace Container Insights and the control-plane logs go to: the stack's, or one created
        here."""
        self.log_analytics_workspace = None
        workspace_id: pulumi.Input[str] | None = args.log_analytics_workspace_id
        if (args.container_insights or args.control_plane_logs) and workspace_id is None:
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


def _security_profile(args: AksGpuClusterArgs) -> containerservice.ManagedClusterSecurityProfileArgs:
    """Workload identity, and Image Cleaner when on (``intervalHours`` is always sent: ARM clients must)."""
    return containerservice.ManagedClusterSecurityProfileArgs(
        workload_identity=containerservice.ManagedClusterSecurityProfileWorkloadIdentityArgs(
            enabled=args.workload_identity
        ),
        image_cleaner=containerservice.ManagedClusterSecurityProfileImageCleanerArgs(
            enabled=True, interval_hours=args.image_cleaner_interval_hours
        )
        if args.image_cleaner
        else None,
        defender=_defender(args.landing_zone),
    )


def _api_server_access_profile(
    args: AksGpuClusterArgs,
) -> containerservice.ManagedClusterAPIServerAccessProfileArgs | None:
    """Authorized ranges or a private cluster, and Run Command off; ``None`` when none of them is set."""
    api = args.api_server
    if not (api.restricted or args.disable_run_command):
        return None
    return containerservice.ManagedClusterAPIServerAccessProfileArgs(
        authorized_ip_ranges=list(api.authorized_ip_ranges) or None,
        enable_private_cluster=True if api.private_cluster else None,
        private_dns_zone=args.landing_zone.private_dns_zone if api.private_cluster else None,
        disable_run_command=True if args.disable_run_command else None,
    )


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


def _network_profile(args: AksGpuClusterArgs) -> containerservice.ContainerServiceNetworkProfileArgs:
    """Azure CNI (overlay unless the landing zone asks for flat), the dataplane and policy, the landing zone's CIDRs and
    outbound type when stated (unset: AKS's defaults, as before)."""
    lz = args.landing_zone
    return containerservice.ContainerServiceNetworkProfileArgs(
        network_plugin="azure",
        network_plugin_mode="overlay" if lz.network_mode == "overlay" else None,
        network_dataplane=args.network_dataplane,
        network_policy=args.network_policy,
        load_balancer_sku="standard",
        pod_cidr=lz.pod_cidr,
        service_cidr=lz.service_cidr,
        dns_service_ip=lz.dns_service_ip,
        outbound_type=lz.outbound_type,
    )


def _defender(lz: ClusterLandingZone) -> containerservice.ManagedClusterSecurityProfileDefenderArgs | None:
    """Defender for Containers' security monitoring, when on."""
    if not lz.defender:
        return None
    return containerservice.ManagedClusterSecurityProfileDefenderArgs(
        log_analytics_workspace_resource_id=lz.defender_workspace_id,
        security_monitoring=containerservice.ManagedClusterSecurityProfileDefenderSecurityMonitoringArgs(enabled=True),
    )
