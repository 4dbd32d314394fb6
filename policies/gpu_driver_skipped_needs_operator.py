"""gpu-driver-skipped-needs-operator: a Linux GPU pool that skips the AKS driver needs something else to install one."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from rules.aks import GpuPool, driver_install

from ._meta import ADVISORY, GpuStackPolicy
from ._resources import UNKNOWN, Review
from ._specs import wire_pool
from ._stack import gpu_operators, linux_gpu_pools

NAME = "gpu-driver-skipped-needs-operator"


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    operators = gpu_operators(args, review)
    if not operators and not review.unknown:
        for sp in linux_gpu_pools(args, review):
            skip = sp.pool.get("gpuProfile", "driver")
            if skip is UNKNOWN:
                review.unknown_field(sp.where("gpuProfile", "driver"))
                continue
            facts = GpuPool(name=None, vm_size=sp.pool.size_label, driver_skipped=wire_pool(sp.pool).skips_driver)
            for finding in driver_install(facts, None):
                review.violation(
                    f"{sp.where('gpuProfile', 'driver')}: {sp.label}: {finding.message} (No GPU operator Helm release, "
                    "chart gpu-operator, is in this stack; ignore this if the operator is installed outside it.)",
                    sp.resource.urn,
                )
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what='Linux GPU pools with gpuProfile.driver "None" come with a GPU operator release in the same stack.',
    why="Skipping the AKS driver is only right when the GPU operator installs one; the operator may live in "
    "another stack or GitOps, hence advisory.",
    validate=validate,
    level=ADVISORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "aks", "gpu-operator", "driver"],
    fix='Deploy the GPU operator in the stack, or use gpuProfile.driver "Install".',
)
