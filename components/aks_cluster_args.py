"""The Args of :class:`components.aks_cluster.AksGpuCluster`: the system pool, cluster access and the cluster's
inputs, with the checks the component runs before it registers anything (refused) and the advisories it reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from gpu_catalog import clock
from gpu_catalog.access import load_access_facts
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
    CONTROL_PLANE_LOG_CATEGORIES,
    DEFAULT_MAX_PODS,
    DEFAULT_ROTATION_POLL,
    IMAGE_CLEANER_DEFAULT_HOURS,
    ApiServer,
    SshAccess,
    api_server_access,
    api_server_open,
    container_insights_off,
    control_plane_logs_missing,
    default_encryption_at_host,
    default_os_disk_type,
    encryption_at_host_off,
    encryption_at_host_unverified,
    image_cleaner_interval,
    image_cleaner_off,
    network_policy,
    network_policy_off,
    node_hardening,
    node_ssh_enabled,
    rotation_poll_interval,
    run_command_enabled,
)
from rules.karpenter import AgentPoolFacts, nap_agent_pools
from rules.lifecycle import check_kubernetes_version
from rules.network import UpgradeSettings
from rules.upgrade import upgrade_channel_range, validated_minors, version_pin_fits_channel

from .gpu_node_pool import GpuPoolSpec
from .landing_zone import (
    ClusterLandingZone,
    landing_zone_findings,
)
from .validation import refuse_findings

if TYPE_CHECKING:
    pass

COMPONENT = "AksGpuCluster"
SYSTEM_POOL_NAME = "system"


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
    encryption_at_host: bool | None = None
    """Needs the subscription feature ``Microsoft.Compute/EncryptionAtHost``. ``None``: on where the size's support is
    sourced (:func:`rules.hardening.default_encryption_at_host`), as a stack file's system pool."""
    os_disk_type: str | None = None
    """``Ephemeral`` or ``Managed``; the OS disk is :data:`rules.hardening.DEFAULT_OS_DISK_GIB` GiB. ``None``:
    ``Ephemeral`` where the size's temp disk holds it (:func:`rules.hardening.default_os_disk_type`)."""
    max_pods: int = DEFAULT_MAX_PODS
    vnet_subnet_id: str | None = None
    pod_subnet_id: str | None = None
    upgrade: UpgradeSettings | None = None
    ssh_access: SshAccess | None = None
    """``securityProfile.sshAccess``; ``None``: AKS's default (``LocalUser``, SSH on)."""

    def __post_init__(self) -> None:
        disks = node_disks(self.vm_size)
        if self.encryption_at_host is None:
            object.__setattr__(self, "encryption_at_host", default_encryption_at_host(disks))
        if self.os_disk_type is None:
            object.__setattr__(self, "os_disk_type", default_os_disk_type(disks))


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
    "intervalHours": "image_cleaner_interval_hours",
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
    version_owned_by_fleet: bool = False
    """A fleet's auto-upgrade profile moves this member cluster's Kubernetes version (:func:`rules.fleet.
    fleet_owns_version`): drift on it is ignored as under an owning ``auto_upgrade_channel``."""
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
    landing_zone: ClusterLandingZone = field(default_factory=ClusterLandingZone)
    """The company's network, identities, registries, maintenance windows (:mod:`components.landing_zone`); the
    default keeps AKS's own choices."""
    disable_run_command: bool = False
    """``apiServerAccessProfile.disableRunCommand``: Run Command bypasses the authorized ranges (an advisory warning
    while on; :func:`rules.hardening.run_command_enabled`)."""
    image_cleaner: bool = False
    """``securityProfile.imageCleaner`` on, every :attr:`image_cleaner_interval_hours`."""
    image_cleaner_interval_hours: int = IMAGE_CLEANER_DEFAULT_HOURS
    control_plane_logs: bool = False
    """A diagnostic setting sending the control-plane logs (:mod:`components.control_plane_logs`) to
    :attr:`log_analytics_workspace_id`, or to the workspace this component creates (``log-<cluster name>``)."""

    today: date | None = field(default=None, compare=False, repr=False)
    """The day the rules are checked on (the platform build passes the stack's); ``None``:
    :func:`gpu_catalog.clock.today`, read once when the Args are built."""

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
    today = args.today or clock.today()
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
    found += image_cleaner_interval(args.image_cleaner_interval_hours) if args.image_cleaner else []
    sp = args.system_pool
    found += [
        Finding(f"system_pool.{f.field}", f.message)
        for f in node_hardening(
            sp.vm_size, node_disks(sp.vm_size), encryption_at_host=sp.encryption_at_host, os_disk_type=sp.os_disk_type
        )
    ]
    found += landing_zone_findings(args.landing_zone, args.location, args.api_server.private_cluster)
    return [*found, *aks_cluster(facts, today=today)]


def advisory_findings(args: AksGpuClusterArgs) -> list[Finding]:
    """What the cluster leaves open (reported as warnings, never refused): an API server open to the internet, no
    network policy, no Container Insights, encryption at host not verifiable offline, and Microsoft's built-in AKS
    definitions it does not satisfy (Run Command, SSH on the nodes, Image Cleaner, control-plane logs)."""
    sp = args.system_pool
    ssh = {SYSTEM_POOL_NAME: sp.ssh_access, **{p.name: p.ssh_access for p in args.gpu_pools}}
    return [
        *api_server_open(args.api_server),
        *run_command_enabled(args.disable_run_command),
        *node_ssh_enabled(ssh),
        *image_cleaner_off(args.image_cleaner),
        *control_plane_logs_missing(CONTROL_PLANE_LOG_CATEGORIES if args.control_plane_logs else None),
        *network_policy_off(args.network_policy),
        *container_insights_off(args.container_insights),
        *encryption_at_host_unverified(sp.vm_size, node_disks(sp.vm_size), bool(sp.encryption_at_host)),
        *encryption_at_host_off(
            [
                *([SYSTEM_POOL_NAME] if not sp.encryption_at_host else []),
                *(p.name for p in args.gpu_pools if not p.encryption_at_host),
            ]
        ),
    ]
