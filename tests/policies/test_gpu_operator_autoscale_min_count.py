"""gpu-operator-autoscale-min-count (stack): operator-managed autoscaling GPU pools keep minCount ≥ 1."""

from __future__ import annotations

from policies.gpu_operator_autoscale_min_count import POLICY
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


def stack(pool: dict, operator: bool = True) -> list[tuple[str, str, dict]]:
    resources = [(AGENT_POOL, "gpupool", pool)]
    if operator:
        resources.append((HELM_RELEASE, "gpu-operator", OPERATOR_RELEASE))
    return resources


def test_min_one_passes() -> None:
    assert run_stack_policy(POLICY, stack(GPU_POOL)).violations == []


def test_scale_to_zero_rejected_with_reason() -> None:
    outcome = run_stack_policy(POLICY, stack(with_(GPU_POOL, minCount=0.0)))
    assert outcome.violations == [
        "gpupool: minCount: node pool 'gpua100' (Standard_NC24ads_A100_v4), managed by GPU operator release "
        "'gpu-operator': must be ≥ 1 for an autoscaling GPU pool the GPU operator manages (it is 0): at 0 nodes the "
        "cluster autoscaler cannot see the labels and resources the operator adds (nvidia.com/gpu.present, shared and "
        "MIG resource names), so pending GPU pods never trigger a scale-up (Azure/AKS #2832). Allowed: 1..maxCount. "
        "For GPU nodes that scale from zero, use a node auto-provisioning pool (gpuNodePools, docs/nap.md): Karpenter "
        "creates nodes from the pending pod's nvidia.com/gpu request, with or without the operator."
    ]
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "gpupool")]


def test_missing_min_count_rejected() -> None:
    outcome = run_stack_policy(POLICY, stack(with_(GPU_POOL, minCount=None)))
    assert len(outcome.violations) == 1
    assert "the GPU operator manages (it is not set)" in outcome.violations[0]


def test_fixed_size_pool_and_no_operator_pass() -> None:
    fixed = with_(GPU_POOL, enableAutoScaling=False, minCount=None, maxCount=None, count=0.0)
    assert run_stack_policy(POLICY, stack(fixed)).violations == []
    assert run_stack_policy(POLICY, stack(with_(GPU_POOL, minCount=0.0), operator=False)).violations == []


def test_unknown_min_count_named() -> None:
    outcome = run_stack_policy(POLICY, stack(with_(GPU_POOL, minCount=UNKNOWN)))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("gpupool: minCount can't be known during preview")


def test_a_platform_pool_is_named_as_the_stack_file_wrote_it_with_the_azure_name_in_brackets() -> None:
    """The platform's pools carry the name the stack file wrote (node label azure-gpu-platform/pool); the Azure
    agentPoolName is derived from it with a hash (stack_config.azure_pool_name)."""
    pool = with_(GPU_POOL, minCount=0.0, agentPoolName="a1002f3c", nodeLabels={"azure-gpu-platform/pool": "a100"})
    [message] = run_stack_policy(POLICY, stack(pool)).violations
    assert message.startswith("gpupool: minCount: node pool 'a100' [a1002f3c] (Standard_NC24ads_A100_v4), managed by")
