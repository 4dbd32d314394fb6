"""kaito-workspace-model-access: modelAccessSecret exactly for the presets KAITO v0.6.0 downloads at run time.

Raw ``kubernetes:kaito.sh/v1beta1:Workspace`` properties as the engine sends them (camelCase, top-level
``inference.preset.presetOptions.modelAccessSecret``). The expected split of the presets comes from
``gpu_catalog/facts/kaito.json`` (recorded from supported_models.yaml), not from the table the policy uses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpu_catalog.kaito_presets import KAITO_FACTS_PATH, KAITO_PRESETS, runtime_download_presets
from policies.kaito_workspace_model_access import POLICY
from tests.policies._helpers import AGENT_POOL, GPU_POOL, KAITO_WORKSPACE, KAITO_WS, UNKNOWN, run_policy, with_

FACTS = json.loads(KAITO_FACTS_PATH.read_text(encoding="utf-8"))
DOWNLOADED: list[str] = FACTS["presets"]["downloadAtRuntime"]
SHIPPED = sorted(set(FACTS["presets"]["names"]) - set(DOWNLOADED))


def ws(preset: Any = "phi-4", secret: Any = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": preset}
    if secret is not None:
        spec["presetOptions"] = {"modelAccessSecret": secret}
    return with_(KAITO_WS, inference={"preset": spec})


def test_compliant_workspace_passes() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, KAITO_WS)
    assert outcome.violations == [] and outcome.not_applicable == [] and outcome.preview_unknown is None


def test_runtime_download_preset_without_the_secret_is_refused() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws("llama-3.1-8b-instruct"))
    assert outcome.violations == [
        "inference.preset.presetOptions.modelAccessSecret: modelAccessSecret is required for KAITO preset "
        "llama-3.1-8b-instruct: KAITO v0.6.0 downloads its weights from Hugging Face at run time (downloadAtRuntime "
        'in supported_models.yaml) and refuses the Workspace without one ("This preset requires a modelAccessSecret '
        "with HF_TOKEN key under presetOptions\"). Name a Secret in the Workspace's namespace with an HF_TOKEN key "
        "holding a Hugging Face token of an account that accepted the model's licence."
    ]


def test_runtime_download_preset_with_the_secret_passes() -> None:
    assert run_policy(POLICY, KAITO_WORKSPACE, ws("llama-3.1-8b-instruct", "hf-token")).violations == []


def test_preset_with_weights_in_its_image_refuses_a_secret() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws("phi-4", "hf-token"))
    assert outcome.violations == [
        "inference.preset.presetOptions.modelAccessSecret: modelAccessSecret 'hf-token' is not allowed for KAITO "
        "preset phi-4: its weights ship in the preset image (no download at run time), and KAITO v0.6.0 refuses the "
        'Workspace ("This preset does not require a modelAccessSecret with HF_TOKEN key under presetOptions"). '
        "Remove it. Presets that take one: deepseek-r1-0528, deepseek-v3-0324, llama-3.1-8b-instruct, "
        "llama-3.3-70b-instruct."
    ]


def test_an_empty_secret_counts_as_none_like_kaito() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws("deepseek-v3-0324", ""))
    assert len(outcome.violations) == 1
    assert "modelAccessSecret is required for KAITO preset deepseek-v3-0324" in outcome.violations[0]
    assert run_policy(POLICY, KAITO_WORKSPACE, ws("phi-4", "")).violations == []


def test_preset_names_are_case_insensitive() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws("Llama-3.3-70B-Instruct"))
    assert len(outcome.violations) == 1
    assert "required for KAITO preset llama-3.3-70b-instruct" in outcome.violations[0]


@pytest.mark.parametrize("preset", DOWNLOADED)
def test_every_runtime_download_preset_needs_the_secret(preset: str) -> None:
    assert len(run_policy(POLICY, KAITO_WORKSPACE, ws(preset)).violations) == 1
    assert run_policy(POLICY, KAITO_WORKSPACE, ws(preset, "hf-token")).violations == []


@pytest.mark.parametrize("preset", SHIPPED)
def test_every_other_preset_refuses_the_secret(preset: str) -> None:
    assert run_policy(POLICY, KAITO_WORKSPACE, ws(preset)).violations == []
    assert len(run_policy(POLICY, KAITO_WORKSPACE, ws(preset, "hf-token")).violations) == 1


def test_the_table_and_the_recorded_facts_agree() -> None:
    assert runtime_download_presets() == sorted(DOWNLOADED)
    assert sorted(KAITO_PRESETS) == sorted(FACTS["presets"]["names"])


def test_preset_newer_than_the_table_is_not_applicable_not_passed() -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, ws("openai/gpt-oss-120b", "hf-token"))
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "KAITO preset 'openai/gpt-oss-120b' is not in the KAITO v0.6.0 preset table (gpu_catalog/kaito_presets.py), "
        "so whether it needs a model-access secret was not checked"
    ]


def test_template_workspace_without_a_preset_is_not_applicable() -> None:
    props = with_(KAITO_WS, inference={"template": {"spec": {"containers": []}}})
    outcome = run_policy(POLICY, KAITO_WORKSPACE, props)
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "no KAITO preset is set (e.g. a template workspace): nothing to download, so no rule"
    ]


@pytest.mark.parametrize(
    ("props", "field"),
    [
        (ws(UNKNOWN), "inference.preset.name"),
        (ws("llama-3.1-8b-instruct", UNKNOWN), "inference.preset.presetOptions.modelAccessSecret"),
    ],
)
def test_unknown_values_are_named_not_passed(props: dict[str, Any], field: str) -> None:
    outcome = run_policy(POLICY, KAITO_WORKSPACE, props)
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith(f"{field} can't be known during preview")


def test_v1alpha1_and_other_resources_are_ignored() -> None:
    # v1alpha1 (KAITO v0.6.0) has no presetOptions.modelAccessSecret and no such rule.
    assert run_policy(POLICY, "kubernetes:kaito.sh/v1alpha1:Workspace", ws("llama-3.1-8b-instruct")).violations == []
    assert run_policy(POLICY, AGENT_POOL, GPU_POOL).violations == []
