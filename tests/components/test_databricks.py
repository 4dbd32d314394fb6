"""DatabricksGpuCluster / DatabricksWorkspace / DatabricksGpuClusterPolicy under Pulumi mocks: the exact inputs the
engine receives (camelCase); every cluster's request passes the generated policy it references.

Clusters and workspaces come from stack-config sections through ``composition.wiring`` (as the program builds them),
or from Args written directly (which refuse what the Databricks rules refuse, with their messages)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from components.databricks import (
    DatabricksClusterPolicyArgs,
    DatabricksGpuCluster,
    DatabricksGpuClusterArgs,
    DatabricksWorkspace,
    DatabricksWorkspaceArgs,
    build_databricks,
)
from components.validation import InvalidArgsError
from composition.wiring import databricks_cluster_args, databricks_workspace_args
from stack_config import StackConfig
from stack_config.databricks import (
    DatabricksClusterConfig,
    DatabricksConfig,
    DatabricksWorkspaceConfig,
    cluster_problems,
)
from tests.components.harness import (
    DATABRICKS_CLUSTER,
    DATABRICKS_URL,
    DATABRICKS_WORKSPACE,
    SUBSCRIPTION_ID,
    Run,
    run_program,
)
from tests.exports.databricks_policy_eval import api_spec, violations

RG_ID = f"/subscriptions/{SUBSCRIPTION_ID}/resourceGroups/rg-gpu-prod"
DBX_PROVIDER = "pulumi:providers:databricks"
USER = "ml-platform@contoso.com"
DEV = StackConfig.model_validate({"environment": "dev", "location": "westeurope"})
PROD = StackConfig.model_validate({"environment": "prod", "location": "westeurope"})


def cluster_cfg(**overrides: Any) -> DatabricksClusterConfig:
    base: dict[str, Any] = {
        "name": "ml-training",
        "nodeTypeId": "Standard_NC48ads_A100_v4",
        "numWorkers": 2,
        "singleUserName": USER,
    }
    base.update(overrides)
    return DatabricksClusterConfig.model_validate({k: v for k, v in base.items() if v is not None})


def run_cluster(cfg: DatabricksClusterConfig, tags: dict[str, str] | None = None) -> Run:
    """One cluster in an existing workspace (no Azure resource), under fresh mocks."""

    def program() -> None:
        ws = DatabricksWorkspace("dbx", DatabricksWorkspaceArgs(url=f"https://{DATABRICKS_URL}"))
        DatabricksGpuCluster("dbx-c", databricks_cluster_args(DEV, cfg, tags or {}), provider=ws.provider)

    run = run_program(program, config={})
    assert run.error is None, run.error
    assert run.invokes == [], "node types come from the catalog: no data source (get_node_type) may be called"
    return run


def test_training_on_nc48ads_a100_sets_two_gpus_per_task_and_secure_defaults():
    run = run_cluster(cluster_cfg(), tags={"costCenter": "ml"})
    cluster = run.one(DATABRICKS_CLUSTER)
    assert cluster.inputs == {
        "clusterName": "ml-training",
        "sparkVersion": "17.3.x-gpu-ml-scala2.13",
        "nodeTypeId": "Standard_NC48ads_A100_v4",
        "driverNodeTypeId": "Standard_NC48ads_A100_v4",
        "numWorkers": 2.0,
        "autoterminationMinutes": 60.0,
        "dataSecurityMode": "SINGLE_USER",
        "singleUserName": "ml-platform@contoso.com",
        "runtimeEngine": "STANDARD",
        "sparkConf": {"spark.task.resource.gpu.amount": "2"},
        "customTags": {"costCenter": "ml"},
    }
    assert cluster.provider.startswith(run.one(DBX_PROVIDER).urn + "::")
    assert cluster.parent == run.by_name("dbx-c", "azure-gpu-platform:components:DatabricksGpuCluster").urn


def test_inference_four_tasks_per_gpu_on_one_gpu_size_gives_quarter_gpu():
    cfg = cluster_cfg(
        name="batch-scoring",
        nodeTypeId="Standard_NV36ads_A10_v5",
        workload="inference",
        tasksPerGpu=4,
        numWorkers=None,
        autoscale={"minWorkers": 1, "maxWorkers": 4},
        autoterminationMinutes=30,
        singleUserName="ml-serving@contoso.com",
    )
    inputs = run_cluster(cfg).one(DATABRICKS_CLUSTER).inputs
    assert inputs["sparkConf"] == {"spark.task.resource.gpu.amount": "0.25"}
    assert inputs["autoscale"] == {"minWorkers": 1.0, "maxWorkers": 4.0}
    assert "numWorkers" not in inputs
    assert inputs["autoterminationMinutes"] == 30.0
    assert (inputs["dataSecurityMode"], inputs["singleUserName"]) == ("SINGLE_USER", "ml-serving@contoso.com")
    assert inputs["nodeTypeId"] == inputs["driverNodeTypeId"] == "Standard_NV36ads_A10_v5"
    assert "kind" not in inputs and "useMlRuntime" not in inputs


def test_single_node_has_no_gpu_scheduling_key_and_single_node_profile():
    cfg = cluster_cfg(name="notebook", workload="singleNode", numWorkers=None, nodeTypeId="Standard_NC24ads_A100_v4")
    inputs = run_cluster(cfg).one(DATABRICKS_CLUSTER).inputs
    assert inputs["sparkConf"] == {"spark.databricks.cluster.profile": "singleNode", "spark.master": "local[*, 4]"}
    assert not any("resource.gpu" in k for k in inputs["sparkConf"])
    assert inputs["customTags"] == {"ResourceClass": "SingleNode"}
    assert inputs["numWorkers"] == 0.0
    assert "autoscale" not in inputs


def test_custom_image_with_standard_runtime_and_distinct_driver():
    cfg = cluster_cfg(
        customImage="databricksruntime/gpu-pytorch:cuda11.8",
        sparkVersion="17.3.x-scala2.13",
        driverNodeTypeId="standard_nc24ads_a100_v4",
    )
    inputs = run_cluster(cfg).one(DATABRICKS_CLUSTER).inputs
    assert inputs["dockerImage"] == {"url": "databricksruntime/gpu-pytorch:cuda11.8"}
    assert inputs["sparkVersion"] == "17.3.x-scala2.13"
    assert inputs["driverNodeTypeId"] == "Standard_NC24ads_A100_v4"  # canonical catalog spelling


def test_created_workspace_is_premium_hybrid_no_public_ip_and_provider_is_bound_to_it():
    cfg = DatabricksConfig.model_validate(
        {
            "workspace": {"name": "dbw-gpu-prod", "tags": {"team": "ml"}},
            "clusters": [
                {
                    "name": "ml-training",
                    "nodeTypeId": "Standard_NC48ads_A100_v4",
                    "numWorkers": 2,
                    "singleUserName": USER,
                }
            ],
        }
    )

    def program() -> None:
        tags = {"environment": "prod"}
        build_databricks(
            databricks_workspace_args(PROD, cfg.workspace, tags, RG_ID),
            [databricks_cluster_args(PROD, c, tags) for c in cfg.clusters],
        )

    run = run_program(program, config={})
    assert run.error is None, run.error
    ws = run.one(DATABRICKS_WORKSPACE)
    assert ws.name == "databricks-workspace"
    assert ws.protect is True
    assert ws.inputs == {
        "workspaceName": "dbw-gpu-prod",
        "resourceGroupName": "rg-gpu-prod",
        "location": "westeurope",
        "sku": {"name": "premium"},
        "computeMode": "Hybrid",
        "managedResourceGroupId": f"/subscriptions/{SUBSCRIPTION_ID}/resourceGroups/dbw-gpu-prod-managed-rg",
        "parameters": {"enableNoPublicIp": {"value": True}},
        "tags": {"environment": "prod", "team": "ml"},
    }
    provider = run.one(DBX_PROVIDER)
    assert provider.inputs == {
        "host": f"https://{DATABRICKS_URL}",
        "azureWorkspaceResourceId": f"/mock/{DATABRICKS_WORKSPACE}/databricks-workspace",
    }
    cluster = run.one(DATABRICKS_CLUSTER)
    assert cluster.name == "databricks-ml-training"
    assert cluster.inputs["customTags"] == {"environment": "prod"}
    assert cluster.provider.startswith(provider.urn + "::")


def test_existing_workspace_creates_no_azure_resource():
    def program() -> None:
        ws = DatabricksWorkspaceConfig(url=f"https://{DATABRICKS_URL}/")
        DatabricksWorkspace("dbx", databricks_workspace_args(DEV, ws, {}, RG_ID))

    run = run_program(program, config={})
    assert run.error is None, run.error
    assert run.of_type(DATABRICKS_WORKSPACE) == []
    assert run.one(DBX_PROVIDER).inputs == {"host": f"https://{DATABRICKS_URL}"}


def test_creating_a_workspace_without_resource_group_is_refused_before_registration():
    def program() -> None:
        DatabricksWorkspace("dbx", DatabricksWorkspaceArgs(workspace_name="dbw-gpu"))

    run = run_program(program, config={})
    assert isinstance(run.error, InvalidArgsError)
    assert "resource_group_name: creating a workspace needs the resource group it goes in" in str(run.error)
    assert "managed_resource_group_name: creating a workspace needs" in str(run.error)
    assert run.records == []


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"node_type_id": "Standard_D4s_v5"}, "node_type_id: Standard_D4s_v5 is not a GPU node type"),
        ({"node_type_id": "Standard_NV32as_v4"}, "node_type_id: Standard_NV32as_v4 is an NVv4 size"),
        ({"spark_version": "17.3.x-scala2.13"}, "spark_version: 17.3.x-scala2.13 is not a GPU ML runtime"),
        ({"spark_version": "17.3.x-photon-scala2.13"}, "spark_version: 17.3.x-photon-scala2.13 is a Photon runtime"),
        ({"data_security_mode": "USER_ISOLATION"}, "data_security_mode: a GPU cluster needs dedicated access"),
        (
            {"spark_conf": {"spark.task.resource.gpu.amount": "0.75"}},
            "spark_conf: 0.75 is neither ≤ 0.5 nor a whole number",
        ),
    ],
)
def test_cluster_args_refuse_what_the_databricks_rules_refuse(fields: dict[str, Any], expected: str):
    # Written directly (no stack file): the same rules as the policy pack, on the request the provider would get.
    def program() -> None:
        base: dict[str, Any] = {"cluster_name": "ml", "node_type_id": "Standard_NC24ads_A100_v4", "num_workers": 1}
        DatabricksGpuClusterArgs(**{**base, "single_user_name": USER, **fields})

    run = run_program(program, config={})
    assert isinstance(run.error, InvalidArgsError), run.error
    assert str(run.error).startswith("DatabricksGpuCluster 'ml'")
    assert expected in str(run.error)
    assert run.records == []


def test_cluster_config_is_validated_before_the_component_exists():
    assert [
        (key, "photon must be false" in message) for key, message in cluster_problems(cluster_cfg(photon=True))
    ] == [("photon", True)]


def test_group_principal_sends_kind_dedicated_mode_plain_release_and_ml_runtime():
    cfg = cluster_cfg(singleUserName=None, dedicatedGroup="ml-platform")
    assert run_cluster(cfg).one(DATABRICKS_CLUSTER).inputs == {
        "clusterName": "ml-training",
        "kind": "CLASSIC_PREVIEW",
        "sparkVersion": "17.3.x-scala2.13",
        "useMlRuntime": True,
        "nodeTypeId": "Standard_NC48ads_A100_v4",
        "driverNodeTypeId": "Standard_NC48ads_A100_v4",
        "numWorkers": 2.0,
        "autoterminationMinutes": 60.0,
        "dataSecurityMode": "DATA_SECURITY_MODE_DEDICATED",
        "singleUserName": "ml-platform",
        "runtimeEngine": "STANDARD",
        "sparkConf": {"spark.task.resource.gpu.amount": "2"},
    }


def test_single_node_group_cluster_uses_is_single_node_instead_of_the_profile():
    cfg = cluster_cfg(
        name="notebook",
        workload="singleNode",
        numWorkers=None,
        nodeTypeId="Standard_NC24ads_A100_v4",
        singleUserName=None,
        dedicatedGroup="ml-platform",
    )
    inputs = run_cluster(cfg).one(DATABRICKS_CLUSTER).inputs
    assert (inputs["kind"], inputs["isSingleNode"], inputs["numWorkers"]) == ("CLASSIC_PREVIEW", True, 0.0)
    assert "sparkConf" not in inputs and "customTags" not in inputs


def test_a_cluster_without_a_principal_never_reaches_the_engine():
    assert [
        key
        for key, message in cluster_problems(cluster_cfg(singleUserName=None))
        if "singleUserName is required" in message
    ] == ["singleUserName"]


POLICY_RESOURCE = "databricks:index/clusterPolicy:ClusterPolicy"
POLICY_ID = f"/mock/{POLICY_RESOURCE}/databricks-gpu-policy"
COST = {"cost-center": "ml-research"}


def run_with_policy(*cfgs: DatabricksClusterConfig, cost_tags: tuple[str, ...] = ("cost-center",)) -> Run:
    """Clusters from stack-config entries in an existing workspace, with the generated cluster policy."""

    def program() -> None:
        build_databricks(
            DatabricksWorkspaceArgs(url=f"https://{DATABRICKS_URL}"),
            [databricks_cluster_args(DEV, c, COST) for c in cfgs],
            cluster_policy=DatabricksClusterPolicyArgs(policy_name="gpu-clusters-dev", cost_tags=cost_tags),
        )

    return run_program(program, config={})


SHAPES = {
    "user": cluster_cfg(name="user"),
    "group": cluster_cfg(name="group", singleUserName=None, dedicatedGroup="ml-platform"),
    "group-single-node": cluster_cfg(
        name="group-single-node",
        workload="singleNode",
        numWorkers=None,
        nodeTypeId="Standard_NC24ads_A100_v4",
        singleUserName=None,
        dedicatedGroup="ml-platform",
    ),
    "user-single-node": cluster_cfg(
        name="user-single-node", workload="singleNode", numWorkers=None, nodeTypeId="Standard_NC24ads_A100_v4"
    ),
    "custom-image": cluster_cfg(
        name="custom-image", customImage="databricksruntime/gpu-pytorch:cuda11.8", sparkVersion="17.3.x-scala2.13"
    ),
}


def test_every_cluster_references_the_policy_and_the_policy_admits_the_exact_request():
    """Each request shape the components send (a user's, a group's — kind CLASSIC_PREVIEW, the DBR release key,
    useMlRuntime —, single node, custom container) carries the wire policyId and passes the policy definition on the
    wire, evaluated on the request exactly as the engine received it (tests/exports/databricks_policy_eval.py)."""
    run = run_with_policy(*SHAPES.values())
    assert run.error is None, run.error
    policy = run.one(POLICY_RESOURCE)
    definition = json.loads(policy.inputs["definition"])
    for name in SHAPES:
        inputs = run.by_name(f"databricks-{name}", DATABRICKS_CLUSTER).inputs
        assert inputs["policyId"] == POLICY_ID, name
        assert violations(definition, api_spec(inputs)) == {}, name


def test_the_group_cluster_sends_its_policy_id_on_the_wire():
    run = run_with_policy(SHAPES["group"])
    assert run.error is None, run.error
    assert run.one(DATABRICKS_CLUSTER).inputs == {
        "clusterName": "group",
        "kind": "CLASSIC_PREVIEW",
        "sparkVersion": "17.3.x-scala2.13",
        "useMlRuntime": True,
        "nodeTypeId": "Standard_NC48ads_A100_v4",
        "driverNodeTypeId": "Standard_NC48ads_A100_v4",
        "numWorkers": 2.0,
        "autoterminationMinutes": 60.0,
        "dataSecurityMode": "DATA_SECURITY_MODE_DEDICATED",
        "singleUserName": "ml-platform",
        "runtimeEngine": "STANDARD",
        "sparkConf": {"spark.task.resource.gpu.amount": "2"},
        "customTags": {"cost-center": "ml-research"},
        "policyId": POLICY_ID,
    }
    definition = json.loads(run.one(POLICY_RESOURCE).inputs["definition"])
    assert definition["data_security_mode"] == {
        "type": "allowlist",
        "values": ["SINGLE_USER", "DATA_SECURITY_MODE_DEDICATED"],
        "defaultValue": "SINGLE_USER",
    }
    # The policy of the one shape the stack's clusters use (kind): closed against a standard runtime.
    assert definition["use_ml_runtime"] == {"type": "fixed", "value": True, "hidden": True}
    assert definition["kind"] == {"type": "fixed", "value": "CLASSIC_PREVIEW", "hidden": True}
    assert definition["spark_version"]["pattern"].endswith(r"\.x-scala(2\.1[23])$")


def test_the_policy_is_closed_for_the_shape_the_clusters_share():
    """Mixed shapes get the any policy (no kind / use_ml_runtime limits); a classic-only stack the gpu-ml one."""
    mixed = json.loads(run_with_policy(*SHAPES.values()).one(POLICY_RESOURCE).inputs["definition"])
    assert not {"kind", "use_ml_runtime", "docker_image.url"} & set(mixed)
    assert mixed["spark_version"]["pattern"].endswith(r"\.x-(?:gpu-ml-)?scala(2\.1[23])$")
    user = run_with_policy(SHAPES["user"])
    classic = json.loads(user.one(POLICY_RESOURCE).inputs["definition"])
    assert classic["use_ml_runtime"] == {"type": "forbidden", "hidden": True}
    assert classic["spark_version"]["pattern"].endswith(r"\.x-gpu-ml-scala(2\.1[23])$")
    assert (
        "GPU ML runtime keys of supported releases (no kind, no custom container)"
        in (user.one(POLICY_RESOURCE).inputs["description"])
    )


def test_a_group_cluster_without_the_cost_tag_is_refused_before_registration():
    run = run_with_policy(SHAPES["group"], cost_tags=("cost-center", "owner"))
    assert isinstance(run.error, InvalidArgsError), run.error
    assert str(run.error) == (
        "DatabricksGpuCluster 'group': invalid arguments (1 problem; nothing was registered):\n"
        "  tags: the cluster policy 'gpu-clusters-dev' requires the cost tag(s) owner: add them to the cluster's tags"
    )
    assert run.records == []


def test_a_cluster_the_policy_would_refuse_is_refused_before_registration():
    """Args written directly, with a floor below the policy's: the node type is not on the policy's allowlist."""

    def program() -> None:
        args = DatabricksGpuClusterArgs(
            cluster_name="ml",
            node_type_id="Standard_NV36ads_A10_v5",
            single_user_name=USER,
            num_workers=1,
            tags=COST,
        )
        build_databricks(
            DatabricksWorkspaceArgs(url=f"https://{DATABRICKS_URL}"),
            [args],
            cluster_policy=DatabricksClusterPolicyArgs(policy_name="gpu", gpu_floor="Standard_NC24ads_A100_v4"),
        )

    run = run_program(program, config={})
    assert isinstance(run.error, InvalidArgsError), run.error
    assert "node_type_id: Standard_NV36ads_A10_v5 is not on the cluster policy's node type allowlist: " in str(
        run.error
    )
    assert run.records == []
