"""KaitoConfig: a compliant baseline, one change, one expected rejection naming the key."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from components.kaito_config import KaitoConfig, kaito_instance_types

BASE: dict[str, Any] = {"name": "phi-4", "preset": "phi-4", "instanceType": "Standard_NC24ads_A100_v4"}


def stack(**overrides: Any) -> dict[str, Any]:
    return {"enabled": True, "workspaces": [{**BASE, **overrides}]}


def rejection(data: dict[str, Any]) -> tuple[tuple[str | int, ...], str]:
    with pytest.raises(ValidationError) as info:
        KaitoConfig.model_validate(data)
    errors = info.value.errors()
    assert len(errors) == 1, errors
    return tuple(errors[0]["loc"]), errors[0]["msg"]


def test_baseline_is_valid_and_defaults_are_sensible():
    cfg = KaitoConfig.model_validate(stack())
    [ws] = cfg.workspaces
    assert (ws.count, ws.namespace, ws.match_labels) == (1, "default", {"apps": "phi-4"})
    assert ws.instanceType == "Standard_NC24ads_A100_v4"


def test_kaito_defaults_to_off_with_no_workspaces():
    cfg = KaitoConfig()
    assert (cfg.enabled, cfg.workspaces) == (None, [])


def test_preset_needing_more_gpu_memory_than_the_instance_type_is_rejected():
    # phi-4 needs 40 GiB of GPU memory; one T4 has 16 GiB.
    loc, msg = rejection(stack(instanceType="Standard_NC4as_T4_v3"))
    assert loc == ("workspaces", 0, "instanceType")
    assert "too small for KAITO preset phi-4" in msg
    assert "16 GiB total GPU memory < 40 GiB required" in msg
    assert "Sizes that fit with count 1, cheapest first (indicative prices): Standard_NC24ads_A100_v4," in msg


def test_raising_count_makes_a_multi_gpu_preset_fit():
    # llama-3.3-70b: 4 GPUs, 80 GiB per GPU, 320 GiB total -> 2 x NC48ads_A100_v4 (2 x 80 GiB each).
    ok = stack(
        name="llama-70b",
        preset="llama-3.3-70b-instruct",
        instanceType="Standard_NC48ads_A100_v4",
        count=2,
        modelAccessSecret="hf-token",
    )
    KaitoConfig.model_validate(ok)
    ok["workspaces"][0]["count"] = 1
    loc, msg = rejection(ok)
    assert loc == ("workspaces", 0, "instanceType")
    assert "2 GPU(s) < 4 required" in msg
    assert "160 GiB total GPU memory < 320 GiB required" in msg


def test_amd_instance_type_is_rejected_for_kaito():
    loc, msg = rejection(stack(preset="phi-3-mini-4k-instruct", instanceType="Standard_NG32ads_V620_v1"))
    assert loc == ("workspaces", 0, "instanceType")
    assert "has an AMD GPU (AMD Radeon PRO V620 32 GiB): KAITO runs NVIDIA GPUs only" in msg
    assert "Allowed: " in msg and "Standard_NC24ads_A100_v4" in msg


def test_nvv4_is_rejected_with_the_policy_message():
    loc, msg = rejection(stack(instanceType="Standard_NV32as_v4"))
    assert loc == ("workspaces", 0, "instanceType")
    assert "is an NVv4 size" in msg


def test_below_the_floor_is_rejected():
    loc, msg = rejection(stack(instanceType="Standard_NV12ads_A10_v5"))
    assert loc == ("workspaces", 0, "instanceType")
    assert "below the GPU floor Standard_NC6s_v3" in msg


def test_nvidia_size_outside_kaitos_sku_table_is_rejected():
    loc, msg = rejection(stack(instanceType="Standard_NV36adms_A10_v5"))
    assert loc == ("workspaces", 0, "instanceType")
    assert "is not in KAITO v0.6.0's Azure SKU table" in msg


def test_cpu_size_is_rejected():
    loc, msg = rejection(stack(instanceType="Standard_D8s_v5"))
    assert loc == ("workspaces", 0, "instanceType")
    assert "is not a GPU size" in msg


def test_unknown_preset_is_rejected_with_allowed_values():
    loc, msg = rejection(stack(preset="gpt-5"))
    assert loc == ("workspaces", 0, "preset")
    assert "preset 'gpt-5' is not a KAITO v0.6.0 inference preset" in msg
    assert "phi-4-mini-instruct" in msg and "falcon-7b" in msg


def test_gated_llama_preset_requires_a_model_access_secret():
    loc, msg = rejection(stack(name="llama", preset="llama-3.1-8b-instruct"))
    assert loc == ("workspaces", 0, "modelAccessSecret")
    assert "modelAccessSecret is required for preset llama-3.1-8b-instruct" in msg
    assert "HF_TOKEN" in msg


def test_workspaces_without_the_addon_are_rejected():
    loc, msg = rejection({"enabled": False, "workspaces": [BASE]})
    assert loc == ("workspaces",)
    assert "set kaito.enabled: true" in msg


def test_workspaces_with_the_flag_unset_are_left_to_the_cluster_flag():
    cfg = KaitoConfig.model_validate({"workspaces": [BASE]})
    assert cfg.enabled is None and len(cfg.workspaces) == 1


@pytest.mark.parametrize(("key", "value"), [("name", "Phi_4"), ("namespace", "Models"), ("count", 0)])
def test_names_and_count_are_validated(key: str, value: Any):
    loc, _ = rejection(stack(**{key: value}))
    assert loc == ("workspaces", 0, key)


def test_duplicate_workspace_is_rejected():
    loc, msg = rejection({"enabled": True, "workspaces": [BASE, {**BASE, "namespace": "models"}]})
    assert loc == ("workspaces",)
    assert "workspace name 'phi-4' appears twice" in msg


def test_unknown_key_is_rejected():
    loc, _ = rejection(stack(spec={"resource": {}}))
    assert loc == ("workspaces", 0, "spec")


def test_allowed_instance_types_are_current_nvidia_kaito_sizes():
    sizes = kaito_instance_types()
    assert "Standard_NC24ads_A100_v4" in sizes and "Standard_ND96isr_H100_v5" in sizes
    assert "Standard_NC6s_v3" not in sizes  # retired
    assert not any("V620" in s for s in sizes)  # AMD


def test_stack_level_addon_and_raised_floor():
    from components.kaito_config import kaito_stack_problems

    cfg = KaitoConfig.model_validate({"workspaces": [{**BASE, "preset": "phi-3-mini-4k-instruct"}]})
    assert kaito_stack_problems(cfg, cluster_addon=True, floor="Standard_NC6s_v3") == []
    [(path, msg)] = kaito_stack_problems(cfg, cluster_addon=False, floor="Standard_NC6s_v3")
    assert path == "kaito.enabled" and "set kaito.enabled: true" in msg
    t4 = KaitoConfig.model_validate(
        {
            "enabled": True,
            "workspaces": [{**BASE, "preset": "phi-3-mini-4k-instruct", "instanceType": "Standard_NC4as_T4_v3"}],
        }
    )
    [(path, msg)] = kaito_stack_problems(t4, cluster_addon=False, floor="Standard_NC24ads_A100_v4")
    assert path == "kaito.workspaces[0].instanceType"
    assert "below the GPU floor Standard_NC24ads_A100_v4" in msg
