"""gpu-size-not-retired: no size that Microsoft has retired (or whose retirement date has passed)."""

from __future__ import annotations

from pulumi_policy import PolicyConfigSchema, ReportViolation, ResourceValidationArgs, Severity

from rules.size_fields import FAMILIES, names_vm_sizes
from rules.sizes import check_retired

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import per_size, review_sizes
from ._scope import FAMILIES_DOC, FAMILIES_KEY, FAMILIES_SCHEMA, configured_families

NAME = "gpu-size-not-retired"
_CHECK = per_size(check_retired, dated=True)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review_sizes(args, report, _CHECK, families=configured_families(args, NAME))


POLICY = GpuResourcePolicy(
    name=NAME,
    what="No retired GPU size (per the catalog's lifecycle dates).",
    why="Retired sizes cannot be deployed and running VMs are deallocated; the message names Microsoft's migration "
    "target.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "vm-size", "lifecycle"],
    fix="Move to the migration target named in the violation (from Microsoft's N-series migration guide).",
    config_schema=PolicyConfigSchema(properties={FAMILIES_KEY: FAMILIES_SCHEMA}),
    config_doc=FAMILIES_DOC,
    size_families=FAMILIES,
    applies_to=names_vm_sizes,
)
