"""The landing-zone keys of a stack file: the company's own subnets, outbound type, private DNS zone, user-assigned
identities, container registries, planned maintenance windows, per-pool upgrade settings and Defender / the Azure
Policy add-on (``docs/landing-zone.md``). Every key is optional and off by default: a stack without them builds what
it built before.

The models take the keys as written; :func:`landing_zone_problems` (a cross-field check of the whole stack) hands
them to the rules (:mod:`rules.network`, :mod:`rules.maintenance`, :mod:`rules.identity`) and reports every problem
at once, at its key path. :class:`LandingZone` resolves the keys once for the composition layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from gpu_catalog import default_catalog
from gpu_catalog.problems import Problem
from rules import Finding
from rules.identity import Identities, identity_findings
from rules.karpenter import nodes_for_gpus, resolve_sizes
from rules.maintenance import (
    MaintenanceWindow,
    ScheduleType,
    SurgeUse,
    WeekDay,
    WeekIndex,
    maintenance_window,
    past_not_allowed,
    surge_quota,
    window_without_channel,
)
from rules.network import (
    SUBNET_ID_RE,
    PoolAddresses,
    Subnet,
    UpgradeSettings,
    network_cidrs,
    outbound_prerequisites,
    pod_cidr_capacity,
    private_dns_zone,
    subnet_capacity,
    surge_nodes,
)

from .base import StrictModel, worded

if TYPE_CHECKING:
    from .models import GpuPoolConfig, StackConfig

_ID = r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/"
SubnetId = Annotated[
    str,
    worded(
        SUBNET_ID_RE.pattern.replace("(?i)", ""),
        "must be a subnet resource id (/subscriptions/.../resourceGroups/.../providers/Microsoft.Network/"
        "virtualNetworks/<vnet>/subnets/<subnet>)",
    ),
]
RouteTableId = Annotated[
    str,
    worded(
        _ID + r"Microsoft\.Network/routeTables/[^/]+$",
        "must be a route table resource id (/subscriptions/.../providers/Microsoft.Network/routeTables/<name>)",
    ),
]
NatGatewayId = Annotated[
    str,
    worded(
        _ID + r"Microsoft\.Network/natGateways/[^/]+$",
        "must be a NAT gateway resource id (/subscriptions/.../providers/Microsoft.Network/natGateways/<name>)",
    ),
]
Cidr = Annotated[str, worded(r"^\d{1,3}(\.\d{1,3}){3}/\d{1,2}$", "must be an IPv4 CIDR like '10.240.0.0/24'")]


class SubnetConfig(StrictModel):
    """``cluster.network.subnets.<name>``: a subnet the platform team created (the platform never creates one)."""

    id: SubnetId
    addressPrefix: Cidr | None = None
    """Its address prefix: the capacity check needs it (offline nothing reads Azure)."""
    routeTableId: RouteTableId | None = None
    """The route table associated with it (``outboundType: userDefinedRouting`` needs one)."""
    natGatewayId: NatGatewayId | None = None
    """The NAT gateway associated with it (``outboundType: userAssignedNATGateway`` needs one)."""


class IdentityConfig(StrictModel):
    """``cluster.identity``: user-assigned identities: an existing identity's resource id, or ``create``. Unset: AKS's
    system-assigned control plane and its own kubelet identity (today's behaviour)."""

    controlPlane: str | None = None
    kubelet: str | None = None
    assignRoles: bool = True
    """Create the role assignments AKS needs (:func:`rules.identity.required_roles`); ``false`` when the platform
    team grants them (``docs/landing-zone.md`` lists them). Needs Owner or User Access Administrator on the scopes."""


class NotAllowedConfig(StrictModel):
    start: date
    end: date


class MaintenanceWindowConfig(StrictModel):
    """``cluster.maintenance.autoUpgrade`` / ``.nodeOs``: one planned maintenance window."""

    schedule: ScheduleType
    interval: Annotated[int, Field(ge=1)] = 1
    """Days (daily), weeks (weekly) or months (monthly) between windows."""
    dayOfWeek: WeekDay | None = None
    dayOfMonth: Annotated[int, Field(ge=1, le=31)] | None = None
    weekIndex: WeekIndex | None = None
    startTime: str = "00:00"
    durationHours: int = 4
    utcOffset: str = "+00:00"
    startDate: date | None = None
    notAllowedDates: list[NotAllowedConfig] = Field(default_factory=list)

    def window(self, kind: Literal["autoUpgrade", "nodeOs"]) -> MaintenanceWindow:
        return MaintenanceWindow(
            kind=kind,
            schedule=self.schedule,
            interval=self.interval,
            day_of_week=self.dayOfWeek,
            day_of_month=self.dayOfMonth,
            week_index=self.weekIndex,
            start_time=self.startTime,
            duration_hours=self.durationHours,
            utc_offset=self.utcOffset,
            start_date=self.startDate,
            not_allowed=tuple((d.start, d.end) for d in self.notAllowedDates),
        )


class MaintenanceConfig(StrictModel):
    """``cluster.maintenance``: when the auto-upgrade channel and the node OS channel may act."""

    autoUpgrade: MaintenanceWindowConfig | None = None
    nodeOs: MaintenanceWindowConfig | None = None

    @property
    def windows(self) -> list[MaintenanceWindow]:
        return [
            *([self.autoUpgrade.window("autoUpgrade")] if self.autoUpgrade else []),
            *([self.nodeOs.window("nodeOs")] if self.nodeOs else []),
        ]


class DefenderConfig(StrictModel):
    """``cluster.defender``: Microsoft Defender for Containers' security monitoring to a Log Analytics workspace."""

    enabled: bool = False
    logAnalyticsWorkspaceId: str | None = None


class PoolUpgradeConfig(StrictModel):
    """``gpuPools[i].upgrade`` / ``cluster.systemPool.upgrade``: ``upgradeSettings``. On a GPU pool each surge node
    is a GPU VM: counted in the quota demand, the cost and the subnet."""

    maxSurge: str | None = None
    maxUnavailable: str | None = None
    drainTimeoutInMinutes: int | None = None
    nodeSoakDurationInMinutes: int | None = None

    @property
    def settings(self) -> UpgradeSettings:
        """As sent (``upgradeSettings``)."""
        return UpgradeSettings(
            self.maxSurge, self.maxUnavailable, self.drainTimeoutInMinutes, self.nodeSoakDurationInMinutes
        )


# --------------------------------------------------------------------------------------------------- resolution


@dataclass(frozen=True)
class LandingZone:
    """The landing-zone keys resolved once: the described subnets (by name, and by lower-cased id), the system pool's
    subnet (every GPU pool's default)."""

    subnets: dict[str, Subnet]
    default_subnet_id: str | None

    @staticmethod
    def of(cfg: StackConfig) -> LandingZone:
        net = cfg.cluster.network
        subnets = {
            name: Subnet(name, s.id, s.addressPrefix, s.routeTableId is not None, s.natGatewayId is not None)
            for name, s in net.subnets.items()
        }
        return LandingZone(subnets, cfg.cluster.systemPool.vnetSubnetId)

    def named(self, subnet_id: str | None) -> str | None:
        """The ``cluster.network.subnets`` name of a subnet id (ARM ids compare case-insensitively); ``None``: not
        described there."""
        if subnet_id is None:
            return None
        return next((n for n, s in self.subnets.items() if s.id.lower() == subnet_id.lower()), None)

    def node_subnet_id(self, subnet_id: str | None) -> str | None:
        """A pool's node subnet id: its own, else the system pool's."""
        return subnet_id or self.default_subnet_id


def pool_surge(pool: GpuPoolConfig) -> int:
    """The nodes an upgrade adds to a GPU pool at its maximum (:func:`rules.network.surge_nodes`: stated
    ``upgrade.maxSurge``, else AKS's default; ``maxSurge: "0"`` for an in-place upgrade)."""
    nodes = pool.maxCount if pool.maxCount is not None else pool.effective_count
    return surge_nodes(pool.upgrade.maxSurge if pool.upgrade is not None else None, nodes)


def _at(at: str, findings: Sequence[Finding]) -> list[Problem]:
    return [Problem(".".join(k for k in (at, f.field) if k), f.message) for f in findings]


def _subnet_refs(cfg: StackConfig) -> list[Problem]:
    """With ``cluster.network.subnets`` described, every subnet id a pool names is one of them (its size and route
    table are what the checks read) and the system pool names one; a pod subnet only in flat mode; pools join their
    own subnets only when the system pool does (AKS: all pools in one VNet)."""
    lz = LandingZone.of(cfg)
    sp = cfg.cluster.systemPool
    refs: list[tuple[str, str | None]] = [
        ("cluster.systemPool.vnetSubnetId", sp.vnetSubnetId),
        ("cluster.systemPool.podSubnetId", sp.podSubnetId),
    ]
    for i, p in enumerate(cfg.gpuPools):
        refs += [(f"gpuPools[{i}].vnetSubnetId", p.vnetSubnetId), (f"gpuPools[{i}].podSubnetId", p.podSubnetId)]
    problems: list[Problem] = []
    if lz.subnets:
        described = ", ".join(sorted(lz.subnets))
        for key, sid in refs:
            if sid is not None and lz.named(sid) is None:
                problems.append(
                    Problem(
                        key, f"{sid.rsplit('/', 1)[-1]!r} is not described in cluster.network.subnets ({described})"
                    )
                )
    if (lz.subnets or any(sid for _, sid in refs)) and sp.vnetSubnetId is None:
        among = f" (one of cluster.network.subnets: {', '.join(sorted(lz.subnets))})" if lz.subnets else ""
        problems.append(
            Problem(
                "cluster.systemPool.vnetSubnetId",
                "required when pools join your subnets: a cluster's pools share one VNet, so the system pool names "
                f"its subnet too{among}",
            )
        )
    if cfg.cluster.network.mode != "flat":
        problems += [
            Problem(key, "a pod subnet is Azure CNI's flat mode: set cluster.network.mode: flat")
            for key, sid in refs
            if key.endswith("podSubnetId") and sid is not None
        ]
    return problems


def _pool_addresses(cfg: StackConfig) -> list[PoolAddresses]:
    sp = cfg.cluster.systemPool
    sp_surge = surge_nodes(sp.upgrade.maxSurge if sp.upgrade else None, sp.count)
    lz = LandingZone.of(cfg)
    out = [
        PoolAddresses("systemPool", lz.named(sp.vnetSubnetId), lz.named(sp.podSubnetId), sp.count, sp_surge, sp.maxPods)
    ]
    for p in cfg.gpuPools:
        nodes = p.maxCount if p.maxCount is not None else p.effective_count
        node, pod = lz.named(lz.node_subnet_id(p.vnetSubnetId)), lz.named(p.podSubnetId)
        out.append(PoolAddresses(p.name, node, pod, nodes, pool_surge(p), cfg.pool_max_pods(p)))
    cat = default_catalog()
    for n in cfg.gpuNodePools:  # NAP: the burst bound, in the cluster's default subnet (AKSNodeClass names none)
        sizes, _ = resolve_sizes(n.sizes, n.series, n.gpuModels, floor=cfg.gpu_floor, today=cfg.today)
        fills = [nodes_for_gpus(cat[s], n.limits.gpus) for s in sizes if s in cat]
        if fills:
            out.append(PoolAddresses(f"gpuNodePools.{n.name}", None, None, max(fills), 0, 250))
    return out


def _surge_uses(cfg: StackConfig) -> list[SurgeUse]:
    cat = default_catalog()
    uses: list[SurgeUse] = []
    for p in cfg.gpuPools:
        size = cat.lookup(p.vmSize)
        if size is None or size.quota_family is None or p.spot:
            continue
        nodes = p.maxCount if p.maxCount is not None else p.effective_count
        uses.append(SurgeUse(p.name, size.quota_family, size.vcpus, nodes, pool_surge(p)))
    return uses


def landing_zone_problems(cfg: StackConfig) -> list[Problem]:
    """Every landing-zone key against the rules (module docstring)."""
    c = cfg.cluster
    net = c.network
    lz = LandingZone.of(cfg)
    problems = _subnet_refs(cfg)
    used = list(lz.subnets.values())
    ids = dict.fromkeys([c.systemPool.vnetSubnetId, *(lz.node_subnet_id(p.vnetSubnetId) for p in cfg.gpuPools)])
    node_subnets = [lz.subnets[n] for n in (lz.named(i) for i in ids) if n is not None]
    problems += _at("cluster.network", network_cidrs(net.mode, net.podCidr, net.serviceCidr, net.dnsServiceIP, used))
    byo = c.systemPool.vnetSubnetId is not None
    problems += _at("cluster.network", outbound_prerequisites(net.outboundType, node_subnets, byo=byo))
    pools = _pool_addresses(cfg)
    if lz.subnets:
        default = lz.named(lz.default_subnet_id)
        problems += _at("cluster.network", subnet_capacity(net.mode, lz.subnets, pools, default))
    if net.mode == "overlay":
        total = sum(p.max_nodes + p.surge_nodes for p in pools)
        problems += _at("cluster.network", pod_cidr_capacity(net.podCidr, total))
    ids = Identities(c.identity.controlPlane, c.identity.kubelet)
    problems += _at("cluster", identity_findings(ids, registries=c.containerRegistries))
    api = c.apiServer
    dns = private_dns_zone(
        api.privateCluster, api.privateDnsZone, cfg.location, user_assigned_control_plane=ids.user_assigned
    )
    problems += [
        Problem("cluster." + f.field if f.field.startswith("identity") else f"cluster.apiServer.{f.field}", f.message)
        for f in dns
    ]
    for kind, w in (("autoUpgrade", c.maintenance.autoUpgrade), ("nodeOs", c.maintenance.nodeOs)):
        if w is not None:
            problems += _at(f"cluster.maintenance.{kind}", maintenance_window(w.window(kind)))  # type: ignore[arg-type]
    upgrades = [("cluster.systemPool.upgrade", c.systemPool.upgrade, True)]  # the System-mode pool
    upgrades += [(f"gpuPools[{i}].upgrade", p.upgrade, False) for i, p in enumerate(cfg.gpuPools)]
    for at, u, system in upgrades:
        if u is not None:
            problems += _at(at, u.settings.findings(system=system))
    if c.defender.enabled and c.defender.logAnalyticsWorkspaceId is None and not c.monitoring.containerInsights:
        problems.append(
            Problem(
                "cluster.defender.logAnalyticsWorkspaceId",
                "Defender's security monitoring sends to a Log Analytics workspace: name one, or turn "
                "cluster.monitoring.containerInsights on (its workspace is used)",
            )
        )
    problems += _at("", surge_quota(_surge_uses(cfg), dict(cfg.gpuQuota)))
    return problems


def landing_zone_warnings(cfg: StackConfig, today: date | None = None) -> list[str]:
    """Advisories, never refusals: a maintenance window for a channel that moves nothing (``none`` /
    ``Unmanaged``), and a not-allowed date range that ended before ``today`` (default: the stack's day)."""
    day = today or cfg.today
    c = cfg.cluster
    out: list[str] = []
    for kind, w, channel in (
        ("autoUpgrade", c.maintenance.autoUpgrade, c.autoUpgradeChannel),
        ("nodeOs", c.maintenance.nodeOs, c.nodeOsUpgradeChannel),
    ):
        if w is None:
            continue
        window = w.window(kind)  # type: ignore[arg-type]
        found = [*window_without_channel(window, channel), *past_not_allowed(window, day)]
        out += [f"cluster.maintenance.{kind}.{f.field}: {f.message}" for f in found]
    return out


__all__ = [
    "DefenderConfig",
    "IdentityConfig",
    "LandingZone",
    "MaintenanceConfig",
    "PoolUpgradeConfig",
    "SubnetConfig",
    "landing_zone_problems",
    "landing_zone_warnings",
]
