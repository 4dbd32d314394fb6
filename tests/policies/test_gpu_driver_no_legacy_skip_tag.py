"""gpu-driver-no-legacy-skip-tag (advisory): the SkipGPUDriverInstall tag stopped working on 2025-08-14."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel

from policies.gpu_driver_no_legacy_skip_tag import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    GPU_POOL,
    MANAGED_CLUSTER,
    SYSTEM_PROFILE,
    run_policy,
    with_,
)

TAGGED = with_(GPU_POOL, tags={"environment": "dev", "SkipGPUDriverInstall": "true"})


def test_is_advisory() -> None:
    assert POLICY.enforcement_level == EnforcementLevel.ADVISORY


def test_untagged_pool_passes() -> None:
    assert run_policy(POLICY, AGENT_POOL, GPU_POOL).violations == []


def test_legacy_tag_flagged_pointing_to_gpu_profile() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, TAGGED)
    assert outcome.violations == [
        "tags.SkipGPUDriverInstall: node pool 'gpua100' uses the legacy SkipGPUDriverInstall tag, which AKS stopped "
        "honouring on 2025-08-14 (as it did --skip-gpu-driver-install): the pool gets the AKS GPU driver anyway. "
        'Remove the tag and set gpuProfile.driver: "None" instead.'
    ]


def test_tag_key_case_insensitive_and_in_profiles() -> None:
    profile = {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "tags": {"skipgpudriverinstall": "true"}}
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, agentPoolProfiles=[SYSTEM_PROFILE, profile]))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("agentPoolProfiles[1].tags.skipgpudriverinstall: node pool 'gpu' uses")


def test_non_gpu_pool_not_flagged() -> None:
    assert run_policy(POLICY, AGENT_POOL, with_(TAGGED, vmSize="Standard_D4s_v5")).violations == []
