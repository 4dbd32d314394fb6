"""gpu-size-no-nvv4: NVv4 sizes are rejected wherever a size occurs."""

from __future__ import annotations

import pytest

from policies.gpu_size_no_nvv4 import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    DATABRICKS_CLUSTER,
    GPU_POOL,
    KAITO_WORKSPACE,
    MANAGED_CLUSTER,
    SYSTEM_PROFILE,
    UNKNOWN,
    run_policy,
    with_,
)

NVV4_MESSAGE = (
    "vmSize: Standard_NV16as_v4 is an NVv4 size (partial AMD Radeon Instinct MI25): AKS does not support the NVv4 "
    "series and its GPU has no CUDA. Use an NVIDIA size such as Standard_NC4as_T4_v3 (inference) or "
    "Standard_NC24ads_A100_v4 (training); for graphics use Standard_NV36ads_A10_v5."
)


def test_compliant_pool_passes() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, GPU_POOL)
    assert outcome.violations == []
    assert outcome.preview_unknown is None


def test_nvv4_pool_rejected_with_exact_message() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NV16as_v4"))
    assert outcome.violations == [NVV4_MESSAGE]


@pytest.mark.parametrize("size", ["standard_nv32as_v4", "STANDARD_NV8AS_V4", "Standard_NV4ahs_v4"])
def test_any_case_and_ahs_variant_rejected(size: str) -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=size))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith(f"vmSize: {size} is an NVv4 size")


def test_every_cluster_profile_checked_and_named_by_index() -> None:
    profiles = [SYSTEM_PROFILE, {"name": "gpu", "vmSize": "Standard_NV32as_v4", "count": 1.0}]
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, agentPoolProfiles=profiles))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("agentPoolProfiles[1].vmSize: Standard_NV32as_v4 is an NVv4 size")


def test_databricks_driver_and_workers_checked() -> None:
    props = {"nodeTypeId": "Standard_NV16as_v4", "driverNodeTypeId": "Standard_NV32as_v4", "sparkVersion": "x"}
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, props)
    assert [v.split(":")[0] for v in outcome.violations] == ["nodeTypeId", "driverNodeTypeId"]


def test_kaito_instance_type_checked() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, {"resource": {"instanceType": "Standard_NV32as_v4"}})
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("resource.instanceType: Standard_NV32as_v4 is an NVv4 size")


def test_non_gpu_and_unrelated_resources_pass() -> None:
    assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_D4s_v5")).violations == []
    assert run_policy(POLICY, "azure-native:compute:VirtualMachine", {"vmSize": "Standard_NV16as_v4"}).violations == []


def test_unknown_size_is_stated_not_passed() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown == (
        "vmSize can't be known during preview and was not checked (every known value was); the check runs again "
        "when `pulumi up` knows the value"
    )


def test_unknown_profile_does_not_hide_a_known_violation() -> None:
    profiles = [{"name": "gpu1", "vmSize": UNKNOWN}, {"name": "gpu2", "vmSize": "Standard_NV16as_v4"}]
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, agentPoolProfiles=profiles))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("agentPoolProfiles[1].vmSize: Standard_NV16as_v4")
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("agentPoolProfiles[0].vmSize can't be known during preview")


def test_explicit_api_version_type_tokens_are_checked() -> None:
    versioned = "azure-native:containerservice/v20250901:AgentPool"
    outcome = run_policy(POLICY, versioned, with_(GPU_POOL, vmSize="Standard_NV16as_v4"))
    assert outcome.violations == [NVV4_MESSAGE]
