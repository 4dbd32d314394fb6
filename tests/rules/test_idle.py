"""rules.idle: the idle cost of a GPU pool's minimum, and when a minimum above zero is worth reporting."""

from __future__ import annotations

import pytest

from rules import Finding, NotApplicable
from rules.idle import (
    HOURS_PER_MONTH,
    IdlePool,
    idle_hourly,
    idle_monthly,
    is_gpu_operator_chart,
    pool_idle_minimum,
    price_of,
    scale_from_zero_blocker,
)

T4 = "Standard_NC4as_T4_v3"  # 0.526 USD/h in the catalog
A100 = "Standard_NC24ads_A100_v4"  # 3.673 USD/h


def pool(**changes: object) -> IdlePool:
    base = IdlePool(label="node pool 't4'", vm_size=T4, min_nodes=0, autoscaling=True)
    return IdlePool(**{**{f: getattr(base, f) for f in base.__slots__}, **changes})  # type: ignore[arg-type]


def test_idle_cost_is_nodes_times_price_times_730() -> None:
    assert HOURS_PER_MONTH == 730
    assert price_of(T4) == 0.526
    assert idle_hourly(2, 0.526) == pytest.approx(1.052)
    assert idle_monthly(2, 0.526) == pytest.approx(767.96)
    assert idle_monthly(0, 3.673) == 0.0
    assert price_of("Standard_D4ds_v5") is None


def test_scale_to_zero_pool_passes() -> None:
    assert pool_idle_minimum(pool(min_nodes=0)) == []


def test_autoscaled_minimum_reported_with_monthly_cost() -> None:
    assert pool_idle_minimum(pool(min_nodes=2)) == [
        Finding(
            "minCount",
            "node pool 't4' (Standard_NC4as_T4_v3) keeps 2 nodes running with nothing scheduled (minCount 2): idle it "
            "costs $767.96/month (2 × $0.526/h × 730 h, indicative catalog price, VM only). AKS user node pools can "
            "scale to 0 (AKS docs, scale-cluster.md: user node pools can scale to 0): set minCount: 0 if the first "
            "GPU pod may wait for a node to start, or keep the warm node and accept the cost.",
        )
    ]


def test_fixed_count_pool_names_count_and_autoscaling() -> None:
    (finding,) = pool_idle_minimum(pool(vm_size=A100, min_nodes=1, autoscaling=False))  # type: ignore[misc]
    assert finding.field == "count"
    assert "keeps 1 node running" in finding.message
    assert "$2,681.29/month (1 × $3.673/h × 730 h" in finding.message
    assert "turn on autoscaling (enableAutoScaling) with minCount: 0 and a maxCount" in finding.message


def test_unpriced_size_says_so() -> None:
    (finding,) = pool_idle_minimum(pool(vm_size="Standard_NX1_v9", min_nodes=1))  # type: ignore[misc]
    assert "its idle cost is unknown (no indicative price in the GPU catalog)" in finding.message


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"system": True}, "System node pool always keeps nodes"),
        ({"operator_managed": True}, "gpu-operator-autoscale-min-count keeps minCount ≥ 1 (Azure/AKS #2832)"),
        ({"mig": True}, "a MIG pool"),
    ],
)
def test_pools_that_cannot_scale_from_zero_are_not_applicable(changes: dict[str, bool], words: str) -> None:
    result = pool_idle_minimum(pool(min_nodes=1, **changes))
    assert isinstance(result, NotApplicable)
    assert words in result.reason
    assert scale_from_zero_blocker(pool(**changes)) == result.reason


def test_operator_chart_names() -> None:
    assert [is_gpu_operator_chart(c) for c in ("gpu-operator", "nvidia/gpu-operator", "oci://x/gpu-operator/")] == [
        True,
        True,
        True,
    ]
    assert [is_gpu_operator_chart(c) for c in ("nvidia-device-plugin", None, 3)] == [False, False, False]
