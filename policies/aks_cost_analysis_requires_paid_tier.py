"""aks-cost-analysis-requires-paid-tier: the AKS cost analysis add-on needs tier Standard or Premium."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.aks import Cluster, cost_analysis_tier
from rules.resource_types import is_managed_cluster

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, as_bool, get, props_of

NAME = "aks-cost-analysis-requires-paid-tier"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_managed_cluster(args.resource_type):
        return
    review = Review(report, args)
    props = props_of(args)
    enabled = get(props, "metricsProfile", "costAnalysis", "enabled")
    tier = get(props, "sku", "tier")
    if enabled is UNKNOWN:
        review.unknown_field("metricsProfile.costAnalysis.enabled")
    elif as_bool(enabled) and tier is UNKNOWN:
        review.unknown_field("sku.tier")
    else:
        facts = Cluster(tier=tier if isinstance(tier, str) else None, cost_analysis=bool(as_bool(enabled)))
        for finding in cost_analysis_tier(facts):
            review.violation(f"sku.tier: {finding.message}")
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
    applies_to=is_managed_cluster,
)
