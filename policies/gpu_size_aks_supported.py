"""gpu-size-aks-supported: AKS node pools use only GPU sizes AKS supports."""

from __future__ import annotations

from pulumi_policy import PolicyConfigSchema, ReportViolation, ResourceValidationArgs, Severity

from rules.size_fields import names_vm_sizes
from rules.sizes import check_aks_supported

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import per_size, review_sizes
from ._scope import FAMILIES_DOC, FAMILIES_KEY, FAMILIES_SCHEMA, configured_families

NAME = "gpu-size-aks-supported"
_CHECK = per_size(check_aks_supported, dated=False)
SIZE_FAMILIES = ("aks",)
"""Only AKS pools (azure-native AgentPool and ManagedCluster.agentPoolProfiles of both pool types, classic
KubernetesCluster.defaultNodePool and KubernetesClusterNodePool): VMs, Databricks and KAITO have their own support
facts, checked by their own policies."""


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    families = configured_families(args, NAME, SIZE_FAMILIES)
    review_sizes(args, report, _CHECK, families=families)


POLICY = GpuResourcePolicy(
    name=NAME,
    what="AKS node pools (azure-native AgentPool and ManagedCluster.agentPoolProfiles of both pool types, classic "
    "KubernetesCluster and KubernetesClusterNodePool) use GPU sizes that AKS supports.",
    why="AKS has no GPU driver/device-plugin support for some sizes (AMD V620/V710, preview RTX PRO 6000): the pool "
    "would come up without usable GPUs.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "vm-size", "aks"],
    fix="Use an AKS-supported NVIDIA size such as Standard_NC4as_T4_v3, Standard_NV36ads_A10_v5 or "
    "Standard_NC24ads_A100_v4.",
    config_schema=PolicyConfigSchema(properties={FAMILIES_KEY: FAMILIES_SCHEMA}),
    config_doc=FAMILIES_DOC,
    size_families=SIZE_FAMILIES,
    applies_to=names_vm_sizes,
)
