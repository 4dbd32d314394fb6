"""gpu-windows-pool: Windows GPU pools keep the driver, run Kubernetes ≥ 1.29, have names ≤ 6 characters."""

from __future__ import annotations

import pytest

import rules.aks
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


def test_unset_or_empty_version_is_the_control_planes_and_passes() -> None:
    # ARM reads an absent or empty orchestratorVersion (Microsoft's examples write "") as "the control plane's
    # version", which AKS only creates at a version it supports today: all of them are >= 1.29 (2026-11-30).
    for version in (None, ""):
        outcome = run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, orchestratorVersion=version))
        assert outcome.violations == [], version
    profile = {"name": "wgpu", "osType": "Windows", "vmSize": "Standard_NC4as_T4_v3", "orchestratorVersion": ""}
    cluster = with_(CLUSTER, kubernetesVersion="", agentPoolProfiles=[SYSTEM_PROFILE, profile])
    assert run_policy(POLICY, MANAGED_CLUSTER, cluster).violations == []


def test_unset_version_is_refused_while_aks_still_creates_an_older_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules.aks, "supported_minors", lambda today, lts: ["1.28", "1.29", "1.30"])
    outcome = run_policy(POLICY, AGENT_POOL, with_(WIN_POOL, orchestratorVersion=""))
    assert outcome.violations == [
        f"orchestratorVersion: {LABEL}: not set, so the pool runs the control plane's version, and AKS still creates "
        "1.28 (older than the minimum 1.29 for Windows GPU node pools). Set it to 1.29 or later."
    ]


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
