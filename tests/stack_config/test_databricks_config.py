"""DatabricksConfig: a compliant baseline, one change, one expected rejection naming the key."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from stack_config.databricks import (
    DatabricksClusterConfig,
    DatabricksConfig,
    DatabricksWorkspaceConfig,
    cluster_problems,
    task_gpu_amount,
)

USER = "ml-platform@contoso.com"
BASE_CLUSTER: dict[str, Any] = {
    "name": "ml-training",
    "nodeTypeId": "Standard_NC48ads_A100_v4",
    "numWorkers": 2,
    "singleUserName": USER,
}


DATABRICKS_SIZES = (
    "Standard_NC24ads_A100_v4, Standard_NC40ads_H100_v5, Standard_NC48ads_A100_v4, Standard_NC80adis_H100_v5, "
    "Standard_NC96ads_A100_v4, Standard_ND96asr_v4, Standard_ND96isr_H100_v5, Standard_NV36adms_A10_v5, "
    "Standard_NV36ads_A10_v5, Standard_NV72ads_A10_v5"
)


NOT_GPU = (
    "{size} is not a GPU node type: a GPU cluster needs GPU node types for its workers and its driver (the GPU ML "
    f"runtime's CUDA libraries do not run on a CPU node). Allowed: {DATABRICKS_SIZES}"
)


def stack(**cluster_overrides: Any) -> dict[str, Any]:
    cluster = {**BASE_CLUSTER, **cluster_overrides}
    cluster = {k: v for k, v in cluster.items() if v is not None}
    return {"workspace": {"name": "dbw-gpu-prod"}, "clusters": [cluster]}


def rejection(data: dict[str, Any]) -> tuple[tuple[str | int, ...], str]:
    """The one problem of ``data``: a key's own shape (the model) or a rule relating keys (cluster_problems)."""
    try:
        cfg = DatabricksConfig.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        assert len(errors) == 1, errors
        return tuple(errors[0]["loc"]), errors[0]["msg"]
    found = [(("clusters", i, key), msg) for i, c in enumerate(cfg.clusters) for key, msg in cluster_problems(c)]
    assert len(found) == 1, found
    return found[0][0], "Value error, " + found[0][1]


def test_baseline_is_valid_with_defaults():
    cfg = DatabricksConfig.model_validate(stack())
    [c] = cfg.clusters
    assert c.sparkVersion == "17.3.x-gpu-ml-scala2.13"  # 17.3 LTS ML (GPU)
    assert c.api_spark_version == "17.3.x-gpu-ml-scala2.13"
    assert (c.data_security_mode, c.principal, c.kind, c.use_ml_runtime) == ("SINGLE_USER", USER, None, None)
    assert c.workload == "training"
    assert c.autoterminationMinutes == 60
    assert c.photon is False
    assert c.driver_node_type == "Standard_NC48ads_A100_v4"
    assert c.gpu_spark_conf() == {"spark.task.resource.gpu.amount": "2"}
    assert cfg.workspace.managed_resource_group_name == "dbw-gpu-prod-managed-rg"


def test_cpu_node_type_is_rejected():
    loc, msg = rejection(stack(nodeTypeId="Standard_D16s_v5"))
    assert loc == ("clusters", 0, "nodeTypeId")
    assert msg == "Value error, " + NOT_GPU.format(size="Standard_D16s_v5")


def test_cpu_driver_node_type_is_rejected():
    loc, msg = rejection(stack(driverNodeTypeId="Standard_DS3_v2"))
    assert loc == ("clusters", 0, "driverNodeTypeId")
    assert msg == "Value error, " + NOT_GPU.format(size="Standard_DS3_v2")


def test_photon_on_a_gpu_cluster_is_rejected_with_reason():
    loc, msg = rejection(stack(photon=True))
    assert loc == ("clusters", 0, "photon")
    assert msg == (
        "Value error, Photon is on (runtimeEngine PHOTON), but Photon does not run on GPU instance types: Databricks "
        "rejects the combination, so the GPU cluster cannot start. Turn Photon off: runtimeEngine STANDARD, the "
        "default (in a stack file, photon must be false)."
    )


def test_fractional_tasks_per_gpu_is_rejected():
    loc, msg = rejection(stack(workload="inference", tasksPerGpu=1.5))
    assert loc == ("clusters", 0, "tasksPerGpu")
    assert "tasksPerGpu must be a whole number ≥ 2, got 1.5" in msg


