"""fleet-update-strategy-stages: a Fleet update strategy's stages stage every group of the fleet's members seen in the
stack, name no group without members, and name each group once (:func:`rules.fleet.stage_findings`, the rule the stack
config calls on the stack file's ``fleet`` section)."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from rules.fleet import stage_findings
from rules.specs.fleet import FleetMember, FleetSpec

from ._fleet import FleetPart, StackFleet, fleets_of, known_stages
from ._meta import MANDATORY, GpuStackPolicy
from ._resources import Review, is_unknown

NAME = "fleet-update-strategy-stages"


def _members(fleet: StackFleet, review: Review) -> list[tuple[FleetPart, FleetMember]] | None:
    """The fleet's FleetMembers as the rule reads them; ``None`` when a name or group is unknown (recorded)."""
    out: list[tuple[FleetPart, FleetMember]] = []
    for part in fleet.members:
        name, group = part.wire.name, part.wire.properties.get("group")
        if is_unknown(name) or is_unknown(group):
            review.unknown_field(f"{part.resource.name}: {'name' if is_unknown(name) else 'group'}")
            return None
        out.append((part, FleetMember(name=str(name), region="", group=group if isinstance(group, str) else None)))
    return out


def _judge(fleet: StackFleet, review: Review) -> None:
    members = _members(fleet, review)
    if members is None:
        return
    if not members:
        names = ", ".join(p.resource.name for p in fleet.strategies)
        review.not_checked(
            f"fleet {fleet.name}: no FleetMember of it in the stack, so the groups {names} must stage are not known "
            "(members joined from another stack are not seen)"
        )
        return
    for part in fleet.strategies:
        stages = known_stages(part, review)
        if stages is None:
            continue
        spec = FleetSpec(name=fleet.name, location="", members=tuple(m for _, m in members), stages=stages)
        for finding in stage_findings(spec):
            where = part
            if finding.field.startswith("members["):
                index = int(finding.field[len("members[") : finding.field.index("]")])
                where = members[index][0]
            review.violation(f"{part.resource.name} (fleet {fleet.name}): {finding.message}", where.resource.urn)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    for fleet in fleets_of(args, review):
        if fleet.strategies:
            _judge(fleet, review)
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="A Fleet Manager update strategy (fleets/updateStrategies, or an update run's own strategy; generic "
    "azure-native:resources:Resource or typed FleetUpdateStrategy) stages the group of every FleetMember of its fleet "
    "in the stack, names only groups that have members, and names each group once.",
    why="An update run upgrades members group by group, stage by stage: a member whose group is in no stage (or "
    "that has no group) is never upgraded by it and drifts behind the fleet towards an unsupported Kubernetes "
    "version; Fleet Manager refuses to start a run whose strategy names a group without members. When the stack holds "
    "no FleetMember of the fleet, the policy says it could not check (members joined elsewhere are not seen).",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["aks", "fleet", "lifecycle"],
    fix="Add every member's group to a stage of the update strategy (or give the member a group a stage names), "
    "remove groups no member has, and name each group in one stage only.",
)
