"""The AKS cluster, defined once: its fields, every default resolved here, and its whole checklist.

``AksCluster(cluster_name=..., resource_group_name=..., location=..., kubernetes_version=..., ...)`` is the cluster
every door builds: the stack config parses ``cluster`` (with ``resourceGroup`` and the stack's pools) into it
(:meth:`stack_config.models.ClusterConfig.spec`, with what the stack adds in :func:`stack_config.specs.aks_cluster`),
the Python API constructs it (``components.aks_cluster.AksGpuClusterArgs`` is this spec plus the landing zone,
refusing its findings at construction), the component package maps its ``AksGpuCluster`` inputs to it
(``component_package/aks_gpu_cluster.py``; ``tests/components/test_three_ways.py`` checks its inputs against the
fields). A field left out gets the same default whichever door it came in by.

Resolved defaults (from the catalog and the facts): the system pool's encryption at host and OS disk type
(:class:`SystemPoolSpec`, the catalog's ``nodeDisks``), how long Kubernetes resources wait for new role assignments
(:class:`ClusterAccess`, ``gpu_catalog/facts/aks_access.json``), the support plan (``KubernetesOfficial``), the
upgrade channels (``stable``, ``NodeImage``).

The checklist (:meth:`AksCluster.findings`, ``today`` passed in): the Kubernetes version against AKS's calendar with
the cluster's tier and support plan (its own and each GPU pool's), the system pool's size and node hardening, the
deployer's principal type, the auto-upgrade channel against the pinned GPU software and the version pins, each GPU
pool's version against the control plane, the system pool's ``upgradeSettings`` (no ``maxUnavailable`` on a
System pool: :func:`rules.network.system_pool_max_unavailable`), NAP's limits on agent pools, API server access, the
network policy with its dataplane, secret rotation, Image Cleaner's interval, and :func:`rules.checklists.aks_cluster`
(tier, support plan, cost analysis, KAITO, OIDC and workload identity). The GPU pools check themselves (their own
spec). What the cluster leaves open is :meth:`AksCluster.advisories` (warnings, never refused). Fields are named as the
Python API names them (``system_pool``, ``gpu_pools``, ``api_server.authorized_ip_ranges``) or as the rule does
(``kubernetesVersion``, ``tier``); each caller maps them to its own key paths.

Pure: no Pulumi import, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date

from gpu_catalog.access import load_access_facts
from gpu_catalog.lifecycle import DEFAULT_SUPPORT_PLAN
from gpu_catalog.node_disks import node_disks

from .. import Finding
from .. import aks as rules_aks
from ..access import deployer_principal_type
from ..aks import pool_version_skew, system_pool_size
from ..checklists import aks_cluster
from ..hardening import (
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
from ..karpenter import AgentPoolFacts, nap_agent_pools
from ..lifecycle import check_kubernetes_version
from ..network import UpgradeSettings
from ..upgrade import upgrade_channel_range, validated_minors, version_pin_fits_channel
from .aks_gpu_pool import AksGpuPool

SYSTEM_POOL_NAME = "system"
"""The inline System-mode pool's name."""


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


