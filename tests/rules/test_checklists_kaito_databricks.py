"""The rules moved out of the stack config (rules.kaito.model_access, rules.databricks.workers / one_principal) and
the KAITO and Databricks checklists over them."""

from __future__ import annotations

from datetime import date

import pytest

from rules.checklists import (
    DatabricksClusterFacts,
    KaitoWorkspaceFacts,
    databricks_cluster,
    kaito_cluster,
    kaito_workspace,
)
from rules.databricks import DatabricksCluster, one_principal, workers
from rules.kaito import KaitoCluster, KaitoWorkspace, model_access

TODAY = date(2026, 12, 1)
A100 = "Standard_NC24ads_A100_v4"
LLAMA = "llama-3.1-8b-instruct"


# ------------------------------------------------------------------------------------------- rules.kaito.model_access


def test_model_access_passes_a_shipped_preset_and_a_complete_download_preset() -> None:
    assert model_access(KaitoWorkspace(preset="phi-4")) == []
    complete = KaitoWorkspace(preset=LLAMA, model_access_secret="hf", model_access_token_config="kaito:hfToken")
    assert model_access(complete) == []
    vault = KaitoWorkspace(preset=LLAMA, model_access_secret="hf", model_access_from_key_vault=True)
    assert model_access(vault) == []


@pytest.mark.parametrize(
    ("ws", "field", "fragment"),
    [
        (
            KaitoWorkspace(preset=LLAMA, name="llama"),
            "modelAccessSecret",
            "set modelAccessSecret (e.g. llama-hf-token)",
        ),
        (
            KaitoWorkspace(preset="phi-4", model_access_secret="hf"),
            "modelAccessSecret",
            "Remove modelAccessTokenConfig with it, if set.",
        ),
        (
            KaitoWorkspace(preset="phi-4", model_access_from_key_vault=True),
            "modelAccessFromKeyVault",
            "modelAccessFromKeyVault needs modelAccessSecret",
        ),
        (
            KaitoWorkspace(
                preset=LLAMA,
                model_access_secret="hf",
                model_access_token_config="kaito:hfToken",
                model_access_from_key_vault=True,
            ),
            "modelAccessTokenConfig",
            "either from Key Vault (modelAccessFromKeyVault: true) or from modelAccessTokenConfig, not both",
        ),
        (
            KaitoWorkspace(preset=LLAMA, model_access_secret="hf"),
            "modelAccessTokenConfig",
            "modelAccessTokenConfig is required with modelAccessSecret 'hf'",
        ),
        (
            KaitoWorkspace(preset="phi-4", model_access_token_config="kaito:hfToken"),
            "modelAccessTokenConfig",
            "phi-4 ships its weights in its image. Remove it.",
        ),
    ],
)
def test_model_access_gives_one_finding_at_the_key_to_change(ws: KaitoWorkspace, field: str, fragment: str) -> None:
    [finding] = model_access(ws)
    assert finding.field == field
    assert fragment in finding.message


def test_model_access_does_not_judge_a_preset_the_table_lacks() -> None:
    assert model_access(KaitoWorkspace(preset="phi-5", model_access_token_config="kaito:hfToken")) == []


# ------------------------------------------------------------------------------------------- rules.databricks


@pytest.mark.parametrize(
    ("cluster", "fields"),
    [
        (DatabricksCluster(workload="training", num_workers=2), []),
        (DatabricksCluster(workload="training", autoscale=True), []),
        (DatabricksCluster(workload="singleNode", single_node=True), []),
        (DatabricksCluster(workload="singleNode", single_node=True, num_workers=0), []),
        (DatabricksCluster(workload="singleNode", single_node=True, num_workers=2), ["numWorkers"]),
        (DatabricksCluster(workload="singleNode", single_node=True, autoscale=True), ["autoscale"]),
        (DatabricksCluster(workload="training", num_workers=0), ["numWorkers"]),
        (DatabricksCluster(workload="training", num_workers=2, autoscale=True), ["autoscale"]),
        (DatabricksCluster(workload="inference"), ["workload"]),
    ],
)
def test_workers_fit_the_workload(cluster: DatabricksCluster, fields: list[str]) -> None:
    assert [f.field for f in workers(cluster)] == fields


def test_workers_name_the_workload_or_say_multi_node() -> None:
    [named] = workers(DatabricksCluster(workload="inference", num_workers=0))
    assert "numWorkers must be ≥ 1 for workload 'inference', got 0" in named.message
    [request] = workers(DatabricksCluster())
    assert request.message.startswith("a multi-node cluster needs workers: set numWorkers (fixed size) or autoscale")


def test_one_principal_only_with_a_group_and_a_user() -> None:
    assert one_principal(DatabricksCluster(single_user_name="a@b.co", written_user="a@b.co")) == []
    assert one_principal(DatabricksCluster(group=True, single_user_name="ml")) == []
    [finding] = one_principal(DatabricksCluster(group=True, single_user_name="ml", written_user="a@b.co"))
    assert (
        finding.field == "singleUserName" and "(a user: 'a@b.co') or dedicatedGroup (a group: 'ml')" in finding.message
    )


# ------------------------------------------------------------------------------------------------- the checklists


def test_the_kaito_checklist_checks_the_cluster_only_when_given() -> None:
    ws = KaitoWorkspaceFacts(name="ws", preset="phi-4", instance_type=A100)
    assert kaito_workspace(ws, today=TODAY) == []
    off = KaitoCluster(addon_enabled=False, workspaces=1, kubernetes_version="1.33")
    with_cluster = KaitoWorkspaceFacts(name="ws", preset="phi-4", instance_type=A100, cluster=off)
    assert [f.field for f in kaito_workspace(with_cluster, today=TODAY)] == ["addon", "kubernetesVersion"]
    assert kaito_workspace(with_cluster, today=TODAY) == kaito_cluster(off)


def test_the_kaito_checklist_runs_the_size_rules_with_the_floor() -> None:
    ws = KaitoWorkspaceFacts(name="ws", preset="phi-4-mini-instruct", instance_type="Standard_NV36ads_A10_v5")
    assert kaito_workspace(ws, today=TODAY) == []
    raised = KaitoWorkspaceFacts(
        name="ws", preset="phi-4-mini-instruct", instance_type="Standard_NV36ads_A10_v5", gpu_floor=A100
    )
    [finding] = kaito_workspace(raised, today=TODAY)
    assert finding.field == "instanceType" and f"below the GPU floor {A100}" in finding.message


def test_the_databricks_checklist_checks_the_runtime_key_for_stack_files_only() -> None:
    cluster = DatabricksCluster(
        node_type=A100,
        declared_gpu=True,
        spark_version="17.3.x-gpu-ml-scala2.12",
        single_user_name="a@b.co",
        data_security_mode="SINGLE_USER",
        num_workers=1,
    )
    assert databricks_cluster(DatabricksClusterFacts(cluster), today=TODAY) == []
    [finding] = databricks_cluster(DatabricksClusterFacts(cluster, stack_runtime_key=True), today=TODAY)
    assert finding.field == "sparkVersion" and "Scala 2.13 only" in finding.message


def test_the_databricks_checklist_holds_workers_and_access() -> None:
    cluster = DatabricksCluster(
        node_type=A100, declared_gpu=True, spark_version="17.3.x-gpu-ml-scala2.13", single_node=True, num_workers=3
    )
    fields = [f.field for f in databricks_cluster(DatabricksClusterFacts(cluster), today=TODAY)]
    assert fields == ["numWorkers", "dataSecurityMode"]
