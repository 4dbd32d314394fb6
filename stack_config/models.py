"""The typed shape of a stack file's ``azure-gpu-platform:`` keys: constants and pydantic models."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, PrivateAttr, ValidationInfo, field_validator

from gpu_catalog import MIG_PROFILES, canonical_mig_profile, clock, default_catalog
from gpu_catalog.access import load_access_facts
from gpu_catalog.device_plugins import load_device_plugin_facts
from gpu_catalog.lifecycle import DEFAULT_SUPPORT_PLAN, default_gpu_operator_version
from gpu_catalog.node_disks import node_disks
from gpu_catalog.problems import show
from gpu_catalog.regions import check_region
from rules.access import DeployerPrincipalType
from rules.aks import (
    DEFAULT_GPU_TAINT,
    DriverMode,
    GpuOperator,
    SkuTier,
    SupportPlan,
)
from rules.hardening import (
    DEFAULT_MAX_PODS,
    DEFAULT_ROTATION_POLL,
    IMAGE_CLEANER_DEFAULT_HOURS,
    IMAGE_CLEANER_MAX_HOURS,
    IMAGE_CLEANER_MIN_HOURS,
    ApiServer,
    NetworkDataplane,
    NetworkPolicy,
    SshAccess,
    default_encryption_at_host,
    default_max_pods,
    default_os_disk_type,
)
from rules.limits import MAX_PODS_PER_NODE
from rules.network import NetworkMode, OutboundType
from rules.node_os import DEFAULT_OS_SKU
from rules.node_stack import DEVICE_PLUGIN_CHART, GPU_OPERATOR, KAITO_SAFE_TAINT, nvidia_mig_hint
from rules.sizes import DEFAULT_FLOOR
from rules.specs import AksCluster, AksGpuPool, ClusterAccess, SystemPoolSpec
from rules.upgrade import AutoUpgradeChannel, NodeOsUpgradeChannel

from .azure_policy import AzurePolicyConfig
from .base import TODAY, StrictModel, empty_section, worded
from .databricks import DatabricksConfig
from .fleet import FleetConfig
from .kaito import KaitoConfig, kaito_addon_enabled
from .landing_zone import (
    DefenderConfig,
    IdentityConfig,
    MaintenanceConfig,
    PoolUpgradeConfig,
    SubnetConfig,
    SubnetId,
)
from .monitoring import GpuMonitoringConfig
from .nap import GpuNodePoolConfig
from .sharing import SharingConfig
from .spec_models import spec_model
from .working_hours import WorkingHoursConfig

if TYPE_CHECKING:  # specs.py builds the stack's specs from these models
    from .specs import ClusterGiven

DEFAULT_GPU_OPERATOR_VERSION = default_gpu_operator_version()
"""Pinned NVIDIA gpu-operator chart version: the ``default`` of ``gpu_catalog/facts/gpu_operator.json`` (a release
NVIDIA validated for the Kubernetes versions below, with its sources)."""

DEFAULT_KUBERNETES_VERSION = "1.36"
"""AKS GA Jun 2026, end of life Jun 2027 (``gpu_catalog/facts/aks_kubernetes.json``); the newest minor the default
GPU operator and the KAITO add-on are validated on. A stack on it starts failing its preflight when AKS stops
creating it: the checks read the dates, not this constant."""


_K8S_VERSION_RE = r"^1\.\d{2}(\.\d{1,3})?$"

Environment = Annotated[
    str,
    worded(
        r"^[a-z][a-z0-9-]{0,15}$", "must be lowercase letters, digits and '-', starting with a letter, ≤16 characters"
    ),
]
KubernetesVersion = Annotated[
    str,
    worded(
        _K8S_VERSION_RE,
        "must be a Kubernetes version like '1.36' or '1.36.2' (quote it: 1.30 unquoted is the number 1.3)",
    ),
]
KubernetesNamespace = Annotated[
    str,
    worded(
        r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$",
        "must be a Kubernetes namespace: ≤63 lowercase letters, digits and '-', starting and ending with a "
        "letter or digit",
    ),
]
LinuxOsSku = Literal["Ubuntu", "Ubuntu2204", "AzureLinux", "AzureLinux3"]
WindowsOsSku = Literal["Windows2022"]
PolicyLevel = Literal["advisory", "mandatory", "remediate", "disabled"]


# --------------------------------------------------------------------------------------------------- models


class ResourceGroupConfig(StrictModel):
    """``resourceGroup``: where the cluster lives. ``existing: true`` uses a group created elsewhere."""

    name: (
        Annotated[
            str,
            Field(min_length=1, max_length=90),
            worded(
                r"^[-\w._()]+$", "must be letters, digits, '-', '_', '.', '(' or ')' (an Azure resource group name)"
            ),
        ]
        | None
    ) = None
    """Defaults to ``rg-gpu-<environment>``."""
    existing: bool = False


class SystemPoolConfig(StrictModel):
    """``cluster.systemPool``: the inline System-mode pool (never a GPU size: GPU pools are separate AgentPools)."""

    vmSize: str = "Standard_D4ds_v5"
    count: Annotated[int, Field(ge=2, le=100)] = 2
    """At least two nodes so system add-ons survive a node upgrade or failure."""
    zones: list[Literal["1", "2", "3"]] = Field(default_factory=list)
    osSku: LinuxOsSku = "AzureLinux"
    encryptionAtHost: bool | None = None
    """Encryption at host (needs the subscription feature ``Microsoft.Compute/EncryptionAtHost``). Defaults to on
    where the size's support is sourced (``gpu_catalog/facts/system_pool_sizes.json``), off otherwise."""
    osDiskType: Literal["Ephemeral", "Managed"] | None = None
    """Defaults to ``Ephemeral`` where the size supports it and its temp disk holds the 128 GiB OS disk."""
    maxPods: Annotated[int, Field(ge=10, le=MAX_PODS_PER_NODE)] = DEFAULT_MAX_PODS
    onlyCriticalAddons: bool = False
    """Taint the system pool ``CriticalAddonsOnly=true:NoSchedule`` (then run the GPU operator's controllers on a
    user pool that tolerates it)."""
    vnetSubnetId: SubnetId | None = None
    """The nodes' subnet (``vnetSubnetID``), one of ``cluster.network.subnets``; also every GPU pool's default."""
    podSubnetId: SubnetId | None = None
    """The pods' subnet (``podSubnetID``, ``cluster.network.mode: flat``)."""
    upgrade: PoolUpgradeConfig | None = None


