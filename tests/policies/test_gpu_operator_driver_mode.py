"""gpu-operator-driver-mode (stack): with the GPU operator, exactly one driver per Linux GPU pool."""

from __future__ import annotations

from policies.gpu_operator_driver_mode import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    GPU_POOL,
    HELM_RELEASE,
    MANAGED_CLUSTER,
    OPERATOR_RELEASE,
    SYSTEM_PROFILE,
    UNKNOWN,
    run_stack_policy,
    urn_of,
    with_,
)

MODE_B = with_(OPERATOR_RELEASE, values={"driver": {"enabled": False}, "toolkit": {"enabled": False}})
AKS_DRIVER_POOL = with_(GPU_POOL, gpuProfile={"driver": "Install"})


def stack(pool: dict, release: dict | None = OPERATOR_RELEASE) -> list[tuple[str, str, dict]]:
    resources = [(MANAGED_CLUSTER, "aks", CLUSTER), (AGENT_POOL, "gpupool", pool)]
    if release is not None:
        resources.append((HELM_RELEASE, "gpu-operator", release))
    return resources


def test_mode_a_pool_skips_driver_operator_defaults_passes() -> None:
    assert run_stack_policy(POLICY, stack(GPU_POOL)).violations == []


def test_mode_b_aks_driver_operator_driver_disabled_passes() -> None:
    assert run_stack_policy(POLICY, stack(AKS_DRIVER_POOL, MODE_B)).violations == []


def test_no_operator_nothing_to_check() -> None:
    assert run_stack_policy(POLICY, stack(AKS_DRIVER_POOL, None)).violations == []


def test_two_drivers_rejected_on_the_pool_urn() -> None:
    outcome = run_stack_policy(POLICY, stack(AKS_DRIVER_POOL))
    assert outcome.violations == [
        "gpupool: gpuProfile.driver: node pool 'gpua100' (Standard_NC24ads_A100_v4), with GPU operator release "
        "'gpu-operator' (driver.enabled=true, toolkit.enabled=true): the pool keeps the AKS driver while the GPU "
        "operator also installs one: two drivers on one node fail (the operator's driver pod crash-loops and the GPUs "
        "stay unallocatable). Skip the AKS driver on the pool (create-time only: the pool is replaced), or run the "
        "operator with driver.enabled=false and toolkit.enabled=false."
    ]
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "gpupool")]


def test_pool_without_gpu_profile_keeps_aks_driver() -> None:
    outcome = run_stack_policy(POLICY, stack(with_(GPU_POOL, gpuProfile=None)))
    assert len(outcome.violations) == 1


def test_half_mode_b_still_conflicts() -> None:
    half = with_(OPERATOR_RELEASE, values={"driver": {"enabled": False}})
    outcome = run_stack_policy(POLICY, stack(AKS_DRIVER_POOL, half))
    assert len(outcome.violations) == 1
    assert "(driver.enabled=false, toolkit.enabled=true)" in outcome.violations[0]


def test_no_driver_at_all_rejected() -> None:
    outcome = run_stack_policy(POLICY, stack(GPU_POOL, MODE_B))
    assert outcome.violations == [
        "gpupool: gpuProfile.driver: node pool 'gpua100' (Standard_NC24ads_A100_v4), with GPU operator release "
        "'gpu-operator' (driver.enabled=false, toolkit.enabled=false): the pool skips the AKS driver and the GPU "
        "operator runs with driver.enabled=false, so nothing installs a GPU driver and the GPUs are unusable. Let the "
        "operator install it, or keep the AKS driver."
    ]


def test_chart_given_as_repo_path_and_string_flags() -> None:
    release = with_(
        OPERATOR_RELEASE,
        chart="nvidia/gpu-operator",
        values={"driver": {"enabled": "false"}, "toolkit": {"enabled": "false"}},
    )
    assert run_stack_policy(POLICY, stack(AKS_DRIVER_POOL, release)).violations == []


def test_windows_and_cpu_pools_ignored() -> None:
    windows = with_(AKS_DRIVER_POOL, osType="Windows", agentPoolName="wgpu")
    assert run_stack_policy(POLICY, stack(windows)).violations == []
    assert run_stack_policy(POLICY, stack(with_(AKS_DRIVER_POOL, vmSize="Standard_D4s_v5"))).violations == []


def test_inline_gpu_profile_checked() -> None:
    profile = {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "osType": "Linux", "count": 1.0}
    cluster = with_(CLUSTER, agentPoolProfiles=[SYSTEM_PROFILE, profile])
    outcome = run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", cluster), (HELM_RELEASE, "op", OPERATOR_RELEASE)])
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("aks: agentPoolProfiles[1].gpuProfile.driver: node pool 'gpu'")


def test_unknown_driver_named_with_resource() -> None:
    outcome = run_stack_policy(POLICY, stack(with_(GPU_POOL, gpuProfile={"driver": UNKNOWN})))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("gpupool: gpuProfile.driver can't be known during preview")
