"""The fleet's guard rails (issue 38, ``docs/fleet-rules.md``): pure functions over a
:class:`rules.specs.fleet.FleetSpec`.

Each returns :class:`FleetFinding` s whose ``field`` is the key path inside the stack file's ``fleet`` section
(``members[1].name``); the stack config prefixes ``fleet.``, a policy maps it to its resource. A refusal needs positive
evidence; what the facts do not record is advisory (:attr:`FleetFinding.advisory`).

- :func:`member_name_findings`: two members with one name (one FleetMember resource, one name suffix).
- :func:`stage_findings`: update-strategy stages that name a group no member has, or leave a member's group unstaged.
- :func:`region_findings`: a member in a region where a pool's size is not offered (regional facts).
- :func:`upgrade_findings`: a fleet auto-upgrade channel that takes a member past its pinned GPU operator's or KAITO
  add-on's validated Kubernetes range (:mod:`rules.upgrade`), and the members' own channels against the fleet's.
- :func:`update_run_findings`: a Full or ControlPlaneOnly update run to a Kubernetes minor past a covered member's
  pinned GPU operator's or KAITO add-on's validated range (the same range check as the channel's).
- :func:`placement_findings`: a placement no member can satisfy, or placements without a hub.
- :func:`member_labels`: the labels the platform puts on a member (region, GPU sizes, GPU resource names).

``today`` is passed in; no Pulumi import, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Final

from gpu_catalog import default_catalog
from gpu_catalog.fleet import load_fleet_facts
from gpu_catalog.gpu_regions import GPU_REGION_FACTS_NAME, RegionalSizes, load_regional_sizes
from gpu_catalog.kaito_presets import KAITO_PRESETS, KAITO_VERSION, kaito_preset
from gpu_catalog.lifecycle import minor_of, minor_tuple
from gpu_catalog.upgrade import load_upgrade_channels

from . import Finding, NotApplicable, findings
from .kaito import KaitoWorkspace, instance_type, preset_fit
from .kube_names import label_key_problem, label_value_problem
from .specs.fleet import FleetMember, FleetPool, FleetSpec, UpdateStage
from .upgrade import (
    channel_target_minor,
    upgrade_channel_next_move,
    validated_beyond,
    validated_minors,
    validated_software,
)

LABEL_PREFIX = "azure-gpu-platform"
REGION_LABEL = f"{LABEL_PREFIX}/region"
GPU_SIZE_LABEL_PREFIX = "gpu-size.azure-gpu-platform"
"""``gpu-size.azure-gpu-platform/<vmSize>: "true"`` on a member with a pool of that size."""
GPU_RESOURCE_LABEL_PREFIX = "gpu-resource.azure-gpu-platform"
"""``gpu-resource.azure-gpu-platform/<resource, '/' as '_'>: "true"`` (``nvidia.com_gpu``) on a member whose pools
advertise that extended resource."""


@dataclass(frozen=True, slots=True)
class FleetFinding(Finding):
    """A fleet finding; ``advisory`` ones are warnings (no positive evidence), the others refusals."""

    advisory: bool = False


# --------------------------------------------------------------------------------------------------- names, groups


def repeated_names(names: Sequence[str], where: str, why: Callable[[int], str]) -> list[FleetFinding]:
    """Each name used a second time in the list ``where`` (``members``, ``updateStrategy.stages``): a finding on
    ``<where>[i].name`` naming the first entry; ``why(first index)`` says what the repeat breaks."""
    first: dict[str, int] = {}
    out: list[FleetFinding] = []
    label = where.rsplit(".", 1)[-1]
    for i, name in enumerate(names):
        if name in first:
            out.append(
                FleetFinding(
                    f"{where}[{i}].name", f"{name!r} is already the name of {label}[{first[name]}]{why(first[name])}"
                )
            )
        first.setdefault(name, i)
    return out


def member_name_findings(spec: FleetSpec) -> list[FleetFinding]:
    """Two members with one name: Fleet Manager keeps one FleetMember per name (the second PUT replaces the first's
    cluster), and the name suffixes every Azure name of the member's platform."""
    return repeated_names(
        [m.name for m in spec.members],
        "members",
        lambda first: (
            f" ({spec.members[first].region}): a fleet has one FleetMember per name, and the name suffixes "
            "the member's cluster and resource group names. Give each member its own name."
        ),
    )