@pytest.mark.parametrize("value", [1, 0, -2, True, "four"])
def test_tasks_per_gpu_below_two_or_not_a_number_is_rejected(value: Any):
    loc, msg = rejection(stack(workload="inference", tasksPerGpu=value))
    assert loc == ("clusters", 0, "tasksPerGpu")
    assert "tasksPerGpu must be a whole number ≥ 2" in msg


def test_inference_requires_tasks_per_gpu():
    loc, msg = rejection(stack(workload="inference"))
    assert loc == ("clusters", 0, "tasksPerGpu")
    assert "tasksPerGpu is required for workload 'inference'" in msg


def test_tasks_per_gpu_on_training_is_rejected():
    loc, msg = rejection(stack(tasksPerGpu=4))
    assert loc == ("clusters", 0, "tasksPerGpu")
    assert "tasksPerGpu only applies to workload 'inference'" in msg


def test_whole_float_tasks_per_gpu_from_yaml_is_accepted():
    cfg = DatabricksConfig.model_validate(stack(workload="inference", tasksPerGpu=4.0))
    assert cfg.clusters[0].tasksPerGpu == 4
    assert cfg.clusters[0].gpu_spark_conf() == {"spark.task.resource.gpu.amount": "0.25"}


def test_custom_image_with_ml_runtime_is_rejected():
    loc, msg = rejection(stack(customImage="databricksruntime/gpu-pytorch:cuda11.8"))
    assert loc == ("clusters", 0, "sparkVersion")
    assert msg == (
        "Value error, 17.3.x-gpu-ml-scala2.13 is an ML runtime, but customImage "
        "databricksruntime/gpu-pytorch:cuda11.8 is set (dockerImage on the cluster): Databricks Container Services "
        "needs a standard (non-ML) runtime, e.g. 17.3.x-scala2.13; the image brings CUDA and the ML libraries. Use a "
        "standard runtime with the image, or drop the image to use the GPU ML runtime (17.3.x-gpu-ml-scala2.13)."
    )


NOT_GPU_ML = (
    "{v} is not a GPU ML runtime: only '-gpu-ml-' runtimes ship the CUDA libraries, so the cluster's GPUs would be "
    "unusable. Use a GPU ML runtime such as 17.3.x-gpu-ml-scala2.13 (17.3 LTS, the default) or 18.x-gpu-ml-scala2.13 "
    "(18 LTS; DBR 17+ is Scala 2.13 only), or a standard runtime with a custom GPU image."
)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("15.4.x-scala2.12", NOT_GPU_ML),
        ("15.4.x-cpu-ml-scala2.12", NOT_GPU_ML),
        ("15.4-gpu-ml", NOT_GPU_ML),
        ("15.4.x-photon-scala2.12", NOT_GPU_ML),
        (
            "18-gpu-ml-scala2.13",
            "{v} is not a GPU ML runtime key: GPU clusters need '<major>[.<minor>].x-gpu-ml-scala<2.12|2.13>', e.g. "
            "17.3.x-gpu-ml-scala2.13 (17.3 LTS, the default) or 18.x-gpu-ml-scala2.13 (18 LTS); DBR 17+ is Scala 2.13 "
            "only",
        ),
        ("18.x-gpu-ml-scala2.12", "{v}: Databricks Runtime 18 and later ship Scala 2.13 only (use scala2.13)"),
        ("17.3.x-gpu-ml-scala2.12", "{v}: Databricks Runtime 17 and later ship Scala 2.13 only (use scala2.13)"),
        ("14.3.x-gpu-ml-scala2.13", "{v}: Databricks Runtime 14 ships Scala 2.12 (use scala2.12)"),
    ],
)
def test_runtime_format_is_validated(version: str, expected: str):
    loc, msg = rejection(stack(sparkVersion=version))
    assert loc == ("clusters", 0, "sparkVersion")
    assert msg == "Value error, " + expected.format(v=version)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (
            "17.3-scala2.13",
            "17.3-scala2.13 is not a standard Databricks runtime key: with a custom image use "
            "'<major>[.<minor>].x-scala<2.12|2.13>', e.g. 17.3.x-scala2.13",
        ),
        ("17.3.x-scala2.12", "17.3.x-scala2.12: Databricks Runtime 17 and later ship Scala 2.13 only (use scala2.13)"),
    ],
)
def test_custom_image_needs_a_standard_runtime_key(version: str, expected: str):
    loc, msg = rejection(stack(customImage="databricksruntime/gpu-pytorch:cuda11.8", sparkVersion=version))
    assert (loc, msg) == (("clusters", 0, "sparkVersion"), "Value error, " + expected)


