"""A stack with ``fleet`` (issue 38, ``docs/fleet.md``): every member's platform and the fleet over them.

The stack config expanded the fleet (:mod:`stack_config.fleet_members`): each member has a validated
:class:`~stack_config.StackConfig` (the template with its overrides, its region, its suffixed Azure names and the
``fleet-member`` tag) and a :class:`~rules.specs.fleet.FleetMember`. :func:`build_fleet` builds each member's
platform with :func:`composition.platform.build_platform` under the member's name (``weu-aks``, ``weu-aks-cluster``,
...) and then the :class:`~components.fleet.GpuFleet` (``fleet``): the Fleet, one FleetMember per member after its
cluster and GPU pools, the update strategy, the auto-upgrade profile and the placements on the hub.

A placement selects the members whose labels (:func:`rules.fleet.member_labels`) say they have one of its sizes: one
``ClusterSelectorTerm`` per size (terms are ORed), ``gpu-size.azure-gpu-platform/<size>: "true"``, narrowed to the
members :func:`rules.fleet.placement_members` qualifies when the labels alone would select more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import pulumi

from components.contract import fleet_outputs as contract_fleet_outputs
from components.fleet import (
    FleetAccess,
    FleetMemberArgs,
    GpuFleet,
    GpuFleetArgs,
    MemberCluster,
    PlacementArgs,
)
from rules.fleet import GPU_SIZE_LABEL_PREFIX, fleet_owns_version, member_labels, placement_members
from rules.specs.fleet import FleetMember, FleetPool, FleetSpec, Placement
from stack_config import StackConfig
from stack_config.fleet_members import fleet_spec_of, members_of

from . import wiring
from .platform import Platform, build_platform, contract_outputs

FLEET_COMPONENT = "fleet"
AUTO_UPGRADE_PROFILE = "gpu-auto-upgrade"
"""The name of the fleet's one ``AutoUpgradeProfile``."""


@dataclass
class FleetPlatform:
    """What :func:`build_fleet` created: every member's platform (by member name) and the fleet."""

    cfg: StackConfig
    spec: FleetSpec
    members: dict[str, Platform]
    fleet: GpuFleet


def size_label(vm_size: str) -> str:
    """The member label that says a member has a pool of ``vm_size`` (the key :func:`rules.fleet.member_labels`
    writes)."""
    labels = member_labels(FleetMember(name="-", region="-", pools=(FleetPool("-", vm_size),)))
    return next(key for key in labels if key.startswith(f"{GPU_SIZE_LABEL_PREFIX}/"))


MEMBER_NAME_LABEL = "fleet.azure.com/member-name"
"""The member label Fleet Manager sets itself (MicrosoftDocs/azure-aks-docs
``articles/kubernetes-fleet/concepts-member-cluster-labels.md``: service-defined, read-only)."""


def placement_sizes(placement: Placement, members: Sequence[FleetMember]) -> tuple[str, ...]:
    """The sizes a placement's members must have: its ``vmSizes``, or else every GPU size the qualifying members
    have."""
    if placement.vm_sizes:
        return tuple(dict.fromkeys(placement.vm_sizes))
    return tuple(dict.fromkeys(pool.vm_size for member in members for pool in member.pools))


def placement_args(spec: FleetSpec, index: int, *, today: date) -> PlacementArgs:
    """A placement as the component's Args: one label term per size (a member with any of them qualifies). When the
    size labels would also select members the placement's rules exclude (no KAITO add-on, no pool that fits the
    preset: :func:`rules.fleet.placement_members`), each term also names the qualifying members."""
    placement = spec.placements[index]
    qualifying = placement_members(spec, index, today=today)
    sizes = placement_sizes(placement, qualifying)
    by_labels = [m.name for m in spec.members if any(p.vm_size in sizes for p in m.pools)]
    names = [m.name for m in qualifying]
    terms: list[Mapping[str, Any]] = []
    for size in sizes:
        selector: dict[str, Any] = {"matchLabels": {size_label(size): "true"}}
        if by_labels != names:
            selector["matchExpressions"] = [{"key": MEMBER_NAME_LABEL, "operator": "In", "values": names}]
        terms.append({"labelSelector": selector})
    return PlacementArgs(
        name=placement.name,
        namespace=placement.namespace,
        cluster_selector_terms=tuple(terms),
        number_of_clusters=placement.number_of_clusters,
    )