def stage_findings(spec: FleetSpec) -> list[FleetFinding]:
    """The update strategy's stages against the members' groups: a stage naming a group no member has (the update
    run refuses to start), a group in two stages, and a member's group (or a member without a group) left out of
    every stage (an update run following the strategy never upgrades it)."""
    if not spec.stages:
        return []
    groups = {m.group for m in spec.members if m.group is not None}
    out: list[FleetFinding] = []
    staged: dict[str, int] = {}
    out += repeated_names(
        [stage.name for stage in spec.stages],
        "updateStrategy.stages",
        lambda _: ": a stage's name is unique within the strategy (REST spec UpdateStage.name).",
    )
    for s, stage in enumerate(spec.stages):
        for g, group in enumerate(stage.groups):
            where = f"updateStrategy.stages[{s}].groups[{g}]"
            if group not in groups:
                out.append(
                    FleetFinding(
                        where,
                        f"no member is in group {group!r}: the members' groups are "
                        f"{', '.join(sorted(groups)) or 'none'} (fleet.members[].group). Fleet Manager refuses an "
                        "update run whose strategy names a group without members.",
                    )
                )
            if group in staged:
                out.append(
                    FleetFinding(where, f"group {group!r} is already in stages[{staged[group]}]: a group runs once.")
                )
            staged.setdefault(group, s)
    for i, member in enumerate(spec.members):
        if member.group is None:
            out.append(
                FleetFinding(
                    f"members[{i}].group",
                    f"member {member.name!r} has no group, but the update strategy upgrades groups stage by stage: "
                    f"an update run following it would never upgrade {member.name}. Set its group to one of "
                    f"{', '.join(staged)}.",
                )
            )
        elif member.group not in staged:
            out.append(
                FleetFinding(
                    f"members[{i}].group",
                    f"group {member.group!r} of member {member.name!r} is in no stage of updateStrategy: an update "
                    f"run following it would never upgrade {member.name}. Add the group to a stage (staged: "
                    f"{', '.join(staged)}).",
                )
            )
    return out


# --------------------------------------------------------------------------------------------------- labels


def _label_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:63]
    return name.strip("_.-") or "x"


def member_labels(member: FleetMember) -> dict[str, str]:
    """The labels the platform puts on a member (``FleetMember.properties.labels``): the user's own, the region, one
    ``gpu-size.azure-gpu-platform/<size>`` per GPU pool size and one ``gpu-resource.azure-gpu-platform/<resource>``
    per extended resource its pools advertise (``/`` written ``_``). A placement selects members by them. Every key
    and value is a valid Kubernetes label (:mod:`rules.kube_names`); the platform's keys win over the user's."""
    labels: dict[str, str] = dict(member.labels)
    labels[REGION_LABEL] = member.region
    for pool in member.pools:
        labels[f"{GPU_SIZE_LABEL_PREFIX}/{_label_name(pool.vm_size)}"] = "true"
        for resource in pool.gpu_resources:
            labels[f"{GPU_RESOURCE_LABEL_PREFIX}/{_label_name(resource)}"] = "true"
    return labels


def member_label_findings(spec: FleetSpec) -> list[FleetFinding]:
    """The members' own labels are valid Kubernetes labels (Fleet Manager matches placements on them)."""
    out: list[FleetFinding] = []
    for i, member in enumerate(spec.members):
        for key, value in member.labels.items():
            problem = label_key_problem(key) or label_value_problem(value)
            if problem is not None:
                out.append(FleetFinding(f"members[{i}].labels.{key}", problem))
    return out


