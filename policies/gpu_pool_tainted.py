"""gpu-pool-tainted: GPU node pools carry a NoSchedule taint so ordinary pods stay off expensive nodes."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from ._meta import ADVISORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, is_gpu_pool, pools_of

NAME = "gpu-pool-tainted"
RECOMMENDED = "nvidia.com/gpu=present:NoSchedule"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    for pool in pools_of(args.resource_type, args.props, review):
        if not is_gpu_pool(pool, review):
            continue
        taints = pool.get("nodeTaints")
        if taints is UNKNOWN:
            review.unknown_field(pool.path("nodeTaints"))
            continue
        entries = taints if isinstance(taints, list) else []
        if any(t is UNKNOWN for t in entries):
            review.unknown_field(pool.path("nodeTaints"))
            continue
        if any(isinstance(t, str) and t.endswith((":NoSchedule", ":NoExecute")) for t in entries):
            continue
        review.violation(
            f"{pool.path('nodeTaints')}: GPU {pool.label(args.name)} ({pool.get('vmSize')}) has no NoSchedule "
            "taint, so any pod can be scheduled onto its GPU nodes and hold them (and block scale-down). Add "
            f"the taint {RECOMMENDED}: the GPU operator's daemonsets tolerate it by default and AKS adds the "
            "toleration to pods that request nvidia.com/gpu. Taints are create-time only (the pool is replaced)."
        )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="GPU node pools carry a NoSchedule (or NoExecute) taint.",
    why="Without one, ordinary pods land on GPU nodes, hold them and block scale-down; "
    "nvidia.com/gpu=present:NoSchedule is tolerated by the GPU operator and by AKS for pods requesting GPUs.",
    validate=validate,
    level=ADVISORY,
    severity=Severity.LOW,
    topics=["gpu", "aks", "scheduling", "cost"],
    fix=f"Add nodeTaints: [{RECOMMENDED}] (a custom key needs matching tolerations in the operator values).",
)
