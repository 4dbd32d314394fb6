"""fleet-auto-upgrade-next-move (advisory): the warnings of the fleet's channel rules — a Fleet auto-upgrade
channel's next move takes a member past its pinned GPU software's validated range (with the expected date), a member
updates its node images itself under the fleet's profile, a node auto-provisioning member whose NAP nodes Fleet does
not update (:mod:`rules.fleet`; the refusals are ``fleet-auto-upgrade-channel``'s)."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from ._fleet import review_profiles
from ._meta import ADVISORY, GpuStackPolicy

NAME = "fleet-auto-upgrade-next-move"


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review_profiles(args, report, advisory=True)


POLICY = GpuStackPolicy(
    name=NAME,
    what="A Fleet Manager auto-upgrade profile's channel will not soon take a member past its pinned GPU software's "
    "validated Kubernetes range, and no member updates its node images itself under the fleet's profile.",
    why="The channel's next move is dated (the next Kubernetes minor's expected GA): planning the GPU operator or "
    "KAITO upgrade before it keeps the fleet's GPU nodes working; node images updated by a member itself are updated "
    "outside the strategy's stages (Fleet FAQ).",
    validate=validate,
    level=ADVISORY,
    severity=Severity.LOW,
    topics=["aks", "fleet", "lifecycle", "gpu-operator", "kaito"],
    fix="Upgrade the pinned GPU operator (or move to a channel that stays in range) before the date the message "
    "names; turn off the members' own node image channels under a fleet profile.",
)
