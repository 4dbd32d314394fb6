"""One checklist per KAITO workspace and per Databricks GPU cluster: the stack config, the component Args and the
component package refuse the same bad workspace or cluster with the same rule and the same message
(``rules/checklists_kaito.py``, ``rules/checklists_databricks.py``), whichever door it comes in by."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from component_package.databricks_gpu_cluster import cluster_args_of
from component_package.kaito_workspace import workspace_args
from components.databricks import DatabricksGpuClusterArgs
from components.kaito import KaitoWorkspaceArgs
from components.validation import InvalidArgsError
from rules.checklists import DatabricksClusterFacts, KaitoWorkspaceFacts, databricks_cluster, kaito_workspace
from rules.databricks import PHOTON, DatabricksCluster
from rules.specs import DatabricksAutoscale
from stack_config import StackConfigError, validate_stack_config

STACK_FILE = "stacks/Pulumi.dev.yaml"
TODAY = date(2026, 12, 1)
A100 = "Standard_NC24ads_A100_v4"
T4 = "Standard_NC4as_T4_v3"
LLAMA = "llama-3.1-8b-instruct"
USER = "alice@contoso.com"
URL = "https://adb-1234567890123456.7.azuredatabricks.net"


def stack(**sections: Any) -> dict[str, Any]:
    return {
        "environment": "dev",
        "location": "westeurope",
        "gpuPools": [],
        "cluster": {"access": {"deployerPrincipalType": "ServicePrincipal"}},
        **sections,
    }


def stack_refusal(data: dict[str, Any], path: str) -> list[str]:
    """The messages the stack config gives at ``path``."""
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(data, stack_file=STACK_FILE)
    return [p.message for p in err.value.problems if p.path == path]


def args_refusal(build: Any, field: str) -> list[str]:
    """The messages a component's Args (or the package's translation to them) give on the Args ``field``."""
    with pytest.raises(InvalidArgsError) as err:
        build()
    return [f.message for f in err.value.findings if f.field == field]


def checklist_message(found: list[Any], field: str) -> str:
    [message] = [f.message for f in found if f.field == field]
    return message


# ------------------------------------------------------------------------------------------------------- KAITO


def kaito_stack(ws: dict[str, Any]) -> dict[str, Any]:
    return stack(kaito={"enabled": True, "workspaces": [{"name": "ws", "preset": "phi-4", "instanceType": A100, **ws}]})


def kaito_args(**fields: Any) -> dict[str, Any]:
    """The component Args' (and the package's) keyword arguments of workspace ``ws``."""
    base: dict[str, Any] = {
        "workspace_name": "ws",
        "preset": "phi-4",
        "instance_type": A100,
        "match_labels": {"apps": "ws"},
        "kubernetes_version": "1.35",
        "addon_enabled": True,
    }
    return {**base, **fields}


def kaito_expected(field: str, **facts: Any) -> str:
    """The KAITO checklist's message on ``field``."""
    found = kaito_workspace(
        KaitoWorkspaceFacts(name="ws", **{"preset": "phi-4", "instance_type": A100, **facts}), today=TODAY
    )
    return checklist_message(found, field)


# (id, stack-file workspace keys, Args / package fields, checklist facts, checklist field, Args field, fragment)
KAITO_CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], str, str, str]] = [
    (
        "preset-on-a-too-small-instance-type",
        {"instanceType": T4},
        {"instance_type": T4},
        {"instance_type": T4},
        "instanceType",
        "instance_type",
        "is too small for KAITO preset phi-4",
    ),
    (
        "runtime-download-preset-without-secret",
        {"preset": LLAMA},
        {"preset": LLAMA},
        {"preset": LLAMA},
        "modelAccessSecret",
        "model_access_secret",
        "The platform creates that Secret: set modelAccessSecret (e.g. ws-hf-token)",
    ),
    (
        "secret-without-token-config",
        {"preset": LLAMA, "modelAccessSecret": "hf-token"},
        {"preset": LLAMA, "model_access_secret": "hf-token"},
        {"preset": LLAMA, "model_access_secret": "hf-token"},
        "modelAccessTokenConfig",
        "model_access_token_config",
        "modelAccessTokenConfig is required with modelAccessSecret 'hf-token'",
    ),
    (
        "token-config-for-a-preset-that-ships-its-weights",
        {"modelAccessTokenConfig": "kaito:hfToken"},
        {"model_access_token_config": "kaito:hfToken"},
        {"model_access_token_config": "kaito:hfToken"},
        "modelAccessTokenConfig",
        "model_access_token_config",
        "phi-4 ships its weights in its image. Remove it.",
    ),
]


