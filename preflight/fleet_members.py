"""Which fleet member each recorded resource belongs to (a stack that holds a fleet, ``docs/fleet.md``).

A fleet stack holds one full platform per member; every Azure resource of a member carries the tag
``fleet-member: <member>`` (:data:`rules.fleet_wire.FLEET_MEMBER_TAG`) and every Pulumi name of a member starts with
``<member>-``. A resource belongs to a member by, in this order: its own tag; else (a Fleet Manager resource belongs to
the fleet, not to a member) the member of the provider it uses (a member's Kubernetes provider names the member's
cluster), else its parent's member, else its name's ``<member>-`` prefix (the longest member name that fits). A stack
without the tag has no membership (:func:`fleet_membership` returns ``None``) and reports as it always did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from preflight.model import RecordedResource
from preflight.wire import is_unknown, unwrap_secrets
from rules.fleet_wire import member_tag, read_fleet_resource
from rules.resource_types import is_managed_cluster


def _region(value: Any) -> str | None:
    if isinstance(value, str) and value and not is_unknown(value):
        return value.replace(" ", "").lower()
    return None


@dataclass(frozen=True)
class FleetMembership:
    """The members a stack's resources name, and each resource's member."""

    members: tuple[str, ...]
    """Member names, sorted."""
    by_urn: Mapping[str, str]
    """URN → member (resources of no member are absent: the fleet's own, the stack, default providers)."""
    regions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Member → its regions: its ManagedClusters' ``location``, else its tagged resources' (sorted)."""
    groups: Mapping[str, str | None] = field(default_factory=dict)
    """Member → the update group its FleetMember resource states (``None``: none stated or no FleetMember seen)."""

    def of(self, urn: str) -> str | None:
        return self.by_urn.get(urn)

    def cluster_region(self, member: str) -> str | None:
        """The member's one region (``None`` when it has none or several)."""
        found = self.regions.get(member, ())
        return found[0] if len(found) == 1 else None


def _provider_urn(ref: str | None) -> str | None:
    """A provider reference (``<urn>::<id>``) without its id."""
    return ref.rsplit("::", 1)[0] if ref and "::" in ref else None


def _by_prefix(name: str, members: Iterable[str]) -> str | None:
    fits = [m for m in members if name == m or name.startswith(f"{m}-")]
    return max(fits, key=len) if fits else None


def _declared(resources: list[RecordedResource]) -> tuple[set[str], dict[str, str | None], set[str]]:
    """Member names and groups from FleetMember resources, and the URNs of every Fleet Manager resource."""
    names: set[str] = set()
    groups: dict[str, str | None] = {}
    fleet_urns: set[str] = set()
    for r in resources:
        wire = read_fleet_resource(r.type, unwrap_secrets(r.inputs), is_unknown)
        if wire is None:
            continue
        fleet_urns.add(r.urn)
        if wire.kind == "member" and isinstance(wire.name, str) and not is_unknown(wire.name):
            names.add(wire.name)
            group = wire.properties.get("group")
            groups[wire.name] = group if isinstance(group, str) and not is_unknown(group) else None
    return names, groups, fleet_urns


def fleet_membership(resources: Iterable[RecordedResource]) -> FleetMembership | None:
    """Each resource's member (module docstring); ``None`` when no resource carries the ``fleet-member`` tag."""
    items = list(resources)
    tagged: dict[str, str] = {}
    for r in items:
        member = member_tag(unwrap_secrets(r.inputs))
        if member is not None:
            tagged[r.urn] = member
    if not tagged:
        return None
    declared, groups, fleet_urns = _declared(items)
    members = sorted(set(tagged.values()) | declared)
    by_urn_resource = {r.urn: r for r in items}
    found: dict[str, str | None] = {}

    def resolve(r: RecordedResource, depth: int = 0) -> str | None:
        if r.urn in found:
            return found[r.urn]
        member: str | None = tagged.get(r.urn)
        if member is None and r.urn not in fleet_urns and depth < 64:
            for ref in (_provider_urn(r.provider), r.parent):
                other = by_urn_resource.get(ref) if ref else None
                member = resolve(other, depth + 1) if other is not None else None
                if member is not None:
                    break
            if member is None:
                member = _by_prefix(r.name, members)
        found[r.urn] = member
        return member

    by_urn = {r.urn: m for r in items if (m := resolve(r)) is not None}
    return FleetMembership(
        members=tuple(members),
        by_urn=by_urn,
        regions=_member_regions(items, by_urn),
        groups={m: groups.get(m) for m in members},
    )


def _member_regions(items: list[RecordedResource], by_urn: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    clusters: dict[str, set[str]] = {}
    tagged: dict[str, set[str]] = {}
    for r in items:
        member = by_urn.get(r.urn)
        region = _region(unwrap_secrets(r.inputs).get("location")) if member is not None else None
        if member is None or region is None:
            continue
        (clusters if is_managed_cluster(r.type) else tagged).setdefault(member, set()).add(region)
    members = set(clusters) | set(tagged)
    return {m: tuple(sorted(clusters.get(m) or tagged.get(m) or ())) for m in members}
