"""Issue 12: the size rules as an Azure Policy assignment and the Databricks rules as a cluster policy, registered by
the program (inputs as the engine sees them: camelCase wire names), checked in the stack config, in the contract."""

from __future__ import annotations

import json
from typing import Any

import pytest

from components.azure_policy import AksGpuSizePolicy, AksGpuSizePolicyArgs
from components.contract import parse_contract
from components.databricks import DatabricksClusterPolicyArgs
from components.validation import InvalidArgsError
from exports.azure_policy import allowed_sizes, non_compliance_message, policy_rule
from exports.databricks_policy import cluster_policy_definition
from stack_config import StackConfigError
from tests.components.harness import (
    CLIENT_CONFIG_INVOKE,
    DATABRICKS_CLUSTER,
    SUBSCRIPTION_ID,
    merged,
    run_main,
    run_program,
    run_stack,
)
from tests.exports.databricks_policy_eval import api_spec, violations

POLICY_DEFINITION = "azure-native:authorization:PolicyDefinition"
POLICY_ASSIGNMENT = "azure-native:authorization:PolicyAssignment"
CLUSTER_POLICY = "databricks:index/clusterPolicy:ClusterPolicy"
PROD_RG = f"/subscriptions/{SUBSCRIPTION_ID}/resourceGroups/rg-gpu-prod"
BASE: dict[str, Any] = {
    "environment": "dev",
    "location": "westeurope",
    "gpuPools": [{"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "count": 1}],
}
TRAINING = {
    "name": "train",
    "nodeTypeId": "Standard_NC48ads_A100_v4",
    "numWorkers": 2,
    "singleUserName": "ml-platform@contoso.com",
    "tags": {"cost-center": "ml"},
}


@pytest.fixture(scope="module")
def prod() -> Any:
    run = run_stack("prod")
    assert run.error is None, run.error
    return run


def test_prod_registers_the_policy_definition_with_the_generated_rule(prod: Any) -> None:
    definition = prod.one(POLICY_DEFINITION)
    assert definition.parent.endswith("azure-gpu-platform:components:AksGpuSizePolicy::azure-policy")
    inputs = definition.inputs
    assert inputs["policyDefinitionName"] == "agp-aks-gpu-vm-sizes-prod"
    assert inputs["mode"] == "All"
    assert inputs["policyType"] == "Custom"
    assert inputs["policyRule"] == policy_rule()
    assert inputs["parameters"]["effect"] == {
        "type": "String",
        "allowedValues": ["Deny", "Audit", "Disabled"],
        "defaultValue": "Deny",
        "metadata": {
            "displayName": "Effect",
            "description": "Deny refuses the request; Audit reports it (roll out with Audit first).",
        },
    }
    assert inputs["parameters"]["allowedGpuSizes"]["type"] == "Array"
    assert inputs["parameters"]["allowedGpuSizes"]["defaultValue"] == allowed_sizes("Standard_NC6s_v3")
    assert inputs["metadata"]["gpuFloor"] == "Standard_NC6s_v3"
    assert "gpu-size-no-nvv4" in inputs["description"]


def test_prod_assigns_it_to_the_resource_group_with_deny_and_a_message(prod: Any) -> None:
    assignment = prod.one(POLICY_ASSIGNMENT)
    assert assignment.inputs == {
        "policyAssignmentName": "agp-aks-gpu-vm-sizes-prod",
        "scope": PROD_RG,
        "policyDefinitionId": "/mock/azure-native:authorization:PolicyDefinition/azure-policy-definition",
        "displayName": prod.one(POLICY_DEFINITION).inputs["displayName"],
        "description": prod.one(POLICY_DEFINITION).inputs["description"],
        "enforcementMode": "Default",
        "parameters": {"effect": {"value": "Deny"}, "exemptedPools": {"value": []}},  # prod exempts no pool
        "nonComplianceMessages": [{"message": non_compliance_message("Standard_NC6s_v3")}],
        "metadata": {
            "source": "azure-gpu-platform (exports/azure_policy.py)",
            "rules": [
                "gpu-size-no-nvv4",
                "gpu-size-known",
                "gpu-size-not-retired",
                "gpu-size-minimum",
                "gpu-size-aks-supported",
            ],
        },
    }
    # the assignment waits for the definition (its id) and the resource group (the scope); the cluster (and so every
    # GPU pool after it) waits for the assignment: under Deny their PUTs are judged with its exempted pools
    assert any("PolicyDefinition::azure-policy-definition" in d for d in assignment.dependencies)
    assert assignment.urn in prod.one("azure-native:containerservice:ManagedCluster").dependencies


def test_subscription_scope_and_audit() -> None:
    run = run_main(merged(BASE, azurePolicy={"enabled": True, "effect": "Audit", "scope": "subscription"}))
    assert run.error is None, run.error
    assignment = run.one(POLICY_ASSIGNMENT).inputs
    assert assignment["scope"] == f"/subscriptions/{SUBSCRIPTION_ID}"
    assert assignment["parameters"] == {"effect": {"value": "Audit"}, "exemptedPools": {"value": []}}
    assert run.one(POLICY_DEFINITION).inputs["parameters"]["effect"]["defaultValue"] == "Audit"
    assert any(token == CLIENT_CONFIG_INVOKE for token, _ in run.invokes)


def test_an_existing_resource_group_is_looked_up_for_the_scope() -> None:
    run = run_main(merged(BASE, resourceGroup={"name": "rg-shared", "existing": True}, azurePolicy={"enabled": True}))
    assert run.error is None, run.error
    assert run.one(POLICY_ASSIGNMENT).inputs["scope"] == f"/subscriptions/{SUBSCRIPTION_ID}/resourceGroups/rg-shared"
    assert run.one(POLICY_ASSIGNMENT).inputs["parameters"] == {
        "effect": {"value": "Audit"},
        "exemptedPools": {"value": []},
    }


def test_a_raised_floor_goes_into_the_policy() -> None:
    floor = "Standard_NC24ads_A100_v4"
    run = run_main(
        merged(
            BASE,
            gpuPools=[{"name": "a100", "vmSize": floor, "count": 1}],
            policy={"gpu-size-minimum": {"minimumSize": floor}},
            azurePolicy={"enabled": True},
        )
    )
    assert run.error is None, run.error
    allowed = run.one(POLICY_DEFINITION).inputs["parameters"]["allowedGpuSizes"]["defaultValue"]
    assert allowed == allowed_sizes(floor) and "Standard_NC4as_T4_v3" not in allowed


def test_off_by_default() -> None:
    for stack in ("dev", "staging"):
        run = run_stack(stack)
        assert run.error is None, run.error
        assert run.of_type(POLICY_DEFINITION) == [] and run.of_type(POLICY_ASSIGNMENT) == []


@pytest.mark.parametrize(
    ("setting", "path", "words"),
    [
        ({"enabled": True, "effect": "deny"}, "azurePolicy.effect", "'Deny'"),
        ({"enabled": True, "scope": "managementGroup"}, "azurePolicy.scope", "'subscription'"),
        ({"enable": True}, "azurePolicy.enable", "enable"),
    ],
)
def test_bad_azure_policy_config_names_the_key_and_the_allowed_values(
    setting: dict[str, Any], path: str, words: str
) -> None:
    run = run_main(merged(BASE, azurePolicy=setting))
    assert isinstance(run.error, StackConfigError), run.error
    assert run.records == []
    line = next(line for line in str(run.error).splitlines() if f": {path}: " in line)
    assert "stacks/Pulumi.dev.yaml" in line and words in line


def test_args_refuse_what_arm_would() -> None:
    with pytest.raises(InvalidArgsError) as err:
        AksGpuSizePolicyArgs(definition_name="d", assignment_name=" ", effect="Disabled", floor="Standard_X")  # type: ignore[arg-type]
    assert [f.field for f in err.value.findings] == ["assignment_name", "effect", "floor"]

    def program() -> None:
        AksGpuSizePolicy("p", AksGpuSizePolicyArgs(definition_name="d", assignment_name="a"))

    run = run_program(program, config={})
    assert isinstance(run.error, InvalidArgsError)
    assert "resource_group_id" in str(run.error) and run.records == []


# ------------------------------------------------------------------------------------------- Databricks policy


def test_prod_creates_the_cluster_policy_and_its_clusters_reference_it(prod: Any) -> None:
    policy = prod.one(CLUSTER_POLICY)
    definition = cluster_policy_definition(floor="Standard_NC6s_v3", cost_tags=["cost-center"])
    assert policy.inputs["name"] == "gpu-clusters-prod"
    assert json.loads(policy.inputs["definition"]) == definition
    assert policy.inputs["definition"] == json.dumps(definition, sort_keys=True)
    assert "pulumi:providers:databricks::databricks-provider::" in policy.provider
    policy_id = f"/mock/{CLUSTER_POLICY}/databricks-gpu-policy"
    clusters = prod.of_type(DATABRICKS_CLUSTER)
    assert len(clusters) == 2
    for cluster in clusters:
        assert cluster.inputs["policyId"] == policy_id
        assert violations(definition, api_spec(cluster.inputs)) == {}, cluster.name
    assert parse_contract(prod.outputs).databricks.cluster_policy_id == policy_id  # type: ignore[union-attr]
    assert prod.outputs["databricks"]["clusterPolicyId"] == policy_id


def test_without_the_policy_clusters_carry_no_policy_id() -> None:
    run = run_main(merged(BASE, databricks={"workspace": {"name": "dbw-gpu-dev"}, "clusters": [TRAINING]}))
    assert run.error is None, run.error
    assert run.of_type(CLUSTER_POLICY) == []
    assert "policyId" not in run.one(DATABRICKS_CLUSTER).inputs
    assert run.outputs["databricks"]["clusterPolicyId"] is None


def test_group_dedicated_clusters_reference_the_policy_and_pass_it() -> None:
    """Issue 20 defect 6: a group-dedicated cluster (kind CLASSIC_PREVIEW, DATA_SECURITY_MODE_DEDICATED, the DBR
    release key with useMlRuntime) is no longer left without the policy, and its exact request passes it."""
    group = {k: v for k, v in TRAINING.items() if k != "singleUserName"} | {"name": "grp", "dedicatedGroup": "ml"}
    run = run_main(
        merged(
            BASE,
            databricks={
                "workspace": {"name": "dbw-gpu-dev"},
                "clusters": [TRAINING, group],
                "clusterPolicy": {"enabled": True},
            },
        )
    )
    assert run.error is None, run.error
    definition = json.loads(run.one(CLUSTER_POLICY).inputs["definition"])
    by_name = {c.inputs["clusterName"]: c.inputs for c in run.of_type(DATABRICKS_CLUSTER)}
    policy_id = f"/mock/{CLUSTER_POLICY}/databricks-gpu-policy"
    assert by_name["train"]["policyId"] == by_name["grp"]["policyId"] == policy_id
    grp = by_name["grp"]
    assert (grp["kind"], grp["dataSecurityMode"], grp["sparkVersion"], grp["useMlRuntime"]) == (
        "CLASSIC_PREVIEW",
        "DATA_SECURITY_MODE_DEDICATED",
        "17.3.x-scala2.13",
        True,
    )
    for name, inputs in by_name.items():
        assert violations(definition, api_spec(inputs)) == {}, name


def test_a_group_cluster_without_the_cost_tag_is_refused_at_its_key() -> None:
    group = {k: v for k, v in TRAINING.items() if k not in ("singleUserName", "tags")} | {"dedicatedGroup": "ml"}
    run = run_main(
        merged(
            BASE,
            databricks={"workspace": {"name": "dbw-gpu-dev"}, "clusters": [group], "clusterPolicy": {"enabled": True}},
        )
    )
    assert isinstance(run.error, StackConfigError), run.error
    assert run.records == []
    assert run.error.paths == ["databricks.clusters[0].tags"]


def test_a_cluster_without_the_cost_tag_is_refused_at_its_key() -> None:
    untagged = {k: v for k, v in TRAINING.items() if k != "tags"}
    run = run_main(
        merged(
            BASE,
            databricks={
                "workspace": {"name": "dbw-gpu-dev"},
                "clusters": [untagged],
                "clusterPolicy": {"enabled": True},
            },
        )
    )
    assert isinstance(run.error, StackConfigError), run.error
    assert run.records == []
    assert run.error.paths == ["databricks.clusters[0].tags"]
    assert "requires the cost tag(s) cost-center" in str(run.error)
    # the tag on cluster.tags (every cluster gets those) satisfies it
    ok = run_main(
        merged(
            BASE,
            cluster={"tags": {"cost-center": "platform"}},
            databricks={
                "workspace": {"name": "dbw-gpu-dev"},
                "clusters": [untagged],
                "clusterPolicy": {"enabled": True},
            },
        )
    )
    assert ok.error is None, ok.error


@pytest.mark.parametrize(
    ("setting", "path"),
    [
        ({"enabled": True, "costTags": [""]}, "databricks.clusterPolicy.costTags"),
        ({"enabled": True, "costTags": ["a", "a"]}, "databricks.clusterPolicy.costTags"),
        ({"enabled": True, "name": " "}, "databricks.clusterPolicy.name"),
        ({"enabled": True, "tags": ["x"]}, "databricks.clusterPolicy.tags"),
    ],
)
def test_bad_cluster_policy_config(setting: dict[str, Any], path: str) -> None:
    run = run_main(
        merged(
            BASE, databricks={"workspace": {"name": "dbw-gpu-dev"}, "clusters": [TRAINING], "clusterPolicy": setting}
        )
    )
    assert isinstance(run.error, StackConfigError), run.error
    assert path in run.error.paths


def test_cluster_policy_args_check_themselves() -> None:
    with pytest.raises(InvalidArgsError) as err:
        DatabricksClusterPolicyArgs(policy_name="", gpu_floor="Standard_NC1")
    assert [f.field for f in err.value.findings] == ["policy_name", "gpu_floor"]
    # a GB300 floor is met by the GB300 sizes themselves (Databricks "unconfirmed", so not refused)
    assert (
        "Standard_ND128isr_GB300_v6"
        in json.loads(DatabricksClusterPolicyArgs(policy_name="p", gpu_floor="Standard_ND128isr_GB300_v6").definition)[
            "node_type_id"
        ]["values"]
    )
    assert json.loads(DatabricksClusterPolicyArgs(policy_name="p").definition) == cluster_policy_definition()


def test_cluster_policy_args_name_the_field_of_each_problem() -> None:
    """An unknown floor is refused at gpu_floor (its message does not say "floor"), a blank tag at cost_tags, both at
    once; the definition is generated once per Args."""
    with pytest.raises(InvalidArgsError) as err:
        DatabricksClusterPolicyArgs(policy_name="p", gpu_floor="Standard_NC1", cost_tags=("cost-center", " "))
    assert [(f.field, f.message.split(";")[0]) for f in err.value.findings] == [
        ("gpu_floor", "minimumSize 'Standard_NC1' is not a catalog size"),
        ("cost_tags", "cost tags must be non-empty tag names"),
    ]
    with pytest.raises(InvalidArgsError) as err:
        DatabricksClusterPolicyArgs(policy_name="p", cost_tags=("",))
    assert [f.field for f in err.value.findings] == ["cost_tags"]
    args = DatabricksClusterPolicyArgs(policy_name="p", cost_tags=("owner", "cost-center"))
    assert args.definition is args.definition
    assert json.loads(args.definition) == cluster_policy_definition(cost_tags=["owner", "cost-center"])


def test_default_autotermination_is_the_rules_one() -> None:
    from components.databricks import DatabricksGpuClusterArgs
    from rules.databricks import DEFAULT_AUTOTERMINATION
    from stack_config.databricks import DatabricksClusterConfig

    assert DEFAULT_AUTOTERMINATION == 60
    assert cluster_policy_definition()["autotermination_minutes"]["defaultValue"] == DEFAULT_AUTOTERMINATION
    assert DatabricksClusterConfig.model_fields["autoterminationMinutes"].default == DEFAULT_AUTOTERMINATION
    assert DatabricksGpuClusterArgs.__dataclass_fields__["autotermination_minutes"].default == DEFAULT_AUTOTERMINATION
