"""gpu-operator-autoscale-min-count: autoscaling GPU pools managed by the GPU operator keep at least one node."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from ._meta import MANDATORY, GpuStackPolicy
from ._resources import UNKNOWN, Review, as_bool
from ._stack import AUTOSCALER_ISSUE, gpu_operators, linux_gpu_pools

NAME = "gpu-operator-autoscale-min-count"


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    operators = gpu_operators(args, review)
    if operators:
        for sp in linux_gpu_pools(args, review):
            autoscaling = sp.pool.get("enableAutoScaling")
            if autoscaling is UNKNOWN:
                review.unknown_field(sp.where("enableAutoScaling"))
                continue
            if not as_bool(autoscaling):
                continue
            min_count = sp.pool.get("minCount")
            if min_count is UNKNOWN:
                review.unknown_field(sp.where("minCount"))
            elif not isinstance(min_count, int | float) or min_count < 1:
                shown = f"{min_count:g}" if isinstance(min_count, int | float) else "not set"
                review.violation(
                    f"{sp.where('minCount')}: {sp.label} autoscales with minCount {shown} and is managed by "
                    f"{operators[0].label}. At 0 nodes the cluster autoscaler cannot see the labels and resources "
                    "the operator adds to GPU nodes (nvidia.com/gpu.present, shared or MIG resource names), so "
                    f"pending GPU pods never trigger a scale-up ({AUTOSCALER_ISSUE}). Set minCount to 1 or more.",
                    sp.resource.urn,
                )
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="With a GPU operator release in the stack, autoscaling Linux GPU pools have minCount ≥ 1.",
    why="At 0 nodes the autoscaler cannot see the operator-added node labels/resources, so pods that select them "
    f"never cause a scale-up ({AUTOSCALER_ISSUE}).",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "aks", "gpu-operator", "autoscaling"],
    fix="Set minCount: 1 (or disable autoscaling on the pool).",
)
