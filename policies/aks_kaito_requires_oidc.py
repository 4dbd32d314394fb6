"""aks-kaito-requires-oidc: the KAITO add-on needs the cluster's OIDC issuer."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.aks import kaito_requires_oidc
from rules.resource_types import is_managed_cluster

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, as_bool, get, props_of
from ._specs import cluster_spec

NAME = "aks-kaito-requires-oidc"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_managed_cluster(args.resource_type):
        return
    review = Review(report, args)
    props = props_of(args)
    kaito = get(props, "aiToolchainOperatorProfile", "enabled")
    oidc = get(props, "oidcIssuerProfile", "enabled")
    if kaito is UNKNOWN:
        review.unknown_field("aiToolchainOperatorProfile.enabled")
    elif as_bool(kaito) and oidc is UNKNOWN:
        review.unknown_field("oidcIssuerProfile.enabled")
    else:  # the cluster as its spec (policies/_specs.py), built once per request
        for finding in kaito_requires_oidc(cluster_spec(args).facts):
            review.violation(f"oidcIssuerProfile.enabled: {finding.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="A ManagedCluster with the KAITO add-on (aiToolchainOperatorProfile.enabled) has oidcIssuerProfile.enabled.",
    why="KAITO provisions GPU nodes through workload identity, which requires the OIDC issuer; AKS refuses the "
    "add-on without it.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["aks", "kaito", "identity"],
    fix="Set oidcIssuerProfile.enabled: true (and enable workload identity).",
    applies_to=is_managed_cluster,
)