# --------------------------------------------------------------------------------------------------- regions


def region_findings(spec: FleetSpec, facts: RegionalSizes | None = None) -> list[FleetFinding]:
    """A member in a region where one of its pools' sizes is recorded as not offered (refused, with the source); the
    sizes the regional facts record neither way (advisory: absence from a list is no evidence)."""
    regional = facts or load_regional_sizes()
    out: list[FleetFinding] = []
    for i, member in enumerate(spec.members):
        unrecorded: list[str] = []
        for pool in member.pools:
            offer, source = regional.offer(member.region, pool.vm_size)
            if offer == "not-offered" and not pool.auto_provisioned:
                out.append(
                    FleetFinding(
                        f"members[{i}].region",
                        f"member {member.name!r}: {member.region} does not offer {pool.vm_size} (pool {pool.name!r}; "
                        f"{source}; {GPU_REGION_FACTS_NAME}), so AKS cannot create the pool there. Override the "
                        f"pool's vmSize for this member (fleet.members[{i}].overrides.gpuPools: "
                        f"[{{name: {pool.name}, vmSize: ...}}]) or place the member in a region that offers it.",
                    )
                )
            elif offer == "not-offered":
                out.append(
                    FleetFinding(
                        f"members[{i}].region",
                        f"member {member.name!r}: {member.region} does not offer {pool.vm_size} ({source}), one of "
                        f"the sizes node auto-provisioning pool {pool.name!r} may launch: Karpenter picks among the "
                        "others.",
                        advisory=True,
                    )
                )
            elif offer == "unrecorded" and pool.vm_size not in unrecorded:
                unrecorded.append(pool.vm_size)
        if unrecorded:
            out.append(
                FleetFinding(
                    f"members[{i}].region",
                    f"member {member.name!r}: whether {member.region} offers {', '.join(unrecorded)} is not recorded "
                    f"in {GPU_REGION_FACTS_NAME}, so it was not checked; 'az vm list-skus --location {member.region} "
                    "--resource-type virtualMachines' shows it (and the preflight's --live quota check reads it).",
                    advisory=True,
                )
            )
    return out


# --------------------------------------------------------------------------------------------------- upgrades


def _fleet_target(spec: FleetSpec, pinned: str, today: date) -> str | None:
    """The minor the fleet's auto-upgrade channel moves a member on ``pinned`` to ``today`` (never lower)."""
    upgrade = spec.auto_upgrade
    if upgrade is None:
        return None
    channel = load_fleet_facts().channels.get(upgrade.channel)
    if channel is None or not channel.moves_minor:
        return pinned
    if channel.akin_to is not None:
        return channel_target_minor(channel.akin_to, pinned, today)
    target = upgrade.target_kubernetes_version
    if target is None or minor_of(target) is None:
        return None
    return max(minor_of(target) or pinned, pinned, key=minor_tuple)


def _fits(spec: FleetSpec, channel: str, today: date) -> bool:
    """Whether a Stable/Rapid/NodeImage profile would keep every member inside its validated range today."""
    facts = load_fleet_facts().channels[channel]
    for member in spec.members:
        pinned = minor_of(member.kubernetes_version)
        if pinned is None:
            continue
        target = channel_target_minor(facts.akin_to, pinned, today) if facts.akin_to else pinned
        if target is not None and _beyond(member, target):
            return False
    return True


def _validated(member: FleetMember) -> dict[str, str]:
    return validated_minors(gpu_operator_version=member.gpu_operator_version, kaito_addon=member.kaito_addon)


def _beyond(member: FleetMember, target: str) -> dict[str, str]:
    """The member's pinned GPU software (the GPU operator, the KAITO add-on: :func:`rules.upgrade.validated_minors`,
    each named with its source) whose validated range ends below Kubernetes minor ``target``, with that newest minor.
    The fleet's upgrade rules (the auto-upgrade channel, an update run) check it through
    :func:`rules.upgrade.validated_beyond`, as a single cluster's channel rules do."""
    return validated_beyond(_validated(member), target)


