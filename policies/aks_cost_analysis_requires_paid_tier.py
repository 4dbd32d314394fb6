"""aks-cost-analysis-requires-paid-tier: the AKS cost analysis add-on needs tier Standard or Premium."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.resource_types import is_managed_cluster

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, as_bool, get, plain

NAME = "aks-cost-analysis-requires-paid-tier"
TIERS = ("Standard", "Premium")


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_managed_cluster(args.resource_type):
        return
    review = Review(report, args)
    props = plain(args.props)
    enabled = get(props, "metricsProfile", "costAnalysis", "enabled")
    if enabled is UNKNOWN:
        review.unknown_field("metricsProfile.costAnalysis.enabled")
    elif as_bool(enabled):
        tier = get(props, "sku", "tier")
        if tier is UNKNOWN:
            review.unknown_field("sku.tier")
        elif not (isinstance(tier, str) and tier.lower() in (t.lower() for t in TIERS)):
            shown = f"'{tier}'" if isinstance(tier, str) else "not set (Free)"
            review.violation(
                f"sku.tier: cost analysis (metricsProfile.costAnalysis.enabled) is on but the cluster tier is {shown}: "
                "AKS offers the cost analysis add-on only on the Standard and Premium tiers and rejects the cluster "
                "otherwise. Set sku.tier to Standard (or Premium), or turn cost analysis off."
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="A ManagedCluster with cost analysis (metricsProfile.costAnalysis.enabled) uses sku.tier Standard or Premium.",
    why="The AKS cost analysis add-on is only available on the Standard and Premium tiers; on Free the deployment "
    "fails.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.LOW,
    topics=["aks", "cost"],
    fix="Set sku.tier: Standard, or disable metricsProfile.costAnalysis.",
)
