"""databricks-gpu-dedicated-access: GPU clusters use dedicated (single user) access mode."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from ._databricks import gpu_cluster
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review

NAME = "databricks-gpu-dedicated-access"
DEDICATED = ("SINGLE_USER", "DATA_SECURITY_MODE_DEDICATED")


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster = gpu_cluster(args, review)
    if cluster is not None:
        mode = cluster.props.get("dataSecurityMode")
        if mode is UNKNOWN:
            review.unknown_field("dataSecurityMode")
        elif not (isinstance(mode, str) and mode.upper() in DEDICATED):
            shown = mode if isinstance(mode, str) else "not set"
            review.violation(
                f"dataSecurityMode: a GPU cluster needs dedicated access, but dataSecurityMode is {shown}: the "
                "GPU ML runtimes are not supported in standard (shared) access mode, and without an explicit mode "
                "the workspace default applies. Set dataSecurityMode: SINGLE_USER with singleUserName (a user or "
                "group)."
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="Databricks GPU clusters set dataSecurityMode SINGLE_USER (dedicated access).",
    why="GPU ML runtimes need dedicated access mode; shared (standard) access does not support them, and an unset "
    "mode leaves it to the workspace default.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "databricks", "security"],
    fix="Set dataSecurityMode: SINGLE_USER and singleUserName.",
)
