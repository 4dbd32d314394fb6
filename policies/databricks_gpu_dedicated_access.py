"""databricks-gpu-dedicated-access: GPU clusters use dedicated access mode and name its principal.

Facts (``gpu_catalog/facts/databricks.json``; pulumi_databricks 1.118.0 ``Cluster`` docs and
databricks/terraform-provider-databricks ``docs/resources/cluster.md``): ``single_user_name`` is required when
``data_security_mode`` is ``SINGLE_USER``; it names a user, or a group only when ``kind`` is set;
``DATA_SECURITY_MODE_DEDICATED`` (an alias of ``SINGLE_USER``) is one of the values available when ``kind`` is set.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from ._databricks import CLASSIC_PREVIEW, gpu_cluster
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get

NAME = "databricks-gpu-dedicated-access"
SINGLE_USER = "SINGLE_USER"
DEDICATED_ALIAS = "DATA_SECURITY_MODE_DEDICATED"
DEDICATED = (SINGLE_USER, DEDICATED_ALIAS)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster = gpu_cluster(args, review)
    if cluster is not None:
        mode = get(cluster.props, "dataSecurityMode")
        principal = get(cluster.props, "singleUserName")
        has_kind = cluster.has_kind()
        if mode is UNKNOWN:
            review.unknown_field("dataSecurityMode")
        elif not (isinstance(mode, str) and mode.upper() in DEDICATED):
            shown = mode if isinstance(mode, str) else "not set"
            review.violation(
                f"dataSecurityMode: a GPU cluster needs dedicated access, but dataSecurityMode is {shown}: the "
                "GPU ML runtimes are not supported in standard (shared) access mode, and without an explicit mode "
                "the workspace default applies. Set dataSecurityMode: SINGLE_USER with singleUserName (a user), or "
                f"kind: {CLASSIC_PREVIEW} with dataSecurityMode: {DEDICATED_ALIAS} and singleUserName (a user or "
                "group)."
            )
        else:
            mode = mode.upper()
            if mode == DEDICATED_ALIAS:
                if has_kind is UNKNOWN:
                    review.unknown_field("kind")
                elif not has_kind:
                    review.violation(
                        f"dataSecurityMode: {DEDICATED_ALIAS} is only available when kind is {CLASSIC_PREVIEW}, "
                        "but kind is not set: Databricks refuses the request. Set kind: CLASSIC_PREVIEW, or use "
                        "dataSecurityMode: SINGLE_USER with a user in singleUserName."
                    )
            if principal is UNKNOWN:
                review.unknown_field("singleUserName")
            elif not (isinstance(principal, str) and principal.strip()):
                review.violation(
                    f"singleUserName: a GPU cluster in dedicated access mode (dataSecurityMode {mode}) must name "
                    "its principal, but singleUserName is not set: the Databricks provider requires singleUserName "
                    "for SINGLE_USER, so the cluster cannot be created. Set singleUserName to a workspace user's "
                    f"e-mail, or to a workspace group's name together with kind: {CLASSIC_PREVIEW} and "
                    f"dataSecurityMode: {DEDICATED_ALIAS}."
                )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="Databricks GPU clusters use dedicated access (dataSecurityMode SINGLE_USER, or "
    "DATA_SECURITY_MODE_DEDICATED with kind CLASSIC_PREVIEW) and name its principal in singleUserName.",
    why="GPU ML runtimes need dedicated access mode; shared (standard) access does not support them, an unset mode "
    "leaves it to the workspace default, and the Databricks provider refuses SINGLE_USER without singleUserName.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "databricks", "security"],
    fix="Set dataSecurityMode: SINGLE_USER and singleUserName (a user's e-mail), or kind: CLASSIC_PREVIEW, "
    "dataSecurityMode: DATA_SECURITY_MODE_DEDICATED and singleUserName (a user or a group).",
)
