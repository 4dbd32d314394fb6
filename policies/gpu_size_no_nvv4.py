"""gpu-size-no-nvv4: no NVv4 (AMD MI25) size anywhere, whatever else is configured."""

from __future__ import annotations

from pulumi_policy import PolicyConfigSchema, ReportViolation, ResourceValidationArgs, Severity

from rules.size_fields import FAMILIES, names_vm_sizes
from rules.sizes import check_nvv4

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import per_size, review_sizes
from ._scope import FAMILIES_DOC, FAMILIES_KEY, FAMILIES_SCHEMA, configured_families

NAME = "gpu-size-no-nvv4"
_CHECK = per_size(check_nvv4, dated=False)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review_sizes(args, report, _CHECK, families=configured_families(args, NAME))


POLICY = GpuResourcePolicy(
    name=NAME,
    what="No NVv4 size (Standard_NV*as_v4, Standard_NV*ahs_v4) in any resource that takes a VM size (AKS pools, VMs, "
    "scale sets, Azure ML, Batch, Databricks, KAITO, …: see 'Where the size rules look').",
    why="NVv4 is a partial AMD Radeon Instinct MI25 without CUDA, AKS does not support it, and the series is retiring.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "vm-size", "aks"],
    fix="Use an NVIDIA size: Standard_NC4as_T4_v3 (inference), Standard_NC24ads_A100_v4 (training) or "
    "Standard_NV36ads_A10_v5 (graphics).",
    config_schema=PolicyConfigSchema(properties={FAMILIES_KEY: FAMILIES_SCHEMA}),
    config_doc=FAMILIES_DOC,
    size_families=FAMILIES,
    applies_to=names_vm_sizes,
)
