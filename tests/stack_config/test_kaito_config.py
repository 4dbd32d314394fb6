"""KaitoConfig: a compliant baseline, one change, one expected rejection naming the key."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from gpu_catalog.kaito_presets import KAITO_FACTS_PATH, KAITO_PRESETS
from rules.kaito import kaito_instance_types
from stack_config.kaito import KaitoConfig, kaito_stack_problems, workspace_problems
from stack_config.loading import no_config_values
from tests.conftest import TODAY

BASE: dict[str, Any] = {"name": "phi-4", "preset": "phi-4", "instanceType": "Standard_NC24ads_A100_v4"}
TOKEN = {"modelAccessSecret": "hf-token", "modelAccessTokenConfig": "kaito:hfToken"}
LLAMA: dict[str, Any] = {**BASE, "name": "llama", "preset": "llama-3.1-8b-instruct"}
FACTS = json.loads(KAITO_FACTS_PATH.read_text(encoding="utf-8"))
DOWNLOADED = FACTS["presets"]["downloadAtRuntime"]
"""KAITO v0.6.0's runtime-download presets as recorded from supported_models.yaml (independent of the table)."""
SHIPPED = sorted(set(FACTS["presets"]["names"]) - set(DOWNLOADED))


def stack(**overrides: Any) -> dict[str, Any]:
    return {"enabled": True, "workspaces": [{**BASE, **overrides}]}


def rejection(data: dict[str, Any]) -> tuple[tuple[str | int, ...], str]:
    """The one problem of ``data``: a key's own shape (the model) or a rule relating keys (workspace_problems)."""
    try:
        cfg = KaitoConfig.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        assert len(errors) == 1, errors
        return tuple(errors[0]["loc"]), errors[0]["msg"]
    found = [
        (("workspaces", i, key), msg) for i, ws in enumerate(cfg.workspaces) for key, msg in workspace_problems(ws)
    ]
    if cfg.enabled is False and cfg.workspaces:
        found += [
            (("workspaces",), msg.removeprefix("kaito.workspaces"))
            for path, msg in kaito_stack_problems(
                cfg,
                cluster_addon=False,
                floor="Standard_NC6s_v3",
                kubernetes_version="1.36",
                config_present=no_config_values,
            )
            if path == "kaito.workspaces"
        ]
    assert len(found) == 1, found
    return found[0][0], "Value error, " + found[0][1]


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
    # The same words as the kaito-workspace-instance-type violation (rules.kaito.preset_fit).
    assert msg == (
        "Value error, 1 x Standard_NC4as_T4_v3 (1 x NVIDIA Tesla T4 16 GiB each) is too small for KAITO preset phi-4: "
        "16 GiB total GPU memory < 40 GiB required — KAITO v0.6.0 rejects the Workspace. Sizes that fit with count "
        "1, cheapest first (indicative prices): Standard_NC24ads_A100_v4, Standard_NC64as_T4_v3, "
        "Standard_NC48ads_A100_v4, Standard_NC96ads_A100_v4, Standard_ND96asr_v4; or raise count (KAITO's example: "
        "1 x Standard_NC24ads_A100_v4)."
    )


