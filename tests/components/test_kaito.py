"""KaitoWorkspace under Pulumi mocks: a kaito.sh/v1beta1 Workspace with top-level fields, through the k8s provider."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from components.kaito import (
    SECRET_TYPE,
    WORKSPACE_TYPE,
    KaitoAddonNotEnabledError,
    KaitoAddonVersionError,
    KaitoWorkspace,
    ModelAccessError,
    build_kaito_workspaces,
    service_info,
)
from components.kaito_config import KaitoConfig, KaitoWorkspaceConfig
from tests.components.harness import K8S_PROVIDER, run_program

PHI4 = {"name": "phi-4", "preset": "phi-4", "instanceType": "Standard_NC24ads_A100_v4"}
K8S = "1.36"
COMPONENT = "azure-gpu-platform:components:KaitoWorkspace"
TOKEN_KEY = "kaito:hfToken"


def ws(**overrides: Any) -> KaitoWorkspaceConfig:
    return KaitoWorkspaceConfig.model_validate({**PHI4, **overrides})


def test_workspace_is_registered_with_top_level_resource_and_inference_and_no_spec():
    components: list[KaitoWorkspace] = []

    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        components.append(
            KaitoWorkspace("kaito-phi-4", ws(), provider=provider, addon_enabled=True, kubernetes_version=K8S)
        )

    run = run_program(program, config={})
    assert run.error is None, run.error
    record = run.one(WORKSPACE_TYPE)
    assert record.type == "kubernetes:kaito.sh/v1beta1:Workspace"
    assert record.custom
    assert record.inputs == {
        "apiVersion": "kaito.sh/v1beta1",
        "kind": "Workspace",
        "metadata": {
            "name": "phi-4",
            "namespace": "default",
            "labels": {"app.kubernetes.io/managed-by": "pulumi", "azure-gpu-platform/preset": "phi-4"},
        },
        "resource": {
            "instanceType": "Standard_NC24ads_A100_v4",
            "count": 1.0,
            "labelSelector": {"matchLabels": {"apps": "phi-4"}},
        },
        "inference": {"preset": {"name": "phi-4"}},
    }
    assert "spec" not in record.inputs
    provider = run.one(K8S_PROVIDER)
    assert record.provider.startswith(provider.urn)
    component = run.by_name("kaito-phi-4", "azure-gpu-platform:components:KaitoWorkspace")
    assert record.parent == component.urn
    assert components[0].service_host == "phi-4.default.svc.cluster.local"
    assert components[0].endpoint == "http://phi-4.default.svc.cluster.local/v1/chat/completions"


def test_runtime_download_workspace_gets_its_token_secret_first_and_custom_labels():
    cfg = KaitoConfig.model_validate(
        {
            "enabled": True,
            "workspaces": [
                {
                    "name": "llama-8b",
                    "preset": "llama-3.1-8b-instruct",
                    "instanceType": "Standard_NC24ads_A100_v4",
                    "namespace": "models",
                    "labelSelector": {"apps": "llama", "team": "search"},
                    "modelAccessSecret": "hf-token",
                    "modelAccessTokenConfig": TOKEN_KEY,
                }
            ],
        }
    )

    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        build_kaito_workspaces(cfg, provider=provider, addon_enabled=True, kubernetes_version=K8S)

    run = run_program(program, config={TOKEN_KEY: "hf_test_token"})
    assert run.error is None, run.error
    record = run.one(WORKSPACE_TYPE)
    assert record.name == "kaito-llama-8b"
    assert record.inputs["metadata"]["namespace"] == "models"
    assert record.inputs["resource"]["labelSelector"] == {"matchLabels": {"apps": "llama", "team": "search"}}
    assert record.inputs["inference"] == {
        "preset": {"name": "llama-3.1-8b-instruct", "presetOptions": {"modelAccessSecret": "hf-token"}}
    }
    # The Secret the Workspace names: created by the component, through the same provider, before the Workspace.
    secret = run.one(SECRET_TYPE)
    assert secret.name == "kaito-llama-8b-model-access"
    assert secret.inputs == {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": "hf-token",
            "namespace": "models",
            "labels": {"app.kubernetes.io/managed-by": "pulumi", "azure-gpu-platform/workspace": "llama-8b"},
        },
        "type": "Opaque",
        "stringData": {"HF_TOKEN": "hf_test_token"},
    }
    assert "stringData" in secret.secret_inputs, "the token must reach the engine as a secret"
    component = run.by_name("kaito-llama-8b", COMPONENT)
    assert secret.parent == component.urn
    assert secret.provider == record.provider
    assert record.provider.startswith(run.one(K8S_PROVIDER).urn)
    assert secret.urn in record.dependencies
    assert service_info(cfg.workspaces[0]).to_dict() == {
        "workspace": "llama-8b",
        "namespace": "models",
        "preset": "llama-3.1-8b-instruct",
        "instanceType": "Standard_NC24ads_A100_v4",
        "count": 1,
        "service": "llama-8b.models.svc.cluster.local",
        "port": 80,
        "endpoint": "http://llama-8b.models.svc.cluster.local/v1/chat/completions",
    }


def test_preset_with_weights_in_its_image_gets_no_secret():
    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        KaitoWorkspace("kaito-phi-4", ws(), provider=provider, addon_enabled=True, kubernetes_version=K8S)

    run = run_program(program, config={TOKEN_KEY: "hf_test_token"})
    assert run.error is None, run.error
    assert run.of_type(SECRET_TYPE) == []
    assert "presetOptions" not in run.one(WORKSPACE_TYPE).inputs["inference"]["preset"]


def test_multi_node_workspace_count_is_on_the_wire():
    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        cfg = ws(
            name="llama-70b",
            preset="llama-3.3-70b-instruct",
            instanceType="Standard_NC48ads_A100_v4",
            count=2,
            modelAccessSecret="hf-token",
            modelAccessTokenConfig=TOKEN_KEY,
        )
        KaitoWorkspace("kaito-llama-70b", cfg, provider=provider, addon_enabled=True, kubernetes_version=K8S)

    run = run_program(program, config={TOKEN_KEY: "hf_test_token"})
    assert run.error is None, run.error
    assert run.one(WORKSPACE_TYPE).inputs["resource"]["count"] == 2.0


def test_missing_token_config_value_is_refused_before_registration():
    cfg = ws(
        name="llama-8b",
        preset="llama-3.1-8b-instruct",
        modelAccessSecret="hf-token",
        modelAccessTokenConfig=TOKEN_KEY,
    )

    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        KaitoWorkspace("kaito-llama-8b", cfg, provider=provider, addon_enabled=True, kubernetes_version=K8S)

    run = run_program(program, config={})
    assert isinstance(run.error, ModelAccessError)
    assert str(run.error) == (
        "the secret config value kaito:hfToken is not set: run "
        "`pulumi config set --secret kaito:hfToken <Hugging Face token>`"
    )
    assert run.of_type(WORKSPACE_TYPE) == [] and run.of_type(SECRET_TYPE) == []
    assert run.of_type(COMPONENT) == []


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # Built without the config model's validation: the component applies the same pure check itself.
        (
            {"preset": "deepseek-v3-0324"},
            "kaito.workspaces (phi-4): modelAccessSecret is required for KAITO preset deepseek-v3-0324",
        ),
        (
            {"modelAccessSecret": "hf-token", "modelAccessTokenConfig": TOKEN_KEY},
            "kaito.workspaces (phi-4): modelAccessSecret 'hf-token' is not allowed for KAITO preset phi-4",
        ),
    ],
)
def test_component_refuses_a_secret_that_does_not_match_the_preset(fields: dict[str, Any], expected: str):
    cfg = KaitoWorkspaceConfig.model_construct(**{**ws().model_dump(), **fields})

    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        KaitoWorkspace("kaito-phi-4", cfg, provider=provider, addon_enabled=True, kubernetes_version=K8S)

    run = run_program(program, config={TOKEN_KEY: "hf_test_token"})
    assert isinstance(run.error, ModelAccessError), run.error
    assert str(run.error).startswith(expected)
    assert run.of_type(WORKSPACE_TYPE) == [] and run.of_type(SECRET_TYPE) == []


@pytest.mark.parametrize(
    ("version", "found"),
    [
        ("1.33", "on Kubernetes 1.33 AKS runs the AI toolchain operator (KAITO) add-on 0.4.5, not 0.6.0"),
        ("1.37", "the AKS add-on table records no AI toolchain operator (KAITO) add-on version for Kubernetes 1.37"),
    ],
)
def test_component_refuses_a_cluster_whose_addon_is_not_the_preset_tables(version: str, found: str):
    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        KaitoWorkspace("kaito-phi-4", ws(), provider=provider, addon_enabled=True, kubernetes_version=version)

    run = run_program(program, config={})
    assert isinstance(run.error, KaitoAddonVersionError), run.error
    assert str(run.error) == (
        f"kaito.workspaces (phi-4): {found}: KAITO workspaces are checked against KAITO v0.6.0's presets, which "
        "the add-on 0.6.0 runs on Kubernetes 1.34, 1.35 or 1.36 (gpu_catalog/facts/kaito_addon.json). Use "
        "Kubernetes 1.34, 1.35 or 1.36, or remove kaito.workspaces."
    )
    assert run.of_type(WORKSPACE_TYPE) == []


def test_workspace_on_a_cluster_without_the_addon_is_refused_before_registration():
    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        KaitoWorkspace("kaito-phi-4", ws(), provider=provider, addon_enabled=False, kubernetes_version=K8S)

    run = run_program(program, config={})
    assert isinstance(run.error, KaitoAddonNotEnabledError)
    assert "KAITO add-on (AI toolchain operator) is off" in str(run.error)
    assert "kaito.enabled: true" in str(run.error)
    assert run.of_type(WORKSPACE_TYPE) == []
    assert run.of_type("azure-gpu-platform:components:KaitoWorkspace") == []


def test_raw_resource_refuses_a_spec_shaped_manifest():
    from components.kaito import KaitoWorkspaceResource

    with pytest.raises(ValueError, match="no spec"):
        KaitoWorkspaceResource(
            "bad",
            {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace", "spec": {}},
            pulumi.ResourceOptions(),
        )