def fleet_channel_findings(spec: FleetSpec, *, today: date) -> list[FleetFinding]:
    """The fleet's auto-upgrade profile may not take any member past the newest Kubernetes minor its pinned GPU
    operator or KAITO add-on is validated on (:func:`rules.upgrade.validated_minors`): refused with the member, the
    minor and the date; the channel's next move past that range is a warning with its expected date
    (:func:`rules.upgrade.upgrade_channel_next_move`)."""
    upgrade = spec.auto_upgrade
    if upgrade is None or upgrade.disabled:
        return []
    facts = load_fleet_facts()
    channel = facts.channels.get(upgrade.channel)
    if channel is None:
        return []
    where = "autoUpgrade.targetKubernetesVersion" if channel.akin_to is None else "autoUpgrade.channel"
    fits = [c for c, f in facts.channels.items() if f.akin_to is not None and _fits(spec, c, today)]
    out: list[FleetFinding] = []
    for member in spec.members:
        pinned = minor_of(member.kubernetes_version)
        validated = _validated(member)
        target = _fleet_target(spec, pinned, today) if pinned is not None else None
        if pinned is None or target is None or not validated:
            continue
        beyond = _beyond(member, target)
        if beyond:
            software = validated_software(beyond)
            out.append(
                FleetFinding(
                    where,
                    f"fleet auto-upgrade channel {upgrade.channel!r} moves member {member.name!r} ({member.region}) "
                    f"from Kubernetes {pinned} to {target} as of {today.isoformat()}, and Fleet Manager upgrades its "
                    f"control plane and node pools with no pulumi up. But {software}. Allowed today: "
                    f"{', '.join(fits) or 'none of the channels'}, a targetKubernetesVersion inside the range, or "
                    "pin software validated on the target.",
                )
            )
        elif channel.akin_to is not None:
            out += [
                FleetFinding(
                    where,
                    f"member {member.name!r} ({member.region}), fleet channel {upgrade.channel!r} (the rule of AKS "
                    f"channel {channel.akin_to!r}): {f.message}",
                    advisory=True,
                )
                for f in upgrade_channel_next_move(channel.akin_to, pinned, validated, today=today)
            ]
    return out


def member_channel_findings(spec: FleetSpec) -> list[FleetFinding]:
    """The members' own auto-upgrade channels against the fleet's profile. Fleet Manager does not change a member's
    auto-upgrade settings, and with both on, whichever runs first upgrades the cluster (``faq.md``,
    ``gpu_catalog/facts/fleet.json`` ``autoUpgrade.memberChannels``): a member channel that moves the Kubernetes
    version (``patch``, ``stable``, ``rapid``) under a fleet profile that does is refused — it upgrades the member
    outside the strategy's stages; node-image channels under a fleet profile and node auto-provisioning members
    (Fleet updates only their control plane) are warnings."""
    upgrade = spec.auto_upgrade
    if upgrade is None or upgrade.disabled:
        return []
    fleet_channel = load_fleet_facts().channels.get(upgrade.channel)
    if fleet_channel is None:
        return []
    aks = load_upgrade_channels()
    out: list[FleetFinding] = []
    for i, member in enumerate(spec.members):
        own = aks.get(member.auto_upgrade_channel or "none")
        where = f"members[{i}]"
        if fleet_channel.moves_minor and own is not None and own.moves_patch:
            out.append(
                FleetFinding(
                    where,
                    f"member {member.name!r} keeps its own cluster.autoUpgradeChannel {own.name!r} under the fleet's "
                    f"auto-upgrade channel {upgrade.channel!r}: Fleet Manager leaves a member's auto-upgrade on, and "
                    "whichever runs first upgrades the cluster (Fleet FAQ), so the member would move outside the "
                    "update strategy's stages. Set cluster.autoUpgradeChannel: none for the members (the template or "
                    "this member's overrides) and let the fleet's profile upgrade them.",
                )
            )
        elif (own is not None and own.moves == "node image") or (
            fleet_channel.moves == "node image" and member.node_os_upgrade_channel in ("NodeImage", "SecurityPatch")
        ):
            out.append(
                FleetFinding(
                    where,
                    f"member {member.name!r} also updates its node images itself (autoUpgradeChannel "
                    f"{member.auto_upgrade_channel!r}, nodeOsUpgradeChannel {member.node_os_upgrade_channel!r}) under "
                    f"the fleet's {upgrade.channel!r} profile: whichever runs first updates them (Fleet FAQ), outside "
                    "the strategy's stages.",
                    advisory=True,
                )
            )
        pin = member.kubernetes_pin.strip().lstrip("v")
        if channel_moves_versions(upgrade.channel) and pin and minor_of(pin) not in (None, pin):
            out.append(
                FleetFinding(
                    where,
                    f"member {member.name!r} pins the patch {pin} (cluster.kubernetesVersion), but the fleet's "
                    f"{upgrade.channel!r} profile moves it to newer patches: the next pulumi up would send {pin} "
                    f"again, a downgrade AKS refuses. Pin the minor ({minor_of(pin)!r}).",
                )
            )
        if member.node_auto_provisioning:
            out.append(
                FleetFinding(
                    where,
                    f"member {member.name!r} runs node auto-provisioning (gpuNodePools): Fleet Manager's update runs "
                    "upgrade only its control plane (Fleet FAQ, Azure/AKS #5812); its NAP nodes follow their own "
                    "node image updates.",
                    advisory=True,
                )
            )
    return out


