"""A stack's Azure Kubernetes Fleet Manager fleets as the stack policies see them: per fleet its FleetMembers, update
strategies (and update runs with their own strategy) and auto-upgrade profiles, generic
(``azure-native:resources:Resource``, resource types ``fleets/...``) or typed (``azure-native:containerservice:
FleetMember`` ...), read by :func:`rules.fleet_wire.read_fleet_resource`; and each member's cluster facts (its
ManagedCluster by the ``fleet-member`` tag, the GPU operator release by the member's ``<member>-`` name prefix).

The fleet's rules are :mod:`rules.fleet`'s (the stack config calls the same functions on the stack file's fleet); this
module only turns what the engine sends into :class:`rules.specs.fleet.FleetSpec` parts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pulumi_policy import PolicyResource, ReportViolation, StackValidationArgs

from rules.fleet import (
    UPGRADE_TYPES_MOVING_VERSION,
    UpdateRunTarget,
    fleet_channel_findings,
    member_channel_findings,
    update_run_findings,
)
from rules.fleet_wire import (
    FLEET_MEMBER_TAG,
    MemberItem,
    WireFleetResource,
    WireStage,
    attribute_members,
    member_tag,
    read_fleet_resource,
    strategy_stages,
)
from rules.idle import is_gpu_operator_chart
from rules.resource_types import is_helm_release, is_managed_cluster
from rules.specs.fleet import AutoUpgrade, FleetMember, FleetSpec, UpdateStage

from ._resources import (
    UNKNOWN,
    ResourceRef,
    Review,
    as_bool,
    get,
    is_unknown,
    props_of,
    request_today,
    resource_ref,
    shared_reading,
)


@dataclass(frozen=True)
class FleetPart:
    """One Fleet Manager resource of the stack: the resource and what :func:`read_fleet_resource` read."""

    resource: ResourceRef
    wire: WireFleetResource


@dataclass
class StackFleet:
    """Everything the stack sends for one fleet (by the fleet's name)."""

    name: str
    members: list[FleetPart] = field(default_factory=list)
    strategies: list[FleetPart] = field(default_factory=list)
    """Update strategies, and update runs that carry their own ``strategy``."""
    profiles: list[FleetPart] = field(default_factory=list)
    runs: list[FleetPart] = field(default_factory=list)
    """Update runs (``fleets/updateRuns``), whatever their strategy."""


def stack_fleets(args: StackValidationArgs, review: Review) -> dict[str, StackFleet]:
    """The stack's fleets by name; a Fleet resource whose fleet name is unknown is recorded on ``review``."""
    fleets: dict[str, StackFleet] = {}
    for resource in args.resources:
        ref: ResourceRef | None = None
        props: Any = None
        if resource.resource_type.startswith(("azure-native:resources:", "azure-native:containerservice")):
            ref = resource_ref(resource)
            props = ref.props
        if not isinstance(props, Mapping):
            continue
        wire = read_fleet_resource(resource.resource_type, props, is_unknown)
        if wire is None or wire.kind == "fleet" or ref is None:
            continue
        if not isinstance(wire.fleet, str):
            review.unknown_field(f"{resource.name}: the fleet it belongs to (parentResourcePath / fleetName)")
            continue
        fleet = fleets.setdefault(wire.fleet, StackFleet(wire.fleet))
        part = FleetPart(ref, wire)
        if wire.kind == "member":
            fleet.members.append(part)
        elif wire.kind == "autoUpgradeProfile":
            fleet.profiles.append(part)
        if wire.kind == "updateRun":
            fleet.runs.append(part)
        elif wire.kind == "updateStrategy" or "strategy" in wire.properties:
            fleet.strategies.append(part)
    return fleets


def fleets_of(args: StackValidationArgs, review: Review) -> list[StackFleet]:
    """:func:`stack_fleets`, read once per request and shared by the fleet policies."""
    return shared_reading(_FLEETS, lambda recorder: list(stack_fleets(args, recorder).values()), review)


_FLEETS = "fleets"


@dataclass(frozen=True)
class MemberCluster:
    """What the stack sends for a member's cluster: its ManagedCluster and its GPU operator release, if any."""

    region: Any = None
    kubernetes_version: Any = None
    upgrade_channel: Any = None
    kaito_addon: Any = False
    gpu_operator_version: Any = None
    node_os_channel: Any = None
    node_auto_provisioning: Any = False
    cluster_name: str = ""
    urn: str = ""


def member_clusters(args: StackValidationArgs) -> dict[str, MemberCluster]:
    """Per member (the ``fleet-member`` tag of its ManagedCluster): the cluster's Kubernetes version, own upgrade
    channel, KAITO add-on, and the version of the GPU operator release named ``<member>-...``."""
    clusters: dict[str, ResourceRef] = {}
    operators: list[ResourceRef] = []
    for resource in args.resources:
        if is_managed_cluster(resource.resource_type):
            ref = resource_ref(resource)
            member = member_tag(ref.props) if isinstance(ref.props, Mapping) else None
            if member is not None:
                clusters.setdefault(member, ref)
        elif is_helm_release(resource.resource_type):
            ref = resource_ref(resource)
            if is_gpu_operator_chart(get(ref.props, "chart")):
                operators.append(ref)
    out: dict[str, MemberCluster] = {}
    for member, ref in clusters.items():
        operator = next((o for o in operators if o.name.startswith(f"{member}-")), None)
        enabled = get(ref.props, "aiToolchainOperatorProfile", "enabled")
        out[member] = MemberCluster(
            region=get(ref.props, "location"),
            kubernetes_version=get(ref.props, "kubernetesVersion"),
            upgrade_channel=get(ref.props, "autoUpgradeProfile", "upgradeChannel"),
            kaito_addon=UNKNOWN if enabled is UNKNOWN else bool(as_bool(enabled)),
            gpu_operator_version=get(operator.props, "version") if operator is not None else None,
            node_os_channel=get(ref.props, "autoUpgradeProfile", "nodeOSUpgradeChannel"),
            node_auto_provisioning=get(ref.props, "nodeProvisioningProfile", "mode") == "Auto",
            cluster_name=ref.name,
            urn=ref.urn,
        )
    return out


def fleet_members(resources: Sequence[PolicyResource]) -> Mapping[str, str] | None:
    """Each resource's fleet member by URN (:func:`rules.fleet_wire.attribute_members`: its tag, its provider's or
    parent's member, its ``<member>-`` name prefix), when the stack has ManagedClusters and every one carries the
    ``fleet-member`` tag; else ``None`` (a stack that is not a fleet of one-cluster members)."""
    clusters = [r for r in resources if is_managed_cluster(r.resource_type)]
    if not clusters:
        return None
    for cluster in clusters:
        props = props_of(cluster)
        if not isinstance(props, Mapping) or member_tag(props) is None:
            return None
    items: list[MemberItem] = []
    for r in resources:
        props = props_of(r)
        provider, parent = r.provider, r.parent
        items.append(
            MemberItem(
                r.urn,
                r.name,
                r.resource_type,
                props if isinstance(props, Mapping) else {},
                provider.urn if provider is not None else None,
                parent.urn if parent is not None else None,
            )
        )
    attribution = attribute_members(items, is_unknown)
    return attribution.by_urn if attribution is not None else None


def member_groups(
    resources: Sequence[PolicyResource], relevant: Callable[[str], bool]
) -> dict[str, list[PolicyResource]] | None:
    """The stack's resources of each type ``relevant`` accepts, grouped by fleet member (:func:`fleet_members`), so a
    policy judges each member's group as it judges a one-cluster stack; ``None`` when the stack is not such a fleet
    or a relevant resource belongs to no member (the caller then reads the stack as a whole)."""
    members = fleet_members(resources)
    if members is None:
        return None
    groups: dict[str, list[PolicyResource]] = {}
    for r in resources:
        if not relevant(r.resource_type):
            continue
        member = members.get(r.urn)
        if member is None:
            return None
        groups.setdefault(member, []).append(r)
    return groups


# --------------------------------------------------------------------------------------------------------------------
# The auto-upgrade profiles against the members' pinned GPU software (rules.fleet's channel rules)


@dataclass(frozen=True)
class ProfileFinding:
    """A finding of :mod:`rules.fleet`'s channel rules on one profile, with the resource it belongs on."""

    message: str
    urn: str
    advisory: bool


def _upgrade(part: FleetPart, review: Review) -> AutoUpgrade | None:
    props = part.wire.properties
    channel, disabled = props.get("channel"), props.get("disabled")
    selection, target = get(props, "nodeImageSelection", "type"), props.get("targetKubernetesVersion")
    for key, value in (("channel", channel), ("disabled", disabled), ("nodeImageSelection.type", selection),
                       ("targetKubernetesVersion", target)):  # fmt: skip
        if is_unknown(value):
            review.unknown_field(f"{part.resource.name}: {key}")
            return None
    if not isinstance(channel, str):
        return None
    return AutoUpgrade(
        channel=channel,  # pyright: ignore[reportArgumentType]  (the REST enum; an unknown value matches no rule)
        node_image_selection=selection if isinstance(selection, str) else "Consistent",  # pyright: ignore[reportArgumentType]
        target_kubernetes_version=target if isinstance(target, str) else None,
        disabled=as_bool(disabled) is True,
    )


def _member(part: FleetPart, cluster: MemberCluster, review: Review) -> FleetMember | None:
    for key, value in (("kubernetesVersion", cluster.kubernetes_version), ("location", cluster.region),
                       ("autoUpgradeProfile.upgradeChannel", cluster.upgrade_channel),
                       ("aiToolchainOperatorProfile.enabled", cluster.kaito_addon),
                       ("GPU operator release version", cluster.gpu_operator_version)):  # fmt: skip
        if is_unknown(value):
            review.unknown_field(f"{cluster.cluster_name}: {key}")
            return None
    return FleetMember(
        name=str(part.wire.name),
        region=cluster.region if isinstance(cluster.region, str) else "",
        group=part.wire.properties.get("group") if isinstance(part.wire.properties.get("group"), str) else None,
        kubernetes_version=cluster.kubernetes_version if isinstance(cluster.kubernetes_version, str) else "",
        auto_upgrade_channel=cluster.upgrade_channel if isinstance(cluster.upgrade_channel, str) else None,
        gpu_operator_version=cluster.gpu_operator_version if isinstance(cluster.gpu_operator_version, str) else None,
        kaito_addon=cluster.kaito_addon is True,
        node_os_upgrade_channel=cluster.node_os_channel if isinstance(cluster.node_os_channel, str) else None,
        node_auto_provisioning=cluster.node_auto_provisioning is True,
    )


def shown_members(
    fleet: StackFleet, clusters: Mapping[str, MemberCluster], review: Review
) -> list[tuple[FleetMember, str]]:
    """The fleet's members whose ManagedCluster (tag ``fleet-member``) the stack shows, as the rules read them, each
    with its cluster's URN. Members the stack does not show (no FleetMember of the fleet, or no tagged cluster) are
    named on ``review`` as not checked; a member with an unknown fact is recorded as unknown and left out."""
    members: list[tuple[FleetMember, str]] = []
    unseen = [str(p.wire.name) for p in fleet.members if p.wire.name not in clusters]
    for part in fleet.members:
        cluster = clusters.get(part.wire.name) if isinstance(part.wire.name, str) else None
        member = _member(part, cluster, review) if cluster is not None else None
        if member is not None and cluster is not None:
            members.append((member, cluster.urn))
    if not fleet.members:
        review.not_checked(f"fleet {fleet.name}: no FleetMember of it in the stack, so no member's pinned GPU "
                           "software is known")  # fmt: skip
    elif unseen:
        review.not_checked(
            f"fleet {fleet.name}: members {', '.join(unseen)} have no ManagedCluster tagged {FLEET_MEMBER_TAG} in "
            "the stack, so their pinned GPU software is not known"
        )
    return members


def profile_findings(args: StackValidationArgs, review: Review, today: date) -> list[ProfileFinding]:
    """Every auto-upgrade profile of the stack's fleets against the members the stack shows (their ManagedClusters by
    the ``fleet-member`` tag): :func:`rules.fleet.fleet_channel_findings` on the profile,
    :func:`rules.fleet.member_channel_findings` on each member's cluster. Members the stack does not show (no
    FleetMember, or no tagged cluster) are named on ``review`` as not checked."""
    fleets = [f for f in fleets_of(args, review) if f.profiles]
    if not fleets:
        return []
    clusters = member_clusters(args)
    out: list[ProfileFinding] = []
    for fleet in fleets:
        members = shown_members(fleet, clusters, review)
        for part in fleet.profiles:
            upgrade = _upgrade(part, review)
            if upgrade is None or not members:
                continue
            spec = FleetSpec(fleet.name, "", members=tuple(m for m, _ in members), auto_upgrade=upgrade)
            label = f"{part.resource.name} (fleet {fleet.name})"
            for f in fleet_channel_findings(spec, today=today):
                out.append(ProfileFinding(f"{label}: {f.message}", part.resource.urn, f.advisory))
            for f in member_channel_findings(spec):
                index = int(f.field[len("members[") :].split("]")[0]) if f.field.startswith("members[") else -1
                urn = members[index][1] if 0 <= index < len(members) else part.resource.urn
                out.append(ProfileFinding(f"{label}: {f.message}", urn, f.advisory))
    return out


def review_profiles(args: StackValidationArgs, report: ReportViolation, *, advisory: bool) -> None:
    """A channel policy's run: :func:`profile_findings` of one kind (the refusals, or the warnings) as violations."""
    review = Review(report, args)
    for finding in profile_findings(args, review, request_today()):
        if finding.advisory is advisory:
            review.violation(finding.message, finding.urn)
    review.finish()


# --------------------------------------------------------------------------------------------------------------------
# Strategies' stages, and the update runs' target against the members' pinned GPU software (rules.fleet's run rule)


_UNRESOLVED: Any = object()
"""Stages that could not be read (an unknown value, recorded on the review)."""


def known_stages(part: FleetPart, review: Review) -> tuple[UpdateStage, ...] | None:
    """The stages of an update strategy (or an update run's own ``strategy``) as the rules read them; ``None`` when it
    states none, or when a stage's name or group is unknown (recorded on ``review``)."""
    stages = _stages(part, review)
    return None if stages is _UNRESOLVED else stages


def _stages(part: FleetPart, review: Review) -> Any:
    stages = strategy_stages(part.wire)
    if is_unknown(stages) or (isinstance(stages, list) and any(_unknown_stage(s) for s in stages)):
        review.unknown_field(f"{part.resource.name}: strategy.stages")
        return _UNRESOLVED
    if not isinstance(stages, list):
        return None
    return tuple(
        UpdateStage(str(s.name), tuple(str(g) for g in s.groups if isinstance(g, str))) for s in stages
    )  # fmt: skip


def _unknown_stage(stage: WireStage) -> bool:
    return is_unknown(stage.name) or any(is_unknown(g) for g in stage.groups)


def _run_stages(fleet: StackFleet, part: FleetPart, review: Review) -> Any:
    """The stages an update run follows: its inline ``strategy``'s; else those of the FleetUpdateStrategy of the same
    fleet its ``updateStrategyId`` names (by the id's last segment), when the stack holds it; else ``None`` (Fleet's
    default strategy updates every member). :data:`_UNRESOLVED` when unknown, or when the strategy it names is not in
    the stack: which members that strategy's stages cover is then not known, so the run is reported as not checked
    rather than judged against every member (a refusal needs the members the run really updates)."""
    props = part.wire.properties
    if props.get("strategy") is not None:
        return _stages(part, review)
    strategy_id = props.get("updateStrategyId")
    if is_unknown(strategy_id):
        review.unknown_field(f"{part.resource.name}: updateStrategyId")
        return _UNRESOLVED
    if not isinstance(strategy_id, str) or not strategy_id.strip("/"):
        return None
    name = strategy_id.strip("/").rsplit("/", 1)[-1]
    named = [s for s in fleet.strategies if s.wire.kind == "updateStrategy" and s.wire.name == name]
    if not named:
        review.not_checked(
            f"{part.resource.name}: its updateStrategyId names strategy {name!r}, which is not in this stack, so the "
            "members its stages update are not known"
        )
        return _UNRESOLVED
    return _stages(named[0], review)


def _run_target(fleet: StackFleet, part: FleetPart, review: Review) -> UpdateRunTarget | None:
    """The run's ``managedClusterUpdate`` and stages; ``None`` when it sets no Kubernetes version (``NodeImageOnly``,
    an unknown or missing type) or a value it needs is unknown (recorded on ``review``)."""
    upgrade_type = get(part.wire.properties, "managedClusterUpdate", "upgrade", "type")
    version = get(part.wire.properties, "managedClusterUpdate", "upgrade", "kubernetesVersion")
    for key, value in (("type", upgrade_type), ("kubernetesVersion", version)):
        if is_unknown(value):
            review.unknown_field(f"{part.resource.name}: managedClusterUpdate.upgrade.{key}")
            return None
    if upgrade_type not in UPGRADE_TYPES_MOVING_VERSION or not isinstance(version, str):
        return None
    stages = _run_stages(fleet, part, review)
    if stages is _UNRESOLVED:
        return None
    name = part.wire.name if isinstance(part.wire.name, str) else part.resource.name
    return UpdateRunTarget(name, str(upgrade_type), version, stages)


def run_findings(args: StackValidationArgs, review: Review, today: date) -> list[ProfileFinding]:
    """Every update run of the stack's fleets that sets a Kubernetes version (``Full``, ``ControlPlaneOnly``) against
    the members it covers that the stack shows (:func:`shown_members`): :func:`rules.fleet.update_run_findings`, on
    the run. Members the stack does not show are named on ``review`` as not checked."""
    out: list[ProfileFinding] = []
    clusters: dict[str, MemberCluster] | None = None
    for fleet in fleets_of(args, review):
        targets = [(part, target) for part in fleet.runs if (target := _run_target(fleet, part, review)) is not None]
        if not targets:
            continue
        clusters = member_clusters(args) if clusters is None else clusters
        members = [m for m, _ in shown_members(fleet, clusters, review)]
        for part, target in targets:
            label = f"{part.resource.name} (fleet {fleet.name})"
            out += [
                ProfileFinding(f"{label}: {f.message}", part.resource.urn, f.advisory)
                for f in update_run_findings(members, target, today=today)
            ]
    return out
