"""gpu-windows-pool: Windows GPU pools keep the driver, run Kubernetes ≥ 1.29, have names ≤ 6 characters."""

from __future__ import annotations

from policies.gpu_windows_pool import POLICY
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

WIN_POOL = with_(
    GPU_POOL,
    agentPoolName="wgpu",
    osType="Windows",
    osSKU="Windows2022",
    vmSize="Standard_NC4as_T4_v3",
    gpuProfile={"driver": "Install"},
)
LABEL = "Windows GPU node pool 'wgpu' (Standard_NC4as_T4_v3)"


def test_compliant_windows_gpu_pool_passes() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, WIN_POOL)
    assert outcome.violations == []
    assert outcome.not_applicable == []


def test_linux_and_non_gpu_windows_pools_not_checked() -> None:
    assert (
        run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, osType="Linux", gpuProfile={"driver": "None"})).violations == []
    )
    cpu = with_(WIN_POOL, vmSize="Standard_D4s_v5", agentPoolName="winpool01", orchestratorVersion="1.27.3")
    assert run_policy(POLICY, AGENT_POOL, cpu).violations == []


def test_driver_skipped_rejected() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, gpuProfile={"driver": "None"}))
    assert outcome.violations == [
        f"gpuProfile.driver: {LABEL}: a Windows GPU pool must keep the AKS driver install: the NVIDIA GPU operator "
        "does not support Windows nodes, so nothing else would install a driver and the pool would have no usable GPU."
    ]


def test_old_kubernetes_rejected() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, orchestratorVersion="1.28.9"))
    assert outcome.violations == [
        f"orchestratorVersion: {LABEL}: Windows GPU node pools need Kubernetes 1.29 or later (AKS), and this pool runs "
        "1.28.9. Allowed: 1.29 or later."
    ]


def test_exactly_1_29_passes() -> None:
    assert run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, orchestratorVersion="1.29")).violations == []


def test_missing_version_on_agent_pool_fails_closed() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, orchestratorVersion=None))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith(f"orchestratorVersion: {LABEL}: not set, so the Kubernetes version")


def test_long_name_rejected() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, agentPoolName="wingpu1"))
    assert outcome.violations == [
        "agentPoolName: Windows GPU node pool 'wingpu1' (Standard_NC4as_T4_v3): 'wingpu1' has 7 characters: "
        "AKS limits Windows node pool names to 6 (Windows computer names are derived from it). Use at most 6, "
        "e.g. 'wingpu'."
    ]


def test_missing_name_is_reported_not_applicable() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, agentPoolName=None))
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "agentPoolName is not set, so the ≤6-character Windows pool name limit was not checked"
    ]


def test_inline_profile_uses_cluster_version() -> None:
    profile = {"name": "wgpu", "osType": "Windows", "vmSize": "Standard_NC4as_T4_v3", "count": 1.0}
    cluster = with_(CLUSTER, kubernetesVersion="1.28.5", agentPoolProfiles=[SYSTEM_PROFILE, profile])
    outcome = run_policy(POLICY, MANAGED_CLUSTER, cluster)
    assert outcome.violations == [
        "kubernetesVersion: Windows GPU node pool 'wgpu' (Standard_NC4as_T4_v3): Windows GPU node pools need "
        "Kubernetes 1.29 or later (AKS), and this pool runs 1.28.5. Allowed: 1.29 or later."
    ]


def test_unknown_version_named() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, orchestratorVersion=UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("orchestratorVersion can't be known during preview")
