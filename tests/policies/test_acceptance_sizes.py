"""Issue 2 acceptance sizes on an AgentPool, through every resource policy of the pack at its default level."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

from policies.pack import ALL_POLICIES
from tests.policies._helpers import AGENT_POOL, GPU_POOL, run_policy, with_
from tests.policies.acceptance import ACCEPTED, REJECTED


def mandatory_violations(size: str, config: dict[str, dict[str, Any]] | None = None) -> list[str]:
    found: list[str] = []
    for policy in ALL_POLICIES:
        if not isinstance(policy, ResourceValidationPolicy):
            continue
        outcome = run_policy(policy, AGENT_POOL, with_(GPU_POOL, vmSize=size), config=(config or {}).get(policy.name))
        assert outcome.preview_unknown is None
        if policy.enforcement_level == EnforcementLevel.MANDATORY:
            found += [f"{policy.name}: {v}" for v in outcome.violations]
    return found


@pytest.mark.parametrize("size", REJECTED)
def test_rejected_sizes_get_a_mandatory_violation(size: str) -> None:
    assert mandatory_violations(size) != []


@pytest.mark.parametrize("size", ACCEPTED)
def test_accepted_sizes_get_none(size: str) -> None:
    assert mandatory_violations(size) == []


def test_expected_rules_fire() -> None:
    rules = {size: sorted({v.split(":")[0] for v in mandatory_violations(size)}) for size in REJECTED}
    assert rules == {
        "Standard_NV16as_v4": ["gpu-size-minimum", "gpu-size-no-nvv4", "gpu-size-not-retired"],
        "standard_nv32as_v4": ["gpu-size-no-nvv4", "gpu-size-not-retired"],
        "Standard_NC6": ["gpu-size-minimum", "gpu-size-not-retired"],
        "Standard_NC6s_v2": ["gpu-size-minimum", "gpu-size-not-retired"],
        "Standard_ND6s": ["gpu-size-minimum", "gpu-size-not-retired"],
        "Standard_NV12s_v3": ["gpu-size-minimum", "gpu-size-not-retired"],
        "Standard_NV6ads_A10_v5": ["gpu-size-minimum"],
        "Standard_NC6s_v3": ["gpu-size-not-retired"],
        "Standard_NC99zz_v9": ["gpu-size-known"],
    }


def test_raised_floor_rejects_the_t4() -> None:
    config = {"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}}
    found = mandatory_violations("Standard_NC4as_T4_v3", config)
    assert [v.split(":")[0] for v in found] == ["gpu-size-minimum"]