@dataclass(frozen=True)
class AksCluster:
    """One AKS cluster and its GPU pools: every field a door may set, every default resolved once (module
    docstring)."""

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
    gpu_pools: Sequence[AksGpuPool] = ()
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
    disable_run_command: bool = False
    """``apiServerAccessProfile.disableRunCommand``: Run Command bypasses the authorized ranges (an advisory warning
    while on; :func:`rules.hardening.run_command_enabled`)."""
    image_cleaner: bool = False
    """``securityProfile.imageCleaner`` on, every :attr:`image_cleaner_interval_hours`."""
    image_cleaner_interval_hours: int = IMAGE_CLEANER_DEFAULT_HOURS
    control_plane_logs: bool = False
    """A diagnostic setting sending the control-plane logs (:mod:`components.control_plane_logs`) to
    :attr:`log_analytics_workspace_id`, or to the workspace this component creates (``log-<cluster name>``)."""

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

    def findings(self, *, today: date) -> list[Finding]:
        """Every guard rail the cluster breaks on ``today`` (its GPU pools check themselves): module docstring."""
        found: list[Finding] = []
        version = check_kubernetes_version(
            self.kubernetes_version, today=today, tier=self.sku_tier, support_plan=self.support_plan
        )
        if version is not None:
            found.append(Finding("kubernetesVersion", version.message))
        for pool in self.gpu_pools:  # each pool's own version, with this cluster's tier and support plan
            if pool.orchestrator_version is not None:
                ended = check_kubernetes_version(
                    pool.orchestrator_version, today=today, tier=self.sku_tier, support_plan=self.support_plan
                )
                found += [Finding("gpu_pools", f"{pool.name}: {ended.message}")] if ended is not None else []
        facts = self.facts
        found += [Finding("system_pool", f"vmSize: {f.message}") for f in system_pool_size(self.system_pool.vm_size)]
        found += deployer_principal_type(self.access.grant_deployer, self.access.deployer_principal_type)
        channel = self.auto_upgrade_channel
        operator = next((p.gpu_operator for p in self.gpu_pools if p.gpu_operator is not None), None)
        validated = validated_minors(
            gpu_operator_version=operator.version if operator is not None else None, kaito_addon=self.kaito_addon
        )
        found += upgrade_channel_range(channel, self.kubernetes_version, validated, today=today)
        found += version_pin_fits_channel(self.kubernetes_version, channel)
        for pool in self.gpu_pools:  # a pool's own rules run in its spec; its version against this control plane here
            if pool.orchestrator_version is not None:
                skew = pool_version_skew(pool.orchestrator_version, self.kubernetes_version)
                found += [Finding("gpu_pools", f"{pool.name}: {f.message}") for f in skew]
                if pool.orchestrator_version != self.kubernetes_version:  # the same pin: reported once, on the cluster
                    pin = version_pin_fits_channel(pool.orchestrator_version, channel, "orchestratorVersion")
                    found += [Finding("gpu_pools", f"{pool.name}: {f.message}") for f in pin]
        if self.node_auto_provisioning:
            nap = nap_agent_pools([AgentPoolFacts(p.name, p.autoscaling, p.os) for p in self.gpu_pools])
            found += [Finding("gpu_pools", f.message) for f in nap]
        found += [Finding(f"api_server.{f.field}", f.message) for f in api_server_access(self.api_server)]
        windows = [p.name for p in self.gpu_pools if p.os == "Windows"]
        found += network_policy(
            self.network_dataplane,
            self.network_policy,
            windows_pools=windows,
            node_auto_provisioning=self.node_auto_provisioning,
        )
        found += rotation_poll_interval(self.secret_rotation_poll_interval)
        found += image_cleaner_interval(self.image_cleaner_interval_hours) if self.image_cleaner else []
        sp = self.system_pool
        upgrade = sp.upgrade.findings(system=True) if sp.upgrade is not None else []
        found += [Finding(f"system_pool.upgrade.{f.field}", f.message) for f in upgrade]
        found += [
            Finding(f"system_pool.{f.field}", f.message)
            for f in node_hardening(
                sp.vm_size,
                node_disks(sp.vm_size),
                encryption_at_host=sp.encryption_at_host,
                os_disk_type=sp.os_disk_type,
            )
        ]
        return [*found, *aks_cluster(facts, today=today)]

    def advisories(self) -> list[Finding]:
        """What the cluster leaves open (reported as warnings, never refused): an API server open to the internet, no
        network policy, no Container Insights, encryption at host not verifiable offline, and Microsoft's built-in AKS
        definitions it does not satisfy (Run Command, SSH on the nodes, Image Cleaner, control-plane logs)."""
        sp = self.system_pool
        ssh = {SYSTEM_POOL_NAME: sp.ssh_access, **{p.name: p.ssh_access for p in self.gpu_pools}}
        return [
            *api_server_open(self.api_server),
            *run_command_enabled(self.disable_run_command),
            *node_ssh_enabled(ssh),
            *image_cleaner_off(self.image_cleaner),
            *control_plane_logs_missing(CONTROL_PLANE_LOG_CATEGORIES if self.control_plane_logs else None),
            *network_policy_off(self.network_policy),
            *container_insights_off(self.container_insights),
            *encryption_at_host_unverified(sp.vm_size, node_disks(sp.vm_size), bool(sp.encryption_at_host)),
            *encryption_at_host_off(
                [
                    *([SYSTEM_POOL_NAME] if not sp.encryption_at_host else []),
                    *(p.name for p in self.gpu_pools if not p.encryption_at_host),
                ]
            ),
        ]


AKS_CLUSTER_FIELDS: frozenset[str] = frozenset(f.name for f in fields(AksCluster))
"""The spec's field names: a door maps its keys onto them."""
