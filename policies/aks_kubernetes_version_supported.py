"""aks-kubernetes-version-supported: every Kubernetes version a stack asks AKS for can be created today."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from gpu_catalog.lifecycle import LTS_SUPPORT_PLAN, LTS_TIER
from rules.lifecycle import check_kubernetes_version

from ._kubernetes import judge, version_fields
from ._meta import MANDATORY, GpuStackPolicy
from ._resources import Review, request_today

NAME = "aks-kubernetes-version-supported"


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    today = request_today()
    for field in version_fields(args, review):
        finding = judge(field, check_kubernetes_version, review, today)
        if finding is not None:
            review.violation(f"{field.where}: {finding.message}", field.resource.urn)
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="ManagedCluster.kubernetesVersion, every agentPoolProfiles[].orchestratorVersion and "
    "AgentPool.orchestratorVersion name a Kubernetes minor AKS can create today: between its AKS GA and its end of "
    f"life, or until its LTS end of life on a {LTS_TIER} cluster with supportPlan {LTS_SUPPORT_PLAN}.",
    why="After end of life AKS creates no new clusters or node pools on a version (platform support only keeps "
    "running ones alive), so `pulumi up` fails; the dates are data (gpu_catalog/facts/aks_kubernetes.json) "
    "checked against today.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["aks", "kubernetes-version", "lifecycle"],
    fix="Set kubernetesVersion / orchestratorVersion to a version the message lists (upgrade one minor at a time), "
    f"or use long-term support: sku.tier {LTS_TIER} with supportPlan {LTS_SUPPORT_PLAN}.",
)
