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
someone holds an AKS data-plane role. Unless ``cluster.access.grantDeployer`` is false, the component assigns
*Azure Kubernetes Service RBAC Cluster Admin* (``gpu_catalog/facts/aks_access.json``) at the cluster's scope to the
identity running ``pulumi up`` (``authorization.getClientConfig``) and to every ``adminGroupObjectIds`` group, then
waits ``cluster.access.propagationWaitSeconds`` (default 300: Microsoft documents up to five minutes before a new
assignment is enforced) with a ``time.Sleep`` that re-runs when an assignment is replaced. The Kubernetes provider
and every Kubernetes resource depend on that wait (:attr:`AksGpuCluster.kubernetes_access`). Creating role
assignments needs Owner or User Access Administrator on the cluster's resource group.

Credentials and kubelogin
-------------------------
Local accounts are disabled, so admin credentials are refused. :attr:`AksGpuCluster.kubeconfig` is the *user*
kubeconfig (``listClusterUserCredential`` with ``format=exec``), kept secret. It authenticates through the
``kubelogin`` exec plugin: whoever runs ``pulumi up`` needs ``kubelogin`` on ``PATH`` and an Entra identity with an
AKS RBAC role on the cluster (see ``cluster.adminGroupObjectIds``). Pick the login method with the environment
variable ``AAD_LOGIN_METHOD`` (``azurecli`` on a workstation after ``az login``; ``workloadidentity``, ``spn`` or
``msi`` in CI).
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

import pulumi
from pulumi_azure_native import authorization, containerservice, resources
from pulumiverse_time import Sleep

from gpu_catalog.access import cluster_admin_role

from .config import StackConfig, StackConfigError, cluster_problems, stack_file_name
from .gpu_node_pool import GpuNodePool, GpuNodePoolArgs

if TYPE_CHECKING:
    import pulumi_kubernetes as k8s

TYPE_TOKEN = "azure-gpu-platform:components:AksGpuCluster"
SYSTEM_POOL_NAME = "system"


def _decode_kubeconfig(result: containerservice.ListManagedClusterUserCredentialsResult) -> str:
    if not result.kubeconfigs:
        raise pulumi.RunError("AKS returned no user kubeconfig for the cluster")
    return base64.b64decode(result.kubeconfigs[0].value).decode("utf-8")


