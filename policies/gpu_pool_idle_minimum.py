"""gpu-pool-idle-minimum: Linux GPU pools that could scale to zero keep no node idle (advisory, with the idle cost).

Every Linux AKS pool with a GPU size (AgentPools and ``ManagedCluster.agentPoolProfiles``) is read into a
:class:`rules.idle.IdlePool`: its minimum (``minCount`` with ``enableAutoScaling``, else ``count``, default 1), its
``mode``, ``gpuInstanceProfile``, and whether a GPU operator release in the stack manages it (then
``gpu-operator-autoscale-min-count`` requires a minimum of 1 and this policy stays silent). :func:`rules.idle.
pool_idle_minimum`, the rule the cost estimate also calls, decides and prices the minimum from the GPU catalog.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from rules.idle import HOURS_PER_MONTH, POLICY_NAME, SCALE_TO_ZERO_SOURCE, IdlePool, pool_idle_minimum

from ._meta import ADVISORY, GpuStackPolicy
from ._resources import UNKNOWN, Review, as_bool
from ._stack import gpu_operators, linux_gpu_pools

NAME = POLICY_NAME


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    managed = bool(gpu_operators(args, review))
    for sp in linux_gpu_pools(args, review):
        keys = ("enableAutoScaling", "minCount", "count", "mode", "gpuInstanceProfile", "scaleSetPriority")
        values = {key: sp.pool.get(key) for key in keys}
        unknown = [key for key, value in values.items() if value is UNKNOWN]
        if unknown:
            for key in unknown:
                review.unknown_field(sp.where(key))
            continue
        autoscaling = bool(as_bool(values["enableAutoScaling"]))
        raw = values["minCount"] if autoscaling else values["count"]
        if raw is None:
            raw = 1 if not autoscaling else None  # AKS's default count is 1; an unset minCount is another policy's
        if not isinstance(raw, int | float) or isinstance(raw, bool):
            continue
        facts = IdlePool(
            label=sp.label.rsplit(" (", 1)[0],
            vm_size=sp.pool.size_label,
            min_nodes=int(raw),
            autoscaling=autoscaling,
            system=str(values["mode"] or "").lower() == "system",
            operator_managed=managed,
            mig=bool(values["gpuInstanceProfile"]),
            spot=str(values["scaleSetPriority"] or "").lower() == "spot",
        )
        result = pool_idle_minimum(facts)
        if isinstance(result, list):
            for finding in result:
                review.violation(f"{sp.where(finding.field)}: {finding.message}", sp.resource.urn)
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="A Linux GPU pool that can scale to zero (a User pool, no GPU operator, no MIG) keeps no node idle.",
    why=f"An idle GPU node costs its full hourly price ({HOURS_PER_MONTH} h a month) and {SCALE_TO_ZERO_SOURCE}; "
    "the message gives the monthly idle cost of the pool's minimum from the GPU catalog.",
    validate=validate,
    level=ADVISORY,
    severity=Severity.LOW,
    topics=["gpu", "aks", "cost", "autoscaling"],
    fix="Autoscale the pool with minCount: 0 (a stack file's gpuPools[].minCount), or keep the warm node on purpose "
    "and exempt the pool with a reason.",
)
