"""A stack's Azure Kubernetes Fleet Manager fleets as the stack policies see them: per fleet its FleetMembers, update
strategies (and update runs with their own strategy) and auto-upgrade profiles, generic
(``azure-native:resources:Resource``, resource types ``fleets/...``) or typed (``azure-native:containerservice:
FleetMember`` ...), read by :func:`rules.fleet_wire.read_fleet_resource`; and each member's cluster facts (its
ManagedCluster by the ``fleet-member`` tag, the GPU operator release by the member's ``<member>-`` name prefix).

The fleet's rules are :mod:`rules.fleet`'s (the stack config calls the same functions on the stack file's fleet); this
module only turns what the engine sends into :class:`rules.specs.fleet.FleetSpec` parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import StackValidationArgs

from rules.fleet_wire import WireFleetResource, member_tag, read_fleet_resource
from rules.idle import is_gpu_operator_chart
from rules.resource_types import is_helm_release, is_managed_cluster

from ._resources import UNKNOWN, ResourceRef, Review, as_bool, get, is_unknown, resource_ref


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
        elif wire.kind == "updateStrategy" or "strategy" in wire.properties:
            fleet.strategies.append(part)
    return fleets


@dataclass(frozen=True)
class MemberCluster:
    """What the stack sends for a member's cluster: its ManagedCluster and its GPU operator release, if any."""

    region: Any = None
    kubernetes_version: Any = None
    upgrade_channel: Any = None
    kaito_addon: Any = False
    gpu_operator_version: Any = None
    cluster_name: str | None = None


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
            cluster_name=ref.name,
        )
    return out
