"""Databricks in the platform: stack config → workspace + provider + GPU clusters → contract → policy pack."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from components.contract import parse_contract
from components.databricks import managed_resource_group_id
from stack_config import StackConfigError
from tests.components.harness import (
    DATABRICKS_CLUSTER,
    DATABRICKS_URL,
    DATABRICKS_WORKSPACE,
    RESOURCE_GROUP,
    SUBSCRIPTION_ID,
    merged,
    run_main,
    run_stack,
)
from tests.components.test_stacks_policy_pack import check, recorded
from tests.shared_runs import preflight_in_process

TRAINING = {
    "name": "train",
    "nodeTypeId": "Standard_NC48ads_A100_v4",
    "numWorkers": 2,
    "singleUserName": "ml-platform@contoso.com",
}
BASE: dict[str, Any] = {
    "environment": "dev",
    "location": "westeurope",
    "gpuPools": [{"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "count": 1}],
    "databricks": {"workspace": {"name": "dbw-gpu-dev"}, "clusters": [TRAINING]},
}
DBX_PROVIDER = "pulumi:providers:databricks"


def config(**top: Any) -> dict[str, Any]:
    return merged(BASE, **top)


def test_workspace_in_the_stack_resource_group_and_cluster_on_its_provider():
    run = run_main(config())
    assert run.error is None, run.error
    rg = run.one(RESOURCE_GROUP)
    ws = run.one(DATABRICKS_WORKSPACE)
    assert ws.inputs == {
        "workspaceName": "dbw-gpu-dev",
        "resourceGroupName": "rg-gpu-dev",
        "location": "westeurope",
        "sku": {"name": "premium"},
        "computeMode": "Hybrid",
        "managedResourceGroupId": f"/subscriptions/{SUBSCRIPTION_ID}/resourceGroups/dbw-gpu-dev-managed-rg",
        "parameters": {"enableNoPublicIp": {"value": True}},
        "tags": {"environment": "dev", "managed-by": "pulumi:azure-gpu-platform"},
    }
    assert rg.urn in ws.dependencies
    assert ws.protect is False  # dev
    provider = run.one(DBX_PROVIDER)
    assert provider.inputs["host"] == f"https://{DATABRICKS_URL}"
    cluster = run.one(DATABRICKS_CLUSTER)
    assert cluster.provider.startswith(provider.urn + "::")
    assert cluster.inputs["sparkConf"] == {"spark.task.resource.gpu.amount": "2"}
    assert cluster.inputs["dataSecurityMode"] == "SINGLE_USER"
    assert cluster.inputs["singleUserName"] == "ml-platform@contoso.com"
    assert cluster.inputs["sparkVersion"] == "17.3.x-gpu-ml-scala2.13"
    assert cluster.inputs["runtimeEngine"] == "STANDARD"
    assert cluster.inputs["autoterminationMinutes"] == 60.0
    assert cluster.inputs["customTags"] == {"environment": "dev", "managed-by": "pulumi:azure-gpu-platform"}


def test_existing_workspace_by_url_creates_only_the_provider_and_clusters():
    run = run_main(
        config(databricks={"workspace": {"url": "https://adb-42.3.azuredatabricks.net"}, "clusters": [TRAINING]})
    )
    assert run.error is None, run.error
    assert run.of_type(DATABRICKS_WORKSPACE) == []
    assert run.one(DBX_PROVIDER).inputs == {"host": "https://adb-42.3.azuredatabricks.net"}
    assert run.outputs["databricks"]["workspaceUrl"] == "https://adb-42.3.azuredatabricks.net"


def test_prod_protects_the_workspace_and_exports_cluster_ids():
    run = run_stack("prod")
    assert run.error is None, run.error
    assert run.one(DATABRICKS_WORKSPACE).protect is True
    assert [c.protect for c in run.of_type(DATABRICKS_CLUSTER)] == [False, False]
    contract = parse_contract(run.outputs)
    assert contract.databricks is not None
    assert contract.databricks.workspace_url == f"https://{DATABRICKS_URL}"
    train = contract.databricks.clusters["ml-training"]
    assert train.cluster_id == f"/mock/{DATABRICKS_CLUSTER}/databricks-ml-training"  # the mock's resource id
    assert (train.node_type_id, train.gpus_per_worker, train.workload) == ("Standard_NC48ads_A100_v4", 2, "training")
    assert train.spark_version == "17.3.x-gpu-ml-scala2.13"
    training = run.by_name("databricks-ml-training", DATABRICKS_CLUSTER).inputs
    assert training["autoscale"] == {"minWorkers": 1.0, "maxWorkers": 4.0}
    assert (training["dataSecurityMode"], training["singleUserName"]) == ("SINGLE_USER", "ml-platform@contoso.com")
    assert training["sparkConf"] == {"spark.task.resource.gpu.amount": "2"}


def test_prod_batch_inference_cluster_shares_each_a10_between_four_tasks():
    run = run_stack("prod")
    assert run.error is None, run.error
    inputs = run.by_name("databricks-batch-inference", DATABRICKS_CLUSTER).inputs
    assert inputs == {
        "clusterName": "batch-inference",
        "sparkVersion": "17.3.x-gpu-ml-scala2.13",
        "nodeTypeId": "Standard_NV36ads_A10_v5",
        "driverNodeTypeId": "Standard_NV36ads_A10_v5",
        "autoscale": {"minWorkers": 1.0, "maxWorkers": 2.0},
        "autoterminationMinutes": 30.0,
        "dataSecurityMode": "SINGLE_USER",
        "singleUserName": "ml-inference@contoso.com",
        "runtimeEngine": "STANDARD",
        "sparkConf": {"spark.task.resource.gpu.amount": "0.25"},
        "customTags": {
            "environment": "prod",
            "managed-by": "pulumi:azure-gpu-platform",
            "cost-center": "ml-inference",
        },
        "policyId": "/mock/databricks:index/clusterPolicy:ClusterPolicy/databricks-gpu-policy",  # clusterPolicy
    }
    scoring = parse_contract(run.outputs).databricks.clusters["batch-inference"]  # type: ignore[union-attr]
    assert (scoring.workload, scoring.tasks_per_gpu, scoring.gpus_per_worker) == ("inference", 4, 1)


def test_stacks_without_databricks_export_null():
    for stack in ("dev", "staging"):
        run = run_stack(stack)
        assert run.error is None, run.error
        assert run.outputs["databricks"] is None
        assert parse_contract(run.outputs).databricks is None
        assert run.of_type(DATABRICKS_CLUSTER) == [] and run.of_type(DBX_PROVIDER) == []


@pytest.mark.parametrize(
    ("cluster", "path", "expected"),
    [
        ({"nodeTypeId": "Standard_D16s_v5"}, "databricks.clusters[0].nodeTypeId", "is not a GPU node type"),
        ({"photon": True}, "databricks.clusters[0].photon", "Photon does not run on GPU instance types"),
        (
            {"workload": "inference", "tasksPerGpu": 1.5},
            "databricks.clusters[0].tasksPerGpu",
            "tasksPerGpu must be a whole number ≥ 2, got 1.5",
        ),
        (
            {"customImage": "databricksruntime/gpu-pytorch:cuda11.8"},
            "databricks.clusters[0].sparkVersion",
            "is an ML runtime, but customImage",
        ),
        ({"sparkVersion": "17.3.x-gpu-ml-scala2.12"}, "databricks.clusters[0].sparkVersion", "Scala 2.13 only"),
        ({"runtimeEngine": "PHOTON"}, "databricks.clusters[0].runtimeEngine", "unknown key"),
        ({"singleUserName": None}, "databricks.clusters[0].singleUserName", "singleUserName is required"),
        (
            {"singleUserName": None, "dedicatedGroup": "ml-platform", "sparkVersion": "14.3.x-gpu-ml-scala2.12"},
            "databricks.clusters[0].dedicatedGroup",
            "dedicatedGroup needs Databricks Runtime 15.4 or above",
        ),
        (
            {"nodeTypeId": "Standard_NV24ads_V710_v5"},
            "databricks.clusters[0].nodeTypeId",
            "not offered by Azure Databricks",
        ),
    ],
)
def test_invalid_databricks_config_stops_the_program_before_any_registration(
    cluster: dict[str, Any], path: str, expected: str
):
    merged_cluster = {k: v for k, v in {**TRAINING, **cluster}.items() if v is not None}
    run = run_main(config(databricks={"workspace": {"name": "dbw-gpu-dev"}, "clusters": [merged_cluster]}))
    assert isinstance(run.error, StackConfigError), run.error
    assert run.records == [], "nothing may be registered when the config is invalid"
    assert path in run.error.paths
    line = next(line for line in str(run.error).splitlines() if f": {path}: " in line)
    assert "stacks/Pulumi.dev.yaml" in line
    assert expected in line


def test_raised_floor_applies_to_databricks_node_types():
    run = run_main(
        config(
            databricks={
                "workspace": {"name": "dbw-gpu-dev"},
                "clusters": [{**TRAINING, "nodeTypeId": "Standard_NV36ads_A10_v5"}],
            },
            policy={"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}},
            gpuPools=[{"name": "a100", "vmSize": "Standard_NC24ads_A100_v4", "count": 1}],
        )
    )
    assert isinstance(run.error, StackConfigError), run.error
    assert run.error.paths == ["databricks.clusters[0].nodeTypeId"]


def test_managed_resource_group_id_needs_an_arm_id():
    with pytest.raises(ValueError, match="expected an Azure resource id"):
        managed_resource_group_id(None, "mrg")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="expected an Azure resource id"):
        managed_resource_group_id("/mock/rg", "mrg")
    assert managed_resource_group_id(f"/subscriptions/{SUBSCRIPTION_ID}/resourceGroups/rg", "m") == (
        f"/subscriptions/{SUBSCRIPTION_ID}/resourceGroups/m"
    )


@pytest.mark.slow
def test_the_pack_checks_the_databricks_cluster_of_prod_over_the_wire():
    """prod passes (test_stacks_policy_pack); the same resources with Photon on the training cluster do not."""
    resources = recorded(run_stack("prod"))
    mutated = [
        dataclasses.replace(res, inputs={**copy.deepcopy(res.inputs), "runtimeEngine": "PHOTON"})
        if res.type == DATABRICKS_CLUSTER and res.urn.endswith("::databricks-ml-training")
        else res
        for res in resources
    ]
    result = check("prod", mutated)
    photon = [v for v in result.mandatory if v.policy_name == "databricks-gpu-no-photon"]
    assert len(photon) == 1, [f"{v.policy_name}: {v.message}" for v in result.violations]
    assert photon[0].urn.endswith("databricks:index/cluster:Cluster::databricks-ml-training")


SHARED_STACK = """\
config:
  azure-native:location: westeurope
  azure-gpu-platform:environment: shared
  azure-gpu-platform:location: westeurope
  azure-gpu-platform:resourceGroup: {name: rg-shared, existing: true}
  azure-gpu-platform:cluster: {access: {deployerPrincipalType: ServicePrincipal}}
  azure-gpu-platform:databricks:
    workspace: {name: dbw-shared}
    clusters:
      - {name: scoring, nodeTypeId: Standard_NV36ads_A10_v5, workload: inference, tasksPerGpu: 4, numWorkers: 1,
         singleUserName: ml-inference@contoso.com}