class ClusterAccessConfig(StrictModel):
    """``cluster.access``: who may call the Kubernetes API (local accounts are disabled; Azure RBAC authorizes it).

    By default the identity running ``pulumi up`` and every ``adminGroupObjectIds`` group get *Azure Kubernetes
    Service RBAC Cluster Admin* on the cluster, and every Kubernetes resource waits ``propagationWaitSeconds`` after
    the assignments (new assignments take up to five minutes to apply). Creating role assignments needs Owner or
    User Access Administrator. Organisations that grant cluster access elsewhere set ``grantDeployer: false``.
    """

    grantDeployer: bool = True
    deployerPrincipalType: DeployerPrincipalType | None = None
    """What the identity running ``pulumi up`` is: ``User`` (a person after ``az login``) or ``ServicePrincipal`` (a
    service principal or managed identity, CI). Required while ``grantDeployer`` is true
    (:func:`rules.access.deployer_principal_type`): unset, pulumi-azure-native sends ``User`` and ARM refuses a
    service principal's assignment with ``UnmatchedPrincipalType``."""
    propagationWaitSeconds: Annotated[int, Field(ge=0, le=1800)] = load_access_facts().propagation_seconds


class ApiServerConfig(StrictModel):
    """``cluster.apiServer``: who may reach the Kubernetes API server (``apiServerAccessProfile``). Either authorized
    IPv4 CIDRs (at most 200; the network address, ``203.0.113.0/24``) or a private cluster, not both. Neither: the API
    server is open to the internet (an advisory finding). A private cluster's API server has only a private endpoint
    in the cluster's network: ``pulumi up`` (the Kubernetes provider) must then run from that network or a connected
    one (``docs/deploying.md``)."""

    authorizedIpRanges: list[str] = Field(default_factory=list)
    privateCluster: bool = False
    privateDnsZone: str | None = None
    """Private cluster only: ``system`` (AKS's default), ``none``, or an existing zone's resource id
    (``privatelink.<region>.azmk8s.io``; needs a user-assigned control-plane identity): ``docs/landing-zone.md``."""
    disableRunCommand: bool = False
    """``apiServerAccessProfile.disableRunCommand``: turn off Run Command (``az aks command invoke``), which reaches the
    API server through Azure past the authorized ranges (Microsoft's built-in definition 89f2d532-…; off: an advisory
    warning)."""