def gpu_fleet_args(cfg: StackConfig, spec: FleetSpec) -> GpuFleetArgs:
    """The fleet's Args: in the template's resource group (the members' groups carry their names as suffixes), with
    the template's tags and deployer access, the members' labels, the stages, the auto-upgrade profile, the
    placements."""
    access = cfg.cluster.access
    fleet = cfg.fleet
    return GpuFleetArgs(
        fleet_name=spec.name,
        resource_group_name=cfg.resource_group_name,
        location=spec.location,
        create_resource_group=not cfg.resourceGroup.existing,
        members=tuple(FleetMemberArgs(m.name, m.group, member_labels(m), m.region) for m in spec.members),
        hub=spec.hub,
        hub_vm_size=spec.hub_vm_size,
        update_strategy_name=fleet.updateStrategy.name if fleet is not None and fleet.updateStrategy else "gpu-staged",
        stages=spec.stages,
        auto_upgrade_name=AUTO_UPGRADE_PROFILE,
        auto_upgrade=spec.auto_upgrade,
        placements=tuple(placement_args(spec, j, today=cfg.today) for j in range(len(spec.placements))),
        tags=wiring.platform_tags(cfg),
        access=FleetAccess(
            grant_deployer=access.grantDeployer,
            deployer_principal_type=access.deployerPrincipalType,
            propagation_wait_seconds=access.propagationWaitSeconds,
        ),
    )


def build_fleet(cfg: StackConfig) -> FleetPlatform:
    """Every member's platform, then the fleet over their clusters (each FleetMember after its cluster and GPU
    pools: joining a fleet is an operation on the cluster). Under an auto-upgrade profile that moves the members'
    Kubernetes version the members' clusters and pools ignore drift on it (:func:`rules.fleet.fleet_owns_version`)."""
    spec = fleet_spec_of(cfg)
    if spec is None:  # pragma: no cover - __main__ dispatches on cfg.fleet
        raise ValueError("the stack has no fleet")
    args = gpu_fleet_args(cfg, spec)
    owned = fleet_owns_version(spec)
    platforms = {
        m.member.name: build_platform(m.config, m.member.name, version_owned_by_fleet=owned) for m in members_of(cfg)
    }
    clusters = {
        name: MemberCluster(
            p.cluster.cluster_id, depends_on=[p.cluster.cluster, *(pool.agent_pool for pool in p.cluster.pools)]
        )
        for name, p in platforms.items()
    }
    return FleetPlatform(cfg, spec, platforms, GpuFleet(FLEET_COMPONENT, args, clusters))


def fleet_outputs(fleet: FleetPlatform) -> dict[str, Any]:
    """The stack outputs of a fleet (the output contract of a fleet stack, :func:`components.contract.fleet_outputs`):
    ``contractVersion``, ``fleet`` (the fleet view: members, regions, groups, what a pod can request where),
    ``members`` (each member's output contract, :func:`contract_outputs`, without its kubeconfig) and
    ``memberKubeconfigs``."""
    members = {name: contract_outputs(p) for name, p in fleet.members.items()}
    return contract_fleet_outputs(fleet.spec, members, fleet.fleet.fleet_id)


def export_fleet(fleet: FleetPlatform) -> None:
    """Export :func:`fleet_outputs` (``memberKubeconfigs`` stays secret)."""
    for key, value in fleet_outputs(fleet).items():
        pulumi.export(key, pulumi.Output.secret(value) if key == "memberKubeconfigs" else value)