@pytest.mark.parametrize("case", KAITO_CASES, ids=[c[0] for c in KAITO_CASES])
def test_a_kaito_workspace_is_refused_alike_through_the_three_entry_points(
    case: tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], str, str, str],
) -> None:
    _, config, args, facts, field, args_field, fragment = case
    message = kaito_expected(field, **facts)
    assert fragment in message
    assert message in stack_refusal(kaito_stack(config), f"kaito.workspaces[0].{field}")
    assert message in args_refusal(lambda: KaitoWorkspaceArgs(**kaito_args(**args)), args_field)
    package = {"kubeconfig": "apiVersion: v1", **kaito_args(**args)}
    assert message in args_refusal(lambda: workspace_args(package), args_field)  # type: ignore[arg-type]


def test_key_vault_and_a_token_config_are_refused_alike_by_the_stack_config_and_the_args() -> None:
    """The package has no Key Vault input (its Secret always comes from a secret config value)."""
    message = kaito_expected(
        "modelAccessTokenConfig",
        preset=LLAMA,
        model_access_secret="hf-token",
        model_access_token_config="kaito:hfToken",
        model_access_from_key_vault=True,
    )
    assert "either from Key Vault (modelAccessFromKeyVault: true) or from modelAccessTokenConfig" in message
    ws = {
        "preset": LLAMA,
        "modelAccessSecret": "hf-token",
        "modelAccessTokenConfig": "kaito:hfToken",
        "modelAccessFromKeyVault": True,
    }
    assert message in stack_refusal(kaito_stack(ws), "kaito.workspaces[0].modelAccessTokenConfig")
    fields = kaito_args(
        preset=LLAMA,
        model_access_secret="hf-token",
        model_access_token_config="kaito:hfToken",
        model_access_from_key_vault=True,
    )
    assert message in args_refusal(lambda: KaitoWorkspaceArgs(**fields), "model_access_token_config")


def test_a_raised_gpu_floor_refuses_the_kaito_instance_type_alike() -> None:
    floor, a10, mini = A100, "Standard_NV36ads_A10_v5", "phi-4-mini-instruct"
    message = kaito_expected("instanceType", preset=mini, instance_type=a10, gpu_floor=floor)
    assert f"below the GPU floor {floor}" in message
    data = {
        **kaito_stack({"preset": mini, "instanceType": a10}),
        "policy": {"gpu-size-minimum": {"minimumSize": floor}},
    }
    assert message in stack_refusal(data, "kaito.workspaces[0].instanceType")
    fields = kaito_args(preset=mini, instance_type=a10, gpu_floor=floor)
    assert message in args_refusal(lambda: KaitoWorkspaceArgs(**fields), "instance_type")
    package = {"kubeconfig": "apiVersion: v1", **fields}
    assert message in args_refusal(lambda: workspace_args(package), "instance_type")  # type: ignore[arg-type]


# -------------------------------------------------------------------------------------------------- Databricks


def databricks_stack(cluster: dict[str, Any]) -> dict[str, Any]:
    base = {"name": "ml", "nodeTypeId": A100, "numWorkers": 1, "singleUserName": USER}
    return stack(databricks={"workspace": {"url": URL}, "clusters": [{**base, **cluster}]})


def databricks_args(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"cluster_name": "ml", "node_type_id": A100, "single_user_name": USER, "num_workers": 1}
    return {**base, **fields}


def databricks_expected(field: str, **facts: Any) -> str:
    """The Databricks checklist's first message on ``field``."""
    cluster = DatabricksCluster(**{"node_type": A100, "declared_gpu": True, "single_user_name": USER, **facts})
    found = databricks_cluster(DatabricksClusterFacts(cluster), today=TODAY)
    return next(f.message for f in found if f.field == field)