def test_custom_image_with_a_standard_runtime_is_accepted():
    cfg = DatabricksConfig.model_validate(
        stack(customImage="databricksruntime/gpu-pytorch:cuda11.8", sparkVersion="17.3.x-scala2.13")
    )
    assert cfg.clusters[0].api_spark_version == "17.3.x-scala2.13"


@pytest.mark.parametrize(
    "version",
    ["15.4.x-gpu-ml-scala2.12", "16.4.x-gpu-ml-scala2.13", "17.3.x-gpu-ml-scala2.13", "18.x-gpu-ml-scala2.13"],
)
def test_gpu_ml_runtimes_accepted(version: str):
    assert DatabricksConfig.model_validate(stack(sparkVersion=version)).clusters[0].sparkVersion == version


def test_amd_size_not_offered_by_databricks_is_rejected():
    loc, msg = rejection(stack(nodeTypeId="Standard_NG32ads_V620_v1"))
    assert loc == ("clusters", 0, "nodeTypeId")
    assert "not offered by Azure Databricks as a GPU node type" in msg


def test_retired_size_is_rejected_with_the_catalog_message():
    loc, msg = rejection(stack(nodeTypeId="Standard_NC6s_v3"))
    assert loc == ("clusters", 0, "nodeTypeId")
    assert "was retired by Microsoft on 2025-09-30" in msg


def test_fixed_and_autoscale_together_is_rejected():
    loc, msg = rejection(stack(autoscale={"minWorkers": 1, "maxWorkers": 3}))
    assert loc == ("clusters", 0, "autoscale")
    assert "either numWorkers" in msg


def test_no_workers_for_training_is_rejected():
    loc, msg = rejection(
        {
            "workspace": {"name": "w-1"},
            "clusters": [{"name": "t", "nodeTypeId": "Standard_NV36ads_A10_v5", "singleUserName": USER}],
        }
    )
    assert loc == ("clusters", 0, "")  # the cluster entry: none of numWorkers, autoscale, workload was written
    assert "needs workers" in msg


def test_single_node_with_workers_is_rejected():
    loc, msg = rejection(stack(workload="singleNode", numWorkers=2))
    assert loc == ("clusters", 0, "numWorkers")
    assert "numWorkers must be 0 (or unset) for workload 'singleNode'" in msg


def test_autotermination_off_is_rejected():
    loc, msg = rejection(stack(autoterminationMinutes=0))
    assert loc == ("clusters", 0, "autoterminationMinutes")
    assert "between 10 and 10000" in msg


def test_autoscale_bounds_are_checked():
    loc, msg = rejection(stack(numWorkers=None, autoscale={"minWorkers": 3, "maxWorkers": 3}))
    assert loc == ("clusters", 0, "autoscale")
    assert "maxWorkers (3) must be greater than minWorkers (3)" in msg


def test_unknown_key_is_rejected():
    loc, _ = rejection(stack(runtimeEngine="PHOTON"))
    assert loc == ("clusters", 0, "runtimeEngine")


def test_duplicate_cluster_names_are_rejected():
    data = stack()
    data["clusters"].append({**BASE_CLUSTER, "name": "ML training"})
    data["clusters"][0]["name"] = "ml-training"
    loc, msg = rejection(data)
    assert loc == ("clusters",)
    assert "collide" in msg


@pytest.mark.parametrize(
    ("workspace", "expected"),
    [
        ({}, "set exactly one of name"),
        ({"name": "w-1", "url": "https://adb-1.2.azuredatabricks.net"}, "set exactly one of name"),
        ({"url": "https://example.com"}, "is not an Azure Databricks workspace URL"),
        ({"name": "x"}, "is not a valid Azure Databricks workspace name"),
    ],
)
def test_workspace_shape_is_validated(workspace: dict[str, Any], expected: str):
    with pytest.raises(ValidationError, match=expected):
        DatabricksWorkspaceConfig.model_validate(workspace)


