"""Cost of a Karpenter GPU NodePool: $0 at the minimum, the GPU limit filled with the priciest allowed size at the
maximum; static pools, missing limits and preview unknowns."""

from __future__ import annotations

from typing import Any

from gpu_catalog import default_catalog
from preflight.cost import HOURS_PER_MONTH, cost_lines, estimate_cost
from preflight.model import RecordedResource
from preflight.wire import UNKNOWN

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
SKU_NAME = "karpenter.azure.com/sku-name"
T4 = ["Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3", "Standard_NC64as_T4_v3"]


def price(size: str) -> float:
    value = default_catalog()[size].price_usd_per_hour
    assert value is not None
    return value


def node_pool(values: Any = None, limits: Any = None, **spec: Any) -> RecordedResource:
    requirements = [{"key": SKU_NAME, "operator": "In", "values": values if values is not None else T4}]
    props: dict[str, Any] = {
        "spec": {"template": {"spec": {"requirements": requirements}}, **({"limits": limits} if limits else {}), **spec}
    }
    return RecordedResource(urn=f"urn:pulumi:dev::p::{NODE_POOL}::np", type=NODE_POOL, name="np", inputs=props)


def test_zero_at_the_minimum_and_the_filled_limit_at_the_maximum() -> None:
    estimate = estimate_cost([node_pool(limits={"nvidia.com/gpu": "6"})])
    [line] = estimate.lines
    # 6 GPUs: 2 x NC64as_T4_v3 (4 GPUs each) beats 6 x NC16as_T4_v3 (6 x 1.204 = 7.224)
    assert (line.vm_size, line.nodes_min, line.nodes_max) == ("Standard_NC64as_T4_v3", 0, 2)
    assert line.role == "nodepool (0..6 nvidia.com/gpu)"
    assert estimate.monthly_min == 0.0
    assert estimate.hourly_max == 2 * price("Standard_NC64as_T4_v3")
    assert round(estimate.monthly_max, 2) == round(2 * 4.352 * HOURS_PER_MONTH, 2) == 6353.92


def test_the_limit_as_a_number_and_another_winner() -> None:
    [line] = cost_lines(node_pool(limits={"nvidia.com/gpu": 8.0}))
    assert (line.vm_size, line.nodes_max, line.hourly_max) == ("Standard_NC16as_T4_v3", 8, 8 * 1.204)


def test_without_a_gpu_limit_the_pool_is_unpriced_and_says_why() -> None:
    [line] = cost_lines(node_pool())
    assert not line.priced
    assert line.note == "no spec.limits['nvidia.com/gpu']: unbounded"


def test_a_static_pool_costs_its_replicas_at_both_ends() -> None:
    [line] = cost_lines(node_pool(values=["Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3"], replicas=3.0))
    assert (line.vm_size, line.nodes_min, line.nodes_max, line.role) == (
        "Standard_NC8as_T4_v3",
        3,
        3,
        "nodepool (static)",
    )


def test_a_cpu_node_pool_costs_nothing_here() -> None:
    assert cost_lines(node_pool(values=["Standard_D4s_v5"], limits={"cpu": "100"})) == []


def test_unknown_requirements_and_limits_are_not_priced() -> None:
    [line] = cost_lines(node_pool(values=[UNKNOWN]))
    assert line.note == "requirements unknown during the preview"
    [line] = cost_lines(node_pool(limits={"nvidia.com/gpu": UNKNOWN}))
    assert line.note == "GPU limit unknown during the preview"


def test_unpriced_allowed_sizes_are_named() -> None:
    [line] = cost_lines(
        node_pool(values=["Standard_NC24ads_A100_v4", "Standard_NC40ads_H100_v5"], limits={"nvidia.com/gpu": "2"})
    )
    assert (line.vm_size, line.nodes_max) == ("Standard_NC24ads_A100_v4", 2)
    assert line.note == "maximum leaves out allowed sizes without a price: Standard_NC40ads_H100_v5"


def raw_node_pool(requirements: list[dict[str, Any]] | None, limits: Any = None) -> RecordedResource:
    template: dict[str, Any] = {"spec": {"requirements": requirements}} if requirements is not None else {}
    props: dict[str, Any] = {"metadata": {"name": "default"}, "spec": {"template": template}}
    if limits is not None:
        props["spec"]["limits"] = limits
    return RecordedResource(urn=f"urn:pulumi:dev::p::{NODE_POOL}::np", type=NODE_POOL, name="np", inputs=props)


def test_a_node_pool_that_does_not_constrain_gpus_is_priced_as_cpu_capacity_with_a_note() -> None:
    for pool in (raw_node_pool(None), raw_node_pool([]), raw_node_pool(None, limits={"cpu": 0.0})):
        estimate = estimate_cost([pool])
        [line] = estimate.lines
        assert (line.role, line.vm_size, line.nodes_min, line.nodes_max, line.usd_per_node_hour) == (
            "nodepool (GPUs unconstrained)",
            "(CPU capacity)",
            0,
            0,
            0.0,
        )
        assert line.priced and estimate.monthly_max == 0.0 and estimate.unpriced_lines == []
        assert line.note == (
            "no requirement on GPUs: priced as CPU capacity, which this GPU estimate leaves out; a pod that requests "
            "nvidia.com/gpu could still make Karpenter create any of the 89 GPU sizes it can launch "
            "(gpu-nodepool-constrains-gpus)"
        )


def test_a_node_pool_that_excludes_gpus_has_no_line() -> None:
    for requirements in (
        [{"key": "karpenter.azure.com/sku-family", "operator": "In", "values": ["D"]}],
        [{"key": "karpenter.azure.com/sku-family", "operator": "NotIn", "values": ["N"]}],
        [{"key": "karpenter.azure.com/sku-gpu-count", "operator": "Lt", "values": ["1"]}],
    ):
        assert cost_lines(raw_node_pool(requirements)) == []


def test_an_explicit_gpu_family_is_still_priced_as_gpu_capacity() -> None:
    requirements = [
        {"key": "karpenter.azure.com/sku-family", "operator": "In", "values": ["N"]},
        {"key": "karpenter.azure.com/sku-gpu-manufacturer", "operator": "In", "values": ["nvidia"]},
    ]
    [line] = cost_lines(raw_node_pool(requirements))
    assert not line.priced and line.note == "no spec.limits['nvidia.com/gpu']: unbounded"


def test_a_shared_node_pool_says_its_maximum_is_a_burst_of_new_nodes() -> None:
    # Issue 20 (defect 7): Karpenter sizes new nodes by physical GPUs (kubernetes-sigs/karpenter #729).
    pool = node_pool(limits={"nvidia.com/gpu": "8"})
    pool.inputs["spec"]["template"]["metadata"] = {"labels": {"nvidia.com/device-plugin.config": "np"}}
    [line] = estimate_cost([pool]).lines
    assert line.note == (
        "GPUs shared by time-slicing/MPS: Karpenter sizes new nodes by physical GPUs and counts a running node's "
        "replicas (kubernetes-sigs/karpenter #729), so the maximum is a burst of new nodes, one GPU per pending pod"
    )
    [plain] = estimate_cost([node_pool(limits={"nvidia.com/gpu": "8"})]).lines
    assert plain.note is None
