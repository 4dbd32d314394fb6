"""databricks-gpu-dedicated-access: GPU clusters use dedicated access mode and name its principal.

The rule: :func:`rules.databricks.gpu_dedicated_access`. Facts (``gpu_catalog/facts/databricks.json``;
pulumi_databricks 1.118.0 ``Cluster`` docs and databricks/terraform-provider-databricks
``docs/resources/cluster.md``): ``single_user_name`` is required when ``data_security_mode`` is ``SINGLE_USER``; it
names a user, or a group only when ``kind`` is set; ``DATA_SECURITY_MODE_DEDICATED`` (an alias of ``SINGLE_USER``)
is one of the values available when ``kind`` is set.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.databricks import CLASSIC_PREVIEW, DEDICATED, DEDICATED_MODES, SINGLE_USER, gpu_dedicated_access
from rules.resource_types import is_databricks_cluster

from ._databricks import gpu_cluster, report_findings
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review

NAME = "databricks-gpu-dedicated-access"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster = gpu_cluster(args, review)
    if cluster is not None:
        mode, principal, kind = cluster.get("dataSecurityMode"), cluster.get("singleUserName"), cluster.get("kind")
        if mode is UNKNOWN:
            review.unknown_field("dataSecurityMode")  # which principal and kind it needs depends on it
        else:
            facts = cluster.facts  # an unknown kind as CLASSIC_PREVIEW: checked at `pulumi up`
            upper = facts.data_security_mode.upper() if facts.data_security_mode is not None else None
            if kind is UNKNOWN and upper == DEDICATED:
                review.unknown_field("kind")
            if principal is UNKNOWN and upper in DEDICATED_MODES:
                review.unknown_field("singleUserName")
            unknown = ["singleUserName"] if principal is UNKNOWN else []
            report_findings(review, gpu_dedicated_access(facts), unknown=unknown)
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what=f"Databricks GPU clusters use dedicated access (dataSecurityMode {SINGLE_USER}, or "
    f"{DEDICATED} with kind {CLASSIC_PREVIEW}) and name its principal in singleUserName.",
    why="GPU ML runtimes need dedicated access mode; shared (standard) access does not support them, an unset mode "
    f"leaves it to the workspace default, and the Databricks provider refuses {SINGLE_USER} without singleUserName.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "databricks", "security"],
    fix=f"Set dataSecurityMode: {SINGLE_USER} and singleUserName (a user's e-mail), or kind: {CLASSIC_PREVIEW}, "
    f"dataSecurityMode: {DEDICATED} and singleUserName (a user or a group).",
    applies_to=is_databricks_cluster,
)