"""


@pytest.mark.slow
def test_existing_resource_group_end_to_end_through_the_preflight(tmp_path: Path):
    """An existing resource group is looked up (getResourceGroup) for the managed group's subscription; the offline
    preflight answers that invoke, builds the stack and passes the pack."""
    stack_file = tmp_path / "Pulumi.shared.yaml"
    stack_file.write_text(SHARED_STACK, encoding="utf-8")
    report = tmp_path / "report.json"
    run = preflight_in_process("--config-file", str(stack_file), "--format", "json", "--output", str(report))
    assert run.code == 0, run.stdout + run.stderr
    doc = json.loads(report.read_text(encoding="utf-8"))
    by_type = {r["type"]: r for r in doc["resources"]}
    ws = by_type[DATABRICKS_WORKSPACE]["inputs"]
    assert ws["resourceGroupName"] == "rg-shared"
    assert re.fullmatch(
        r"/subscriptions/[0-9a-f-]{36}/resourceGroups/dbw-shared-managed-rg", ws["managedResourceGroupId"]
    )
    assert by_type[DATABRICKS_CLUSTER]["inputs"]["sparkConf"] == {"spark.task.resource.gpu.amount": "0.25"}
    assert RESOURCE_GROUP not in by_type
    # no mandatory violation; the minimal cluster is warned about Microsoft's built-in AKS definitions it leaves off
    assert sorted((v["policyName"], v["enforcementLevel"]) for v in doc["violations"]) == [
        ("aks-control-plane-logs", "advisory"),
        ("aks-image-cleaner-enabled", "advisory"),
        ("aks-node-ssh-disabled", "advisory"),
        ("aks-run-command-disabled", "advisory"),
    ]
