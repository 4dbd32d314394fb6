"""gpu-size-aks-supported: AKS node pools use only GPU sizes AKS supports."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.sizes import check_aks_supported

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import review_sizes

NAME = "gpu-size-aks-supported"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    # Only AKS pools (AgentPool, ManagedCluster.agentPoolProfiles): Databricks and KAITO have their own support
    # facts, checked by their own policies.
    review_sizes(args.resource_type, args.props, report, check_aks_supported, aks_only=True)


POLICY = GpuResourcePolicy(
    name=NAME,
    what="AKS node pools (AgentPool, ManagedCluster.agentPoolProfiles) use GPU sizes that AKS supports.",
    why="AKS has no GPU driver/device-plugin support for some sizes (AMD V620/V710, preview RTX PRO 6000): the pool "
    "would come up without usable GPUs.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "vm-size", "aks"],
    fix="Use an AKS-supported NVIDIA size such as Standard_NC4as_T4_v3, Standard_NV36ads_A10_v5 or "
    "Standard_NC24ads_A100_v4.",
)
