"""gpu-operator-driver-mode: with the GPU operator, exactly one thing installs the GPU driver on each Linux GPU pool."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from ._meta import MANDATORY, GpuStackPolicy
from ._resources import UNKNOWN, Review
from ._stack import gpu_operators, linux_gpu_pools

NAME = "gpu-operator-driver-mode"


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    operators = gpu_operators(args, review)
    pools = linux_gpu_pools(args, review) if operators else []
    for op in operators:
        driver, toolkit = op.flag("driver"), op.flag("toolkit")
        if driver is UNKNOWN or toolkit is UNKNOWN:
            review.unknown_field(f"{op.resource.name}: values.driver.enabled/values.toolkit.enabled")
            continue
        aks_driver_mode = driver is False and toolkit is False
        for sp in pools:
            skip = sp.pool.get("gpuProfile", "driver")
            if skip is UNKNOWN:
                review.unknown_field(sp.where("gpuProfile", "driver"))
                continue
            skipped = isinstance(skip, str) and skip.lower() == "none"
            if not skipped and not aks_driver_mode:
                review.violation(
                    f"{sp.where('gpuProfile', 'driver')}: {sp.label} keeps the AKS GPU driver while {op.label} also "
                    f"installs one (driver.enabled={str(driver).lower()}, toolkit.enabled={str(toolkit).lower()}): "
                    "two drivers on one node fail (the operator's driver pod crash-loops and GPUs stay "
                    'unallocatable). Either set gpuProfile.driver: "None" on the pool (operator installs the '
                    "driver; create-time only, the pool is replaced) or set driver.enabled=false and "
                    "toolkit.enabled=false in the operator values.",
                    sp.resource.urn,
                )
            elif skipped and driver is False:
                review.violation(
                    f"{sp.where('gpuProfile', 'driver')}: {sp.label} skips the AKS GPU driver and {op.label} has "
                    "driver.enabled=false, so nothing installs a GPU driver and the GPUs are unusable. Either let the "
                    "operator install it (remove driver.enabled=false and toolkit.enabled=false) or keep the AKS "
                    'driver (gpuProfile.driver: "Install").',
                    sp.resource.urn,
                )
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="With a GPU operator Helm release (chart gpu-operator) in the stack, every Linux GPU pool skips the AKS "
    'driver (gpuProfile.driver "None") unless the release sets driver.enabled=false and toolkit.enabled=false — '
    "and not both.",
    why="Exactly one driver per node: the AKS driver and the operator's driver conflict, and with both disabled no "
    "driver is installed.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "aks", "gpu-operator", "driver"],
    fix='Mode A: gpuProfile.driver "None" + operator defaults. Mode B: AKS driver + driver.enabled=false, '
    "toolkit.enabled=false.",
)
