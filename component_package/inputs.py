"""The schema's input object types (the nested Args of the components).

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from component_package.enums import (
    DriverMode,
    ExemptionCategory,
    MaintenanceSchedule,
    MigStrategy,
    NetworkMode,
    OsDiskType,
    OsSku,
    OutboundType,
    PrincipalType,
    SharingMode,
    SizeRule,
    WeekDay,
    WeekIndex,
)
from component_package.spec_inputs import spec_input
from rules.specs import AksGpuPool


class Sharing(TypedDict):
    """GPU sharing on a pool, rendered by the GPU operator's device plugin."""

    mode: SharingMode
    """Time-slicing or MPS (not both)."""
    replicas: int
    """Workloads per physical GPU."""
    rename_by_default: NotRequired[bool]
    """Advertise the shared GPUs as `nvidia.com/gpu.shared`."""


class PoolGpuOperator(TypedDict):
    """The NVIDIA GPU operator running on the pool's cluster, as the pool sees it."""

    installs_driver: bool
    """The operator installs driver and toolkit (`driver.enabled`): true when some pool it manages skips the AKS
    driver."""
    version: NotRequired[str]
    """Chart version; default: the release the project pins (`gpu_catalog/facts/gpu_operator.json`)."""
    mig_strategy: NotRequired[MigStrategy]
    """How MIG slices are advertised; default `single`."""


class UpgradeSettings(TypedDict):
    """A pool's `upgradeSettings`; on a GPU pool each surge node is a GPU VM (quota, cost, subnet addresses)."""

    max_surge: NotRequired[str]
    """Nodes added during an upgrade: a count (`1`) or a percentage (`33%`); default: AKS's (one node)."""
    max_unavailable: NotRequired[str]
    """Nodes drained at once without a surge node (`maxSurge` `0` with `1`: in place, no extra GPU). GPU pools only:
    refused on the system pool (AKS: max unavailable cannot be set on System pools)."""
    drain_timeout_minutes: NotRequired[int]
    """1..1440; default 30."""
    node_soak_minutes: NotRequired[int]
    """0..30; default 0."""


class PoolDevicePlugin(TypedDict):
    """NVIDIA's nvidia-device-plugin chart on the pool's cluster (the `NvidiaDevicePlugin` component), as the pool sees
    it. Without it and without `gpuOperator`, the pool takes the cluster's own device plugin on trust."""

    version: NotRequired[str]
    """Chart version; default: the one the project pins (`gpu_catalog/facts/device_plugins.json`)."""
    mig_strategy: NotRequired[MigStrategy]
    """How AKS-partitioned MIG slices are advertised; default `single`."""


class PoolExemption(TypedDict):
    """One size rule waived for the pool until a date: a stack file's `exemptions` entry whose resource is this pool
    (keys, checks and the day limit: `rules/exemptions.py`; `docs/exemptions.md`)."""

    policy: SizeRule
    """The `gpu-size-*` rule waived."""
    reason: str
    """Why the pool may break the rule (at least 10 characters)."""
    owner: str
    """Who answers for the exemption (a team or a person)."""
    expires: str
    """The day it stops applying (`YYYY-MM-DD`, at most 180 days ahead); from that day the rule refuses the pool
    again."""
    category: NotRequired[ExemptionCategory]
    """Default `Waiver`."""


GPU_POOL_TYPES: dict[str, Any] = {
    "driver": DriverMode,
    "sharing": Sharing,
    "gpu_operator": PoolGpuOperator,
    "device_plugin": PoolDevicePlugin,
    "upgrade": UpgradeSettings,
    "exemptions": list[PoolExemption],
}
"""The ``GpuPool`` inputs the package takes in a shape of its own; every other input is the pool spec's key."""

if TYPE_CHECKING:
    GpuPool = dict[str, Any]
else:
    GpuPool = spec_input(
        "GpuPool",
        AksGpuPool,
        doc="One AKS GPU node pool. Checked at construction with the project's rules (size, name, MIG, sharing, "
        "driver, autoscaling, taints, labels).",
        types=GPU_POOL_TYPES,
    )
