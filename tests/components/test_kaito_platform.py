"""KAITO in the platform: stack config → KaitoWorkspace on the cluster's k8s provider → contract → policy pack."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from components.contract import parse_contract
from stack_config import StackConfigError
from tests.components.harness import (
    K8S_PROVIDER,
    KAITO_WORKSPACE,
    MANAGED_CLUSTER,
    REPO_ROOT,
    merged,
    run_main,
    run_stack,
)
from tests.components.test_stacks_policy_pack import check, recorded

SECRET = "kubernetes:core/v1:Secret"
PHI = {"name": "phi-3-mini", "preset": "phi-3-mini-4k-instruct", "instanceType": "Standard_NC24ads_A100_v4"}
LLAMA = {
    "name": "llama-8b",
    "preset": "llama-3.1-8b-instruct",
    "instanceType": "Standard_NC24ads_A100_v4",
    "modelAccessSecret": "llama-8b-hf-token",
    "modelAccessTokenConfig": "kaito:hfToken",
}
BASE: dict[str, Any] = {
    "environment": "dev",
    "location": "westeurope",
    "gpuPools": [{"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "count": 1}],
    "kaito": {"enabled": True, "workspaces": [PHI]},
}


def config(**top: Any) -> dict[str, Any]:
    return merged(BASE, **top)


def test_kaito_enabled_turns_on_the_addon_and_oidc_and_registers_the_workspace_on_the_cluster_provider():
    run = run_main(config())
    assert run.error is None, run.error
    mc = run.one(MANAGED_CLUSTER).inputs
    assert mc["aiToolchainOperatorProfile"] == {"enabled": True}
    assert mc["oidcIssuerProfile"] == {"enabled": True}
    ws = run.one(KAITO_WORKSPACE)
    assert ws.name == "kaito-phi-3-mini"
    assert ws.inputs["resource"] == {
        "instanceType": "Standard_NC24ads_A100_v4",
        "count": 1.0,
        "labelSelector": {"matchLabels": {"apps": "phi-3-mini"}},
    }
    assert ws.inputs["inference"] == {"preset": {"name": "phi-3-mini-4k-instruct"}}
    provider = run.one(K8S_PROVIDER)
    assert provider.name == "aks-k8s"
    assert ws.provider.startswith(provider.urn + "::")
    assert run.outputs["kaitoWorkspaces"]["phi-3-mini"]["endpoint"] == (
        "http://phi-3-mini.default.svc.cluster.local/v1/chat/completions"
    )


def test_cluster_kaito_addon_alone_is_enough_for_workspaces():
    run = run_main(config(cluster={"kaitoAddon": True}, kaito={"workspaces": [PHI]}))
    assert run.error is None, run.error
    assert len(run.of_type(KAITO_WORKSPACE)) == 1


def test_no_kaito_means_no_workspace_no_addon_and_an_empty_contract_entry():
    run = run_main(config(kaito={}))
    assert run.error is None, run.error
    assert run.of_type(KAITO_WORKSPACE) == []
    assert "aiToolchainOperatorProfile" not in run.one(MANAGED_CLUSTER).inputs
    assert run.outputs["kaitoWorkspaces"] == {}
    assert parse_contract(run.outputs).kaito_workspaces == {}


@pytest.mark.parametrize(
    ("kaito", "policy", "path", "expected"),
    [
        ({"workspaces": [PHI]}, {}, "kaito.workspaces", "KAITO workspaces need the AI toolchain operator add-on"),
        (
            {"enabled": False, "workspaces": [PHI]},
            {},
            "kaito.workspaces",
            "kaito.enabled is false",
        ),
        (
            {"enabled": True, "workspaces": [{**PHI, "preset": "phi-4", "instanceType": "Standard_NC4as_T4_v3"}]},
            {},
            "kaito.workspaces[0].instanceType",
            "16 GiB total GPU memory < 40 GiB required",
        ),
        (
            {"enabled": True, "workspaces": [{**PHI, "instanceType": "Standard_NG32ads_V620_v1"}]},
            {},
            "kaito.workspaces[0].instanceType",
            "KAITO runs NVIDIA GPUs only",
        ),
        (
            {"enabled": True, "workspaces": [{**PHI, "preset": "llama-3.1-8b-instruct"}]},
            {},
            "kaito.workspaces[0].modelAccessSecret",
            "modelAccessSecret is required for KAITO preset llama-3.1-8b-instruct: KAITO v0.6.0 downloads its weights",
        ),
        (
            {"enabled": True, "workspaces": [{**PHI, "modelAccessSecret": "hf-token"}]},
            {},
            "kaito.workspaces[0].modelAccessSecret",
            "modelAccessSecret 'hf-token' is not allowed for KAITO preset phi-3-mini-4k-instruct: its weights ship",
        ),
        (
            {"enabled": True, "workspaces": [LLAMA]},  # kaito:hfToken is not in this stack's config
            {},
            "kaito.workspaces[0].modelAccessTokenConfig",
            "the secret config value kaito:hfToken is not set in this stack: KAITO preset llama-3.1-8b-instruct "
            "downloads its weights from Hugging Face at run time and the platform creates Secret "
            "default/llama-8b-hf-token (key HF_TOKEN) from it. Set it with "
            "`pulumi config set --secret kaito:hfToken <Hugging Face token>`",
        ),
        (
            {"enabled": True, "workspaces": [{**PHI, "instanceType": "Standard_NC8as_T4_v3"}]},
            {"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}},
            "kaito.workspaces[0].instanceType",
            "below the GPU floor Standard_NC24ads_A100_v4",
        ),
    ],
)
def test_invalid_kaito_config_stops_the_program_before_any_registration(
    kaito: dict[str, Any], policy: dict[str, Any], path: str, expected: str
):
    run = run_main(config(kaito=kaito, policy=policy))
    assert isinstance(run.error, StackConfigError), run.error
    assert run.records == [], "nothing may be registered when the config is invalid"
    assert path in run.error.paths
    lines = [line for line in str(run.error).splitlines() if f": {path}: " in line]
    assert any("stacks/Pulumi.dev.yaml" in line and expected in line for line in lines), lines


@pytest.mark.parametrize(
    ("version", "found"),
    [
        ("1.33", "on Kubernetes 1.33 AKS runs the AI toolchain operator (KAITO) add-on 0.4.5, not 0.6.0"),
        ("1.37", "the AKS add-on table records no AI toolchain operator (KAITO) add-on version for Kubernetes 1.37"),
    ],
)
def test_workspaces_on_a_kubernetes_version_without_the_addon_0_6_0_stop_the_program(version: str, found: str):
    run = run_main(config(cluster={"kubernetesVersion": version}))
    assert isinstance(run.error, StackConfigError), run.error
    assert run.records == []
    expected = (
        f"cluster.kubernetesVersion: {found}: KAITO workspaces are checked against KAITO v0.6.0's presets, which the "
        "add-on 0.6.0 runs on Kubernetes 1.34, 1.35 or 1.36 (gpu_catalog/facts/kaito_addon.json). Use Kubernetes "
        "1.34, 1.35 or 1.36, or remove kaito.workspaces."
    )
    assert any(line.endswith(expected) for line in str(run.error).splitlines()), str(run.error)


def test_runtime_download_preset_gets_the_secret_from_the_stacks_secret_config_value():
    run = run_main({**config(kaito={"enabled": True, "workspaces": [PHI, LLAMA]}), "kaito:hfToken": "hf_test"})
    assert run.error is None, run.error
    secret = run.one(SECRET)
    assert secret.name == "kaito-llama-8b-model-access"
    assert secret.inputs["metadata"]["name"] == "llama-8b-hf-token"
    assert secret.inputs["metadata"]["namespace"] == "default"
    assert (secret.inputs["type"], secret.inputs["stringData"]) == ("Opaque", {"HF_TOKEN": "hf_test"})
    assert "stringData" in secret.secret_inputs
    workspace = run.by_name("kaito-llama-8b", KAITO_WORKSPACE)
    assert workspace.inputs["inference"]["preset"]["presetOptions"] == {"modelAccessSecret": "llama-8b-hf-token"}
    assert secret.urn in workspace.dependencies
    assert secret.parent == run.by_name("kaito-llama-8b", "azure-gpu-platform:components:KaitoWorkspace").urn
    assert secret.provider.startswith(run.one(K8S_PROVIDER).urn + "::")
    phi = run.by_name("kaito-phi-3-mini", KAITO_WORKSPACE)
    assert secret.urn not in phi.dependencies and "presetOptions" not in phi.inputs["inference"]["preset"]
    assert "hf_test" not in str(run.outputs), "the token must not reach the stack outputs"


def test_offline_preflight_passes_a_secure_token_through_as_an_opaque_secret(tmp_path):
    """A ``secure:`` value cannot be decrypted offline: preflight/stackfile.py hands the program a placeholder and marks
    the key secret; the config check sees the key, and the Secret carries the placeholder, still secret."""
    import yaml

    from preflight.stackfile import load_stack_settings

    doc = {
        "config": {
            **{f"azure-gpu-platform:{k}": v for k, v in config(kaito={"enabled": True, "workspaces": [LLAMA]}).items()},
            "kaito:hfToken": {"secure": "v1:AAAABBBBccccDDDD"},
        }
    }
    stack_file = tmp_path / "Pulumi.dev.yaml"
    stack_file.write_text(yaml.safe_dump(doc), encoding="utf-8")
    settings = load_stack_settings(REPO_ROOT, stack_file)
    assert settings.secret_keys == ["kaito:hfToken"]
    run = run_main(settings.config)
    assert run.error is None, run.error
    secret = run.one(SECRET)
    assert "stringData" in secret.secret_inputs
    assert secret.inputs["stringData"] == {"HF_TOKEN": settings.config["kaito:hfToken"]}
    assert "v1:AAAABBBBccccDDDD" not in str(secret.inputs)


def test_prod_serves_presets_with_weights_in_their_images_and_names_them_in_the_contract():
    run = run_stack("prod")
    assert run.error is None, run.error
    contract = parse_contract(run.outputs)
    assert sorted(contract.kaito_workspaces) == ["mistral-7b", "phi-4"]
    mistral = contract.kaito_workspace("mistral-7b")
    assert (mistral.preset, mistral.instance_type, mistral.service, mistral.port) == (
        "mistral-7b-instruct",
        "Standard_NC24ads_A100_v4",
        "mistral-7b.default.svc.cluster.local",
        80,
    )
    # Neither preset downloads at run time: no token, no Secret, no presetOptions (KAITO would refuse one).
    # (Sibling workspaces register concurrently: their order is not part of the contract.)
    assert sorted((w.inputs["inference"] for w in run.of_type(KAITO_WORKSPACE)), key=str) == [
        {"preset": {"name": "mistral-7b-instruct"}},
        {"preset": {"name": "phi-4"}},
    ]
    assert run.of_type(SECRET) == []


@pytest.mark.slow
def test_the_pack_checks_the_kaito_workspaces_of_prod_over_the_wire():
    """prod passes (test_stacks_policy_pack); the same resources with one Workspace on an AMD size do not."""
    resources = recorded(run_stack("prod"))
    mutated = [
        dataclasses.replace(
            res,
            inputs={
                **copy.deepcopy(res.inputs),
                "resource": {**res.inputs["resource"], "instanceType": "Standard_NG32ads_V620_v1"},
            },
        )
        if res.type == KAITO_WORKSPACE and res.name == "kaito-phi-4"
        else res
        for res in resources
    ]
    result = check("prod", mutated)
    kaito = [v for v in result.mandatory if v.policy_name == "kaito-workspace-instance-type"]
    assert len(kaito) == 1, [f"{v.policy_name}: {v.message}" for v in result.violations]
    assert kaito[0].urn.endswith("kubernetes:kaito.sh/v1beta1:Workspace::kaito-phi-4")
    assert "AMD" in kaito[0].message


@pytest.mark.slow
def test_the_pack_refuses_a_model_access_secret_on_prods_mistral_workspace_over_the_wire():
    resources = recorded(run_stack("prod"))
    mutated = [
        dataclasses.replace(
            res,
            inputs={
                **copy.deepcopy(res.inputs),
                "inference": {
                    "preset": {"name": "mistral-7b-instruct", "presetOptions": {"modelAccessSecret": "hf-token"}}
                },
            },
        )
        if res.type == KAITO_WORKSPACE and res.name == "kaito-mistral-7b"
        else res
        for res in resources
    ]
    result = check("prod", mutated)
    assert [(v.policy_name, v.urn.rsplit("::", 1)[-1]) for v in result.mandatory] == [
        ("kaito-workspace-model-access", "kaito-mistral-7b")
    ], [f"{v.policy_name}: {v.message}" for v in result.violations]
    assert (
        "inference.preset.presetOptions.modelAccessSecret: modelAccessSecret 'hf-token' is not allowed for KAITO "
        "preset mistral-7b-instruct"
    ) in result.mandatory[0].message


def test_another_team_reads_the_models_and_databricks_through_the_typed_consumer():
    from components.contract import DatabricksContract, KaitoWorkspaceContract, PlatformStackReference
    from tests.components.harness import run_program

    prod = run_stack("prod")
    assert prod.error is None, prod.error
    seen: dict[str, Any] = {}

    def program() -> None:
        ref = PlatformStackReference("my-org/azure-gpu-platform/prod")
        ref.contract.apply(lambda c: seen.update(phi=c.kaito_workspace("phi-4"), dbx=c.databricks))

    run = run_program(program, config={}, stack="consumer", stack_outputs=prod.outputs)
    assert run.error is None, run.error
    assert seen["phi"] == KaitoWorkspaceContract(
        workspace="phi-4",
        namespace="default",
        preset="phi-4",
        instance_type="Standard_NC24ads_A100_v4",
        count=1,
        service="phi-4.default.svc.cluster.local",
        port=80,
        endpoint="http://phi-4.default.svc.cluster.local/v1/chat/completions",
    )
    assert isinstance(seen["dbx"], DatabricksContract)
    assert seen["dbx"].clusters["ml-training"].gpus_per_worker == 2


def test_model_access_token_from_key_vault_turns_on_the_secrets_store_and_creates_no_secret():
    """Issue 29: the token can come from Key Vault (the Secrets Store CSI add-on mirrors it into modelAccessSecret)."""
    from_vault = {k: v for k, v in LLAMA.items() if k != "modelAccessTokenConfig"} | {"modelAccessFromKeyVault": True}
    run = run_main(config(kaito={"enabled": True, "workspaces": [from_vault]}))
    assert run.error is None, run.error
    assert run.of_type(SECRET) == []
    workspace = run.by_name("kaito-llama-8b", KAITO_WORKSPACE)
    assert workspace.inputs["inference"]["preset"]["presetOptions"] == {"modelAccessSecret": "llama-8b-hf-token"}
    addons = run.one("azure-native:containerservice:ManagedCluster").inputs["addonProfiles"]
    assert addons == {
        "azureKeyvaultSecretsProvider": {
            "enabled": True,
            "config": {"enableSecretRotation": "true", "rotationPollInterval": "2m"},
        }
    }


def test_model_access_from_key_vault_needs_the_secrets_store_and_no_token_config():
    from_vault = {**LLAMA, "modelAccessFromKeyVault": True}
    run = run_main(config(kaito={"enabled": True, "workspaces": [from_vault]}))
    assert isinstance(run.error, StackConfigError)
    assert "kaito.workspaces[0].modelAccessTokenConfig" in run.error.paths
    no_store = {k: v for k, v in from_vault.items() if k != "modelAccessTokenConfig"}
    cluster = {"secretsStore": {"enabled": False}, "access": {"deployerPrincipalType": "ServicePrincipal"}}
    run = run_main(config(cluster=cluster, kaito={"enabled": True, "workspaces": [no_store]}))
    assert isinstance(run.error, StackConfigError)
    assert "kaito.workspaces[0].modelAccessFromKeyVault" in run.error.paths
