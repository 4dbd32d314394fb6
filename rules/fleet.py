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
- :func:`placement_findings`: a placement no member can satisfy, or placements without a hub.
- :func:`member_labels`: the labels the platform puts on a member (region, GPU sizes, GPU resource names).

``today`` is passed in; no Pulumi import, no clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from . import Finding
from .kube_names import label_key_problem, label_value_problem
from .specs.fleet import FleetMember, FleetSpec

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


def member_name_findings(spec: FleetSpec) -> list[FleetFinding]:
    """Two members with one name: Fleet Manager keeps one FleetMember per name (the second PUT replaces the first's
    cluster), and the name suffixes every Azure name of the member's platform."""
    first: dict[str, int] = {}
    out: list[FleetFinding] = []
    for i, member in enumerate(spec.members):
        if member.name in first:
            out.append(
                FleetFinding(
                    f"members[{i}].name",
                    f"{member.name!r} is already the name of members[{first[member.name]}] "
                    f"({spec.members[first[member.name]].region}): a fleet has one FleetMember per name, and the "
                    "name suffixes the member's cluster and resource group names. Give each member its own name.",
                )
            )
        first.setdefault(member.name, i)
    return out


def stage_findings(spec: FleetSpec) -> list[FleetFinding]:
    """The update strategy's stages against the members' groups: a stage naming a group no member has (the update
    run refuses to start), a group in two stages, and a member's group (or a member without a group) left out of
    every stage (an update run following the strategy never upgrades it)."""
    if not spec.stages:
        return []
    groups = {m.group for m in spec.members if m.group is not None}
    out: list[FleetFinding] = []
    staged: dict[str, int] = {}
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


# --------------------------------------------------------------------------------------------------- all of them


def fleet_findings(spec: FleetSpec, *, today: date, complete: bool = True) -> list[FleetFinding]:
    """Every finding of the fleet on ``today``. ``complete=False`` (some member's stack has problems of its own):
    only the rules on names, groups and labels, which read no member's pools."""
    del today  # the dated rules join below
    found = [*member_name_findings(spec), *stage_findings(spec), *member_label_findings(spec)]
    if not complete:
        return found
    return found


__all__ = [
    "GPU_RESOURCE_LABEL_PREFIX",
    "GPU_SIZE_LABEL_PREFIX",
    "REGION_LABEL",
    "FleetFinding",
    "fleet_findings",
    "member_label_findings",
    "member_labels",
    "member_name_findings",
    "stage_findings",
]