# (id, stack-file cluster keys, Args fields, package fields, checklist facts, field, stack key, Args field, fragment)
DATABRICKS_CASES: list[
    tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], str, str, str, str]
] = [
    (
        "single-node-with-two-workers",
        {"workload": "singleNode", "numWorkers": 2},
        {"single_node": True, "num_workers": 2},
        {"single_node": True, "num_workers": 2},
        {"single_node": True, "workload": "singleNode", "num_workers": 2},
        "numWorkers",
        "numWorkers",
        "num_workers",
        "numWorkers must be 0 (or unset) for workload 'singleNode', got 2",
    ),
    (
        "single-node-with-autoscale",
        {"workload": "singleNode", "numWorkers": None, "autoscale": {"minWorkers": 1, "maxWorkers": 4}},
        {"single_node": True, "num_workers": None, "autoscale": DatabricksAutoscale(1, 4)},
        {"single_node": True, "autoscale": {"min_workers": 1, "max_workers": 4}},
        {"single_node": True, "workload": "singleNode", "autoscale": True},
        "autoscale",
        "autoscale",
        "autoscale",
        "autoscale does not apply to workload 'singleNode'",
    ),
    (
        "num-workers-and-autoscale",
        {"numWorkers": 2, "autoscale": {"minWorkers": 1, "maxWorkers": 4}},
        {"num_workers": 2, "autoscale": DatabricksAutoscale(1, 4)},
        {"num_workers": 2, "autoscale": {"min_workers": 1, "max_workers": 4}},
        {"num_workers": 2, "autoscale": True},
        "autoscale",
        "autoscale",
        "autoscale",
        "set either numWorkers (fixed size) or autoscale (minWorkers/maxWorkers), not both",
    ),
    (
        "photon-runtime-on-gpu",
        {"sparkVersion": "17.3.x-photon-scala2.13"},
        {"spark_version": "17.3.x-photon-scala2.13"},
        {"spark_version": "17.3.x-photon-scala2.13"},
        {"spark_version": "17.3.x-photon-scala2.13"},
        "sparkVersion",
        "sparkVersion",
        "spark_version",
        "17.3.x-photon-scala2.13 is not a GPU ML runtime",
    ),
]


@pytest.mark.parametrize("case", DATABRICKS_CASES, ids=[c[0] for c in DATABRICKS_CASES])
def test_a_databricks_cluster_is_refused_alike_through_the_three_entry_points(
    case: tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], str, str, str, str],
) -> None:
    _, config, args, package, facts, field, key, args_field, fragment = case
    message = databricks_expected(field, **facts)
    assert fragment in message
    data = databricks_stack({k: v for k, v in config.items() if v is not None})
    if config.get("numWorkers", 1) is None:
        data["databricks"]["clusters"][0].pop("numWorkers")
    assert message in stack_refusal(data, f"databricks.clusters[0].{key}")
    assert message in args_refusal(lambda: DatabricksGpuClusterArgs(**databricks_args(**args)), args_field)
    translated = {"workspace_url": URL, **databricks_args(**package)}
    assert message in args_refusal(lambda: cluster_args_of(translated), args_field)  # type: ignore[arg-type]


def test_photon_is_refused_by_the_stack_config_with_the_checklist_message() -> None:
    """A stack file turns Photon on with ``photon: true``; the Args always request the standard engine."""
    message = databricks_expected("runtimeEngine", runtime_engine=PHOTON)
    assert "Turn Photon off" in message
    assert stack_refusal(databricks_stack({"photon": True}), "databricks.clusters[0].photon") == [message]


def test_one_principal_is_refused_by_the_stack_config_with_the_checklist_message() -> None:
    """Only a stack file names a group (``dedicatedGroup``); the Args carry the principal alone."""
    message = databricks_expected("singleUserName", group=True, single_user_name="ml-platform", written_user=USER)
    assert message == (
        f"set either singleUserName (a user: {USER!r}) or dedicatedGroup (a group: 'ml-platform'), not both: "
        "dedicated compute has exactly one principal"
    )
    data = databricks_stack({"dedicatedGroup": "ml-platform"})
    assert stack_refusal(data, "databricks.clusters[0].singleUserName") == [message]


def test_a_raised_gpu_floor_refuses_the_databricks_node_type_alike() -> None:
    floor, a10 = A100, "Standard_NV36ads_A10_v5"
    cluster = DatabricksCluster(node_type=a10, declared_gpu=True, single_user_name=USER)
    found = databricks_cluster(DatabricksClusterFacts(cluster, gpu_floor=floor), today=TODAY)
    message = checklist_message([f for f in found if f.field == "nodeTypeId"], "nodeTypeId")
    assert f"below the GPU floor {floor}" in message
    data = {**databricks_stack({"nodeTypeId": a10}), "policy": {"gpu-size-minimum": {"minimumSize": floor}}}
    assert message in stack_refusal(data, "databricks.clusters[0].nodeTypeId")
    fields = databricks_args(node_type_id=a10, gpu_floor=floor)
    assert message in args_refusal(lambda: DatabricksGpuClusterArgs(**fields), "node_type_id")
    translated = {"workspace_url": URL, **fields}
    assert message in args_refusal(lambda: cluster_args_of(translated), "node_type_id")  # type: ignore[arg-type]