"""One AKS GPU node pool: its inputs generated from the pool spec's keys (:class:`rules.specs.AksGpuPool`;
``component_package/spec_inputs.py``)."""


class SystemPool(TypedDict):
    """The cluster's inline System-mode pool (never a GPU size)."""

    vm_size: NotRequired[str]
    """Default `Standard_D4ds_v5`."""
    count: NotRequired[int]
    """At least 2 nodes; default 2."""
    zones: NotRequired[list[str]]
    """Availability zones."""
    os_sku: NotRequired[OsSku]
    """Default `AzureLinux`."""
    only_critical_addons: NotRequired[bool]
    """Taint the pool `CriticalAddonsOnly=true:NoSchedule`."""
    encryption_at_host: NotRequired[bool]
    """As on a GPU pool; default: on where the size's support is sourced, otherwise off."""
    os_disk_type: NotRequired[OsDiskType]
    """As on a GPU pool; default `Ephemeral` where the size supports it."""
    max_pods: NotRequired[int]
    """Default 250."""
    vnet_subnet_id: NotRequired[str]
    """The node subnet's resource id (`vnetSubnetID`): the cluster joins your VNet, and a GPU pool without its own
    subnet joins this one (one VNet per cluster). Default: an AKS-managed VNet."""
    pod_subnet_id: NotRequired[str]
    """Flat Azure CNI (`network.mode: flat`): the pods' subnet id (`podSubnetID`)."""
    upgrade: NotRequired[UpgradeSettings]
    """`upgradeSettings`; default: AKS's."""


class ClusterNetwork(TypedDict):
    """The cluster in your network (docs/landing-zone.md): pod networking, CIDRs and egress. The subnets are the
    pools' `vnetSubnetId` / `podSubnetId`; their sizes and route tables are checked by a stack file, not here."""

    mode: NotRequired[NetworkMode]
    """Default `overlay` (Azure CNI Overlay)."""
    pod_cidr: NotRequired[str]
    """Overlay only: the pods' private CIDR (each node takes a /24 of it); default: AKS's."""
    service_cidr: NotRequired[str]
    """Smaller than /12, apart from the pod CIDR and the subnets; set with `dnsServiceIp`. Default: AKS's."""
    dns_service_ip: NotRequired[str]
    """Inside `serviceCidr`."""
    outbound_type: NotRequired[OutboundType]
    """`networkProfile.outboundType` (set at creation only); default AKS's `loadBalancer`. `userDefinedRouting` needs
    a route table on every node subnet, `userAssignedNATGateway` a NAT gateway; `managedNATGateway` only an
    AKS-managed VNet."""
    route_table_ids: NotRequired[list[str]]
    """The route tables on the node subnets: with `identity.assignRoles` the control-plane identity gets Network
    Contributor on them as on the subnets."""


class ClusterIdentity(TypedDict):
    """User-assigned identities: an existing identity's resource id, or `create`. Default: AKS's system-assigned
    control plane and its own kubelet identity."""

    control_plane: NotRequired[str]
    """The control plane's identity (`identity.type: UserAssigned`)."""
    kubelet: NotRequired[str]
    """The kubelet identity (`identityProfile.kubeletidentity`); needs `controlPlane`."""
    assign_roles: NotRequired[bool]
    """Make the role assignments AKS needs (Network Contributor on the subnets and route tables, Private DNS Zone
    Contributor on a custom zone, Managed Identity Operator on the kubelet identity, AcrPull on the registries);
    default true."""


class DateSpan(TypedDict):
    """Dates maintenance may not run (`YYYY-MM-DD`, in the window's UTC offset)."""

    start: str
    """First day."""
    end: str
    """Last day."""


