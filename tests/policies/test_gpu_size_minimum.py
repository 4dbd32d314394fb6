"""gpu-size-minimum: GPU sizes below the floor (config minimumSize, default Standard_NC6s_v3) are rejected."""

from __future__ import annotations

import pytest

from gpu_catalog import default_catalog
from policies.gpu_size_minimum import POLICY
from rules.sizes import DEFAULT_FLOOR
from tests.policies._helpers import (
    AGENT_POOL,
    DATABRICKS_CLUSTER,
    DATABRICKS_GPU,
    GPU_POOL,
    KAITO_WORKSPACE,
    KAITO_WS,
    UNKNOWN,
    run_policy,
    with_,
)

A100_FLOOR = {"minimumSize": "Standard_NC24ads_A100_v4"}


@pytest.mark.parametrize(
    "size", ["Standard_NC4as_T4_v3", "Standard_NC24ads_A100_v4", "Standard_ND96isr_H100_v5", "Standard_D4s_v5"]
)
def test_at_or_above_default_floor_passes(size: str) -> None:
    assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=size)).violations == []


def test_fractional_a10_below_floor_exact_message() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NV6ads_A10_v5"))
    assert outcome.violations == [
        "vmSize: Standard_NV6ads_A10_v5 (NVIDIA A10 24 GiB (GRID/vGPU; partial sizes), 1/6 GPU) is below the GPU "
        "floor "
        "Standard_NC6s_v3 (NVIDIA Tesla V100 16 GiB: 16 GiB, compute capability 7.0, whole GPU): it has only 1/6 of "
        "a GPU; 4 GiB GPU memory per GPU < 16 GiB. Use a size at or above the floor, e.g. Standard_NC4as_T4_v3, "
        "Standard_NC8as_T4_v3, Standard_NC16as_T4_v3."
    ]


@pytest.mark.parametrize("size", ["Standard_NC6", "Standard_NC6s_v2", "Standard_ND6s", "Standard_NV12s_v3"])
def test_old_architectures_below_floor(size: str) -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=size))
    assert len(outcome.violations) == 1
    assert "compute capability" in outcome.violations[0]
    assert outcome.violations[0].startswith(f"vmSize: {size} (")


def test_raised_floor_rejects_t4() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NC4as_T4_v3"), config=A100_FLOOR)
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith(
        "vmSize: Standard_NC4as_T4_v3 (NVIDIA Tesla T4 16 GiB, 1 GPU) is below the GPU floor "
        "Standard_NC24ads_A100_v4 (NVIDIA A100 PCIe 80 GiB: 80 GiB, compute capability 8.0, whole GPU): "
        "16 GiB GPU memory per GPU < 80 GiB; CUDA compute capability 7.5 < 8.0."
    )


def test_raised_floor_keeps_a100_and_h100() -> None:
    for size in ("Standard_NC24ads_A100_v4", "STANDARD_NC24ADS_A100_V4", "Standard_NC40ads_H100_v5"):
        assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=size), config=A100_FLOOR).violations == []


def test_config_value_is_case_insensitive() -> None:
    config = {"minimumSize": "standard_nc24ads_a100_v4"}
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NC4as_T4_v3"), config=config)
    assert len(outcome.violations) == 1


def test_unknown_floor_fails_loudly() -> None:
    with pytest.raises(ValueError, match=r"gpu-size-minimum: minimumSize 'Standard_NC6s_v9' is not a catalog size"):
        run_policy(POLICY, AGENT_POOL, GPU_POOL, config={"minimumSize": "Standard_NC6s_v9"})


def test_schema_offers_every_catalog_size_with_the_default() -> None:
    assert POLICY.config_schema is not None
    prop = POLICY.config_schema.properties["minimumSize"]
    assert prop["default"] == DEFAULT_FLOOR
    assert sorted(prop["enum"]) == sorted(default_catalog())
    assert len(prop["enum"]) == len(default_catalog())


def test_databricks_and_kaito_sizes_checked() -> None:
    dbx = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, driverNodeTypeId="Standard_NV12ads_A10_v5"))
    assert [v.split(":")[0] for v in dbx.violations] == ["driverNodeTypeId"]
    ws = with_(KAITO_WS, resource={"instanceType": "Standard_NV6", "count": 1.0})
    assert [v.split(":")[0] for v in run_policy(POLICY, KAITO_WORKSPACE, ws).violations] == ["resource.instanceType"]


def test_unknown_size_in_preview_is_named() -> None:
    outcome = run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("vmSize can't be known during preview")
