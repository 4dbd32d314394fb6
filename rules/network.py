"""A cluster in the company's own network: subnet capacity (GPU pools at their worst case), pod and service CIDRs, the
outbound type's prerequisites and the private cluster's DNS zone. Pure: no Pulumi, no clock.

Facts: ``gpu_catalog/facts/aks_landing_zone.json`` (AKS REST API 2025-09-01, the AKS IP-planning, egress and private
cluster articles). Subnet prefixes, route tables and NAT gateways are inputs (a stack file states them; offline
nothing reads Azure).

The capacity rule, per subnet: every pool placed in it counts ``maxCount`` (or its fixed count) plus the nodes its
upgrade surges (:func:`surge_nodes`), times the addresses one node takes in the network mode (:func:`ips_per_node`:
one with Azure CNI Overlay or a pod subnet; ``maxPods + 1`` with flat Azure CNI), plus the 5 addresses Azure keeps
in every subnet. A NAP NodePool counts its burst bound (the nodes that hold its GPU limit) in the cluster's default
node subnet, where NAP launches nodes when its ``AKSNodeClass`` names no subnet.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gpu_catalog.landing_zone import LandingZoneFacts, load_landing_zone_facts

from . import Finding

NetworkMode = Literal["overlay", "flat"]
"""``overlay``: Azure CNI Overlay (pods on a private pod CIDR; the default, today's behaviour). ``flat``: Azure CNI
with pods on the VNet (a pod subnet per pool, or the node subnet when the pool names none)."""
OutboundType = Literal["loadBalancer", "managedNATGateway", "userAssignedNATGateway", "userDefinedRouting"]
"""The ``networkProfile.outboundType`` values a cluster outside a Network Isolated Cluster takes (``none`` and
``block`` are that feature's)."""

SUBNET_ID_RE = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Network/virtualNetworks/[^/]+/subnets/[^/]+$",
    re.IGNORECASE,
)
"""The form of ``vnetSubnetID`` / ``podSubnetID`` (REST spec description)."""


@dataclass(frozen=True, slots=True)
class Subnet:
    """A subnet the platform team created, as a stack file states it (``cluster.network.subnets.<name>``)."""

    name: str
    """The stack file's key for it."""
    id: str
    prefix: str | None = None
    """Its address prefix (``10.240.0.0/24``); ``None``: unknown offline, capacity not checked."""
    route_table: bool = False
    """A route table (0.0.0.0/0 to the firewall) is associated with it."""
    nat_gateway: bool = False
    """A NAT gateway is associated with it."""


@dataclass(frozen=True, slots=True)
class PoolAddresses:
    """What one pool takes from its subnets at its worst case."""

    pool: str
    subnet: str | None
    """The node subnet's name; ``None``: the cluster's default (the system pool's)."""
    pod_subnet: str | None
    """Flat mode: the pod subnet's name; ``None``: pods on the node subnet."""
    max_nodes: int
    """``maxCount`` (autoscaling), the fixed count, or a NAP NodePool's burst bound."""
    surge_nodes: int
    max_pods: int


@dataclass(frozen=True, slots=True)
class UpgradeSettings:
    """A pool's ``upgradeSettings`` as sent (``None``: AKS's default)."""

    max_surge: str | None = None
    max_unavailable: str | None = None
    drain_timeout_minutes: int | None = None
    node_soak_minutes: int | None = None

    def findings(self, *, system: bool = False) -> list[Finding]:
        """:func:`upgrade_settings` of these settings; ``system``: a System-mode pool's."""
        return upgrade_settings(
            self.max_surge,
            self.max_unavailable,
            drain_timeout=self.drain_timeout_minutes,
            soak=self.node_soak_minutes,
            system=system,
        )


def surge_nodes(max_surge: str | None, nodes: int, *, facts: LandingZoneFacts | None = None) -> int:
    """The nodes an upgrade adds to a pool of ``nodes`` nodes: the one surge count the subnet check, the quota
    check and the cost estimate use. An integer (``"2"``) as is, a percentage (``"33%"``) of the pool rounded up,
    ``"0"`` none; never more than the pool's nodes (AKS then surges the nodes it upgrades). Unset (whatever
    ``maxUnavailable`` says): AKS's default, ``10%`` (REST API 2025-09-01; AKS stores it on a new pool), which is one
    node up to ten nodes (the upgrade article's "one extra node by default")."""
    f = facts or load_landing_zone_facts()
    return min(_parse_surge(f.default_max_surge if max_surge is None else max_surge, nodes), max(nodes, 0))


def _parse_surge(value: str, nodes: int) -> int:
    text = value.strip()
    if text.endswith("%"):
        return math.ceil(nodes * float(text[:-1]) / 100)
    return int(text)


SURGE_RE = re.compile(r"^(?:[0-9]+|[0-9]+(?:\.[0-9]+)?%)$")
"""An integer or a percentage, as ``maxSurge`` / ``maxUnavailable`` take them."""


def system_pool_max_unavailable(max_unavailable: str | None) -> list[Finding]:
    """A System-mode pool takes no ``maxUnavailable`` ("You can't set max unavailable on system node pools", AKS
    rolling-upgrade article, ``gpu_catalog/facts/aks_landing_zone.json`` ``aks-docs-upgrade``): refused whatever its
    value, the pool upgrades by surge (``maxSurge``)."""
    if max_unavailable is None:
        return []
    return [
        Finding(
            "maxUnavailable",
            f"{max_unavailable!r}: maxUnavailable cannot be set on a System pool (AKS: \"You can't set max "
            'unavailable on system node pools", MicrosoftDocs/azure-aks-docs articles/aks/'
            "upgrade-aks-node-pools-rolling.md); leave it unset and upgrade by maxSurge",
        )
    ]


def upgrade_settings(
    max_surge: str | None,
    max_unavailable: str | None,
    *,
    drain_timeout: int | None = None,
    soak: int | None = None,
    system: bool = False,
) -> list[Finding]:
    """``upgradeSettings``: integers or percentages; with ``maxUnavailable`` 0 (its default) ``maxSurge`` must be
    above 0 (upgrade article); drain timeout and node soak within the REST spec's ranges; on a System pool
    (``system``) no ``maxUnavailable`` at all (:func:`system_pool_max_unavailable`)."""
    f = load_landing_zone_facts()
    found: list[Finding] = system_pool_max_unavailable(max_unavailable) if system else []
    shapes = [
        Finding(key, f"{value!r} is not a node count ('1') or a percentage ('33%')")
        for key, value in (("maxSurge", max_surge), ("maxUnavailable", max_unavailable))
        if value is not None and not SURGE_RE.match(value)
    ]
    if shapes:
        return [*found, *shapes]
    zero = (max_surge is not None and _parse_surge(max_surge, 100) == 0) and (
        max_unavailable is None or _parse_surge(max_unavailable, 100) == 0
    )
    if zero and system:
        found.append(Finding("maxSurge", "maxSurge 0 on a System pool: it upgrades by surge only (no maxUnavailable)"))
    elif zero:
        found.append(
            Finding("maxSurge", "maxSurge 0 needs maxUnavailable above 0 (AKS refuses an upgrade that moves no node)")
        )
    for key, value, (lo, hi) in (
        ("drainTimeoutInMinutes", drain_timeout, f.drain_timeout_minutes),
        ("nodeSoakDurationInMinutes", soak, f.node_soak_minutes),
    ):
        if value is not None and not lo <= value <= hi:
            found.append(Finding(key, f"{value} is outside {lo}..{hi} minutes (AKS REST API 2025-09-01)"))
    return found


def ips_per_node(mode: NetworkMode, max_pods: int, *, pod_subnet: bool) -> int:
    """Addresses one node takes from its node subnet: one with overlay or a pod subnet, ``maxPods + 1`` with flat
    Azure CNI (the node and each of its pods)."""
    if mode == "overlay" or pod_subnet:
        return 1
    return max_pods + 1


def usable_addresses(prefix: str, *, facts: LandingZoneFacts | None = None) -> int:
    """The addresses of ``prefix`` Azure lets a subnet use (all but the first four and the last)."""
    f = facts or load_landing_zone_facts()
    return max(ipaddress.ip_network(prefix, strict=False).num_addresses - f.reserved_addresses, 0)


def _demand(
    mode: NetworkMode, pools: Sequence[PoolAddresses], default_subnet: str | None
) -> dict[str, list[tuple[str, int, str]]]:
    """Subnet name → (pool, addresses, how) for every subnet a pool takes addresses from (``""``: a default subnet
    that is not known)."""
    out: dict[str, list[tuple[str, int, str]]] = {}
    for p in pools:
        nodes = p.max_nodes + p.surge_nodes
        per = ips_per_node(mode, p.max_pods, pod_subnet=p.pod_subnet is not None)
        how = f"({p.max_nodes} + {p.surge_nodes} surge) nodes × {per}"
        out.setdefault(p.subnet or default_subnet or "", []).append((p.pool, nodes * per, how))
        if mode == "flat" and p.pod_subnet is not None:
            out.setdefault(p.pod_subnet, []).append(
                (p.pool, nodes * p.max_pods, f"({p.max_nodes} + {p.surge_nodes} surge) nodes × {p.max_pods} pods")
            )
    return out


def subnet_capacity(
    mode: NetworkMode, subnets: Mapping[str, Subnet], pools: Sequence[PoolAddresses], default_subnet: str | None
) -> list[Finding]:
    """Every subnet holds the worst case of the pools placed in it (module docstring), refused with the numbers.
    Subnets without a known prefix are not checked (offline, nothing else says how big they are)."""
    f = load_landing_zone_facts()
    found: list[Finding] = []
    for name, uses in _demand(mode, pools, default_subnet).items():
        subnet = subnets.get(name)
        if subnet is None or subnet.prefix is None:
            continue
        need = sum(n for _, n, _ in uses)
        have = usable_addresses(subnet.prefix, facts=f)
        if need > have:
            parts = "; ".join(f"{pool}: {how} = {n}" for pool, n, how in uses)
            found.append(
                Finding(
                    f"subnets.{subnet.name}",
                    f"subnet {subnet.name!r} ({subnet.prefix}: {have} usable addresses, Azure keeps "
                    f"{f.reserved_addresses}) cannot hold its pools at their worst case: {need} addresses needed "
                    f"({parts}). Use a larger prefix, fewer nodes (maxCount, maxSurge) or "
                    + ("a pod subnet" if mode == "flat" else "another subnet for a pool"),
                )
            )
    return found


def pod_cidr_capacity(pod_cidr: str | None, total_nodes: int) -> list[Finding]:
    """Overlay: each node takes a fixed /24 of the pod CIDR, so the pod CIDR bounds the cluster's node count."""
    if pod_cidr is None:
        return []
    f = load_landing_zone_facts()
    net = ipaddress.ip_network(pod_cidr, strict=False)
    blocks = 2 ** max(f.overlay_node_block_prefix - net.prefixlen, 0)
    if total_nodes <= blocks:
        return []
    return [
        Finding(
            "podCidr",
            f"podCidr {pod_cidr} holds {blocks} node blocks (/{f.overlay_node_block_prefix} each) but the pools reach "
            f"{total_nodes} nodes at their worst case (maxCount + surge): use a larger pod CIDR",
        )
    ]


def _net(value: str, key: str, found: list[Finding]) -> ipaddress.IPv4Network | None:
    try:
        net = ipaddress.ip_network(value, strict=True)
    except ValueError:
        found.append(Finding(key, f"{value!r} is not an IPv4 CIDR with its network address (like '10.0.0.0/16')"))
        return None
    if not isinstance(net, ipaddress.IPv4Network):
        found.append(Finding(key, f"{value!r} is IPv6: this platform builds IPv4 clusters"))
        return None
    return net


def network_cidrs(
    mode: NetworkMode,
    pod_cidr: str | None,
    service_cidr: str | None,
    dns_service_ip: str | None,
    subnets: Sequence[Subnet],
) -> list[Finding]:
    """Pod CIDR only with overlay; the service CIDR smaller than /12 and apart from the pod CIDR and every subnet; the
    DNS service IP inside the service CIDR; ``serviceCidr`` and ``dnsServiceIP`` set together."""
    f = load_landing_zone_facts()
    found: list[Finding] = []
    if pod_cidr is not None and mode != "overlay":
        found.append(Finding("podCidr", "podCidr is Azure CNI Overlay's: with mode flat pods take VNet addresses"))
    if (service_cidr is None) != (dns_service_ip is None):
        found.append(Finding("dnsServiceIP", "serviceCidr and dnsServiceIP are set together (the DNS IP is in it)"))
    pods = _net(pod_cidr, "podCidr", found) if pod_cidr is not None else None
    services = _net(service_cidr, "serviceCidr", found) if service_cidr is not None else None
    nets = [(s.name, _net(s.prefix, f"subnets.{s.name}.addressPrefix", found)) for s in subnets if s.prefix]
    if services is not None:
        if services.prefixlen <= f.max_service_cidr_prefix:
            found.append(
                Finding("serviceCidr", f"{service_cidr} is too large: AKS wants less than /{f.max_service_cidr_prefix}")
            )
        if pods is not None and services.overlaps(pods):
            found.append(Finding("serviceCidr", f"serviceCidr {service_cidr} overlaps podCidr {pod_cidr}"))
        for name, net in nets:
            if net is not None and services.overlaps(net):
                found.append(Finding("serviceCidr", f"serviceCidr {service_cidr} overlaps subnet {name!r} ({net})"))
        if dns_service_ip is not None:
            try:
                inside = ipaddress.ip_address(dns_service_ip) in services
            except ValueError:
                inside = False
            if not inside:
                found.append(Finding("dnsServiceIP", f"{dns_service_ip!r} is not in serviceCidr {service_cidr}"))
    if pods is not None:
        for name, net in nets:
            if net is not None and pods.overlaps(net):
                found.append(Finding("podCidr", f"podCidr {pod_cidr} overlaps subnet {name!r} ({net})"))
    return found


def outbound_prerequisites(
    outbound: OutboundType | None, node_subnets: Sequence[Subnet], *, byo: bool | None = None
) -> list[Finding]:
    """What the outbound type needs of the subnets the nodes join (egress article): ``userDefinedRouting`` a route
    table on every node subnet, ``userAssignedNATGateway`` a NAT gateway on each, both only with your own subnets;
    ``managedNATGateway`` only in an AKS-managed VNet. ``node_subnets``: the described ones; ``byo``: the nodes join
    your subnets (default: some are described)."""
    if outbound is None:
        return []
    facts = load_landing_zone_facts().outbound_types[outbound]
    byo = bool(node_subnets) if byo is None else byo
    if facts.subnet_needs is not None and not byo:
        return [Finding("outboundType", f"{outbound} needs the cluster in your own subnets: {facts.needs}")]
    if not facts.byo_subnets and byo:
        return [
            Finding(
                "outboundType",
                f"{outbound} works only in an AKS-managed virtual network; with your own subnets use "
                "userAssignedNATGateway (a NAT gateway on the subnets) or userDefinedRouting",
            )
        ]
    found: list[Finding] = []
    for s in node_subnets:
        has = s.route_table if facts.subnet_needs == "routeTable" else s.nat_gateway
        if facts.subnet_needs is not None and not has:
            key = "routeTableId" if facts.subnet_needs == "routeTable" else "natGatewayId"
            found.append(
                Finding(
                    f"subnets.{s.name}.{key}",
                    f"outboundType {outbound} needs {facts.needs}; subnet {s.name!r} states none ({key})",
                )
            )
    return found


def private_dns_zone(
    private_cluster: bool, zone: str | None, location: str, *, user_assigned_control_plane: bool
) -> list[Finding]:
    """``privateDNSZone`` (private-clusters article): only on a private cluster; ``system``, ``none`` or the id of a
    zone ``privatelink.<region>.azmk8s.io`` (or ``<subzone>.privatelink.…``, subzone ≤ 32 characters) in the
    cluster's region, which needs a user-assigned control-plane identity."""
    if zone is None:
        return []
    f = load_landing_zone_facts()
    if not private_cluster:
        return [Finding("privateDnsZone", "privateDnsZone applies to a private cluster only: set privateCluster: true")]
    if zone in f.private_dns_modes:
        return []
    if not re.match(f.private_dns_zone_id_pattern, zone, re.IGNORECASE):
        return [
            Finding(
                "privateDnsZone",
                f"{zone!r} is neither {' nor '.join(f.private_dns_modes)} nor a private DNS zone resource id "
                "(/subscriptions/…/providers/Microsoft.Network/privateDnsZones/privatelink.<region>.azmk8s.io)",
            )
        ]
    found: list[Finding] = []
    name = zone.rsplit("/", 1)[-1].lower()
    m = re.match(f.private_dns_zone_pattern, name)
    if m is None:
        found.append(
            Finding(
                "privateDnsZone",
                f"zone {name!r}: AKS wants privatelink.<region>.azmk8s.io or <subzone>.privatelink.<region>.azmk8s.io "
                "(subzone at most 32 characters)",
            )
        )
    elif m.group("region") != location.lower():
        found.append(
            Finding("privateDnsZone", f"zone {name!r} is for region {m.group('region')!r}, the cluster in {location!r}")
        )
    if not user_assigned_control_plane:
        found.append(
            Finding(
                "identity.controlPlane",
                "a custom private DNS zone needs a user-assigned control-plane identity (AKS does not support a "
                "system-assigned one with it) holding Private DNS Zone Contributor on the zone and Network "
                "Contributor on the subnets",
            )
        )
    return found
