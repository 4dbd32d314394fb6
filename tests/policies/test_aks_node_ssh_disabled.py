"""aks-node-ssh-disabled (advisory): Microsoft's 'should disable SSH' (28257686-…) on raw pools and clusters."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel

from policies.aks_node_ssh_disabled import POLICY
from tests.policies._helpers import AGENT_POOL, CLUSTER, GPU_POOL, MANAGED_CLUSTER, SYSTEM_PROFILE, run_policy, with_

NO_SSH = {"sshAccess": "Disabled"}


def test_disabled_on_every_scale_set_pool_passes() -> None:
    assert POLICY.enforcement_level == EnforcementLevel.ADVISORY
    assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, securityProfile=NO_SSH)).violations == []
    system = with_(SYSTEM_PROFILE, securityProfile=NO_SSH)
    assert run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, agentPoolProfiles=[system])).violations == []


def test_a_pool_with_ssh_unset_or_local_user_is_reported() -> None:
    [message] = run_policy(POLICY, AGENT_POOL, GPU_POOL).violations
    assert message.startswith("securityProfile.sshAccess: SSH is on for the nodes of node pool 'gpua100':")
    assert "(28257686-e9db-403e-b9e2-a5eecbe03da9" in message
    local = with_(GPU_POOL, securityProfile={"sshAccess": "LocalUser"})
    assert len(run_policy(POLICY, AGENT_POOL, local).violations) == 1


def test_the_inline_profiles_are_each_judged() -> None:
    gpu = {"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "count": 1.0, "securityProfile": {"sshAccess": "LocalUser"}}
    cluster = with_(CLUSTER, agentPoolProfiles=[with_(SYSTEM_PROFILE, securityProfile=NO_SSH), gpu])
    [message] = run_policy(POLICY, MANAGED_CLUSTER, cluster).violations
    assert message.startswith(
        "agentPoolProfiles[1].securityProfile.sshAccess: SSH is on for the nodes of node pool 't4'"
    )


def test_virtual_machines_pools_are_not_judged() -> None:
    vms = with_(GPU_POOL, type="VirtualMachines")
    assert run_policy(POLICY, AGENT_POOL, vms).violations == []