def test_raising_count_makes_a_multi_gpu_preset_fit():
    # llama-3.3-70b: 4 GPUs, 80 GiB per GPU, 320 GiB total -> 2 x NC48ads_A100_v4 (2 x 80 GiB each).
    ok = stack(
        name="llama-70b",
        preset="llama-3.3-70b-instruct",
        instanceType="Standard_NC48ads_A100_v4",
        count=2,
        **TOKEN,
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
    assert msg.startswith(
        "Value error, Standard_NG32ads_V620_v1 has an AMD GPU (AMD Radeon PRO V620 32 GiB): KAITO runs NVIDIA GPUs "
        "only (its presets need CUDA). Allowed, cheapest first (indicative prices): Standard_NC4as_T4_v3, "
    )
    assert msg.endswith(", Standard_NCC40ads_H100_v5, Standard_NV72ads_A10_v5.")


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
    assert msg.startswith(
        "Value error, Standard_NV36adms_A10_v5 (NVIDIA A10 24 GiB (GRID/vGPU; partial sizes)) is not in KAITO "
        "v0.6.0's Azure SKU table, so KAITO cannot provision or size nodes for it. Allowed, cheapest first "
        "(indicative prices): Standard_NC4as_T4_v3, "
    )


def test_cpu_size_is_rejected():
    loc, msg = rejection(stack(instanceType="Standard_D8s_v5"))
    assert loc == ("workspaces", 0, "instanceType")
    assert msg.startswith(
        "Value error, Standard_D8s_v5 is not a GPU size: KAITO provisions NVIDIA GPU nodes for the model (its "
        "inference presets need CUDA). Allowed, cheapest first (indicative prices): Standard_NC4as_T4_v3, "
    )


def test_unknown_preset_is_rejected_with_allowed_values():
    loc, msg = rejection(stack(preset="gpt-5"))
    assert loc == ("workspaces", 0, "preset")
    assert msg.startswith(
        "Value error, 'gpt-5' is not a KAITO v0.6.0 inference preset (the version the AKS add-on runs). Allowed: "
        "deepseek-r1-0528, deepseek-r1-distill-llama-8b, "
    )
    assert "phi-4-mini-instruct" in msg and "falcon-7b" in msg


def test_runtime_download_preset_without_a_model_access_secret_is_rejected():
    loc, msg = rejection(stack(**LLAMA))
    assert loc == ("workspaces", 0, "modelAccessSecret")
    assert msg == (
        "Value error, modelAccessSecret is required for KAITO preset llama-3.1-8b-instruct: KAITO v0.6.0 downloads "
        "its weights from Hugging Face at run time (downloadAtRuntime in supported_models.yaml) and refuses the "
        'Workspace without one ("This preset requires a modelAccessSecret with HF_TOKEN key under presetOptions"). '
        "Name a Secret in the Workspace's namespace with an HF_TOKEN key holding a Hugging Face token of an account "
        "that accepted the model's licence. The platform creates that Secret: set modelAccessSecret (e.g. "
        "llama-hf-token) and modelAccessTokenConfig (the secret config key holding the token, e.g. kaito:hfToken)"
    )


def test_preset_with_weights_in_its_image_refuses_a_model_access_secret():
    loc, msg = rejection(stack(**TOKEN))
    assert loc == ("workspaces", 0, "modelAccessSecret")
    assert msg == (
        "Value error, modelAccessSecret 'hf-token' is not allowed for KAITO preset phi-4: its weights ship in the "
        'preset image (no download at run time), and KAITO v0.6.0 refuses the Workspace ("This preset does not '
        'require a modelAccessSecret with HF_TOKEN key under presetOptions"). Remove it. Presets that take one: '
        "deepseek-r1-0528, deepseek-v3-0324, llama-3.1-8b-instruct, llama-3.3-70b-instruct. Remove "
        "modelAccessTokenConfig with it, if set."
    )


@pytest.mark.parametrize("preset", DOWNLOADED)
def test_every_runtime_download_preset_needs_the_secret_and_accepts_it(preset: str):
    # The size is not what is tested here: take the preset's own example instance type and count.
    p = KAITO_PRESETS[preset]
    sized = {"preset": preset, "instanceType": p.example_instance_type, "count": p.example_count}
    loc, msg = rejection(stack(**sized))
    assert loc == ("workspaces", 0, "modelAccessSecret")
    assert msg.startswith(f"Value error, modelAccessSecret is required for KAITO preset {preset}:")
    ok = stack(**sized, **TOKEN)
    assert KaitoConfig.model_validate(ok).workspaces[0].modelAccessSecret == "hf-token"


@pytest.mark.parametrize("preset", SHIPPED)
def test_every_other_preset_refuses_the_secret(preset: str):
    p = KAITO_PRESETS[preset]
    loc, msg = rejection(stack(preset=preset, instanceType=p.example_instance_type, count=p.example_count, **TOKEN))
    assert loc == ("workspaces", 0, "modelAccessSecret")
    assert msg.startswith(f"Value error, modelAccessSecret 'hf-token' is not allowed for KAITO preset {preset}:")


def test_secret_without_its_token_config_key_is_rejected():
    loc, msg = rejection(stack(**LLAMA, modelAccessSecret="hf-token"))
    assert loc == ("workspaces", 0, "modelAccessTokenConfig")
    assert msg == (
        "Value error, modelAccessTokenConfig is required with modelAccessSecret 'hf-token': the platform creates "
        "that Secret (type Opaque, key HF_TOKEN) from a Pulumi secret config value. Name its key, e.g. "
        "modelAccessTokenConfig: kaito:hfToken, and set it with "
        "`pulumi config set --secret kaito:hfToken <Hugging Face token>`"
    )


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            "azure-gpu-platform:hfToken",
            "Value error, modelAccessTokenConfig 'azure-gpu-platform:hfToken' is in the azure-gpu-platform namespace, "
            "where every key is part of the typed stack config (an extra key is refused): use another namespace, "
            "e.g. kaito:hfToken",
        ),
        (
            "hfToken",
            "Value error, modelAccessTokenConfig 'hfToken' must be a full Pulumi config key '<namespace>:<key>', e.g. "
            "kaito:hfToken",
        ),
    ],
)
def test_token_config_key_must_be_a_full_key_outside_the_stack_config_namespace(key: str, expected: str):
    loc, msg = rejection(stack(**LLAMA, modelAccessSecret="hf-token", modelAccessTokenConfig=key))
    assert loc == ("workspaces", 0, "modelAccessTokenConfig")
    assert msg == expected


