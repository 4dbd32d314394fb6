"""gpu-pool-tainted: GPU node pools carry a NoSchedule taint so ordinary pods stay off expensive nodes."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.aks import DEFAULT_GPU_TAINT, GpuPool, gpu_pool_tainted
from rules.resource_types import is_aks_pool_resource

from ._meta import ADVISORY, GpuResourcePolicy
from ._resources import POOL_SIZES, UNKNOWN, Review, is_gpu_pool, pools_of

NAME = "gpu-pool-tainted"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    for pool in pools_of(args, review):
        if not is_gpu_pool(pool, review):
            continue
        taints = pool.get("nodeTaints")
        entries = taints if isinstance(taints, list) else []
        if taints is UNKNOWN or any(t is UNKNOWN for t in entries):
            review.unknown_field(pool.path("nodeTaints"))
            continue
        facts = GpuPool(name=None, vm_size=pool.size_label, taints=tuple(t for t in entries if isinstance(t, str)))
        for finding in gpu_pool_tainted(facts):
            review.violation(
                f"{pool.path('nodeTaints')}: GPU {pool.label(args.name)} ({pool.size_label}): {finding.message}"
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="GPU node pools carry a NoSchedule (or NoExecute) taint.",
    why="Without one, ordinary pods land on GPU nodes, hold them and block scale-down; "
    f"{DEFAULT_GPU_TAINT} is tolerated by the GPU operator and by AKS for pods requesting GPUs.",
    validate=validate,
    level=ADVISORY,
    severity=Severity.LOW,
    topics=["gpu", "aks", "scheduling", "cost"],
    fix=f"Add nodeTaints: [{DEFAULT_GPU_TAINT}] (a custom key needs matching tolerations in the operator values).",
    pool_fields=("nodeTaints", *POOL_SIZES),
    applies_to=is_aks_pool_resource,
)
