"""gpu-pool-tainted (advisory): GPU pools carry a NoSchedule taint."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel

from policies.gpu_pool_tainted import POLICY
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


def test_is_advisory() -> None:
    assert POLICY.enforcement_level == EnforcementLevel.ADVISORY


def test_tainted_pool_passes_custom_key_too() -> None:
    assert run_policy(POLICY, AGENT_POOL, GPU_POOL).violations == []
    assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, nodeTaints=["sku=gpu:NoSchedule"])).violations == []


def test_untainted_gpu_pool_flagged() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, nodeTaints=None))
    assert outcome.violations == [
        "nodeTaints: GPU node pool 'gpua100' (Standard_NC24ads_A100_v4): no NoSchedule taint, so any pod can be "
        "scheduled onto the GPU nodes and hold them (and block scale-down). Add the taint "
        "nvidia.com/gpu=present:NoSchedule: the GPU operator's daemonsets tolerate it by default and AKS adds the "
        "toleration to pods that request nvidia.com/gpu. Taints are create-time only (the pool is replaced)."
    ]


def test_prefer_no_schedule_is_not_enough() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, nodeTaints=["nvidia.com/gpu=present:PreferNoSchedule"]))
    assert len(outcome.violations) == 1


def test_non_gpu_system_profile_not_flagged_gpu_profile_is() -> None:
    gpu = {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "count": 1.0}
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, agentPoolProfiles=[SYSTEM_PROFILE, gpu]))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("agentPoolProfiles[1].nodeTaints: GPU node pool 'gpu'")


def test_unknown_taints_named() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, nodeTaints=[UNKNOWN]))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("nodeTaints can't be known during preview")


def test_virtual_machines_pool_with_a_gpu_size_is_a_gpu_pool() -> None:
    vms = {
        "scale": {"manual": [{"size": "Standard_D2_v3", "count": 1.0}, {"size": "Standard_NC4as_T4_v3", "count": 1.0}]}
    }
    pool = with_(GPU_POOL, vmSize=None, type="VirtualMachines", virtualMachinesProfile=vms, nodeTaints=None)
    outcome = run_policy(POLICY, AGENT_POOL, pool)
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith(
        "nodeTaints: GPU node pool 'gpua100' (Standard_D2_v3, Standard_NC4as_T4_v3): no NoSchedule taint"
    )
    cpu_only = {"scale": {"manual": [{"size": "Standard_D2_v3", "count": 1.0}]}}
    assert run_policy(POLICY, AGENT_POOL, with_(pool, virtualMachinesProfile=cpu_only)).violations == []