class NetworkConfig(StrictModel):
    """``cluster.network``: the network policy engine with the dataplane (network plugin: Azure CNI, overlay mode).
    ``cilium``/``cilium`` is what AKS recommends; ``azure`` dataplane takes ``none``, ``azure`` (NPM) or
    ``calico`` (:data:`rules.hardening.ALLOWED_POLICIES`)."""

    dataplane: NetworkDataplane = "azure"
    policy: NetworkPolicy = "none"
    mode: NetworkMode = "overlay"
    """``overlay`` (Azure CNI Overlay, pods on ``podCidr``) or ``flat`` (Azure CNI, pods on the VNet)."""
    podCidr: str | None = None
    serviceCidr: str | None = None
    dnsServiceIP: str | None = None
    outboundType: OutboundType | None = None
    """Unset: AKS's default (``loadBalancer``); ``userDefinedRouting`` needs a route table on every node subnet."""
    subnets: dict[str, SubnetConfig] = Field(default_factory=dict)
    """The subnets the platform team created, by a name the pools use (``docs/landing-zone.md``)."""


class MonitoringConfig(StrictModel):
    """``cluster.monitoring``: Container Insights (the ``omsagent`` add-on) sends container logs to a Log Analytics
    workspace the platform creates (``log-<cluster name>``, 30 days), or to ``logAnalyticsWorkspaceId``."""

    containerInsights: bool = False
    logAnalyticsWorkspaceId: (
        Annotated[
            str,
            worded(
                r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.OperationalInsights/workspaces/[^/]+$",
                "must be a Log Analytics workspace resource id (/subscriptions/.../resourceGroups/.../providers/"
                "Microsoft.OperationalInsights/workspaces/<name>)",
            ),
        ]
        | None
    ) = None
    retentionDays: Annotated[int, Field(ge=30, le=730)] = 30
    controlPlaneLogs: bool = False
    """A diagnostic setting sends the control plane's resource logs (``kube-audit-admin``, ``kube-apiserver``, …:
    :data:`rules.hardening.CONTROL_PLANE_LOG_CATEGORIES`) to the same workspace (Microsoft's built-in definition
    245fc9df-…; off: an advisory warning)."""


class SecretsStoreConfig(StrictModel):
    """``cluster.secretsStore``: the Azure Key Vault provider for the Secrets Store CSI driver (AKS add-on
    ``azureKeyvaultSecretsProvider``) with secret rotation. Defaults to on when the stack consumes a secret (a KAITO
    workspace's ``modelAccessSecret``)."""

    enabled: bool | None = None
    rotationPollInterval: str = DEFAULT_ROTATION_POLL


class ImageCleanerConfig(StrictModel):
    """``cluster.imageCleaner``: AKS Image Cleaner removes unused and vulnerable images from the nodes
    (``securityProfile.imageCleaner``; Microsoft's built-in definition af3c26b2-…; off: an advisory warning)."""

    enabled: bool = False
    intervalHours: Annotated[int, Field(ge=IMAGE_CLEANER_MIN_HOURS, le=IMAGE_CLEANER_MAX_HOURS)] = (
        IMAGE_CLEANER_DEFAULT_HOURS
    )
    """How often it runs: 24 hours to three months (``image-cleaner.md``); default a week."""


