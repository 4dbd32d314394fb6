"""gpu-size-known: an N-family size that is not in the catalog is rejected (fail closed) with suggestions."""

from __future__ import annotations

from policies.gpu_size_known import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    DATABRICKS_CLUSTER,
    DATABRICKS_GPU,
    GPU_POOL,
    KAITO_WORKSPACE,
    KAITO_WS,
    run_policy,
    with_,
)


def test_catalog_size_passes_in_any_case() -> None:
    for size in ("Standard_NC24ads_A100_v4", "STANDARD_NC24ADS_A100_V4", "standard_nc40ads_h100_v5"):
        assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=size)).violations == []


def test_unknown_n_family_size_rejected_exact_message() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NC99zz_v9"))
    assert outcome.violations == [
        "vmSize: Standard_NC99zz_v9 is not a GPU size in the catalog: unknown sizes are rejected because their GPU, "
        "memory and lifecycle cannot be checked (typo, or a size newer than the catalog). Closest known sizes: "
        "Standard_NC6s_v3, Standard_NC6s_v2, Standard_NC24s_v3. If the size is real, add it to "
        "gpu_catalog/catalog.json with its sources."
    ]


def test_non_gpu_sizes_never_flagged() -> None:
    for size in ("Standard_D4s_v5", "Standard_E8s_v5", "Standard_B2s"):
        assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=size)).violations == []


def test_nvv4_left_to_its_own_rule() -> None:
    assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NV16as_v4")).violations == []


def test_typo_in_databricks_and_kaito_rejected() -> None:
    dbx = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, nodeTypeId="Standard_NC4as_T4_v4"))
    assert [v.split(": ")[0] for v in dbx.violations] == ["nodeTypeId"]
    ws = with_(KAITO_WS, resource={"instanceType": "Standard_NC24ads_A100_v5", "count": 1.0})
    assert [v.split(": ")[0] for v in run_policy(POLICY, KAITO_WORKSPACE, ws).violations] == ["resource.instanceType"]