# --------------------------------------------------------------------------------------------------- update runs

UPGRADE_TYPES_MOVING_VERSION: Final = ("Full", "ControlPlaneOnly")
"""``managedClusterUpdate.upgrade.type`` values that set the members' Kubernetes version (REST spec 2026-06-01
``ManagedClusterUpgradeType``, ``gpu_catalog/facts/fleet.json`` ``fields.updateRun``: both require
``kubernetesVersion``; ``NodeImageOnly`` forbids it)."""


@dataclass(frozen=True)
class UpdateRunTarget:
    """An update run (``fleets/updateRuns``) as the version rule reads it: its ``managedClusterUpdate`` and the stages
    its strategy runs."""

    name: str
    upgrade_type: str
    """``upgrade.type``: ``Full``, ``ControlPlaneOnly`` or ``NodeImageOnly``."""
    kubernetes_version: str | None = None
    """``upgrade.kubernetesVersion`` (``1.37`` or ``1.37.1``)."""
    stages: tuple[UpdateStage, ...] | None = None
    """The stages of its strategy (inline ``strategy`` or the ``updateStrategyId`` it names); ``None``: Fleet's default
    strategy, every member one by one (REST spec ``UpdateRunProperties.strategy``), or a strategy not known."""


def update_run_members(members: Sequence[FleetMember], stages: Sequence[UpdateStage] | None) -> list[FleetMember]:
    """The members an update run upgrades: with stages, those whose group a stage names (a member of no staged group,
    or of none, is left out: :func:`stage_findings` refuses that strategy); without, every member."""
    if stages is None:
        return list(members)
    staged = {group for stage in stages for group in stage.groups}
    return [m for m in members if m.group is not None and m.group in staged]


