"""gpu-operator-autoscale-min-count: autoscaling GPU pools managed by the GPU operator keep at least one node."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from rules.aks import AUTOSCALER_SCALE_FROM_ZERO_ISSUE, GpuOperator, GpuPool, operator_autoscale_min_count

from ._meta import MANDATORY, GpuStackPolicy
from ._resources import UNKNOWN, Review, as_bool
from ._stack import gpu_operators, linux_gpu_pools

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
            min_count = sp.pool.get("minCount")
            if min_count is UNKNOWN:
                review.unknown_field(sp.where("minCount"))
                continue
            facts = GpuPool(
                name=None,
                vm_size=sp.pool.size_label,
                autoscaling=bool(as_bool(autoscaling)),
                min_count=int(min_count) if isinstance(min_count, int | float) else None,
            )
            for finding in operator_autoscale_min_count(facts, GpuOperator()):
                review.violation(
                    f"{sp.where(finding.field)}: {sp.label}, managed by {operators[0].label}: {finding.message}",
                    sp.resource.urn,
                )
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="With a GPU operator release in the stack, autoscaling Linux GPU pools have minCount ≥ 1.",
    why="At 0 nodes the autoscaler cannot see the operator-added node labels/resources, so pods that select them "
    f"never cause a scale-up ({AUTOSCALER_SCALE_FROM_ZERO_ISSUE}).",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "aks", "gpu-operator", "autoscaling"],
    fix="Set minCount: 1 (or disable autoscaling on the pool).",
)
