"""aks-kubernetes-version-expiring: warn before a stack's Kubernetes version stops being creatable on AKS."""

from __future__ import annotations

from pulumi_policy import PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs

from rules.lifecycle import DEFAULT_EXPIRY_WARNING_DAYS, check_kubernetes_expiry

from ._kubernetes import judge, version_fields
from ._meta import ADVISORY, GpuStackPolicy
from ._resources import Review, request_today

NAME = "aks-kubernetes-version-expiring"
WARN_DAYS = "warnDays"


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    config = args.get_config() or {}
    warn_days = config.get(WARN_DAYS, DEFAULT_EXPIRY_WARNING_DAYS)
    if not isinstance(warn_days, int | float) or isinstance(warn_days, bool) or warn_days < 0:
        raise ValueError(f"{NAME}: {WARN_DAYS} must be a number of days ≥ 0, got {warn_days!r}")
    today = request_today()
    for field in version_fields(args, review):
        finding = judge(field, check_kubernetes_expiry, review, today, warn_days=int(warn_days))
        if finding is not None:
            review.violation(f"{field.where}: {finding.message}", field.resource.urn)
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="The Kubernetes versions of clusters and node pools are not within warnDays (default "
    f"{DEFAULT_EXPIRY_WARNING_DAYS}) of their AKS end of life (LTS end of life with long-term support).",
    why="On that day AKS stops creating clusters and node pools on the version: a pool replacement, a new pool or a "
    "rebuilt environment fails from then on. Upgrading takes planning (one minor at a time).",
    validate=validate,
    level=ADVISORY,
    severity=Severity.MEDIUM,
    topics=["aks", "kubernetes-version", "lifecycle"],
    fix="Plan the upgrade to the next minor before the date in the message.",
    config_schema=PolicyConfigSchema(
        properties={
            WARN_DAYS: {
                "type": "integer",
                "minimum": 0,
                "default": DEFAULT_EXPIRY_WARNING_DAYS,
                "description": "Start warning this many days before the version's end of life.",
            }
        }
    ),
    config_doc=f"`{WARN_DAYS}` (integer ≥ 0, default {DEFAULT_EXPIRY_WARNING_DAYS}): days before end of life to "
    "start warning.",
)
