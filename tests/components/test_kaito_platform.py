"""KAITO in the platform: stack config → KaitoWorkspace on the cluster's k8s provider → contract → policy pack."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from components.config import StackConfigError
from components.contract import parse_contract
from tests.components.harness import (
    K8S_PROVIDER,
    KAITO_WORKSPACE,
    MANAGED_CLUSTER,
    merged,
    run_main,
    run_stack,
)
from tests.components.test_stacks_policy_pack import check, recorded

PHI = {"name": "phi-3-mini", "preset": "phi-3-mini-4k-instruct", "instanceType": "Standard_NC24ads_A100_v4"}
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
        ({"workspaces": [PHI]}, {}, "kaito.enabled", "KAITO workspaces need the AI toolchain operator add-on"),
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
            "modelAccessSecret is required",
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
    line = next(line for line in str(run.error).splitlines() if f": {path}: " in line)
    assert "stacks/Pulumi.dev.yaml" in line
    assert expected in line


def test_prod_contract_names_the_models_and_their_in_cluster_services():
    run = run_stack("prod")
    assert run.error is None, run.error
    contract = parse_contract(run.outputs)
    assert sorted(contract.kaito_workspaces) == ["llama-3-8b", "phi-4"]
    llama = contract.kaito_workspace("llama-3-8b")
    assert (llama.preset, llama.instance_type, llama.service, llama.port) == (
        "llama-3.1-8b-instruct",
        "Standard_NC24ads_A100_v4",
        "llama-3-8b.default.svc.cluster.local",
        80,
    )
    [secret] = [
        w.inputs["inference"]["preset"]["presetOptions"]["modelAccessSecret"]
        for w in run.of_type(KAITO_WORKSPACE)
        if w.inputs["metadata"]["name"] == "llama-3-8b"
    ]
    assert secret == "hf-token"


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
