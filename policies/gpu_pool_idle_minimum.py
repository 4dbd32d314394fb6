"""gpu-pool-idle-minimum: Linux GPU pools that could scale to zero keep no node idle (advisory, with the idle cost).

Every Linux AKS pool with a GPU size (AgentPools and ``ManagedCluster.agentPoolProfiles``) is read into a
:class:`rules.idle.IdlePool` by :func:`rules.idle.idle_pool` (the reader the cost estimate uses too): its minimum
(``minCount`` with ``enableAutoScaling``, else ``count``, default 1), ``mode``, ``gpuInstanceProfile``,
``scaleSetPriority``, and whether a GPU operator release in the stack manages it (then
``gpu-operator-autoscale-min-count`` requires a minimum of 1 and this policy stays silent). :func:`rules.idle.
pool_idle_minimum`, the rule the cost estimate also calls, decides and prices the minimum from the GPU catalog.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from rules.idle import HOURS_PER_MONTH, POLICY_NAME, POOL_KEYS, SCALE_TO_ZERO_SOURCE, idle_pool, pool_idle_minimum

from ._meta import ADVISORY, GpuStackPolicy
from ._resources import UNKNOWN, Review
from ._stack import gpu_operators, linux_gpu_pools

NAME = POLICY_NAME


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    managed = bool(gpu_operators(args, review))
    for sp in linux_gpu_pools(args, review):
        values = {key: sp.pool.get(key) for key in POOL_KEYS}
        unknown = [key for key, value in values.items() if value is UNKNOWN]
        if unknown:
            for key in unknown:
                review.unknown_field(sp.where(key))
            continue
        facts = idle_pool(
            sp.pool.label(sp.resource.name),
            sp.pool.size_label,
            {key: value for key, value in values.items() if value is not None},
            operator_managed=managed,
        )
        if facts is None:
            continue
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
