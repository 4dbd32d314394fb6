"""gpu-operator-driver-mode: with the GPU operator, exactly one thing installs the GPU driver on each Linux GPU pool."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from rules.aks import GpuOperator, GpuPool, driver_install

from ._meta import MANDATORY, GpuStackPolicy
from ._resources import UNKNOWN, Review
from ._specs import wire_pool
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
        operator = GpuOperator(driver_enabled=driver is not False, toolkit_enabled=toolkit is not False)
        for sp in pools:
            skip = sp.pool.get("gpuProfile", "driver")
            if skip is UNKNOWN:
                review.unknown_field(sp.where("gpuProfile", "driver"))
                continue
            facts = GpuPool(name=None, vm_size=sp.pool.size_label, driver_skipped=wire_pool(sp.pool).skips_driver)
            for finding in driver_install(facts, operator):
                review.violation(
                    f"{sp.where('gpuProfile', 'driver')}: {sp.label}, with {op.label} (driver.enabled="
                    f"{str(driver).lower()}, toolkit.enabled={str(toolkit).lower()}): {finding.message}",
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
