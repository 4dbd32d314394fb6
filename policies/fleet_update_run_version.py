"""fleet-update-run-version: a Fleet update run that sets the members' Kubernetes version (``Full`` or
``ControlPlaneOnly``) never takes a member it covers past the Kubernetes range its pinned GPU operator or KAITO add-on
is validated on (:func:`rules.fleet.update_run_findings`, the auto-upgrade channel's range check). The platform never
sends an update run (runs are started operationally); this guards programs that do."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from ._fleet import run_findings
from ._meta import MANDATORY, GpuStackPolicy
from ._resources import Review, request_today

NAME = "fleet-update-run-version"


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    for finding in run_findings(args, review, request_today()):
        review.violation(finding.message, finding.urn)
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="A Fleet Manager update run (fleets/updateRuns: generic azure-native:resources:Resource or typed UpdateRun) "
    "whose managedClusterUpdate.upgrade is Full or ControlPlaneOnly targets no Kubernetes minor past the newest one "
    "the pinned GPU operator or KAITO add-on is validated on, for each member it covers (its strategy's stages: "
    "inline, or the updateStrategyId of a strategy in the stack; neither: every member; a strategy the stack does not "
    "show: not checked) whose ManagedCluster the stack "
    "shows (tag fleet-member). A NodeImageOnly run is not judged.",
    why="A started update run upgrades the members' control planes (and, Full, their node pools) stage by stage with "
    "no pulumi up: a GPU operator or KAITO add-on outside its validated range leaves GPU nodes without a working "
    "driver or device plugin. Members the stack does not show are reported as not checked; runs created outside "
    "Pulumi (az fleet updaterun create) are not seen by the pack.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["aks", "fleet", "lifecycle", "gpu-operator", "kaito"],
    fix="Target a Kubernetes version inside the range the message names, leave the member's group out of the run's "
    "stages, or pin a GPU operator validated on the target first.",
)
