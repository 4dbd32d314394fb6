"""Azure Kubernetes Fleet Manager resources as the engine sends them, and the tag that ties a resource to a member.

Two ways to send a Fleet resource, both read here into one shape (:class:`WireFleetResource`):

- the generic ``azure-native:resources:Resource`` with ``resourceProviderNamespace: Microsoft.ContainerService``,
  an explicit ``apiVersion`` and the ARM body under ``properties``; its type is ``resourceType`` after the types of
  ``parentResourcePath`` (``parentResourcePath: fleets/gpu-fleet`` + ``resourceType: members`` is
  ``fleets/members``; a ``resourceType`` that already names the full type, ``fleets/members``, is taken as it is);
- pulumi-azure-native's typed resources (``azure-native:containerservice:Fleet``, ``FleetMember``,
  ``FleetUpdateStrategy``, ``AutoUpgradeProfile``, ``UpdateRun``; explicit API-version modules count), whose inputs
  are the ARM properties flattened beside ``fleetName`` / ``resourceGroupName`` / the resource's own name key.

The ARM property names are the same in both (``group``, ``clusterResourceId``, ``strategy.stages[].groups[].name``,
``channel``, ``nodeImageSelection.type``: the Fleet REST spec). Pure: no Pulumi import; callers pass their own
``is_unknown`` (the pack's sentinel or the preflight's recorded string).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final, Literal

FLEET_MEMBER_TAG: Final = "fleet-member"
"""The Azure tag every Azure resource of a member's platform carries, valued with the member's name."""

FleetKind = Literal["fleet", "member", "updateStrategy", "autoUpgradeProfile", "updateRun"]

GENERIC_RESOURCE: Final = "azure-native:resources:Resource"
PROVIDER_NAMESPACE: Final = "microsoft.containerservice"
_ARM_KINDS: Final[dict[str, FleetKind]] = {
    "fleets": "fleet",
    "fleets/members": "member",
    "fleets/updatestrategies": "updateStrategy",
    "fleets/autoupgradeprofiles": "autoUpgradeProfile",
    "fleets/updateruns": "updateRun",
}
_TYPED_RE: Final = re.compile(
    r"^azure-native:containerservice(?:/v[0-9a-z]+)?:"
    r"(?P<kind>Fleet|FleetMember|FleetUpdateStrategy|AutoUpgradeProfile|UpdateRun)$"
)
_TYPED_KINDS: Final[dict[str, tuple[FleetKind, str]]] = {
    "Fleet": ("fleet", "fleetName"),
    "FleetMember": ("member", "fleetMemberName"),
    "FleetUpdateStrategy": ("updateStrategy", "updateStrategyName"),
    "AutoUpgradeProfile": ("autoUpgradeProfile", "autoUpgradeProfileName"),
    "UpdateRun": ("updateRun", "updateRunName"),
}
_NOT_PROPERTIES: Final = frozenset({"fleetName", "resourceGroupName", "location", "tags", "eTag", "ifMatch"})


@dataclass(frozen=True)
class WireFleetResource:
    """One Fleet Manager resource: its kind, the fleet it belongs to, its own name and its ARM ``properties``."""

    kind: FleetKind
    fleet: Any
    """The fleet's name (a string, unknown, or ``None`` when the inputs do not say)."""
    name: Any
    """The resource's own ARM name (the member's name for a FleetMember), or ``None`` when the inputs do not say."""
    properties: Mapping[str, Any] = field(default_factory=dict)
    api_version: str | None = None
    """The API version sent explicitly (the generic resource's ``apiVersion``); ``None``: the typed SDK's default."""
    generic: bool = False


@lru_cache(maxsize=256)
def _typed_kind(resource_type: str) -> tuple[FleetKind, str] | None:
    m = _TYPED_RE.match(resource_type)
    return _TYPED_KINDS[m.group("kind")] if m else None


def arm_type(parent_path: Any, resource_type: Any) -> str | None:
    """The full ARM type under the provider namespace (``fleets/members``), lower-cased; ``None`` when unknown."""
    if not isinstance(resource_type, str):
        return None
    if "/" in resource_type or not parent_path:
        return resource_type.strip("/").lower()
    if not isinstance(parent_path, str):
        return None
    steps = [s for s in parent_path.strip("/").split("/") if s]
    return "/".join([*steps[0::2], resource_type]).lower()


def _parent_fleet(parent_path: Any) -> Any:
    if not isinstance(parent_path, str):
        return parent_path
    steps = [s for s in parent_path.strip("/").split("/") if s]
    return steps[1] if len(steps) >= 2 and steps[0].lower() == "fleets" else None


def is_fleet_type(resource_type: str) -> bool:
    """A typed Fleet Manager resource token (the generic resource needs its inputs: :func:`read_fleet_resource`)."""
    return _typed_kind(resource_type) is not None


