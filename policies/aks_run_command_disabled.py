"""aks-run-command-disabled (advisory): a ManagedCluster disables Run Command (``az aks command invoke``).

Microsoft's built-in definition 'Azure Kubernetes Service Clusters should disable Command Invoke'
(89f2d532-c53c-4f8f-9afa-4927b1114a0d, Audit) over ``apiServerAccessProfile.disableRunCommand``; the rule is
:func:`rules.hardening.run_command_enabled`, the one the cluster component warns with.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.hardening import RUN_COMMAND_POLICY, run_command_enabled
from rules.resource_types import is_managed_cluster

from ._meta import ADVISORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, props_of
from ._specs import cluster_spec

NAME = "aks-run-command-disabled"
FIELD = "apiServerAccessProfile.disableRunCommand"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_managed_cluster(args.resource_type):
        return
    review = Review(report, args)
    value = get(props_of(args), "apiServerAccessProfile", "disableRunCommand")
    if value is UNKNOWN:
        review.unknown_field(FIELD)
    else:
        for finding in run_command_enabled(cluster_spec(args).disable_run_command):  # the spec, once per request
            review.violation(f"{FIELD}: {finding.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="A ManagedCluster sets apiServerAccessProfile.disableRunCommand: true.",
    why="Run Command runs kubectl and helm in a pod of the cluster through the Azure API, past the authorized IP "
    f"ranges and a private cluster's network ({RUN_COMMAND_POLICY.cited}).",
    validate=validate,
    level=ADVISORY,
    severity=Severity.MEDIUM,
    topics=["aks", "security", "azure-policy"],
    fix="Set apiServerAccessProfile.disableRunCommand: true (stack file: cluster.apiServer.disableRunCommand: true).",
    applies_to=is_managed_cluster,
)
