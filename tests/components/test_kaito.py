"""KaitoWorkspace under Pulumi mocks: a kaito.sh/v1beta1 Workspace with top-level fields, through the k8s provider.

The component takes :class:`KaitoWorkspaceArgs` (no stack config); the Args refuse what the KAITO rules refuse, with
their messages, before anything is registered."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from components.kaito import (
    SECRET_TYPE,
    WORKSPACE_TYPE,
    KaitoWorkspace,
    KaitoWorkspaceArgs,
    ModelAccessError,
    service_info,
)
from components.validation import InvalidArgsError
from tests.components.harness import K8S_PROVIDER, Run, run_program

K8S = "1.36"
COMPONENT = "azure-gpu-platform:components:KaitoWorkspace"
TOKEN_KEY = "kaito:hfToken"
PHI4: dict[str, Any] = {
    "workspace_name": "phi-4",
    "preset": "phi-4",
    "instance_type": "Standard_NC24ads_A100_v4",
    "match_labels": {"apps": "phi-4"},
    "kubernetes_version": K8S,
    "addon_enabled": True,
}


def ws(**overrides: Any) -> KaitoWorkspaceArgs:
    return KaitoWorkspaceArgs(**{**PHI4, **overrides})


def run_workspace(name: str, config: dict[str, Any] | None = None, **overrides: Any) -> Run:
    """One workspace through a Kubernetes provider; its Args are built inside the program."""

    def program() -> None:
        args = ws(**overrides)
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        KaitoWorkspace(name, args, provider=provider)

    return run_program(program, config=config or {})


def test_workspace_is_registered_with_top_level_resource_and_inference_and_no_spec():
    components: list[KaitoWorkspace] = []

    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        components.append(KaitoWorkspace("kaito-phi-4", ws(), provider=provider))

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
    args = ws(
        workspace_name="llama-8b",
        preset="llama-3.1-8b-instruct",
        namespace="models",
        match_labels={"apps": "llama", "team": "search"},
        model_access_secret="hf-token",
        model_access_token_config=TOKEN_KEY,
    )

    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        KaitoWorkspace("kaito-llama-8b", args, provider=provider)

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
    assert service_info(args).to_dict() == {
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
    run = run_workspace("kaito-phi-4", {TOKEN_KEY: "hf_test_token"})
    assert run.error is None, run.error
    assert run.of_type(SECRET_TYPE) == []
    assert "presetOptions" not in run.one(WORKSPACE_TYPE).inputs["inference"]["preset"]


def test_multi_node_workspace_count_is_on_the_wire():
    run = run_workspace(
        "kaito-llama-70b",
        {TOKEN_KEY: "hf_test_token"},
        workspace_name="llama-70b",
        preset="llama-3.3-70b-instruct",
        instance_type="Standard_NC48ads_A100_v4",
        count=2,
        model_access_secret="hf-token",
        model_access_token_config=TOKEN_KEY,
    )
    assert run.error is None, run.error
    assert run.one(WORKSPACE_TYPE).inputs["resource"]["count"] == 2.0


def test_missing_token_config_value_is_refused_before_registration():
    run = run_workspace(
        "kaito-llama-8b",
        workspace_name="llama-8b",
        preset="llama-3.1-8b-instruct",
        model_access_secret="hf-token",
        model_access_token_config=TOKEN_KEY,
    )
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
        (
            {"preset": "deepseek-v3-0324", "instance_type": "Standard_ND96isr_H100_v5"},
            "model_access_secret: modelAccessSecret is required for KAITO preset deepseek-v3-0324",
        ),
        (
            {"model_access_secret": "hf-token", "model_access_token_config": TOKEN_KEY},
            "model_access_secret: modelAccessSecret 'hf-token' is not allowed for KAITO preset phi-4",
        ),
        (
            {"model_access_secret": "hf-token", "preset": "llama-3.1-8b-instruct"},
            "model_access_token_config: modelAccessTokenConfig is required with modelAccessSecret 'hf-token': the "
            "platform creates that Secret",
        ),
        ({"preset": "phi-5"}, "preset: 'phi-5' is not a KAITO v0.6.0 inference preset"),
        ({"instance_type": "Standard_NV32as_v4"}, "instance_type: Standard_NV32as_v4 is an NVv4 size"),
        (
            {"instance_type": "Standard_NC4as_T4_v3"},
            "instance_type: 1 x Standard_NC4as_T4_v3 (1 x NVIDIA Tesla T4 16 GiB each) is too small for KAITO preset "
            "phi-4",
        ),
    ],
)
def test_args_refuse_what_the_kaito_rules_refuse(fields: dict[str, Any], expected: str):
    run = run_workspace("kaito-phi-4", {TOKEN_KEY: "hf_test_token"}, **fields)
    assert isinstance(run.error, InvalidArgsError), run.error
    assert str(run.error).startswith("KaitoWorkspace ")
    assert expected in str(run.error)
    assert run.records == []


@pytest.mark.parametrize(
    ("version", "found"),
    [
        ("1.33", "on Kubernetes 1.33 AKS runs the AI toolchain operator (KAITO) add-on 0.4.5, not 0.6.0"),
        ("1.37", "the AKS add-on table records no AI toolchain operator (KAITO) add-on version for Kubernetes 1.37"),
    ],
)
def test_args_refuse_a_cluster_whose_addon_is_not_the_preset_tables(version: str, found: str):
    run = run_workspace("kaito-phi-4", kubernetes_version=version)
    assert isinstance(run.error, InvalidArgsError), run.error
    assert (
        f"kubernetes_version: {found}: KAITO workspaces are checked against KAITO v0.6.0's presets, which the add-on "
        "0.6.0 runs on Kubernetes 1.34, 1.35 or 1.36 (gpu_catalog/facts/kaito_addon.json). Use Kubernetes 1.34, 1.35 "
        "or 1.36, or remove the KAITO workspaces."
    ) in str(run.error)
    assert run.records == []


def test_workspace_on_a_cluster_without_the_addon_is_refused_before_registration():
    run = run_workspace("kaito-phi-4", addon_enabled=False)
    assert isinstance(run.error, InvalidArgsError)
    assert "addon_enabled: KAITO workspaces need the AI toolchain operator add-on on the cluster, which is off" in str(
        run.error
    )
    assert run.records == []


def test_raw_resource_refuses_a_spec_shaped_manifest():
    from components.kaito import KaitoWorkspaceResource

    with pytest.raises(ValueError, match="no spec"):
        KaitoWorkspaceResource(
            "bad",
            {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace", "spec": {}},
            pulumi.ResourceOptions(),
        )
