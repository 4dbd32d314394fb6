"""gpu-pool-idle-minimum (stack, advisory): GPU pools that could scale to zero keep no node idle."""

from __future__ import annotations

from policies.gpu_pool_idle_minimum import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    GPU_POOL,
    HELM_RELEASE,
    OPERATOR_RELEASE,
    UNKNOWN,
    run_stack_policy,
    urn_of,
    with_,
)

COMPLIANT = with_(GPU_POOL, minCount=0.0)
"""The baseline A100 pool (3.673 USD/h in the catalog), autoscaling from 0 to 3, no GPU operator."""


def stack(pool: dict, operator: bool = False) -> list[tuple[str, str, dict]]:
    resources = [(AGENT_POOL, "gpupool", pool)]
    if operator:
        resources.append((HELM_RELEASE, "gpu-operator", OPERATOR_RELEASE))
    return resources


def test_policy_is_advisory() -> None:
    assert POLICY.name == "gpu-pool-idle-minimum"
    assert POLICY.enforcement_level is not None
    assert POLICY.enforcement_level.value == "advisory"


def test_scale_from_zero_pool_passes() -> None:
    outcome = run_stack_policy(POLICY, stack(COMPLIANT))
    assert outcome.violations == []
    assert outcome.not_applicable == []


def test_min_one_reported_with_monthly_idle_cost() -> None:
    outcome = run_stack_policy(POLICY, stack(with_(COMPLIANT, minCount=1.0)))
    assert outcome.violations == [
        "gpupool: minCount: node pool 'gpua100' (Standard_NC24ads_A100_v4) keeps 1 node running with nothing "
        "scheduled (minCount 1): idle it costs $2,681.29/month (1 × $3.673/h × 730 h, indicative catalog price, VM "
        "only). AKS user node pools can scale to 0 (AKS docs, scale-cluster.md: user node pools can scale to 0): set "
        "minCount: 0 if the first GPU pod may wait for a node to start, or keep the warm node and accept the cost."
    ]
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "gpupool")]


def test_fixed_count_pool_reported_on_count() -> None:
    fixed = with_(COMPLIANT, enableAutoScaling=False, minCount=None, maxCount=None, count=2.0)
    (message,) = run_stack_policy(POLICY, stack(fixed)).violations
    assert message.startswith("gpupool: count: node pool 'gpua100' (Standard_NC24ads_A100_v4) keeps 2 nodes")
    assert "$5,362.58/month (2 × $3.673/h × 730 h" in message


def test_spot_pool_says_the_price_is_an_upper_bound() -> None:
    (message,) = run_stack_policy(POLICY, stack(with_(COMPLIANT, minCount=1.0, scaleSetPriority="Spot"))).violations
    assert "(1 × $3.673/h × 730 h, indicative catalog price, VM only; spot: the on-demand price, an upper bound)" in (
        message
    )


def test_fixed_pool_without_count_is_one_node() -> None:
    fixed = with_(COMPLIANT, enableAutoScaling=None, minCount=None, maxCount=None, count=None)
    (message,) = run_stack_policy(POLICY, stack(fixed)).violations
    assert "keeps 1 node running" in message


def test_operator_system_and_mig_pools_are_not_reported() -> None:
    warm = with_(COMPLIANT, minCount=1.0)
    assert run_stack_policy(POLICY, stack(warm, operator=True)).violations == []
    assert run_stack_policy(POLICY, stack(with_(warm, mode="System"))).violations == []
    assert run_stack_policy(POLICY, stack(with_(warm, gpuInstanceProfile="MIG3g"))).violations == []


def test_windows_and_cpu_pools_are_not_reported() -> None:
    warm = with_(COMPLIANT, minCount=1.0)
    assert run_stack_policy(POLICY, stack(with_(warm, osType="Windows"))).violations == []
    assert run_stack_policy(POLICY, stack(with_(warm, vmSize="Standard_D4ds_v5"))).violations == []


def test_unknown_min_count_named() -> None:
    outcome = run_stack_policy(POLICY, stack(with_(COMPLIANT, minCount=UNKNOWN)))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("gpupool: minCount can't be known during preview")
