"""gpu-size-known: an N-family size the catalog does not know is rejected (fail closed)."""

from __future__ import annotations

from pulumi_policy import PolicyConfigSchema, ReportViolation, ResourceValidationArgs, Severity

from rules.size_fields import FAMILIES, names_vm_sizes
from rules.sizes import check_known

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import per_size, review_sizes
from ._scope import FAMILIES_DOC, FAMILIES_KEY, FAMILIES_SCHEMA, configured_families

NAME = "gpu-size-known"
_CHECK = per_size(check_known, dated=False)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review_sizes(args, report, _CHECK, families=configured_families(args, NAME))


POLICY = GpuResourcePolicy(
    name=NAME,
    what="Every N-family size (Standard_N…) is in the GPU catalog.",
    why="An unknown size (a typo, or newer than the catalog) cannot be checked for GPU, memory and lifecycle, so it "
    "is rejected rather than waved through; the message names the closest known sizes.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "vm-size"],
    fix="Fix the spelling, or add the real size to gpu_catalog/catalog.json with its sources.",
    config_schema=PolicyConfigSchema(properties={FAMILIES_KEY: FAMILIES_SCHEMA}),
    config_doc=FAMILIES_DOC,
    size_families=FAMILIES,
    applies_to=names_vm_sizes,
)