class ClusterConfig(StrictModel):
    """``cluster``: the AKS managed cluster."""

    name: (
        Annotated[
            str,
            Field(min_length=1, max_length=63),
            worded(
                r"^[a-zA-Z0-9][-_a-zA-Z0-9]*$", "must be letters, digits, '-' and '_', starting with a letter or digit"
            ),
        ]
        | None
    ) = None
    """Defaults to ``aks-gpu-<environment>``."""
    kubernetesVersion: KubernetesVersion = DEFAULT_KUBERNETES_VERSION
    """A Kubernetes minor AKS creates today (checked against the release calendar and today's date)."""
    skuTier: SkuTier = "Standard"
    supportPlan: SupportPlan = DEFAULT_SUPPORT_PLAN
    """``AKSLongTermSupport`` (needs ``skuTier: Premium``) keeps a minor creatable for a year after its end of life."""
    access: ClusterAccessConfig = empty_section()
    systemPool: SystemPoolConfig = empty_section()
    autoUpgradeChannel: AutoUpgradeChannel = "stable"
    """Checked against the pins (:mod:`rules.upgrade`): ``stable``/``rapid`` own the Kubernetes version (drift on it is
    ignored) and may not move the cluster past the pinned GPU software's validated range; a patch pin needs ``none``
    or ``node-image``."""
    nodeOsUpgradeChannel: NodeOsUpgradeChannel = "NodeImage"
    oidcIssuer: bool = True
    workloadIdentity: bool = True
    adminGroupObjectIds: list[
        Annotated[str, worded(r"^[0-9a-fA-F-]{36}$", "must be an Entra ID object id (a GUID)")]
    ] = Field(default_factory=list)
    """Entra ID groups granted cluster-admin through Azure RBAC (local accounts are always disabled)."""
    costAnalysis: bool = False
    """AKS cost analysis add-on (needs ``skuTier`` Standard or Premium)."""
    kaitoAddon: bool = False
    """KAITO (AI toolchain operator) add-on; turns the OIDC issuer on."""
    protect: bool | None = None
    """Protect the cluster (and a resource group this stack creates) from deletion and replacement.
    Defaults to true when ``environment`` is ``prod``."""
    tags: dict[str, str] = Field(default_factory=dict)
    apiServer: ApiServerConfig = empty_section()
    network: NetworkConfig = empty_section()
    monitoring: MonitoringConfig = empty_section()
    secretsStore: SecretsStoreConfig = empty_section()
    imageCleaner: ImageCleanerConfig = empty_section()
    sshAccess: SshAccess | None = None
    """``securityProfile.sshAccess`` of every node pool the platform creates (the system pool and ``gpuPools``):
    ``Disabled`` turns SSH off on the nodes (Microsoft's built-in definition 28257686-…; the AKS docs still call it
    a preview behind the subscription feature ``Microsoft.ContainerService/DisableSSHPreview``); unset: AKS's
    default, ``LocalUser`` (an advisory warning). KAITO's and NAP's nodes are not the platform's pools."""
    workingHours: WorkingHoursConfig | None = None
    """Dev/test only: when the cluster is used, to stop it outside those hours (stack_config/working_hours.py)."""
    identity: IdentityConfig = empty_section()
    containerRegistries: list[str] = Field(default_factory=list)
    """Container registry ids the kubelet identity gets AcrPull on."""
    maintenance: MaintenanceConfig = empty_section()
    defender: DefenderConfig = empty_section()
    azurePolicyAddon: bool = False
    """The Azure Policy add-on (``addonProfiles.azurepolicy``): Gatekeeper enforcing assigned Azure Policies."""

    def spec(self, given: ClusterGiven) -> AksCluster:
        """``cluster`` as its spec (:class:`rules.specs.AksCluster`): the keys as written, camelCase to the spec's
        fields (sections flattened as the spec names them: ``network.policy`` → ``network_policy``; the spec resolves
        the system pool's disks), with what the stack as a whole ``given`` decides (names, region, tags,
        protection, the GPU pools and the add-ons other sections turn on)."""
        sp, api, monitoring = self.systemPool, self.apiServer, self.monitoring
        return AksCluster(
            kubernetes_version=self.kubernetesVersion,
            sku_tier=self.skuTier,
            support_plan=self.supportPlan,
            system_pool=SystemPoolSpec(
                vm_size=sp.vmSize,
                count=sp.count,
                zones=tuple(sp.zones),
                os_sku=sp.osSku,
                only_critical_addons=sp.onlyCriticalAddons,
                encryption_at_host=sp.encryptionAtHost,
                os_disk_type=sp.osDiskType,
                max_pods=sp.maxPods,
                vnet_subnet_id=sp.vnetSubnetId,
                pod_subnet_id=sp.podSubnetId,
                upgrade=sp.upgrade.settings if sp.upgrade is not None else None,
                ssh_access=self.sshAccess,
            ),
            api_server=ApiServer(tuple(api.authorizedIpRanges), api.privateCluster),
            disable_run_command=api.disableRunCommand,
            image_cleaner=self.imageCleaner.enabled,
            image_cleaner_interval_hours=self.imageCleaner.intervalHours,
            control_plane_logs=monitoring.controlPlaneLogs,
            network_dataplane=self.network.dataplane,
            network_policy=self.network.policy,
            container_insights=monitoring.containerInsights,
            log_analytics_workspace_id=monitoring.logAnalyticsWorkspaceId,
            log_retention_days=monitoring.retentionDays,
            secret_rotation_poll_interval=self.secretsStore.rotationPollInterval,
            access=ClusterAccess(
                grant_deployer=self.access.grantDeployer,
                deployer_principal_type=self.access.deployerPrincipalType,
                propagation_wait_seconds=self.access.propagationWaitSeconds,
            ),
            admin_group_object_ids=tuple(self.adminGroupObjectIds),
            auto_upgrade_channel=self.autoUpgradeChannel,
            node_os_upgrade_channel=self.nodeOsUpgradeChannel,
            oidc_issuer=self.oidcIssuer,
            workload_identity=self.workloadIdentity,
            cost_analysis=self.costAnalysis,
            cluster_name=given.cluster_name,
            resource_group_name=given.resource_group_name,
            location=given.location,
            create_resource_group=given.create_resource_group,
            kaito_addon=given.kaito_addon,
            protect=given.protect,
            tags=dict(given.tags),
            gpu_pools=tuple(given.gpu_pools),
            node_auto_provisioning=given.node_auto_provisioning,
            secrets_store=given.secrets_store,
            prometheus_node_labels=given.prometheus_node_labels,
        )