@pytest.mark.parametrize(("n", "amount"), [(2, "0.5"), (3, "0.333333"), (4, "0.25"), (7, "0.142857"), (8, "0.125")])
def test_task_gpu_amount_is_what_spark_accepts(n: int, amount: str):
    assert task_gpu_amount(n) == amount
    assert float(amount) <= 0.5
    assert int(1 / float(amount)) == n  # Spark runs floor(1/amount) tasks per GPU


def test_rules_relating_keys_run_on_the_whole_cluster_in_any_key_order():
    """No validator reads earlier fields: the same cluster written in any key order gets the same problems."""
    forward = DatabricksClusterConfig.model_validate({**BASE_CLUSTER, "photon": True})
    backward = DatabricksClusterConfig.model_validate(dict(reversed(list({**BASE_CLUSTER, "photon": True}.items()))))
    assert [key for key, _ in cluster_problems(forward)] == ["photon"]
    assert cluster_problems(forward) == cluster_problems(backward)


def test_raised_floor_rejects_a10_node_types_at_stack_level():
    from stack_config.databricks import databricks_stack_problems

    cfg = DatabricksConfig.model_validate(
        stack(nodeTypeId="Standard_NV36ads_A10_v5", driverNodeTypeId="Standard_NV36ads_A10_v5")
    )
    assert databricks_stack_problems(cfg, floor="Standard_NC6s_v3") == []
    assert databricks_stack_problems(None, floor="Standard_NC24ads_A100_v4") == []
    problems = databricks_stack_problems(cfg, floor="Standard_NC24ads_A100_v4")
    assert [p for p, _ in problems] == ["databricks.clusters[0].nodeTypeId", "databricks.clusters[0].driverNodeTypeId"]
    assert all("below the GPU floor Standard_NC24ads_A100_v4" in m for _, m in problems)


# ---------------------------------------------------------------------------------------------------------------------
# the principal of dedicated access (the provider requires single_user_name for SINGLE_USER)


def test_missing_principal_is_refused_naming_the_key_and_what_is_allowed():
    loc, msg = rejection(stack(singleUserName=None))
    assert loc == ("clusters", 0, "singleUserName")
    assert msg == (
        "Value error, a GPU cluster runs in dedicated access mode (dataSecurityMode SINGLE_USER), so singleUserName "
        "is required: the Databricks provider only creates dedicated compute with its principal; set singleUserName "
        "to a workspace user's e-mail (dataSecurityMode SINGLE_USER), e.g. 'alice@contoso.com', or dedicate the "
        "cluster to a workspace group: dedicatedGroup in a stack file, which puts the group's name in singleUserName "
        "with kind CLASSIC_PREVIEW and dataSecurityMode DATA_SECURITY_MODE_DEDICATED (needs the workspace preview "
        "'Compute: Dedicated group clusters', Unity Catalog and DBR 15.4+)"
    )


def test_group_principal_uses_the_kind_shape_with_the_plain_release_and_ml_runtime():
    cfg = DatabricksConfig.model_validate(stack(singleUserName=None, dedicatedGroup="ml-platform"))
    [c] = cfg.clusters
    assert c.sparkVersion == "17.3.x-gpu-ml-scala2.13"
    assert c.api_spark_version == "17.3.x-scala2.13"
    assert (c.data_security_mode, c.principal, c.kind, c.use_ml_runtime) == (
        "DATA_SECURITY_MODE_DEDICATED",
        "ml-platform",
        "CLASSIC_PREVIEW",
        True,
    )


def test_group_on_dbr18_strips_only_the_ml_flavour():
    cfg = DatabricksConfig.model_validate(
        stack(singleUserName=None, dedicatedGroup="ml platform", sparkVersion="18.x-gpu-ml-scala2.13")
    )
    assert cfg.clusters[0].api_spark_version == "18.x-scala2.13"


def test_user_and_group_together_are_refused():
    loc, msg = rejection(stack(dedicatedGroup="ml-platform"))
    assert loc == ("clusters", 0, "singleUserName")
    assert "set either singleUserName (a user: 'ml-platform@contoso.com') or dedicatedGroup" in msg


def test_a_group_name_in_single_user_name_is_refused():
    loc, msg = rejection(stack(singleUserName="ml-platform"))
    assert loc == ("clusters", 0, "singleUserName")
    assert "singleUserName 'ml-platform' is not a workspace user name" in msg
    assert "set dedicatedGroup instead" in msg


