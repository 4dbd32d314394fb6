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
from rules.fleet_wire import MemberItem, attribute_members, read_fleet_resource
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


def _groups(resources: list[RecordedResource]) -> dict[str, str | None]:
    """The update group each FleetMember resource states, by member name."""
    groups: dict[str, str | None] = {}
    for r in resources:
        wire = read_fleet_resource(r.type, unwrap_secrets(r.inputs), is_unknown)
        if wire is not None and wire.kind == "member" and isinstance(wire.name, str) and not is_unknown(wire.name):
            group = wire.properties.get("group")
            groups[wire.name] = group if isinstance(group, str) and not is_unknown(group) else None
    return groups


def fleet_membership(resources: Iterable[RecordedResource]) -> FleetMembership | None:
    """Each resource's member (module docstring, :func:`rules.fleet_wire.attribute_members`); ``None`` when no
    resource carries the ``fleet-member`` tag."""
    items = list(resources)
    attribution = attribute_members(
        (MemberItem(r.urn, r.name, r.type, unwrap_secrets(r.inputs), _provider_urn(r.provider), r.parent)
         for r in items),
        is_unknown,
    )  # fmt: skip
    if attribution is None:
        return None
    groups = _groups(items)
    return FleetMembership(
        members=attribution.members,
        by_urn=attribution.by_urn,
        regions=_member_regions(items, attribution.by_urn),
        groups={m: groups.get(m) for m in attribution.members},
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