def read_fleet_resource(
    resource_type: str, props: Mapping[str, Any], is_unknown: Callable[[Any], bool]
) -> WireFleetResource | None:
    """The Fleet Manager resource ``props`` describes, or ``None`` for any other resource (module docstring)."""
    typed = _typed_kind(resource_type)
    if typed is not None:
        kind, name_key = typed
        body = {k: v for k, v in props.items() if k not in _NOT_PROPERTIES and k != name_key}
        return WireFleetResource(kind, props.get("fleetName"), props.get(name_key), body)
    if resource_type != GENERIC_RESOURCE:
        return None
    namespace = props.get("resourceProviderNamespace")
    if not isinstance(namespace, str) or namespace.lower() != PROVIDER_NAMESPACE:
        return None
    parent = props.get("parentResourcePath")
    parent = None if is_unknown(parent) else parent
    full = arm_type(parent, props.get("resourceType"))
    kind_of = _ARM_KINDS.get(full or "")
    if kind_of is None:
        return None
    body = props.get("properties")
    body = body if isinstance(body, Mapping) else {}
    name = props.get("resourceName")
    fleet = name if kind_of == "fleet" else _parent_fleet(parent)
    if kind_of != "fleet" and fleet is None and isinstance(name, str) and "/" in name:
        fleet, name = name.split("/", 1)  # ``<fleet>/<member>`` names the child in the resource name
    version = props.get("apiVersion")
    api = version if isinstance(version, str) and not is_unknown(version) else None
    return WireFleetResource(kind_of, fleet, name, body, api, generic=True)


@dataclass(frozen=True)
class WireStage:
    """One stage of an update strategy as sent: its name, the groups it names, the wait after it."""

    name: Any
    groups: tuple[Any, ...]
    after_stage_wait_seconds: Any = None


def strategy_stages(resource: WireFleetResource) -> Any:
    """The stages of an update strategy (or an update run's own strategy): a list of :class:`WireStage`, ``None``
    when the resource states none, or the unknown value itself when ``strategy`` / ``stages`` is unknown."""
    strategy = resource.properties.get("strategy")
    if not isinstance(strategy, Mapping):
        return strategy  # absent or unknown
    stages = strategy.get("stages")
    if not isinstance(stages, list):
        return stages
    out: list[WireStage] = []
    for stage in stages:
        if not isinstance(stage, Mapping):
            out.append(WireStage(stage, ()))
            continue
        groups = stage.get("groups")
        listed = groups if isinstance(groups, list) else []
        names = tuple(g.get("name") if isinstance(g, Mapping) else g for g in listed)
        out.append(WireStage(stage.get("name"), names, stage.get("afterStageWaitInSeconds")))
    return out


def member_tag(props: Mapping[str, Any]) -> str | None:
    """The ``fleet-member`` tag of a resource's inputs (a non-empty string), else ``None``."""
    tags = props.get("tags")
    value = tags.get(FLEET_MEMBER_TAG) if isinstance(tags, Mapping) else None
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True)
class MemberItem:
    """One resource as member attribution reads it: its URN, Pulumi name, type, inputs, and the URNs of its provider
    (without the ``::<id>``) and parent, when known."""

    urn: str
    name: str
    resource_type: str
    props: Mapping[str, Any]
    provider: str | None = None
    parent: str | None = None


@dataclass(frozen=True)
class Attribution:
    """The members a stack's resources name (sorted) and each resource's member by URN (absent: no member)."""

    members: tuple[str, ...]
    by_urn: Mapping[str, str]
    fleet_urns: frozenset[str] = frozenset()
    """The Fleet Manager resources (they belong to the fleet, not to a member)."""


def _by_prefix(name: str, members: Iterable[str]) -> str | None:
    fits = [m for m in members if name == m or name.startswith(f"{m}-")]
    return max(fits, key=len) if fits else None


def attribute_members(items: Iterable[MemberItem], is_unknown: Callable[[Any], bool]) -> Attribution | None:
    """Each resource's fleet member, in this order: its own ``fleet-member`` tag; else (a Fleet Manager resource
    belongs to the fleet, not to a member) its provider's member (a member's Kubernetes provider names the member's
    cluster), else its parent's, else its name's ``<member>-`` prefix (the longest member name that fits) among the
    members the tags and the FleetMember resources declare. ``None`` when no resource carries the tag."""
    listed = list(items)
    tagged = {i.urn: m for i in listed if (m := member_tag(i.props)) is not None}
    if not tagged:
        return None
    declared: set[str] = set()
    fleet_urns: set[str] = set()
    for i in listed:
        wire = read_fleet_resource(i.resource_type, i.props, is_unknown)
        if wire is None:
            continue
        fleet_urns.add(i.urn)
        if wire.kind == "member" and isinstance(wire.name, str) and not is_unknown(wire.name):
            declared.add(wire.name)
    members = sorted(set(tagged.values()) | declared)
    by_item = {i.urn: i for i in listed}
    found: dict[str, str | None] = {}

    def resolve(item: MemberItem, depth: int = 0) -> str | None:
        if item.urn in found:
            return found[item.urn]
        member: str | None = tagged.get(item.urn)
        if member is None and item.urn not in fleet_urns and depth < 64:
            for ref in (item.provider, item.parent):
                other = by_item.get(ref) if ref else None
                member = resolve(other, depth + 1) if other is not None else None
                if member is not None:
                    break
            if member is None:
                member = _by_prefix(item.name, members)
        found[item.urn] = member
        return member

    by_urn = {i.urn: m for i in listed if (m := resolve(i)) is not None}
    return Attribution(tuple(members), by_urn, frozenset(fleet_urns))
