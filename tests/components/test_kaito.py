"""KaitoWorkspace under Pulumi mocks: a kaito.sh/v1beta1 Workspace with top-level fields, through the k8s provider."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from components.kaito import (
    WORKSPACE_TYPE,
    KaitoAddonNotEnabledError,
    KaitoWorkspace,
    build_kaito_workspaces,
    service_info,
)
from components.kaito_config import KaitoConfig, KaitoWorkspaceConfig
from tests.components.harness import K8S_PROVIDER, run_program

PHI4 = {"name": "phi-4", "preset": "phi-4", "instanceType": "Standard_NC24ads_A100_v4"}


def ws(**overrides: Any) -> KaitoWorkspaceConfig:
    return KaitoWorkspaceConfig.model_validate({**PHI4, **overrides})


def test_workspace_is_registered_with_top_level_resource_and_inference_and_no_spec():
    components: list[KaitoWorkspace] = []

    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        components.append(KaitoWorkspace("kaito-phi-4", ws(), provider=provider, addon_enabled=True))

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


def test_gated_llama_workspace_carries_the_model_access_secret_and_custom_labels():
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
                }
            ],
        }
    )

    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        build_kaito_workspaces(cfg, provider=provider, addon_enabled=True)

    run = run_program(program, config={})
    assert run.error is None, run.error
    record = run.one(WORKSPACE_TYPE)
    assert record.name == "kaito-llama-8b"
    assert record.inputs["metadata"]["namespace"] == "models"
    assert record.inputs["resource"]["labelSelector"] == {"matchLabels": {"apps": "llama", "team": "search"}}
    assert record.inputs["inference"] == {
        "preset": {"name": "llama-3.1-8b-instruct", "presetOptions": {"modelAccessSecret": "hf-token"}}
    }
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


def test_multi_node_workspace_count_is_on_the_wire():
    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        cfg = ws(
            name="llama-70b",
            preset="llama-3.3-70b-instruct",
            instanceType="Standard_NC48ads_A100_v4",
            count=2,
            modelAccessSecret="hf-token",
        )
        KaitoWorkspace("kaito-llama-70b", cfg, provider=provider, addon_enabled=True)

    run = run_program(program, config={})
    assert run.error is None, run.error
    assert run.one(WORKSPACE_TYPE).inputs["resource"]["count"] == 2.0


def test_workspace_on_a_cluster_without_the_addon_is_refused_before_registration():
    def program() -> None:
        provider = k8s.Provider("aks-k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        KaitoWorkspace("kaito-phi-4", ws(), provider=provider, addon_enabled=False)

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
