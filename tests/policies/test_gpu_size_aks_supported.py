"""gpu-size-aks-supported: AKS pools only (Databricks and KAITO have their own support facts)."""

from __future__ import annotations

from policies.gpu_size_aks_supported import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    DATABRICKS_CLUSTER,
    DATABRICKS_GPU,
    GPU_POOL,
    KAITO_WORKSPACE,
    KAITO_WS,
    MANAGED_CLUSTER,
    SYSTEM_PROFILE,
    run_policy,
    with_,
)

V620_MESSAGE = (
    "vmSize: Standard_NG32ads_V620_v1 (AMD Radeon PRO V620 32 GiB) is not supported for AKS node pools (Not "
    "documented as AKS-supported). Use an AKS-supported NVIDIA size such as Standard_NC4as_T4_v3, "
    "Standard_NV36ads_A10_v5 or Standard_NC24ads_A100_v4."
)


def test_supported_size_passes() -> None:
    assert run_policy(POLICY, AGENT_POOL, GPU_POOL).violations == []


def test_unsupported_size_on_agent_pool_exact_message() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NG32ads_V620_v1"))
    assert outcome.violations == [V620_MESSAGE]


def test_unsupported_size_in_cluster_profile() -> None:
    profiles = [SYSTEM_PROFILE, {"name": "v620", "vmSize": "Standard_NG32ads_V620_v1", "count": 1.0}]
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, agentPoolProfiles=profiles))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("agentPoolProfiles[1].vmSize: Standard_NG32ads_V620_v1")


def test_v710_is_in_aks_gpu_registry_and_accepted() -> None:
    # Azure/karpenter-provider-azure pkg/utils/supported-gpus.yaml lists the NVads V710 v5 sizes (AMD, Ubuntu)
    profiles = [SYSTEM_PROFILE, {"name": "v710", "vmSize": "Standard_NV24ads_V710_v5", "count": 1.0}]
    assert run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, agentPoolProfiles=profiles)).violations == []


def test_not_applied_to_databricks_or_kaito() -> None:
    dbx = with_(DATABRICKS_GPU, nodeTypeId="Standard_NG32ads_V620_v1")
    assert run_policy(POLICY, DATABRICKS_CLUSTER, dbx).violations == []
    ws = with_(KAITO_WS, resource={"instanceType": "Standard_NG32ads_V620_v1"})
    assert run_policy(POLICY, KAITO_WORKSPACE, ws).violations == []


def test_families_config_narrows_within_aks_only() -> None:
    v620 = with_(GPU_POOL, vmSize="Standard_NG32ads_V620_v1")
    vm = "azure-native:compute:VirtualMachine"
    vm_props = {"hardwareProfile": {"vmSize": "Standard_NG32ads_V620_v1"}}
    # configured [aks, vm]: still AKS pools only (the policy's size_families), so the VM passes
    both = {"families": ["aks", "vm"]}
    assert run_policy(POLICY, AGENT_POOL, v620, config=both).violations == [V620_MESSAGE]
    assert run_policy(POLICY, vm, vm_props, config=both).violations == []
    # configured [vm]: nothing the policy applies to, so the AKS pool is not inspected either
    assert run_policy(POLICY, AGENT_POOL, v620, config={"families": ["vm"]}).violations == []
    assert POLICY.size_families == ("aks",)