def test_token_config_alone_on_a_preset_with_weights_in_its_image_is_rejected():
    loc, msg = rejection(stack(modelAccessTokenConfig="kaito:hfToken"))
    assert loc == ("workspaces", 0, "modelAccessTokenConfig")
    assert msg.startswith("Value error, modelAccessTokenConfig is only for presets KAITO downloads at run time")


def test_workspaces_without_the_addon_are_rejected():
    loc, msg = rejection({"enabled": False, "workspaces": [BASE]})
    assert loc == ("workspaces",)
    assert msg == (
        "Value error, KAITO workspaces need the AI toolchain operator add-on on the cluster, which is off: without "
        "it the cluster has no Workspace CRD and no controller to serve the models. kaito.enabled is false: set "
        "kaito.enabled: true, or remove the workspaces."
    )


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
    sizes = kaito_instance_types(today=TODAY)
    assert "Standard_NC24ads_A100_v4" in sizes and "Standard_ND96isr_H100_v5" in sizes
    assert "Standard_NC6s_v3" not in sizes  # retired
    assert not any("V620" in s for s in sizes)  # AMD


def test_stack_level_addon_and_raised_floor():
    cfg = KaitoConfig.model_validate({"workspaces": [{**BASE, "preset": "phi-3-mini-4k-instruct"}]})
    assert (
        kaito_stack_problems(
            cfg,
            cluster_addon=True,
            floor="Standard_NC6s_v3",
            kubernetes_version="1.36",
            config_present=no_config_values,
        )
        == []
    )
    [(path, msg)] = kaito_stack_problems(
        cfg, cluster_addon=False, floor="Standard_NC6s_v3", kubernetes_version="1.36", config_present=no_config_values
    )
    assert (path, msg) == (
        "kaito.workspaces",  # the key written (kaito.enabled is not)
        "KAITO workspaces need the AI toolchain operator add-on on the cluster, which is off: without it the cluster "
        "has no Workspace CRD and no controller to serve the models. Set kaito.enabled: true (or cluster.kaitoAddon: "
        "true), or remove kaito.workspaces.",
    )
    t4 = KaitoConfig.model_validate(
        {
            "enabled": True,
            "workspaces": [{**BASE, "preset": "phi-3-mini-4k-instruct", "instanceType": "Standard_NC4as_T4_v3"}],
        }
    )
    [(path, msg)] = kaito_stack_problems(
        t4,
        cluster_addon=False,
        floor="Standard_NC24ads_A100_v4",
        kubernetes_version="1.36",
        config_present=no_config_values,
    )
    assert path == "kaito.workspaces[0].instanceType"
    assert "below the GPU floor Standard_NC24ads_A100_v4" in msg


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36", "1.36.2"])
def test_kubernetes_versions_running_the_addon_0_6_0_are_accepted(version: str):
    cfg = KaitoConfig.model_validate(stack())
    assert (
        kaito_stack_problems(
            cfg,
            cluster_addon=False,
            floor="Standard_NC6s_v3",
            kubernetes_version=version,
            config_present=no_config_values,
        )
        == []
    )