class _GpuPoolKeys(StrictModel):
    """What a ``gpuPools[i]`` entry has beyond its keys: the MIG profile's check and the derived counts. The keys are
    the pool spec's (:class:`rules.specs.AksGpuPool`), generated: :data:`GpuPoolConfig`."""

    if TYPE_CHECKING:  # the generated keys the stack config reads, for the type checker (GpuPoolConfig is the model)
        name: str
        vmSize: str
        os: Literal["Linux", "Windows"]
        osSku: str | None
        count: int | None
        minCount: int | None
        maxCount: int | None
        driver: DriverMode | None
        migProfile: str | None
        sharing: SharingConfig | None
        taints: list[str] | None
        labels: dict[str, str]
        spot: bool
        zones: list[str]
        maxPods: int | None
        encryptionAtHost: bool | None
        osDiskType: Literal["Ephemeral", "Managed"] | None
        orchestratorVersion: str | None
        tags: dict[str, str]
        vnetSubnetId: str | None
        podSubnetId: str | None
        upgrade: PoolUpgradeConfig | None

    @field_validator("migProfile", check_fields=False)
    @classmethod
    def _mig_profile(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is None:
            return None
        profile = canonical_mig_profile(v)  # AKS reads enum strings case-insensitively
        if profile is None:
            size = info.data.get("vmSize")
            hint = nvidia_mig_hint(v, default_catalog().lookup(size) if isinstance(size, str) else None)
            prefix = f"{hint} " if hint else f"{show(v)} is not an AKS MIG profile. "
            raise ValueError(f"{prefix}Allowed: {', '.join(MIG_PROFILES)}")
        return profile

    @property
    def autoscaling(self) -> bool:
        return self.maxCount is not None

    @property
    def effective_min_count(self) -> int | None:
        if not self.autoscaling:
            return None
        return self.minCount if self.minCount is not None else 1

    @property
    def effective_count(self) -> int:
        """Initial node count: the fixed count, or the autoscaling lower bound."""
        if self.autoscaling:
            return self.effective_min_count or 0
        return self.count if self.count is not None else 1

    @property
    def effective_os_sku(self) -> str:
        """``osSku``, or the OS's default (:data:`rules.node_os.DEFAULT_OS_SKU`, the one the pool spec resolves)."""
        if self.osSku is not None:
            return self.osSku
        return DEFAULT_OS_SKU[self.os]

    @property
    def sharing_mode(self) -> Literal["none", "timeSlicing", "mps"]:
        return self.sharing.mode if self.sharing is not None else "none"


GPU_POOL_TYPES: dict[str, Any] = {
    "driver": DriverMode | None,
    "migProfile": str | None,  # any case (AKS reads enum strings case-insensitively): the validator canonicalises it
    "sharing": SharingConfig | None,
    "upgrade": PoolUpgradeConfig | None,
}
"""The ``gpuPools[i]`` keys the stack file takes in a shape of its own; every other key is the spec's."""

if TYPE_CHECKING:
    GpuPoolConfig = _GpuPoolKeys
else:
    GpuPoolConfig = spec_model(
        "GpuPoolConfig",
        AksGpuPool,
        base=_GpuPoolKeys,
        doc="``gpuPools[i]``: one AKS GPU node pool (a separate AgentPool resource), its keys generated from the pool "
        "spec's (:class:`rules.specs.AksGpuPool`: type, bounds, allowed values, default, description).",
        types=GPU_POOL_TYPES,
        kinds={"subnet_id": SubnetId, "kubernetes_version": KubernetesVersion},
    )


class GpuOperatorConfig(StrictModel):
    """``gpuOperator``: NVIDIA's GPU operator (Helm chart ``gpu-operator``) for the cluster's Linux GPU pools."""

    enabled: bool = False
    version: Annotated[str, worded(r"^v\d+\.\d+\.\d+$", "must be a chart version like 'v26.7.0'")] = (
        DEFAULT_GPU_OPERATOR_VERSION
    )
    namespace: KubernetesNamespace = "gpu-operator"
    migStrategy: Literal["single", "mixed"] = "single"
    """``single``: MIG slices are advertised as ``nvidia.com/gpu``; ``mixed``: as ``nvidia.com/mig-<profile>``."""
    dcgmExporter: bool = True


_CHART = load_device_plugin_facts().chart


class DevicePluginConfig(StrictModel):
    """``devicePlugin``: NVIDIA's ``nvidia-device-plugin`` Helm chart, which the platform deploys for the Linux GPU
    pools and NodePools whose driver AKS installs when ``gpuOperator.enabled`` is false (AKS installs the driver
    only: ``gpu_catalog/facts/device_plugins.json``). It renders the pools' time-slicing / MPS configs and the MIG
    strategy for AKS-partitioned MIG pools."""

    version: Annotated[str, worded(r"^\d+\.\d+\.\d+$", "must be a chart version like '0.20.0'")] = _CHART.version
    namespace: KubernetesNamespace = _CHART.namespace
    migStrategy: Literal["single", "mixed"] = "single"
    """How AKS-partitioned MIG devices are advertised: ``single`` as ``nvidia.com/gpu``, ``mixed`` as
    ``nvidia.com/mig-<profile>``."""


PolicySetting = PolicyLevel | dict[str, Any]


class StackConfig(StrictModel):
    """Everything under ``azure-gpu-platform:`` in a stack file."""

    environment: Environment
    location: str
    """An Azure region's programmatic name (``westeurope``): ``gpu_catalog/facts/azure_regions.json``."""
    resourceGroup: ResourceGroupConfig = empty_section()
    cluster: ClusterConfig = empty_section()
    gpuPools: list[GpuPoolConfig] = Field(default_factory=list)
    gpuNodePools: list[GpuNodePoolConfig] = Field(default_factory=list)
    """GPU capacity from node auto-provisioning (Karpenter NodePools, ``stack_config/nap.py``): from zero to a
    GPU limit. Any entry turns node auto-provisioning on for the cluster."""
    gpuOperator: GpuOperatorConfig = empty_section()
    devicePlugin: DevicePluginConfig = empty_section()
    """The nvidia-device-plugin chart, for GPU pools when the GPU operator is off."""
    kaito: KaitoConfig = empty_section()
    """KAITO model workspaces (``stack_config/kaito.py``); ``kaito.enabled`` also turns the add-on on."""
    databricks: DatabricksConfig | None = None
    """Azure Databricks workspace and GPU clusters (``stack_config/databricks.py``)."""
    azurePolicy: AzurePolicyConfig = empty_section()
    """The size rules as an Azure Policy assignment (``stack_config/azure_policy.py``)."""
    monitoring: GpuMonitoringConfig = empty_section()
    """GPU metrics, alerts and their action group (``stack_config/monitoring.py``)."""
    budget: Any = None
    """``{monthlyUsd, enforcementLevel}``, checked by :func:`rules.budget.budget_shape` (the preflight's check too)."""
    policy: dict[str, PolicySetting] = Field(default_factory=dict)
    """Policy config handed to the policy pack (``{"<policy-name>": level | {"enforcementLevel": ..., ...}}``)."""
    exemptions: Any = None
    """``[{policy, resource, reason, owner, expires, category?}]``: one policy waived for one resource until a date,
    checked by :func:`stack_config.exemptions.exemption_problems` (rules: :mod:`rules.exemptions`)."""
    exemptionMaxDays: Any = None
    """How far ahead an exemption may end (days, default 180)."""
    gpuQuota: dict[str, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)
    """vCPUs granted per quota family in ``location`` (``StandardNCADSA100v4Family: 96``), as the subscription's
    quota page shows them: the pools at ``maxCount`` plus their upgrade surge must fit (``docs/landing-zone.md``)."""
    fleet: FleetConfig | None = None
    """A multi-region fleet on Azure Kubernetes Fleet Manager (``stack_config/fleet.py``, ``docs/fleet.md``): the
    other sections become the members' template; the members' stacks: :func:`stack_config.fleet_members.members_of`."""

    _today: date = PrivateAttr()
    _fleet: Any = PrivateAttr(default=None)
    """The expanded fleet (``stack_config.fleet_members.ExpandedFleet``), set by :func:`validate_stack_config`."""

    def model_post_init(self, context: Any, /) -> None:
        """The day the stack is checked on: the validation context's ``today`` (:func:`validate_stack_config` reads
        the clock once and passes it), else :func:`gpu_catalog.clock.today` read here, once."""
        given = context.get(TODAY) if isinstance(context, dict) else None
        self._today = given if isinstance(given, date) else clock.today()

    @property
    def today(self) -> date:
        """The day every dated rule of this stack is checked on (read once, when the stack was validated)."""
        return self._today

    @field_validator("location")
    @classmethod
    def _location(cls, v: str) -> str:
        problem = check_region(v)
        if problem is not None:
            raise ValueError(f"{show(v)} is {problem}")
        return v

    @property
    def resource_group_name(self) -> str:
        return self.resourceGroup.name or f"rg-gpu-{self.environment}"

    @property
    def cluster_name(self) -> str:
        return self.cluster.name or f"aks-gpu-{self.environment}"

    @property
    def kaito_addon(self) -> bool:
        """Whether the cluster runs the KAITO add-on: ``cluster.kaitoAddon`` or ``kaito.enabled``."""
        return kaito_addon_enabled(self.kaito, self.cluster.kaitoAddon)

    @property
    def protect(self) -> bool:
        """Whether stateful resources (cluster, created resource group) are protected."""
        if self.cluster.protect is not None:
            return self.cluster.protect
        return self.environment == "prod"

    @property
    def gpu_floor(self) -> str:
        """The GPU floor, taken from the policy config of ``gpu-size-minimum`` when it names one."""
        setting = self.policy.get("gpu-size-minimum")
        if isinstance(setting, dict) and isinstance(setting.get("minimumSize"), str):
            return setting["minimumSize"]
        return DEFAULT_FLOOR

    @property
    def usable_gpu_floor(self) -> str:
        """The floor pools are checked against: :attr:`gpu_floor`, or the default floor while an unknown floor name is
        reported on its own key (``policy.gpu-size-minimum.minimumSize``) instead of failing every pool."""
        return self.gpu_floor if self.gpu_floor in default_catalog() else DEFAULT_FLOOR

    @property
    def gpu_operator_facts(self) -> GpuOperator | None:
        """The GPU operator as the AKS rules see it: it installs the driver when a pool it manages skips AKS's."""
        if not self.gpuOperator.enabled:
            return None
        installs = self.operator_installs_driver
        return GpuOperator(driver_enabled=installs, toolkit_enabled=installs)

    def pool_driver(self, pool: GpuPoolConfig) -> Literal["operator", "aks"]:
        """Resolved driver mode of a pool (see :attr:`GpuPoolConfig.driver`)."""
        if pool.driver is not None:
            return pool.driver
        return "operator" if (self.gpuOperator.enabled and pool.os == "Linux") else "aks"

    def nap_driver(self, pool: GpuNodePoolConfig) -> Literal["operator", "aks"]:
        """Resolved driver mode of a NAP pool (see :attr:`GpuNodePoolConfig.driver`)."""
        if pool.driver is not None:
            return pool.driver
        return "operator" if self.gpuOperator.enabled else "aks"

    def pool_taints(self, pool: GpuPoolConfig | GpuNodePoolConfig) -> list[str]:
        """A pool's taints: its own, or the default — ``nvidia.com/gpu=present:NoSchedule``, and on a cluster with the
        KAITO add-on a key the add-on's device-plugin DaemonSet does not tolerate (two device plugins on one node
        otherwise: ``rules/node_stack.py``)."""
        if pool.taints is not None:
            return list(pool.taints)
        return [KAITO_SAFE_TAINT if self.kaito_addon else DEFAULT_GPU_TAINT]

    @property
    def device_plugin_chart(self) -> bool:
        """The platform deploys the nvidia-device-plugin chart: the GPU operator is off and some Linux GPU pool or
        NodePool needs a device plugin."""
        if self.gpuOperator.enabled:
            return False
        return any(p.os == "Linux" for p in self.gpuPools) or bool(self.gpuNodePools)

    def pool_device_plugin(self, pool: GpuPoolConfig) -> str | None:
        """The device plugin the platform deploys for a pool (``rules.node_stack`` names; ``None`` on Windows)."""
        if pool.os != "Linux":
            return None
        if self.gpuOperator.enabled:
            return GPU_OPERATOR
        return DEVICE_PLUGIN_CHART

    @property
    def plugin_mig_strategy(self) -> Literal["single", "mixed"]:
        """The MIG strategy of the platform's device plugin (the operator's or the chart's)."""
        return self.gpuOperator.migStrategy if self.gpuOperator.enabled else self.devicePlugin.migStrategy

    def pool_kubernetes_version(self, pool: GpuPoolConfig) -> str:
        return pool.orchestratorVersion or self.cluster.kubernetesVersion

    @property
    def operator_installs_driver(self) -> bool:
        """The GPU operator installs driver and toolkit when a pool it manages skips the AKS driver; otherwise it runs
        with ``driver.enabled=false`` and ``toolkit.enabled=false`` on the AKS driver."""
        return any(self.pool_driver(p) == "operator" for p in self.gpuPools if self.operator_manages(p)) or (
            self.gpuOperator.enabled and any(self.nap_driver(p) == "operator" for p in self.gpuNodePools)
        )

    @property
    def node_auto_provisioning(self) -> bool:
        """The cluster runs node auto-provisioning (``nodeProvisioningProfile.mode: Auto``): some gpuNodePools."""
        return bool(self.gpuNodePools)

    @property
    def secrets_store(self) -> bool:
        """The Key Vault Secrets Store CSI add-on runs: ``cluster.secretsStore.enabled``, or by default when the stack
        consumes a secret (a KAITO workspace's ``modelAccessSecret``)."""
        if self.cluster.secretsStore.enabled is not None:
            return self.cluster.secretsStore.enabled
        return any(ws.modelAccessSecret for ws in self.kaito.workspaces)

    def pool_encryption_at_host(self, pool: GpuPoolConfig | SystemPoolConfig) -> bool:
        """``encryptionAtHost``, or on where the size's support is sourced (:mod:`gpu_catalog.node_disks`)."""
        if pool.encryptionAtHost is not None:
            return pool.encryptionAtHost
        return default_encryption_at_host(node_disks(pool.vmSize))

    def pool_os_disk_type(self, pool: GpuPoolConfig | SystemPoolConfig) -> str:
        """``osDiskType``, or ``Ephemeral`` where the size supports it and its temp disk holds the OS disk."""
        if pool.osDiskType is not None:
            return pool.osDiskType
        return default_os_disk_type(node_disks(pool.vmSize))

    def pool_hardening(self, pool: GpuPoolConfig) -> tuple[str, ...]:
        """The create-time hardening a pool has on (part of its Azure name: :func:`azure_pool_name`)."""
        on = ("encryptionAtHost",) if self.pool_encryption_at_host(pool) else ()
        return on + (("ephemeralOsDisk",) if self.pool_os_disk_type(pool) == "Ephemeral" else ())

    def pool_max_pods(self, pool: GpuPoolConfig) -> int:
        """``maxPods``, or Azure CNI Overlay's default (250; 110 on Windows, Microsoft's recommended maximum)."""
        if pool.maxPods is not None:
            return pool.maxPods
        return default_max_pods(pool.os)

    def operator_manages(self, pool: GpuPoolConfig) -> bool:
        """The GPU operator manages every Linux GPU pool of a cluster it runs on (device plugin, labels, MIG)."""
        return self.gpuOperator.enabled and pool.os == "Linux"
