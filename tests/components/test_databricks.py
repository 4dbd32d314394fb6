"""DatabricksGpuCluster / DatabricksWorkspace under Pulumi mocks: the exact inputs the engine receives (camelCase)."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi.runtime import settings

from components.databricks import DatabricksGpuCluster, DatabricksWorkspace, build_databricks
from components.databricks_config import DatabricksClusterConfig, DatabricksConfig, DatabricksWorkspaceConfig

RG_ID = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-gpu-prod"
WS_URL = "adb-1234567890123456.7.azuredatabricks.net"


class RecordingMocks(pulumi.runtime.Mocks):
    """Records every registered resource; the workspace gets a plausible URL, clusters a cluster id."""

    def __init__(self) -> None:
        self.resources: list[pulumi.runtime.MockResourceArgs] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        self.resources.append(args)
        outputs = dict(args.inputs)
        if args.typ == "azure-native:databricks:Workspace":
            outputs["workspaceUrl"] = WS_URL
            return f"{RG_ID}/providers/Microsoft.Databricks/workspaces/{args.inputs['workspaceName']}", outputs
        if args.typ == "databricks:index/cluster:Cluster":
            return "0101-120000-abcd1234", {**outputs, "url": "https://example/#setting/clusters/0101-120000-abcd1234"}
        return f"{args.name}-id", outputs

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        raise AssertionError(f"unexpected invoke {args.token}: Databricks components must not call data sources")

    def of_type(self, typ: str) -> list[pulumi.runtime.MockResourceArgs]:
        return [r for r in self.resources if r.typ == typ]


def use_mocks() -> RecordingMocks:
    """Fresh mocks and a clean slate (no root resource, no leftover RPCs or outputs from an earlier run)."""
    mocks = RecordingMocks()
    settings.ROOT.set(None)
    state: Any = settings.SETTINGS
    state.rpc_manager.clear()
    state.outputs.clear()
    pulumi.runtime.set_mocks(mocks, project="azure-gpu-platform", stack="test", preview=False)
    return mocks


def cluster_cfg(**overrides: Any) -> DatabricksClusterConfig:
    base: dict[str, Any] = {"name": "ml-training", "nodeTypeId": "Standard_NC48ads_A100_v4", "numWorkers": 2}
    base.update(overrides)
    return DatabricksClusterConfig.model_validate(base)


def the_cluster(mocks: RecordingMocks) -> dict[str, Any]:
    [cluster] = mocks.of_type("databricks:index/cluster:Cluster")
    return cluster.inputs


def with_existing_workspace(mocks: RecordingMocks, cfg: DatabricksClusterConfig, **kw: Any) -> pulumi.Output[Any]:
    ws = DatabricksWorkspace("dbx", DatabricksWorkspaceConfig(url=f"https://{WS_URL}"))
    cluster = DatabricksGpuCluster("dbx-c", cfg, provider=ws.provider, **kw)
    return cluster.cluster_id


@pulumi.runtime.test
def test_training_on_nc48ads_a100_sets_two_gpus_per_task_and_secure_defaults():
    mocks = use_mocks()
    out = with_existing_workspace(mocks, cluster_cfg(), tags={"costCenter": "ml"})

    def check(cluster_id: str) -> None:
        assert cluster_id == "0101-120000-abcd1234"
        assert the_cluster(mocks) == {
            "clusterName": "ml-training",
            "sparkVersion": "15.4.x-gpu-ml-scala2.12",
            "nodeTypeId": "Standard_NC48ads_A100_v4",
            "driverNodeTypeId": "Standard_NC48ads_A100_v4",
            "numWorkers": 2.0,
            "autoterminationMinutes": 60.0,
            "dataSecurityMode": "SINGLE_USER",
            "runtimeEngine": "STANDARD",
            "sparkConf": {"spark.task.resource.gpu.amount": "2"},
            "customTags": {"costCenter": "ml"},
        }

    return out.apply(check)


@pulumi.runtime.test
def test_inference_four_tasks_per_gpu_on_one_gpu_size_gives_quarter_gpu():
    mocks = use_mocks()
    cfg = cluster_cfg(
        name="batch-scoring",
        nodeTypeId="Standard_NC4as_T4_v3",
        workload="inference",
        tasksPerGpu=4,
        numWorkers=None,
        autoscale={"minWorkers": 1, "maxWorkers": 4},
        autoterminationMinutes=30,
        singleUserName="ml-platform@contoso.com",
    )
    out = with_existing_workspace(mocks, cfg)

    def check(_: str) -> None:
        inputs = the_cluster(mocks)
        assert inputs["sparkConf"] == {"spark.task.resource.gpu.amount": "0.25"}
        assert inputs["autoscale"] == {"minWorkers": 1.0, "maxWorkers": 4.0}
        assert "numWorkers" not in inputs
        assert inputs["autoterminationMinutes"] == 30.0
        assert inputs["singleUserName"] == "ml-platform@contoso.com"
        assert inputs["nodeTypeId"] == inputs["driverNodeTypeId"] == "Standard_NC4as_T4_v3"

    return out.apply(check)


@pulumi.runtime.test
def test_single_node_has_no_gpu_scheduling_key_and_single_node_profile():
    mocks = use_mocks()
    cfg = cluster_cfg(name="notebook", workload="singleNode", numWorkers=None, nodeTypeId="Standard_NC24ads_A100_v4")
    out = with_existing_workspace(mocks, cfg)

    def check(_: str) -> None:
        inputs = the_cluster(mocks)
        assert inputs["sparkConf"] == {"spark.databricks.cluster.profile": "singleNode", "spark.master": "local[*, 4]"}
        assert not any("resource.gpu" in k for k in inputs["sparkConf"])
        assert inputs["customTags"] == {"ResourceClass": "SingleNode"}
        assert inputs["numWorkers"] == 0.0
        assert "autoscale" not in inputs

    return out.apply(check)


@pulumi.runtime.test
def test_custom_image_with_standard_runtime_and_distinct_driver():
    mocks = use_mocks()
    cfg = cluster_cfg(
        customImage="databricksruntime/gpu-pytorch:cuda11.8",
        sparkVersion="15.4.x-scala2.12",
        driverNodeTypeId="standard_nc24ads_a100_v4",
    )
    out = with_existing_workspace(mocks, cfg)

    def check(_: str) -> None:
        inputs = the_cluster(mocks)
        assert inputs["dockerImage"] == {"url": "databricksruntime/gpu-pytorch:cuda11.8"}
        assert inputs["sparkVersion"] == "15.4.x-scala2.12"
        assert inputs["driverNodeTypeId"] == "Standard_NC24ads_A100_v4"  # canonical catalog spelling

    return out.apply(check)


@pulumi.runtime.test
def test_created_workspace_is_premium_hybrid_no_public_ip_and_provider_is_bound_to_it():
    mocks = use_mocks()
    cfg = DatabricksConfig.model_validate(
        {
            "workspace": {"name": "dbw-gpu-prod", "tags": {"team": "ml"}},
            "clusters": [{"name": "ml-training", "nodeTypeId": "Standard_NC48ads_A100_v4", "numWorkers": 2}],
        }
    )
    dep = build_databricks(
        cfg,
        resource_group_name="rg-gpu-prod",
        resource_group_id=RG_ID,
        location="westeurope",
        tags={"environment": "prod"},
        protect=True,
    )

    def check(args: list[Any]) -> None:
        url, ids = args
        assert url == f"https://{WS_URL}"
        assert ids == {"ml-training": "0101-120000-abcd1234"}
        [ws] = mocks.of_type("azure-native:databricks:Workspace")
        assert ws.name == "databricks-workspace"
        assert ws.inputs == {
            "workspaceName": "dbw-gpu-prod",
            "resourceGroupName": "rg-gpu-prod",
            "location": "westeurope",
            "sku": {"name": "premium"},
            "computeMode": "Hybrid",
            "managedResourceGroupId": (
                "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/dbw-gpu-prod-managed-rg"
            ),
            "parameters": {"enableNoPublicIp": {"value": True}},
            "tags": {"environment": "prod", "team": "ml"},
        }
        [provider] = mocks.of_type("pulumi:providers:databricks")
        assert provider.inputs["host"] == f"https://{WS_URL}"
        assert provider.inputs["azureWorkspaceResourceId"].endswith("/workspaces/dbw-gpu-prod")
        cluster = the_cluster(mocks)
        assert cluster["customTags"] == {"environment": "prod"}

    return pulumi.Output.all(dep.url, pulumi.Output.all(**dep.cluster_ids())).apply(check)


@pulumi.runtime.test
def test_existing_workspace_creates_no_azure_resource():
    mocks = use_mocks()
    ws = DatabricksWorkspace("dbx", DatabricksWorkspaceConfig(url=f"https://{WS_URL}/"))

    def check(args: list[Any]) -> None:
        url, _provider_id = args
        assert url == f"https://{WS_URL}"
        assert mocks.of_type("azure-native:databricks:Workspace") == []
        [provider] = mocks.of_type("pulumi:providers:databricks")
        assert provider.inputs["host"] == f"https://{WS_URL}"

    return pulumi.Output.all(ws.url, ws.provider.id).apply(check)


def test_creating_a_workspace_without_resource_group_is_refused():
    use_mocks()
    with pytest.raises(ValueError, match=r"databricks\.workspace\.name: creating a workspace needs"):
        DatabricksWorkspace("dbx", DatabricksWorkspaceConfig(name="dbw-gpu"))
