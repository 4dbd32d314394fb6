"""rules/kaito.py: each KAITO guard rail over facts, compliant and not (the stack config, the KAITO component and the
kaito-workspace-* policies call these)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpu_catalog.kaito_presets import KAITO_PRESETS
from rules import Finding, NotApplicable
from rules.kaito import (
    WORKSPACE_PROPERTIES,
    KaitoCluster,
    KaitoWorkspace,
    addon_enabled,
    addon_version,
    instance_type,
    kaito_instance_types,
    kaito_sizes,
    known_preset,
    model_access_secret,
    preset_fit,
    property_path,
)
from tests.conftest import TODAY

PHI4 = KaitoWorkspace(instance_type="Standard_NC24ads_A100_v4", preset="phi-4")
LLAMA = KaitoWorkspace(
    instance_type="Standard_NC24ads_A100_v4", preset="llama-3.1-8b-instruct", model_access_secret="s"
)
CLUSTER = KaitoCluster(addon_enabled=True, workspaces=1, kubernetes_version="1.36")
CHEAPEST = "Allowed, cheapest first (indicative prices): Standard_NC4as_T4_v3, Standard_NC8as_T4_v3, "


def only(result: list[Finding] | NotApplicable) -> Finding:
    assert isinstance(result, list), result
    [finding] = result
    return finding


# ------------------------------------------------------------------------------------------------ instance type


def test_kaito_sizes_are_current_nvidia_aks_sizes_in_kaitos_table_cheapest_first() -> None:
    sizes = kaito_sizes(today=TODAY)
    assert [s.name for s in sizes[:3]] == ["Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3"]
    assert all(s.gpu_vendor == "NVIDIA" and s.kaito_supported and s.aks_supported for s in sizes)
    assert kaito_instance_types(today=TODAY) == sorted(s.name for s in sizes)
    assert "Standard_NC6s_v3" not in kaito_instance_types(today=TODAY)  # retired


def test_instance_type_compliant_and_not_applicable() -> None:
    assert instance_type(PHI4, today=TODAY) == []
    assert instance_type(PHI4, size_rules=True, today=TODAY) == []
    assert instance_type(KaitoWorkspace(preset="phi-4"), today=TODAY) == NotApplicable(
        "instanceType is not set (KAITO then uses existing nodes matched by its labelSelector or preferredNodes), so "
        "there is no instance type to check"
    )


def test_instance_type_not_a_gpu_size() -> None:
    finding = only(instance_type(replace(PHI4, instance_type="Standard_D8s_v5"), today=TODAY))
    assert finding.field == "instanceType"
    assert finding.message.startswith(
        "Standard_D8s_v5 is not a GPU size: KAITO provisions NVIDIA GPU nodes for the model (its inference presets "
        f"need CUDA). {CHEAPEST}"
    )


def test_instance_type_not_in_the_catalog() -> None:
    message = only(instance_type(replace(PHI4, instance_type="Standard_NC24ads_A100_v9"), today=TODAY)).message
    assert message.startswith(
        "Standard_NC24ads_A100_v9 is not a GPU size in the catalog, so KAITO's GPU needs cannot be checked (closest "
        "known sizes: Standard_NC24ads_A100_v4"
    )
    assert CHEAPEST in message


def test_instance_type_amd_is_refused() -> None:
    message = only(instance_type(replace(PHI4, instance_type="Standard_NG32ads_V620_v1"), today=TODAY)).message
    assert message.startswith(
        "Standard_NG32ads_V620_v1 has an AMD GPU (AMD Radeon PRO V620 32 GiB): KAITO runs NVIDIA GPUs only (its "
        f"presets need CUDA). {CHEAPEST}"
    )
    assert message.endswith(", Standard_NCC40ads_H100_v5, Standard_NV72ads_A10_v5.")


def test_instance_type_outside_kaitos_sku_table_is_refused() -> None:
    message = only(instance_type(replace(PHI4, instance_type="Standard_ND40rs_v2"), today=TODAY)).message
    assert message.startswith(
        "Standard_ND40rs_v2 (NVIDIA Tesla V100 SXM2 32 GiB (NVLink)) is not in KAITO v0.6.0's Azure SKU table, so "
        f"KAITO cannot provision or size nodes for it. {CHEAPEST}"
    )


def test_size_rules_add_the_catalogs_rules_and_the_floor() -> None:
    nvv4 = replace(PHI4, instance_type="Standard_NV32as_v4")
    assert "is an NVv4 size" in only(instance_type(nvv4, size_rules=True, today=TODAY)).message
    assert "has an AMD GPU" in only(instance_type(nvv4, today=TODAY)).message  # the policy: NVv4 is gpu-size-no-nvv4's
    t4 = replace(PHI4, instance_type="Standard_NC4as_T4_v3")
    assert instance_type(t4, size_rules=True, today=TODAY) == []
    below = only(instance_type(t4, size_rules=True, floor="Standard_NC24ads_A100_v4", today=TODAY))
    assert (below.field, "below the GPU floor Standard_NC24ads_A100_v4" in below.message) == ("instanceType", True)
    assert instance_type(t4, floor="Standard_NC24ads_A100_v4", today=TODAY) == []  # the floor is gpu-size-minimum's


# ------------------------------------------------------------------------------------------------------ presets


def test_known_preset() -> None:
    assert known_preset(PHI4) == []
    assert known_preset(replace(PHI4, preset="PHI-4")) == []
    assert known_preset(KaitoWorkspace()) == NotApplicable("no KAITO preset is set (e.g. a template workspace)")
    finding = only(known_preset(replace(PHI4, preset="gpt-5")))
    assert finding.field == "preset"
    assert finding.message == (
        "'gpt-5' is not a KAITO v0.6.0 inference preset (the version the AKS add-on runs). Allowed: "
        + ", ".join(sorted(KAITO_PRESETS))
    )


def test_preset_fit_compliant_and_not_applicable() -> None:
    assert preset_fit(PHI4, today=TODAY) == []
    assert preset_fit(replace(PHI4, preset="Qwen/Qwen3.5-9B"), today=TODAY) == NotApplicable(
        "KAITO preset 'Qwen/Qwen3.5-9B' is not in the KAITO v0.6.0 preset table (gpu_catalog/kaito_presets.py), so "
        "its GPU memory needs were not checked"
    )
    assert preset_fit(replace(PHI4, preset=None), today=TODAY) == NotApplicable(
        "no KAITO preset is set (e.g. a template workspace), so its GPU memory needs were not checked"
    )
    assert preset_fit(replace(PHI4, instance_type="Standard_NC24ads_A100_v9"), today=TODAY) == NotApplicable(
        "instanceType is not set or not a catalog size, so its GPU memory needs were not checked"
    )


def test_preset_fit_too_little_total_memory() -> None:
    assert preset_fit(replace(PHI4, instance_type="Standard_NC4as_T4_v3"), today=TODAY) == [
        Finding(
            "instanceType",
            "1 x Standard_NC4as_T4_v3 (1 x NVIDIA Tesla T4 16 GiB each) is too small for KAITO preset phi-4: 16 GiB "
            "total GPU memory < 40 GiB required — KAITO v0.6.0 rejects the Workspace. Sizes that fit with count 1, "
            "cheapest first (indicative prices): Standard_NC24ads_A100_v4, Standard_NC64as_T4_v3, "
            "Standard_NC48ads_A100_v4, Standard_NC96ads_A100_v4, Standard_ND96asr_v4; or raise count (KAITO's "
            "example: 1 x Standard_NC24ads_A100_v4).",
        )
    ]


def test_preset_fit_counts_gpus_and_per_gpu_memory() -> None:
    llama70 = KaitoWorkspace(instance_type="Standard_NC48ads_A100_v4", count=1, preset="llama-3.3-70b-instruct")
    message = only(preset_fit(llama70, today=TODAY)).message
    assert "2 GPU(s) < 4 required; 160 GiB total GPU memory < 320 GiB required" in message
    assert message.endswith(
        "Sizes that fit with count 1, cheapest first (indicative prices): Standard_NC96ads_A100_v4, "
        "Standard_ND96amsr_A100_v4, Standard_ND96isr_H200_v5, Standard_ND96isr_H100_v5; or raise count (KAITO's "
        "example: 2 x Standard_NC48ads_A100_v4)."
    )
    assert preset_fit(replace(llama70, count=2), today=TODAY) == []
    a10 = replace(llama70, instance_type="Standard_NV72ads_A10_v5", count=4)
    assert (
        "24 GiB per GPU < 80 GiB required; 192 GiB total GPU memory < 320 GiB required"
        in only(preset_fit(a10, today=TODAY)).message
    )


@pytest.mark.parametrize("preset", sorted(KAITO_PRESETS))
def test_every_presets_example_fits(preset: str) -> None:
    p = KAITO_PRESETS[preset]
    ws = KaitoWorkspace(instance_type=p.example_instance_type, count=p.example_count, preset=preset)
    assert instance_type(ws, size_rules=True, today=TODAY) == []
    assert preset_fit(ws, today=TODAY) == []


# ------------------------------------------------------------------------------------------------- model access


def test_model_access_secret_compliant() -> None:
    assert model_access_secret(LLAMA) == []
    assert model_access_secret(PHI4) == []
    assert model_access_secret(replace(PHI4, model_access_secret="")) == []  # "" counts as absent, as in KAITO


def test_model_access_secret_required_for_a_runtime_download() -> None:
    finding = only(model_access_secret(replace(LLAMA, model_access_secret=None)))
    assert finding == Finding(
        "modelAccessSecret",
        "modelAccessSecret is required for KAITO preset llama-3.1-8b-instruct: KAITO v0.6.0 downloads its weights "
        "from Hugging Face at run time (downloadAtRuntime in supported_models.yaml) and refuses the Workspace without "
        'one ("This preset requires a modelAccessSecret with HF_TOKEN key under presetOptions"). Name a Secret in the '
        "Workspace's namespace with an HF_TOKEN key holding a Hugging Face token of an account that accepted the "
        "model's licence.",
    )
    deepseek = only(model_access_secret(KaitoWorkspace(preset="deepseek-v3-0324", model_access_secret="")))
    assert deepseek.message.endswith("with an HF_TOKEN key holding a Hugging Face token.")  # not licence-gated


def test_model_access_secret_refused_for_weights_in_the_image() -> None:
    finding = only(model_access_secret(replace(PHI4, model_access_secret="hf-token")))
    assert finding == Finding(
        "modelAccessSecret",
        "modelAccessSecret 'hf-token' is not allowed for KAITO preset phi-4: its weights ship in the preset image (no "
        'download at run time), and KAITO v0.6.0 refuses the Workspace ("This preset does not require a '
        'modelAccessSecret with HF_TOKEN key under presetOptions"). Remove it. Presets that take one: '
        "deepseek-r1-0528, deepseek-v3-0324, llama-3.1-8b-instruct, llama-3.3-70b-instruct.",
    )


def test_model_access_secret_not_applicable() -> None:
    assert model_access_secret(KaitoWorkspace()) == NotApplicable(
        "no KAITO preset is set (e.g. a template workspace): nothing to download, so no rule"
    )
    assert model_access_secret(KaitoWorkspace(preset="openai/gpt-oss-120b")) == NotApplicable(
        "KAITO preset 'openai/gpt-oss-120b' is not in the KAITO v0.6.0 preset table (gpu_catalog/kaito_presets.py), "
        "so whether it needs a model-access secret was not checked"
    )


# ------------------------------------------------------------------------------------------------------ cluster


def test_addon_enabled() -> None:
    assert addon_enabled(CLUSTER) == []
    assert addon_enabled(replace(CLUSTER, addon_enabled=False, workspaces=0)) == NotApplicable("no KAITO workspaces")
    assert only(addon_enabled(replace(CLUSTER, addon_enabled=False))) == Finding(
        "addon",
        "KAITO workspaces need the AI toolchain operator add-on on the cluster, which is off: without it the cluster "
        "has no Workspace CRD and no controller to serve the models.",
    )


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36", "1.36.2"])
def test_addon_version_compliant(version: str) -> None:
    assert addon_version(replace(CLUSTER, kubernetes_version=version)) == []


def test_addon_version_refused_and_not_applicable() -> None:
    assert only(addon_version(replace(CLUSTER, kubernetes_version="1.33"), workspaces="kaito.workspaces")) == Finding(
        "kubernetesVersion",
        "on Kubernetes 1.33 AKS runs the AI toolchain operator (KAITO) add-on 0.4.5, not 0.6.0: KAITO workspaces are "
        "checked against KAITO v0.6.0's presets, which the add-on 0.6.0 runs on Kubernetes 1.34, 1.35 or 1.36 "
        "(gpu_catalog/facts/kaito_addon.json). Use Kubernetes 1.34, 1.35 or 1.36, or remove kaito.workspaces.",
    )
    assert only(addon_version(replace(CLUSTER, kubernetes_version="1.37"))).message.startswith(
        "the AKS add-on table records no AI toolchain operator (KAITO) add-on version for Kubernetes 1.37: "
    )
    assert only(addon_version(replace(CLUSTER, kubernetes_version="1.37"))).message.endswith(
        "or remove the KAITO workspaces."
    )
    assert addon_version(replace(CLUSTER, kubernetes_version="1.33", workspaces=0)) == NotApplicable(
        "no KAITO workspaces: the add-on alone serves no preset"
    )
    assert addon_version(replace(CLUSTER, kubernetes_version=None)) == NotApplicable(
        "the cluster's Kubernetes version is not known"
    )


# ---------------------------------------------------------------------------------------- where fields come from


def test_every_finding_field_has_a_workspace_property() -> None:
    assert property_path("instanceType") == "resource.instanceType"
    assert property_path("modelAccessSecret") == "inference.preset.presetOptions.modelAccessSecret"
    assert set(WORKSPACE_PROPERTIES) == {"instanceType", "count", "preset", "modelAccessSecret"}