class MaintenanceWindow(TypedDict):
    """A planned maintenance window (a `MaintenanceConfiguration`, REST API 2025-09-01)."""

    schedule: MaintenanceSchedule
    """`daily`, `weekly`, `absoluteMonthly` or `relativeMonthly`."""
    interval: NotRequired[int]
    """Days (1..7), weeks (1..4) or months (1..6) between windows; default 1."""
    day_of_week: NotRequired[WeekDay]
    """weekly and relativeMonthly."""
    day_of_month: NotRequired[int]
    """absoluteMonthly: 1..31."""
    week_index: NotRequired[WeekIndex]
    """relativeMonthly."""
    start_time: NotRequired[str]
    """`HH:mm`, `00:00` to `23:59`, in `utcOffset`; default `00:00`."""
    duration_hours: NotRequired[int]
    """4..24; default 4."""
    utc_offset: NotRequired[str]
    """`+HH:mm` / `-HH:mm`; default `+00:00`."""
    start_date: NotRequired[str]
    """`YYYY-MM-DD`: the window is inactive before it."""
    not_allowed_dates: NotRequired[list[DateSpan]]
    """Date ranges maintenance may not run."""


class ClusterMaintenance(TypedDict):
    """When the auto-upgrade channel and the node OS channel may act (`aksManagedAutoUpgradeSchedule`,
    `aksManagedNodeOSUpgradeSchedule`)."""

    auto_upgrade: NotRequired[MaintenanceWindow]
    """The auto-upgrade channel's window."""
    node_os: NotRequired[MaintenanceWindow]
    """The node OS upgrade channel's window."""


class ClusterDefender(TypedDict):
    """Microsoft Defender for Containers' security monitoring (`securityProfile.defender`)."""

    enabled: NotRequired[bool]
    """Default false."""
    log_analytics_workspace_id: NotRequired[str]
    """Its Log Analytics workspace; default: the cluster's `logAnalyticsWorkspaceId`."""


class ApiServerAccess(TypedDict):
    """Who may reach the Kubernetes API server: authorized IPv4 CIDRs, or a private cluster (not both)."""

    authorized_ip_ranges: NotRequired[list[str]]
    """At most 200 IPv4 CIDRs (network addresses, e.g. `203.0.113.0/24`)."""
    private_cluster: NotRequired[bool]
    """A private API server endpoint: `pulumi up` must then run inside the cluster's network."""
    private_dns_zone: NotRequired[str]
    """A private cluster's DNS zone: `system` (AKS's default), `none`, or an existing
    `privatelink.<region>.azmk8s.io` zone's resource id (needs a user-assigned control-plane identity)."""
    disable_run_command: NotRequired[bool]
    """Turn off Run Command (`az aks command invoke`), which reaches the API server through Azure past the authorized
    ranges; default false (a warning)."""


class ClusterAccess(TypedDict):
    """Who gets AKS RBAC Cluster Admin on the Kubernetes API (local accounts are always disabled)."""

    grant_deployer: NotRequired[bool]
    """Grant the identity running `pulumi up`; default true."""
    deployer_principal_type: NotRequired[PrincipalType]
    """What the identity running `pulumi up` is: `User`, or `ServicePrincipal` (a service principal or managed
    identity, as in CI). Required while `grantDeployer` is true (the default): unset, pulumi-azure-native sends
    `User` and ARM refuses a service principal's assignment with `UnmatchedPrincipalType`."""
    propagation_wait_seconds: NotRequired[int]
    """How long Kubernetes resources wait after the role assignments (0: not at all); default 300."""


class Toleration(TypedDict):
    """A Kubernetes toleration."""

    key: str
    """The taint key."""
    operator: str
    """`Equal` or `Exists`."""
    effect: str
    """`NoSchedule`, `PreferNoSchedule` or `NoExecute`."""
    value: NotRequired[str]
    """The taint value (with `Equal`)."""


class SharedPool(TypedDict):
    """A pool whose GPUs the operator's device plugin shares."""

    resource_name: str
    """What the device plugin advertises before sharing (`nvidia.com/gpu`, `nvidia.com/mig-3g.40gb`)."""
    sharing: Sharing
    """The pool's sharing."""


class DatabricksAutoscale(TypedDict):
    """Autoscaling bounds of a Databricks cluster's workers."""

    min_workers: int
    """Lower bound."""
    max_workers: int
    """Upper bound."""