class AksGpuCluster(pulumi.ComponentResource):
    """The AKS cluster of one environment and its GPU node pools (chained)."""

    resource_group: resources.ResourceGroup | None
    cluster: containerservice.ManagedCluster
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

    def __init__(self, name: str, cfg: StackConfig, opts: pulumi.ResourceOptions | None = None) -> None:
        problems = cluster_problems(cfg)
        if problems:
            raise StackConfigError(problems, stack_file_name())
        super().__init__(TYPE_TOKEN, name, None, opts)
        self._name = name
        self._k8s_provider: k8s.Provider | None = None
        c = cfg.cluster
        protect = cfg.protect
        tags = {**c.tags, "environment": cfg.environment, "managed-by": "pulumi:azure-gpu-platform"}

        if cfg.resourceGroup.existing:
            self.resource_group = None
            rg_deps: list[pulumi.Resource] = []
        else:
            self.resource_group = resources.ResourceGroup(
                f"{name}-rg",
                resource_group_name=cfg.resource_group_name,
                location=cfg.location,
                tags=tags,
                opts=pulumi.ResourceOptions(parent=self, protect=protect),
            )
            rg_deps = [self.resource_group]
        rg_name = cfg.resource_group_name

        sp = c.systemPool
        system_pool = containerservice.ManagedClusterAgentPoolProfileArgs(
            name=SYSTEM_POOL_NAME,
            mode="System",
            vm_size=sp.vmSize,
            count=sp.count,
            enable_auto_scaling=False,
            os_type="Linux",
            os_sku=sp.osSku,
            type="VirtualMachineScaleSets",
            availability_zones=list(sp.zones) or None,
            enable_node_public_ip=False,
            node_taints=["CriticalAddonsOnly=true:NoSchedule"] if sp.onlyCriticalAddons else None,
            orchestrator_version=c.kubernetesVersion,
        )
        oidc = c.oidcIssuer or cfg.kaito_addon
        self.cluster = containerservice.ManagedCluster(
            f"{name}-cluster",
            resource_group_name=rg_name,
            resource_name_=cfg.cluster_name,
            location=cfg.location,
            dns_prefix=cfg.cluster_name,
            kubernetes_version=c.kubernetesVersion,
            sku=containerservice.ManagedClusterSKUArgs(name="Base", tier=c.skuTier),
            support_plan=c.supportPlan,
            identity=containerservice.ManagedClusterIdentityArgs(
                type=containerservice.ResourceIdentityType.SYSTEM_ASSIGNED
            ),
            agent_pool_profiles=[system_pool],
            enable_rbac=True,
            disable_local_accounts=True,
            aad_profile=containerservice.ManagedClusterAADProfileArgs(
                managed=True,
                enable_azure_rbac=True,
                admin_group_object_ids=list(c.adminGroupObjectIds) or None,
            ),
            oidc_issuer_profile=containerservice.ManagedClusterOIDCIssuerProfileArgs(enabled=oidc),
            security_profile=containerservice.ManagedClusterSecurityProfileArgs(
                workload_identity=containerservice.ManagedClusterSecurityProfileWorkloadIdentityArgs(
                    enabled=c.workloadIdentity
                ),
            ),
            auto_upgrade_profile=containerservice.ManagedClusterAutoUpgradeProfileArgs(
                upgrade_channel=c.autoUpgradeChannel,
                node_os_upgrade_channel=c.nodeOsUpgradeChannel,
            ),
            network_profile=containerservice.ContainerServiceNetworkProfileArgs(
                network_plugin="azure",
                network_plugin_mode="overlay",
                load_balancer_sku="standard",
            ),
            metrics_profile=containerservice.ManagedClusterMetricsProfileArgs(
                cost_analysis=containerservice.ManagedClusterCostAnalysisArgs(enabled=True)
            )
            if c.costAnalysis
            else None,
            ai_toolchain_operator_profile=containerservice.ManagedClusterAIToolchainOperatorProfileArgs(enabled=True)
            if cfg.kaito_addon
            else None,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, protect=protect, depends_on=rg_deps),
        )

        # Known strings (not provider outputs) for names, with explicit dependencies: values stay known in a
        # preview and under mocks, and ordering is still right.
        self.resource_group_name = pulumi.Output.from_input(rg_name)
        self.cluster_name = pulumi.Output.from_input(cfg.cluster_name)
        self.cluster_id = self.cluster.id
        self.oidc_issuer_url = self.cluster.oidc_issuer_profile.apply(lambda p: p.issuer_url if p is not None else None)
        creds = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=rg_name,
            resource_name=cfg.cluster_name,
            format="exec",
            opts=pulumi.InvokeOutputOptions(parent=self, depends_on=[self.cluster]),
        )
        self.kubeconfig = pulumi.Output.secret(creds.apply(_decode_kubeconfig))
        self.role_assignments, self.kubernetes_access = self._grant_kubernetes_access(name, cfg)

        self.pools = []
        previous: pulumi.Resource | None = None
        for index, pool in enumerate(cfg.gpuPools):
            node_pool = GpuNodePool(
                f"{name}-{pool.name}",
                GpuNodePoolArgs(
                    stack=cfg,
                    index=index,
                    resource_group_name=rg_name,
                    cluster_name=cfg.cluster_name,
                    after=previous if previous is not None else self.cluster,
                ),
                opts=pulumi.ResourceOptions(parent=self),
            )
            self.pools.append(node_pool)
            previous = node_pool.agent_pool

        self.register_outputs(
            {
                "clusterName": self.cluster_name,
                "clusterId": self.cluster_id,
                "resourceGroupName": self.resource_group_name,
                "oidcIssuerUrl": self.oidc_issuer_url,
            }
        )

    def _grant_kubernetes_access(
        self, name: str, cfg: StackConfig
    ) -> tuple[list[authorization.RoleAssignment], list[pulumi.Resource]]:
        """Cluster Admin for the deploying identity and the admin groups, then the propagation wait."""
        access = cfg.cluster.access
        groups = list(cfg.cluster.adminGroupObjectIds)
        if not access.grantDeployer and not groups:
            return [], [self.cluster]
        role = cluster_admin_role()
        client = authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(parent=self))
        definition = client.subscription_id.apply(role.definition_id)
        principals: list[tuple[str, pulumi.Input[str], str | None]] = []
        if access.grantDeployer:
            principals.append(("deployer", client.object_id, access.deployerPrincipalType))
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
        if access.propagationWaitSeconds == 0:
            return assignments, list(assignments)
        wait = Sleep(
            f"{name}-access-wait",
            create_duration=f"{access.propagationWaitSeconds}s",
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
