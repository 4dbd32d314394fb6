"""gpu-size-not-retired: retired sizes are rejected, naming Microsoft's migration target."""

from __future__ import annotations

import pytest

from policies.gpu_size_not_retired import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    DATABRICKS_CLUSTER,
    DATABRICKS_GPU,
    GPU_POOL,
    MANAGED_CLUSTER,
    SYSTEM_PROFILE,
    run_policy,
    with_,
)


def test_current_size_passes() -> None:
    assert run_policy(POLICY, AGENT_POOL, GPU_POOL).violations == []


def test_floor_reference_nc6s_v3_is_retired_exact_message() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NC6s_v3"))
    assert outcome.violations == [
        "vmSize: Standard_NC6s_v3 (NVIDIA Tesla V100 16 GiB) was retired by Microsoft on 2025-09-30: new VMs of this "
        "size cannot be deployed and running ones are deallocated. Microsoft's migration target: NCads_H100_v5 "
        "(primary); NCasT4_v3 (offline inference); NVadsA10_v5 / NVads_V710_v5 (graphics/small AI)."
    ]


@pytest.mark.parametrize(
    ("size", "target"),
    [
        ("Standard_NC6", "Standard_NC4as_T4_v3"),
        ("standard_nc6", "Standard_NC4as_T4_v3"),
        ("Standard_NC6s_v2", "Migration"),
        ("Standard_ND6s", "Migration"),
        ("Standard_NV12s_v3", "Migration"),
    ],
)
def test_retired_sizes_name_a_target(size: str, target: str) -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=size))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("vmSize: ")
    assert "was retired by Microsoft on" in outcome.violations[0]
    assert target.lower() in outcome.violations[0].lower()


def test_inline_profile_and_databricks_node_type_checked() -> None:
    profiles = [SYSTEM_PROFILE, {"name": "k80", "vmSize": "Standard_NC12", "count": 1.0}]
    cluster = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, agentPoolProfiles=profiles))
    assert [v.split(": ")[0] for v in cluster.violations] == ["agentPoolProfiles[1].vmSize"]
    dbx = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, nodeTypeId="Standard_NC6s_v3"))
    assert [v.split(": ")[0] for v in dbx.violations] == ["nodeTypeId"]


def test_non_gpu_size_passes() -> None:
    assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_D4s_v5")).violations == []
