"""Facts about AKS in a landing zone (``facts/aks_landing_zone.json``): subnet reservations, outbound types, private DNS
zones, maintenance windows, upgrade settings and the built-in roles AKS needs. No Pulumi imports."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .access import AksRbacRole

LANDING_ZONE_FACTS = Path(__file__).with_name("facts") / "aks_landing_zone.json"


@dataclass(frozen=True, slots=True)
class OutboundTypeFacts:
    name: str
    needs: str
    """What the type needs, in words (``docs/landing-zone.md`` and the messages quote it)."""
    subnet_needs: str | None
    """``routeTable`` or ``natGateway``: what every node subnet must carry; ``None``: nothing."""
    byo_subnets: bool
    """False: the type works only in an AKS-managed virtual network."""


@dataclass(frozen=True, slots=True)
class LandingZoneFacts:
    reserved_addresses: int
    """Addresses Azure keeps in every subnet (the first four and the last)."""
    overlay_node_block_prefix: int
    """The prefix of the pod-CIDR block each overlay node gets (a /24)."""
    max_service_cidr_prefix: int
    """The service CIDR must be smaller than this prefix (``/12``)."""
    outbound_types: dict[str, OutboundTypeFacts]
    private_dns_modes: tuple[str, ...]
    private_dns_zone_pattern: str
    private_dns_zone_id_pattern: str
    maintenance_configurations: dict[str, str]
    """``autoUpgrade`` / ``nodeOs`` → the MaintenanceConfiguration name AKS reads."""
    min_window_hours: int
    max_window_hours: int
    schedules: tuple[str, ...]
    schedules_by_configuration: dict[str, tuple[str, ...]]
    """A ``MaintenanceConfiguration`` name → the schedule types AKS takes for it (planned-maintenance article)."""
    intervals: dict[str, tuple[str, int, int]]
    """A schedule type → (its interval field, minimum, maximum) (REST API 2025-09-01)."""
    week_indexes: tuple[str, ...]
    default_max_surge: str
    """AKS's default ``maxSurge`` (``10%`` of the pool, rounded up: one node up to ten nodes), the count
    :func:`rules.network.surge_nodes` uses when a pool states none."""
    drain_timeout_minutes: tuple[int, int]
    node_soak_minutes: tuple[int, int]
    roles: dict[str, AksRbacRole]


@lru_cache(maxsize=2)
def load_landing_zone_facts(path: Path = LANDING_ZONE_FACTS) -> LandingZoneFacts:
    doc = json.loads(path.read_text(encoding="utf-8"))
    outbound = {
        name: OutboundTypeFacts(name, row["needs"], row.get("subnetNeeds"), bool(row.get("byoSubnets", True)))
        for name, row in doc["outboundTypes"].items()
        if isinstance(row, dict)
    }
    dns = doc["privateDnsZone"]
    maint = doc["maintenance"]
    upgrade = doc["upgrade"]
    rows = doc["roles"].items()
    roles = {key: AksRbacRole(key, row["name"], row["id"]) for key, row in rows if isinstance(row, dict)}
    return LandingZoneFacts(
        reserved_addresses=int(doc["subnet"]["reservedAddresses"]),
        overlay_node_block_prefix=int(doc["overlay"]["nodePodBlockPrefix"]),
        max_service_cidr_prefix=int(doc["overlay"]["maxServiceCidrPrefix"]),
        outbound_types=outbound,
        private_dns_modes=tuple(dns["modes"]),
        private_dns_zone_pattern=str(dns["zonePattern"]),
        private_dns_zone_id_pattern=str(dns["zoneIdPattern"]),
        maintenance_configurations=dict(maint["configurations"]),
        min_window_hours=int(maint["minDurationHours"]),
        max_window_hours=int(maint["maxDurationHours"]),
        schedules=tuple(maint["schedules"]),
        schedules_by_configuration={k: tuple(v) for k, v in maint["schedulesByConfiguration"].items()},
        intervals={k: (str(v["field"]), int(v["min"]), int(v["max"])) for k, v in maint["intervals"].items()},
        week_indexes=tuple(maint["weekIndex"]),
        default_max_surge=str(upgrade["defaultMaxSurge"]),
        drain_timeout_minutes=(int(upgrade["drainTimeoutMinutes"][0]), int(upgrade["drainTimeoutMinutes"][1])),
        node_soak_minutes=(int(upgrade["nodeSoakMinutes"][0]), int(upgrade["nodeSoakMinutes"][1])),
        roles=roles,
    )


def landing_zone_role(key: str) -> AksRbacRole:
    """A built-in role AKS needs in a landing zone: ``NetworkContributor``, ``ManagedIdentityOperator``, ``AcrPull``,
    ``PrivateDnsZoneContributor``."""
    return load_landing_zone_facts().roles[key]
