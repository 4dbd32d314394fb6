"""gpu-mig-profile-capable-size: gpuInstanceProfile only on A100/H100/H200 sizes, only AKS profile names."""

from __future__ import annotations

from policies.gpu_mig_profile_capable_size import POLICY
from rules.sizes import check_mig_profile
from tests.conftest import TODAY
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    GPU_POOL,
    MANAGED_CLUSTER,
    SYSTEM_PROFILE,
    UNKNOWN,
    run_policy,
    with_,
)

MIG_POOL = with_(GPU_POOL, gpuInstanceProfile="MIG3g")


def test_mig_on_a100_passes() -> None:
    assert run_policy(POLICY, AGENT_POOL, MIG_POOL).violations == []


def test_no_profile_passes_on_any_size() -> None:
    assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NC4as_T4_v3")).violations == []


def test_mig_on_t4_rejected_with_catalog_message() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(MIG_POOL, vmSize="Standard_NC4as_T4_v3"))
    expected = check_mig_profile("Standard_NC4as_T4_v3", "MIG3g", today=TODAY)
    assert expected is not None
    assert outcome.violations == [f"gpuInstanceProfile: {expected.message}"]
    assert outcome.violations[0].startswith(
        "gpuInstanceProfile: gpuInstanceProfile MIG3g needs a MIG-capable GPU, and Standard_NC4as_T4_v3 (NVIDIA "
        "Tesla T4 16 GiB) is not one: only A100, H100 and H200 sizes can be partitioned"
    )


def test_unknown_profile_name_rejected() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(MIG_POOL, gpuInstanceProfile="MIG9g"))
    assert outcome.violations == [
        "gpuInstanceProfile: gpuInstanceProfile 'MIG9g' is not an AKS MIG profile; allowed: MIG1g, MIG2g, MIG3g, "
        "MIG4g, MIG7g."
    ]


def test_cluster_profile_checked() -> None:
    profiles = [SYSTEM_PROFILE, {"name": "a10", "vmSize": "Standard_NV36ads_A10_v5", "gpuInstanceProfile": "MIG1g"}]
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, agentPoolProfiles=profiles))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("agentPoolProfiles[1].gpuInstanceProfile: gpuInstanceProfile MIG1g")


def test_unknown_size_with_profile_is_named() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(MIG_POOL, vmSize=UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("vmSize can't be known during preview")


def test_profile_compared_as_aks_compares_it() -> None:
    # AKS compares enum strings case-insensitively (Azure/azure-rest-api-specs#20955): mig2g is MIG2g, on both sides
    # of the rule — accepted on an A100, refused on a T4 like MIG2g.
    assert run_policy(POLICY, AGENT_POOL, with_(MIG_POOL, gpuInstanceProfile="mig2g")).violations == []
    outcome = run_policy(POLICY, AGENT_POOL, with_(MIG_POOL, gpuInstanceProfile="mig2g", vmSize="Standard_NC4as_T4_v3"))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("gpuInstanceProfile: gpuInstanceProfile mig2g needs a MIG-capable GPU")


def test_virtual_machines_pool_sizes_are_checked() -> None:
    vms = {"scale": {"manual": [{"size": "Standard_NC24ads_A100_v4"}, {"size": "Standard_NC4as_T4_v3"}]}}
    outcome = run_policy(
        POLICY, AGENT_POOL, with_(MIG_POOL, vmSize=None, type="VirtualMachines", virtualMachinesProfile=vms)
    )
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith(
        "gpuInstanceProfile: gpuInstanceProfile MIG3g needs a MIG-capable GPU, and Standard_NC4as_T4_v3"
    )
