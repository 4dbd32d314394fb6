"""Karpenter NodePools (raw or ours) through the pack's policies: every size the requirements allow passes the size
rules (gpu-size-*), and a GPU NodePool bounds its GPUs (gpu-nodepool-limits). A compliant NodePool, then one mutation.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

from policies import gpu_nodepool_limits, gpu_size_minimum, gpu_size_no_nvv4, gpu_size_not_retired
from policies.pack import ALL_POLICIES
from tests.policies._helpers import UNKNOWN, run_policy

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
SKU_NAME = "karpenter.azure.com/sku-name"
NODE_POOL_PROPS: dict[str, Any] = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "infer"},
    "spec": {
        "template": {
            "metadata": {"labels": {"azure-gpu-platform/pool": "infer"}},
            "spec": {
                "nodeClassRef": {"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "infer"},
                "requirements": [
                    {"key": SKU_NAME, "operator": "In", "values": ["Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3"]},
                    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                ],
                "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
            },
        },
        "limits": {"nvidia.com/gpu": "8"},
        "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5m"},
    },
}


def with_requirements(*requirements: dict[str, Any], limits: Any = "keep") -> dict[str, Any]:
    props = copy.deepcopy(NODE_POOL_PROPS)
    props["spec"]["template"]["spec"]["requirements"] = list(requirements)
    if limits != "keep":
        if limits is None:
            del props["spec"]["limits"]
        else:
            props["spec"]["limits"] = limits
    return props


def mandatory(props: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for policy in ALL_POLICIES:
        if isinstance(policy, ResourceValidationPolicy) and policy.enforcement_level == EnforcementLevel.MANDATORY:
            outcome = run_policy(policy, NODE_POOL, props)
            assert outcome.preview_unknown is None, outcome.preview_unknown
            found += [f"{policy.name}: {v}" for v in outcome.violations]
    return found


def test_the_compliant_node_pool_passes_every_mandatory_policy() -> None:
    assert mandatory(NODE_POOL_PROPS) == []


@pytest.mark.parametrize("bad", ["Standard_NV32as_v4", "Standard_NC6s_v3"])
@pytest.mark.parametrize("alone", [True, False])
def test_a_bad_size_in_the_in_list_fails_naming_it(bad: str, alone: bool) -> None:
    values = [bad] if alone else ["Standard_NC4as_T4_v3", bad, "Standard_NC8as_T4_v3"]
    found = mandatory(with_requirements({"key": SKU_NAME, "operator": "In", "values": values}))
    index = values.index(bad)
    assert found
    assert all(f": spec.template.spec.requirements[0].values[{index}]: {bad}" in line for line in found), found


def test_exact_rules_and_message_for_the_nvv4_size() -> None:
    props = with_requirements(
        {"key": SKU_NAME, "operator": "In", "values": ["Standard_NC4as_T4_v3", "Standard_NV32as_v4"]}
    )
    rules = sorted({line.split(":")[0] for line in mandatory(props)})
    assert rules == ["gpu-size-no-nvv4", "gpu-size-not-retired"]
    [message] = run_policy(gpu_size_no_nvv4.POLICY, NODE_POOL, props).violations
    assert message.startswith(
        "spec.template.spec.requirements[0].values[1]: Standard_NV32as_v4 is an NVv4 size (partial AMD Radeon "
        "Instinct MI25): AKS does not support the NVv4 series"
    )


def test_an_open_requirement_is_resolved_through_the_catalog_in_one_message_per_policy() -> None:
    # NotIn the retired K80s still admits the retired V100 NC6s_v3 (and NVv4): one violation per policy names them
    props = with_requirements(
        {"key": "karpenter.azure.com/sku-family", "operator": "In", "values": ["N"]},
        {"key": SKU_NAME, "operator": "NotIn", "values": ["Standard_NC6", "Standard_NC12", "Standard_NC24"]},
    )
    [retired] = run_policy(gpu_size_not_retired.POLICY, NODE_POOL, props).violations
    assert retired.startswith(
        "spec.template.spec.requirements: NodePool 'infer' admits 44 sizes this policy refuses: Standard_NV4as_v4, "
        "Standard_NV8as_v4, Standard_NV16as_v4, Standard_NC6s_v2, Standard_NV32as_v4 and 39 more. The first: "
        "Standard_NV4as_v4 (AMD Radeon Instinct MI25 16 GiB) was retired by Microsoft on 2026-09-30"
    )
    assert "Standard_NC6 " not in retired and "Standard_NC6," not in retired
    [nvv4] = run_policy(gpu_size_no_nvv4.POLICY, NODE_POOL, props).violations
    assert nvv4.startswith(
        "spec.template.spec.requirements: NodePool 'infer' admits 8 sizes this policy refuses: Standard_NV4as_v4, "
        "Standard_NV8as_v4, Standard_NV16as_v4, Standard_NV32as_v4, Standard_NV16ahs_v4 and 3 more. The first: "
        "Standard_NV4as_v4 is an NVv4 size"
    )


def test_one_refused_size_keeps_its_own_message_several_share_one() -> None:
    props = with_requirements({"key": "karpenter.azure.com/sku-series", "operator": "In", "values": ["NCs_v3"]})
    violations = run_policy(gpu_size_not_retired.POLICY, NODE_POOL, props).violations
    assert [v.split(" (NVIDIA")[0] for v in violations] == [
        "spec.template.spec.requirements: NodePool 'infer' admits 3 sizes this policy refuses: Standard_NC6s_v3, "
        "Standard_NC12s_v3, Standard_NC24s_v3. The first: Standard_NC6s_v3"
    ]
    one = with_requirements(
        {"key": SKU_NAME, "operator": "In", "values": ["Standard_NC4as_T4_v3", "Standard_NC6s_v3"]},
    )
    [message] = run_policy(gpu_size_not_retired.POLICY, NODE_POOL, one).violations
    assert message.startswith("spec.template.spec.requirements[0].values[1]: Standard_NC6s_v3 (NVIDIA Tesla V100")


def test_a_gpu_name_requirement_admitting_only_current_sizes_passes() -> None:
    props = with_requirements({"key": "karpenter.azure.com/sku-gpu-name", "operator": "In", "values": ["T4"]})
    assert mandatory(props) == []


def test_a_cpu_node_pool_is_not_a_gpu_pool() -> None:
    props = with_requirements({"key": "karpenter.azure.com/sku-family", "operator": "In", "values": ["D"]}, limits=None)
    assert mandatory(props) == []


def test_a_gpu_node_pool_without_gpu_limits_fails() -> None:
    props = with_requirements(
        {"key": SKU_NAME, "operator": "In", "values": ["Standard_NC4as_T4_v3"]}, limits={"cpu": "64"}
    )
    [message] = run_policy(gpu_nodepool_limits.POLICY, NODE_POOL, props).violations
    assert message.startswith(
        "spec.limits: NodePool 'infer' (Standard_NC4as_T4_v3): the NodePool admits GPU sizes but sets no "
        "spec.limits['nvidia.com/gpu']"
    )
    assert [line.split(":")[0] for line in mandatory(props)] == ["gpu-nodepool-limits"]


def test_a_static_node_pool_is_bounded_by_replicas() -> None:
    props = with_requirements({"key": SKU_NAME, "operator": "In", "values": ["Standard_NC4as_T4_v3"]}, limits=None)
    props["spec"]["replicas"] = 2.0
    assert run_policy(gpu_nodepool_limits.POLICY, NODE_POOL, props).violations == []


def test_unknown_requirements_are_reported_not_passed() -> None:
    props = with_requirements({"key": SKU_NAME, "operator": "In", "values": [UNKNOWN]})
    outcome = run_policy(gpu_size_not_retired.POLICY, NODE_POOL, props)
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert "spec.template.spec.requirements[0] can't be known during preview" in outcome.preview_unknown


def test_minimum_size_by_family_aks_applies_to_a_raw_node_pool() -> None:
    # NAP creates AKS nodes: the aks floor applies, as the families config already scopes NodePools to aks
    a100 = {"minimumSizeByFamily": {"aks": "Standard_NC24ads_A100_v4"}}
    outcome = run_policy(gpu_size_minimum.POLICY, NODE_POOL, NODE_POOL_PROPS, config=a100)
    [message] = outcome.violations
    assert message.startswith(
        "spec.template.spec.requirements: NodePool 'infer' admits 2 sizes this policy refuses: Standard_NC4as_T4_v3 "
        "(requirements[0].values[0]), Standard_NC8as_T4_v3 (requirements[0].values[1]). The first: "
        "Standard_NC4as_T4_v3 (NVIDIA Tesla T4 16 GiB, 1 GPU) is below the GPU floor Standard_NC24ads_A100_v4"
    )
    # another family's floor leaves the NodePool at minimumSize (T4 passes the default floor)
    vm_only = {"minimumSizeByFamily": {"vm": "Standard_NC24ads_A100_v4"}}
    assert run_policy(gpu_size_minimum.POLICY, NODE_POOL, NODE_POOL_PROPS, config=vm_only).violations == []


@pytest.mark.parametrize("written", ["standard_nc6s_v3", "Standard_NC6s_v3"])
def test_with_an_unknown_requirement_a_named_size_is_admitted_whatever_its_case(written: str) -> None:
    from policies._karpenter import allowed_sizes
    from policies._resources import plain

    props = with_requirements(
        {"key": SKU_NAME, "operator": "In", "values": [written, "Standard_Bogus_v9"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": [UNKNOWN]},
    )
    sizes, unknown = allowed_sizes(plain(props))
    assert unknown == ["spec.template.spec.requirements[1]"]
    assert sizes.admitted == ("Standard_NC6s_v3",)  # catalog spelling; no open-set sizes while one is unknown
    assert [n.size for n in sizes.named] == [written, "Standard_Bogus_v9"]
    outcome = run_policy(gpu_size_not_retired.POLICY, NODE_POOL, props)
    assert [v.split(" (")[0] for v in outcome.violations] == [
        "spec.template.spec.requirements[0].values[0]: Standard_NC6s_v3"
    ]
    assert outcome.preview_unknown is not None


@pytest.mark.slow
def test_the_pack_over_the_analyzer_protocol_fails_a_raw_node_pool_naming_the_sizes() -> None:
    """The pack process, driven the way the engine drives it, on raw NodePools (no component around them)."""

    from preflight.model import RecordedResource
    from tests.shared_runs import run_session_pack

    prefix = "urn:pulumi:dev::raw::"
    good = RecordedResource(urn=f"{prefix}{NODE_POOL}::good", type=NODE_POOL, name="good", inputs=NODE_POOL_PROPS)
    bad_props = with_requirements(
        {
            "key": SKU_NAME,
            "operator": "In",
            "values": ["Standard_NC4as_T4_v3", "Standard_NV32as_v4", "Standard_NC6s_v3"],
        },
        limits=None,
    )
    bad = RecordedResource(urn=f"{prefix}{NODE_POOL}::bad", type=NODE_POOL, name="bad", inputs=bad_props)
    result = run_session_pack([good, bad])
    # Alone in a stack, no device plugin of the stack runs on either NodePool's GPU nodes: advisory (issue 40).
    no_plugin = {v.urn for v in result.violations if v.policy_name == "gpu-node-device-plugin-missing"}
    assert no_plugin == {good.urn, bad.urn}
    assert {v.enforcement_level for v in result.violations if v.urn in no_plugin and "device" in v.policy_name} == {
        "advisory"
    }
    by_urn = {(v.policy_name, v.urn) for v in result.mandatory}
    assert all(urn.endswith("::bad") for _, urn in by_urn), by_urn
    assert {name for name, _ in by_urn} == {"gpu-size-no-nvv4", "gpu-size-not-retired", "gpu-nodepool-limits"}
    messages = [v.message for v in result.mandatory]
    assert any("values[1]: Standard_NV32as_v4 is an NVv4 size" in m for m in messages)
    # NVv4 and NC6s_v3 are both retired: one gpu-size-not-retired violation for the NodePool names both
    [retired] = [v.message for v in result.mandatory if v.policy_name == "gpu-size-not-retired"]
    assert (
        "spec.template.spec.requirements: NodePool 'infer' admits 2 sizes this policy refuses: Standard_NV32as_v4 "
        "(requirements[0].values[1]), Standard_NC6s_v3 (requirements[0].values[2]). The first: Standard_NV32as_v4"
    ) in retired
    assert any("sets no spec.limits['nvidia.com/gpu']" in m for m in messages)


def test_unknown_requirements_without_limits_are_reported_as_unknown_not_as_a_violation() -> None:
    props = with_requirements({"key": SKU_NAME, "operator": "In", "values": [UNKNOWN]}, limits=None)
    outcome = run_policy(gpu_nodepool_limits.POLICY, NODE_POOL, props)
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