def update_run_findings(members: Sequence[FleetMember], run: UpdateRunTarget, *, today: date) -> list[FleetFinding]:
    """A ``Full`` or ``ControlPlaneOnly`` update run to a Kubernetes minor past the newest one a covered member's
    pinned GPU operator or KAITO add-on is validated on (:func:`_beyond`, the auto-upgrade channel's range check) is
    refused, naming the member, the versions, the software with its source and the date. A run that does not raise
    a member's minor, a ``NodeImageOnly`` run, and a version that is not ``<major>.<minor>[.<patch>]`` are not
    judged here (Fleet validates the request)."""
    target = minor_of(run.kubernetes_version or "")
    if run.upgrade_type not in UPGRADE_TYPES_MOVING_VERSION or target is None:
        return []
    what = "control plane and node pools" if run.upgrade_type == "Full" else "control plane only"
    out: list[FleetFinding] = []
    for member in update_run_members(members, run.stages):
        pinned = minor_of(member.kubernetes_version)
        beyond = _beyond(member, target)
        if not beyond or (pinned is not None and minor_tuple(target) <= minor_tuple(pinned)):
            continue
        newest = min(beyond.values(), key=minor_tuple)
        out.append(
            FleetFinding(
                "managedClusterUpdate.upgrade.kubernetesVersion",
                f"update run {run.name!r} ({run.upgrade_type}: {what}) moves member {member.name!r} "
                f"({member.region or 'region not known'}) from Kubernetes {pinned or 'its current version'} to "
                f"{run.kubernetes_version} as of {today.isoformat()}. But {validated_software(beyond)}. Target "
                f"Kubernetes {newest} or lower, leave this member's group out of the run's stages, or pin software "
                f"validated on {target} first.",
            )
        )
    return out


# --------------------------------------------------------------------------------------------------- placements


def _kaito_fits(pool: FleetPool, preset: str, today: date) -> bool:
    ws = KaitoWorkspace(instance_type=pool.vm_size, count=max(1, pool.max_nodes), preset=preset)
    kind = instance_type(ws, today=today)
    fit = preset_fit(ws, today=today)
    return not findings(kind) and not findings(fit) and not isinstance(fit, NotApplicable)


def placement_members(spec: FleetSpec, index: int, *, today: date) -> list[FleetMember]:
    """The members placement ``index`` can land on: a GPU pool of one of its ``vm_sizes`` (any GPU pool when empty)
    and, with a KAITO preset, the KAITO add-on and a pool whose size meets the preset's rule
    (:func:`rules.kaito.preset_fit`)."""
    placement = spec.placements[index]
    out: list[FleetMember] = []
    for member in spec.members:
        pools = [p for p in member.pools if not placement.vm_sizes or p.vm_size in placement.vm_sizes]
        if placement.kaito_preset is not None:
            pools = [p for p in pools if member.kaito_addon and _kaito_fits(p, placement.kaito_preset, today)]
        if pools:
            out.append(member)
    return out


def placement_findings(spec: FleetSpec, *, today: date) -> list[FleetFinding]:
    """Placements need the hub (a ClusterResourcePlacement lives on it); a placement's sizes must be catalog sizes;
    a placement no member can satisfy is refused; ``numberOfClusters`` above the qualifying members is a warning
    (Fleet places on fewer)."""
    out: list[FleetFinding] = []
    if spec.placements and not spec.hub:
        out.append(
            FleetFinding(
                "hub.enabled",
                f"placements ({', '.join(p.name for p in spec.placements)}) are ClusterResourcePlacements on the "
                "fleet's hub cluster, and the fleet has none: nothing would place them. Turn the hub on "
                "(fleet.hub.enabled: true; it is an AKS cluster Azure runs and bills) or drop the placements.",
            )
        )
    cat = default_catalog()
    out += repeated_names(
        [p.name for p in spec.placements],
        "placements",
        lambda _: ": the hub keeps one ClusterResourcePlacement per name.",
    )
    for j, placement in enumerate(spec.placements):
        unknown = [s for s in placement.vm_sizes if cat.lookup(s) is None]
        for s in unknown:
            out.append(
                FleetFinding(
                    f"placements[{j}].vmSizes[{placement.vm_sizes.index(s)}]",
                    f"{s} is not a GPU size in the catalog; closest: {', '.join(cat.suggest(s))}.",
                )
            )
        if placement.kaito_preset is not None and kaito_preset(placement.kaito_preset) is None:
            out.append(
                FleetFinding(
                    f"placements[{j}].kaitoPreset",
                    f"{placement.kaito_preset!r} is not a KAITO {KAITO_VERSION} inference preset. Allowed: "
                    f"{', '.join(sorted(KAITO_PRESETS))}.",
                )
            )
            continue
        if unknown:
            continue
        qualifying = placement_members(spec, j, today=today)
        if not qualifying:
            out.append(FleetFinding(f"placements[{j}]", _nobody(spec, j)))
        elif placement.number_of_clusters is not None and placement.number_of_clusters > len(qualifying):
            out.append(
                FleetFinding(
                    f"placements[{j}].numberOfClusters",
                    f"{placement.number_of_clusters} clusters asked, but only {len(qualifying)} member(s) qualify "
                    f"({', '.join(m.name for m in qualifying)}): Fleet places it on those only.",
                    advisory=True,
                )
            )
    return out


