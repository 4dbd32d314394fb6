"""kaito-workspace-instance-type: known, NVIDIA, KAITO-supported, enough GPUs and GPU memory for the preset.

Also covers the preset table in gpu_catalog/kaito_presets.py (the one copy the components reuse). The rules
themselves are tested over facts in tests/rules/test_kaito_rules.py.
"""

from __future__ import annotations

import pytest

from gpu_catalog import default_catalog
from gpu_catalog.kaito_presets import KAITO_PRESETS, kaito_preset
from policies.kaito_workspace_instance_type import POLICY
from tests.policies._helpers import AGENT_POOL, GPU_POOL, KAITO_WORKSPACE, KAITO_WS, UNKNOWN, run_policy, with_


def ws(instance_type: str | None = "Standard_NC24ads_A100_v4", count: float | None = 1.0, preset: str = "phi-4"):
    resource: dict[str, object] = {"labelSelector": {"matchLabels": {"apps": "m"}}}
    if instance_type is not None:
        resource["instanceType"] = instance_type
    if count is not None:
        resource["count"] = count
    return with_(KAITO_WS, resource=resource, inference={"preset": {"name": preset}})


def test_compliant_workspace_passes() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, KAITO_WS)
    assert outcome.violations == []
    assert outcome.not_applicable == []


def test_v1alpha1_type_token_also_checked() -> None:
    outcome = run_policy(POLICY, "kubernetes:kaito.sh/v1alpha1:Workspace", ws("Standard_NG32ads_V620_v1"))
    assert len(outcome.violations) == 1


def test_amd_instance_type_rejected() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws("Standard_NG32ads_V620_v1"))
    [violation] = outcome.violations
    assert violation.startswith(
        "resource.instanceType: Standard_NG32ads_V620_v1 has an AMD GPU (AMD Radeon PRO V620 32 GiB): KAITO runs "
        "NVIDIA GPUs only (its presets need CUDA). Allowed, cheapest first (indicative prices): Standard_NC4as_T4_v3, "
        "Standard_NC8as_T4_v3, Standard_NC16as_T4_v3, "
    )
    assert violation.endswith(", Standard_NCC40ads_H100_v5, Standard_NV72ads_A10_v5.")


def test_size_outside_kaito_sku_table_rejected() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws("Standard_ND40rs_v2"))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith(
        "resource.instanceType: Standard_ND40rs_v2 (NVIDIA Tesla V100 SXM2 32 GiB (NVLink)) is not in KAITO v0.6.0's "
        "Azure SKU table"
    )


def test_unknown_and_cpu_instance_types_rejected() -> None:
    unknown = run_policy(POLICY, KAITO_WORKSPACE, ws("Standard_NC24ads_A100_v9"))
    assert unknown.violations[0].startswith(
        "resource.instanceType: Standard_NC24ads_A100_v9 is not a GPU size in the catalog, so KAITO's GPU needs "
        "cannot be checked (closest known sizes: Standard_NC24ads_A100_v4"
    )
    cpu = run_policy(POLICY, KAITO_WORKSPACE, ws("Standard_D4s_v5"))
    assert cpu.violations[0].startswith(
        "resource.instanceType: Standard_D4s_v5 is not a GPU size: KAITO provisions NVIDIA GPU nodes for the model "
        "(its inference presets need CUDA). Allowed, cheapest first (indicative prices): Standard_NC4as_T4_v3, "
    )


def test_too_little_gpu_memory_rejected() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws("Standard_NC4as_T4_v3"))
    assert outcome.violations == [
        "resource.instanceType: 1 x Standard_NC4as_T4_v3 (1 x NVIDIA Tesla T4 16 GiB each) is too small for KAITO "
        "preset phi-4: 16 GiB total GPU memory < 40 GiB required — KAITO v0.6.0 rejects the Workspace. Sizes that "
        "fit with count 1, cheapest first (indicative prices): Standard_NC24ads_A100_v4, Standard_NC64as_T4_v3, "
        "Standard_NC48ads_A100_v4, Standard_NC96ads_A100_v4, Standard_ND96asr_v4; or raise count (KAITO's example: "
        "1 x Standard_NC24ads_A100_v4)."
    ]


def test_count_multiplies_gpus_and_memory() -> None:
    llama = "llama-3.3-70b-instruct"
    one = run_policy(POLICY, KAITO_WORKSPACE, ws("Standard_NC48ads_A100_v4", 1.0, llama))
    assert len(one.violations) == 1
    assert "2 GPU(s) < 4 required; 160 GiB total GPU memory < 320 GiB required" in one.violations[0]
    assert run_policy(POLICY, KAITO_WORKSPACE, ws("Standard_NC48ads_A100_v4", 2.0, llama)).violations == []


def test_per_gpu_memory_requirement() -> None:
    # 4 x 2 A10 = 8 GPUs and 192 GiB: enough GPUs, but 24 GiB per GPU < 80 GiB and 192 < 320 GiB.
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws("Standard_NV72ads_A10_v5", 4.0, "llama-3.3-70b-instruct"))
    assert len(outcome.violations) == 1
    assert "24 GiB per GPU < 80 GiB required; 192 GiB total GPU memory < 320 GiB required" in outcome.violations[0]


def test_preset_newer_than_table_is_not_applicable_not_passed() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws(preset="Qwen/Qwen3.5-9B"))
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "KAITO preset 'Qwen/Qwen3.5-9B' is not in the KAITO v0.6.0 preset table (gpu_catalog/kaito_presets.py), so "
        "its GPU memory needs were not checked"
    ]


def test_no_instance_type_is_not_applicable() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws(instance_type=None))
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "instanceType is not set (KAITO then uses existing nodes matched by its labelSelector or preferredNodes), so "
        "there is no instance type to check"
    ]


def test_unknown_instance_type_named() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws(UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("resource.instanceType can't be known during preview")


def test_other_resources_ignored() -> None:
    assert run_policy(POLICY, AGENT_POOL, with_(GPU_POOL, vmSize="Standard_NG32ads_V620_v1")).violations == []


# The preset table itself.


def test_table_has_every_v0_6_0_preset() -> None:
    assert len(KAITO_PRESETS) == 22
    assert kaito_preset("PHI-4") is kaito_preset("phi-4")
    assert kaito_preset("falcon-7b-instruct") is not None
    assert kaito_preset("gpt-oss-20b") is None  # v0.8.0+, not in the add-on's version


@pytest.mark.parametrize("preset", sorted(KAITO_PRESETS))
def test_every_example_instance_type_is_a_kaito_catalog_size_that_fits(preset: str) -> None:
    p = KAITO_PRESETS[preset]
    size = default_catalog().lookup(p.example_instance_type)
    assert size is not None and size.kaito_supported
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws(p.example_instance_type, float(p.example_count), preset))
    assert outcome.violations == []