def test_an_email_in_dedicated_group_is_refused():
    loc, msg = rejection(stack(singleUserName=None, dedicatedGroup="ml-platform@contoso.com"))
    assert loc == ("clusters", 0, "dedicatedGroup")
    assert "looks like a user's e-mail: a user goes in singleUserName" in msg


def test_group_needs_dbr_15_4_or_later():
    loc, msg = rejection(
        stack(singleUserName=None, dedicatedGroup="ml-platform", sparkVersion="14.3.x-gpu-ml-scala2.12")
    )
    assert loc == ("clusters", 0, "dedicatedGroup")
    assert msg == (
        "Value error, dedicatedGroup needs Databricks Runtime 15.4 or above, but sparkVersion is "
        "14.3.x-gpu-ml-scala2.12: use 17.3.x-gpu-ml-scala2.13, or assign the cluster to a user (singleUserName)"
    )


def test_group_with_custom_image_is_refused():
    cfg = DatabricksConfig.model_validate(
        stack(
            singleUserName=None,
            dedicatedGroup="ml-platform",
            customImage="databricksruntime/gpu-pytorch:cuda11.8",
            sparkVersion="17.3.x-scala2.13",
        )
    )
    found = dict(cluster_problems(cfg.clusters[0]))
    # Both keys are named whatever their order in the file (field order used to hide the sparkVersion one).
    assert sorted(found) == ["dedicatedGroup", "sparkVersion"]
    assert "dedicatedGroup cannot be combined with customImage" in found["dedicatedGroup"]


def test_single_node_group_cluster_leaves_the_profile_to_databricks():
    cfg = DatabricksConfig.model_validate(
        stack(singleUserName=None, dedicatedGroup="ml-platform", workload="singleNode", numWorkers=None)
    )
    assert cfg.clusters[0].gpu_spark_conf() == {}


def test_t4_is_accepted_without_a_source_refusing_it():
    # Databricks' GPU page was only ever read cut off after NVadsA10_v5: NCasT4_v3 is "unconfirmed", not refused
    cfg = DatabricksConfig.model_validate(stack(nodeTypeId="Standard_NC4as_T4_v3"))
    assert cfg.clusters[0].nodeTypeId == "Standard_NC4as_T4_v3"
    assert cluster_problems(cfg.clusters[0]) == []


def test_nc_v3_is_refused_even_before_retirement_checks():
    from gpu_catalog import default_catalog

    assert default_catalog()["Standard_NC24s_v3"].databricks == "not-offered"
    loc, _ = rejection(stack(nodeTypeId="Standard_NC24s_v3"))
    assert loc == ("clusters", 0, "nodeTypeId")


def test_nd_h100_v5_is_a_databricks_node_type():
    cfg = DatabricksConfig.model_validate(stack(nodeTypeId="Standard_ND96isr_H100_v5"))
    assert cfg.clusters[0].gpu_spark_conf() == {"spark.task.resource.gpu.amount": "8"}


@pytest.mark.parametrize("blank", ["", "  "])
def test_a_blank_principal_is_refused_as_missing(blank: str):
    loc, msg = rejection(stack(singleUserName=blank))
    assert loc == ("clusters", 0, "singleUserName")
    assert msg.startswith(
        "Value error, a GPU cluster runs in dedicated access mode (dataSecurityMode SINGLE_USER), so singleUserName "
        "is required"
    )


def test_the_rules_see_the_request_the_component_renders():
    [user] = DatabricksConfig.model_validate(stack(driverNodeTypeId="Standard_NC24ads_A100_v4")).clusters
    [group] = DatabricksConfig.model_validate(
        stack(singleUserName=None, dedicatedGroup="ml-platform", workload="singleNode", numWorkers=None)
    ).clusters
    facts = user.facts
    assert (facts.node_type, facts.driver, facts.declared_gpu, facts.runtime_engine) == (
        "Standard_NC48ads_A100_v4",
        "Standard_NC24ads_A100_v4",
        True,
        "STANDARD",
    )
    assert (facts.data_security_mode, facts.single_user_name, facts.kind, facts.group) == (
        "SINGLE_USER",
        USER,
        None,
        False,
    )
    assert (group.facts.data_security_mode, group.facts.kind, group.facts.use_ml_runtime, group.facts.group) == (
        "DATA_SECURITY_MODE_DEDICATED",
        "CLASSIC_PREVIEW",
        True,
        True,
    )
    assert (group.facts.single_user_name, group.facts.single_node) == ("ml-platform", True)