@pytest.mark.parametrize(
    ("version", "found"),
    [
        ("1.33", "on Kubernetes 1.33 AKS runs the AI toolchain operator (KAITO) add-on 0.4.5, not 0.6.0"),
        ("1.37", "the AKS add-on table records no AI toolchain operator (KAITO) add-on version for Kubernetes 1.37"),
        ("1.32", "the AKS add-on table records no AI toolchain operator (KAITO) add-on version for Kubernetes 1.32"),
    ],
)
def test_workspaces_on_a_kubernetes_version_with_another_or_no_addon_version_are_rejected(version: str, found: str):
    cfg = KaitoConfig.model_validate(stack())
    problems = kaito_stack_problems(
        cfg, cluster_addon=False, floor="Standard_NC6s_v3", kubernetes_version=version, config_present=no_config_values
    )
    assert problems == [
        (
            "cluster.kubernetesVersion",
            f"{found}: KAITO workspaces are checked against KAITO v0.6.0's presets, which the add-on 0.6.0 runs on "
            "Kubernetes 1.34, 1.35 or 1.36 (gpu_catalog/facts/kaito_addon.json). Use Kubernetes 1.34, 1.35 or 1.36, "
            "or remove kaito.workspaces.",
        )
    ]
    # The add-on alone, without workspaces, serves no preset: nothing to refuse.
    empty = KaitoConfig.model_validate({"enabled": True})
    assert (
        kaito_stack_problems(
            empty,
            cluster_addon=False,
            floor="Standard_NC6s_v3",
            kubernetes_version=version,
            config_present=no_config_values,
        )
        == []
    )


def test_token_config_value_must_be_set_in_the_stack():
    cfg = KaitoConfig.model_validate({"enabled": True, "workspaces": [BASE, {**LLAMA, **TOKEN}]})
    seen: list[str] = []

    def absent(key: str) -> bool:
        seen.append(key)
        return False

    problems = kaito_stack_problems(
        cfg, cluster_addon=True, floor="Standard_NC6s_v3", kubernetes_version="1.36", config_present=absent
    )
    assert seen == ["kaito:hfToken"]
    assert problems == [
        (
            "kaito.workspaces[1].modelAccessTokenConfig",
            "the secret config value kaito:hfToken is not set in this stack: KAITO preset llama-3.1-8b-instruct "
            "downloads its weights from Hugging Face at run time and the platform creates Secret default/hf-token "
            "(key HF_TOKEN) from it. Set it with `pulumi config set --secret kaito:hfToken <Hugging Face token>` (it "
            "is stored encrypted in the stack file).",
        )
    ]
    present = kaito_stack_problems(
        cfg,
        cluster_addon=True,
        floor="Standard_NC6s_v3",
        kubernetes_version="1.36",
        config_present=lambda key: key == "kaito:hfToken",
    )
    assert present == []