def _nobody(spec: FleetSpec, index: int) -> str:
    placement = spec.placements[index]
    wanted = f"a GPU pool of {', '.join(placement.vm_sizes)}" if placement.vm_sizes else "a GPU pool"
    if placement.kaito_preset is not None:
        wanted += f" whose size meets KAITO preset {placement.kaito_preset}'s GPU needs, and the KAITO add-on"
    have = "; ".join(
        f"{m.name} ({m.region}): {', '.join(sorted({p.vm_size for p in m.pools})) or 'no GPU pool'}"
        + ("" if m.kaito_addon or placement.kaito_preset is None else ", no KAITO add-on")
        for m in spec.members
    )
    return (
        f"no member can run placement {placement.name!r} (namespace {placement.namespace}): it needs {wanted}. "
        f"Members: {have}. Add such a pool to a member (its overrides) or change the placement."
    )


# --------------------------------------------------------------------------------------------------- all of them


def fleet_findings(
    spec: FleetSpec, *, today: date, complete: bool = True, regional: RegionalSizes | None = None
) -> list[FleetFinding]:
    """Every finding of the fleet on ``today``. ``complete=False`` (some member's stack has problems of its own):
    only the rules on names, groups and labels, which read no member's pools or versions."""
    found = [*member_name_findings(spec), *stage_findings(spec), *member_label_findings(spec)]
    if not complete:
        return found
    return [
        *found,
        *region_findings(spec, regional),
        *fleet_channel_findings(spec, today=today),
        *member_channel_findings(spec),
        *placement_findings(spec, today=today),
    ]


def channel_moves_versions(channel: str, *, disabled: bool = False) -> bool:
    """A fleet auto-upgrade channel (``Stable``, ``Rapid``, ``TargetKubernetesVersion``; not disabled) moves the
    members' Kubernetes version (``gpu_catalog/facts/fleet.json``)."""
    facts = load_fleet_facts().channels.get(channel)
    return not disabled and facts is not None and facts.moves_minor


def fleet_owns_version(spec: FleetSpec) -> bool:
    """The fleet's auto-upgrade profile moves the members' Kubernetes version: the program must ignore drift on the
    members' versions, as it does under a cluster channel that owns the version
    (:func:`rules.upgrade.channel_owns_version`)."""
    upgrade = spec.auto_upgrade
    return upgrade is not None and channel_moves_versions(upgrade.channel, disabled=upgrade.disabled)


__all__ = [
    "GPU_RESOURCE_LABEL_PREFIX",
    "GPU_SIZE_LABEL_PREFIX",
    "REGION_LABEL",
    "UPGRADE_TYPES_MOVING_VERSION",
    "FleetFinding",
    "UpdateRunTarget",
    "channel_moves_versions",
    "fleet_channel_findings",
    "fleet_findings",
    "fleet_owns_version",
    "member_channel_findings",
    "member_label_findings",
    "member_labels",
    "member_name_findings",
    "placement_findings",
    "placement_members",
    "region_findings",
    "repeated_names",
    "stage_findings",
    "update_run_findings",
    "update_run_members",
]
