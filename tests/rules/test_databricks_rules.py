"""rules/databricks.py: each Databricks guard rail over facts, compliant and not (the stack config and the policies
call these; their tests check the key paths and the preview handling)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rules import Finding, NotApplicable
from rules import databricks as dbx
from rules import databricks_facts as dbx_facts
from rules import databricks_policy as dbx_policy
from rules.databricks import MAX_TASKS_PER_GPU, DatabricksCluster
from tests.conftest import TODAY

A10 = "Standard_NV36ads_A10_v5"
GPU = DatabricksCluster(
    node_type=A10,
    spark_version="17.3.x-gpu-ml-scala2.13",
    runtime_engine="STANDARD",
    data_security_mode="SINGLE_USER",
    single_user_name="alice@contoso.com",
    gpu_amount="1",
)
"""A compliant GPU cluster (the driver defaults to the worker type)."""
CPU = DatabricksCluster(node_type="Standard_D4s_v5", spark_version="17.3.x-scala2.13")
GROUP = replace(GPU, kind="CLASSIC_PREVIEW", data_security_mode="DATA_SECURITY_MODE_DEDICATED", group=True)
ALLOWED = (
    "Allowed: Standard_NC24ads_A100_v4, Standard_NC40ads_H100_v5, Standard_NC48ads_A100_v4, Standard_NC80adis_H100_v5, "
    "Standard_NC96ads_A100_v4, Standard_ND96asr_v4, Standard_ND96isr_H100_v5, Standard_NV36adms_A10_v5, "
    "Standard_NV36ads_A10_v5, Standard_NV72ads_A10_v5"
)
NOT_A_GPU_CLUSTER = NotApplicable("no GPU node type (nodeTypeId, driverNodeTypeId): not a GPU cluster")


def with_(cluster: DatabricksCluster, **changes: Any) -> DatabricksCluster:
    return replace(cluster, **changes)


def fields(result: list[Finding] | NotApplicable) -> list[str]:
    assert isinstance(result, list), result
    return [f.field for f in result]


def assert_starts(result: list[Finding] | NotApplicable, *expected: tuple[str, str]) -> None:
    """``result`` is one finding per ``(field, start of its message)``, in order."""
    assert isinstance(result, list), result
    assert [(f.field, f.message[: len(start)]) for f, (_, start) in zip(result, expected, strict=False)] == list(
        expected
    )
    assert len(result) == len(expected), result


def test_what_makes_a_gpu_cluster() -> None:
    assert GPU.is_gpu_cluster and GPU.driver == A10
    assert with_(CPU, driver_node_type=A10).is_gpu_cluster
    assert not CPU.is_gpu_cluster
    assert with_(CPU, declared_gpu=True).is_gpu_cluster  # a stack file's cluster, whatever it names


# ----------------------------------------------------------------------------------------- databricks-gpu-node-types


def test_node_types() -> None:
    assert dbx.gpu_node_types(GPU, today=TODAY) == []
    assert dbx.gpu_node_types(CPU, today=TODAY) == NOT_A_GPU_CLUSTER
    assert dbx.gpu_node_types(with_(GPU, driver_node_type="Standard_D4s_v5"), today=TODAY) == [
        Finding(
            "driverNodeTypeId",
            "Standard_D4s_v5 is not a GPU node type: a GPU cluster needs GPU node types for its workers and its driver "
            f"(the GPU ML runtime's CUDA libraries do not run on a CPU node). {ALLOWED}",
        )
    ]
    missing = dbx.gpu_node_types(with_(GPU, node_type=None, driver_node_type=A10), today=TODAY)
    assert_starts(missing, ("nodeTypeId", "the worker node type is not set: a GPU cluster needs GPU node types"))


def test_node_types_offered_by_databricks() -> None:
    t4 = with_(GPU, node_type="Standard_NC4as_T4_v3")
    assert dbx.gpu_node_types(t4, today=TODAY) == []  # unconfirmed: not refused
    nc_v3 = dbx.gpu_node_types(with_(GPU, node_type="Standard_NC12s_v3"), today=TODAY)
    assert fields(nc_v3) == ["nodeTypeId", "driverNodeTypeId"]  # the driver defaults to the worker type
    assert isinstance(nc_v3, list) and nc_v3[0].message == (
        "Standard_NC12s_v3 (NVIDIA Tesla V100 16 GiB) is not offered by Azure Databricks as a GPU node type, so the "
        f"cluster cannot be created. {ALLOWED}"
    )
    assert (
        dbx.gpu_node_types(with_(GPU, node_type="Standard_NX1_v1"), today=TODAY) == []
    )  # not in the catalog: gpu-size-known's call


def test_node_types_with_the_catalog_size_rules() -> None:
    """What the stack config asks: the size rules too, before whether Databricks offers the size."""
    retired = dbx.gpu_node_types(
        with_(GPU, node_type="Standard_NC6s_v3", declared_gpu=True), size_rules=True, today=TODAY
    )
    assert isinstance(retired, list)
    assert retired[0].message.startswith("Standard_NC6s_v3 (NVIDIA Tesla V100 16 GiB) was retired by Microsoft on ")
    floor = dbx.gpu_node_types(GPU, size_rules=True, floor="Standard_NC24ads_A100_v4", today=TODAY)
    assert fields(floor) == ["nodeTypeId", "driverNodeTypeId"]
    assert isinstance(floor, list) and "below the GPU floor Standard_NC24ads_A100_v4" in floor[0].message
    assert dbx.gpu_node_types(GPU, size_rules=True, today=TODAY) == []


# ------------------------------------------------------------------------------------------ databricks-gpu-no-photon


def test_no_photon() -> None:
    assert dbx.gpu_no_photon(GPU) == []
    assert dbx.gpu_no_photon(with_(CPU, runtime_engine="PHOTON")) == NOT_A_GPU_CLUSTER
    found = dbx.gpu_no_photon(with_(GPU, runtime_engine="photon", spark_version="15.4.x-photon-scala2.12"))
    assert found == [
        Finding(
            "runtimeEngine",
            "Photon is on (runtimeEngine PHOTON), but Photon does not run on GPU instance types: Databricks rejects "
            "the combination, so the GPU cluster cannot start. Turn Photon off: runtimeEngine STANDARD, the default "
            "(in a stack file, photon must be false).",
        ),
        Finding(
            "sparkVersion",
            "15.4.x-photon-scala2.12 is a Photon runtime, but Photon does not run on GPU instance types (Databricks "
            "rejects the combination). Use a GPU ML runtime such as 17.3.x-gpu-ml-scala2.13.",
        ),
    ]


# -------------------------------------------------------------------------------------------- databricks-gpu-runtime


@pytest.mark.parametrize(
    "cluster",
    [
        GPU,
        with_(GPU, spark_version="15.4.x-scala2.12", custom_image="contoso.azurecr.io/cuda:12.4"),
        with_(GROUP, spark_version="17.3.x-scala2.13", use_ml_runtime=True),
        with_(GROUP, use_ml_runtime=False),  # a GPU ML key needs no useMlRuntime
    ],
)
def test_gpu_runtime_compliant(cluster: DatabricksCluster) -> None:
    assert dbx.gpu_runtime(cluster, today=TODAY) == []


def test_gpu_runtime_not_a_gpu_runtime() -> None:
    assert dbx.gpu_runtime(with_(GPU, spark_version="15.4.x-cpu-ml-scala2.12"), today=TODAY) == [
        Finding(
            "sparkVersion",
            "15.4.x-cpu-ml-scala2.12 is not a GPU ML runtime: only '-gpu-ml-' runtimes ship the CUDA libraries, so the "
            "cluster's GPUs would be unusable. Use a GPU ML runtime such as 17.3.x-gpu-ml-scala2.13 (17.3 LTS, the "
            "default) or 18.x-gpu-ml-scala2.13 (18 LTS; DBR 17+ is Scala 2.13 only), or a standard runtime with a "
            "custom GPU image.",
        )
    ]
    kind = dbx.gpu_runtime(with_(GROUP, spark_version="17.3.x-scala2.13"), today=TODAY)
    assert_starts(
        kind,
        (
            "useMlRuntime",
            "the cluster has GPU node types and kind CLASSIC_PREVIEW but runtime 17.3.x-scala2.13 without",
        ),
    )


def test_gpu_runtime_custom_image_needs_a_standard_runtime() -> None:
    found = dbx.gpu_runtime(with_(GPU, custom_image="contoso.azurecr.io/cuda:12.4"), today=TODAY)
    assert isinstance(found, list) and [f.field for f in found] == ["sparkVersion"]
    assert found[0].message.startswith(
        "17.3.x-gpu-ml-scala2.13 is an ML runtime, but customImage contoso.azurecr.io/cuda:12.4 is set (dockerImage "
        "on the cluster): Databricks Container Services needs a standard (non-ML) runtime, e.g. 17.3.x-scala2.13;"
    )


def test_gpu_runtime_on_cpu_nodes() -> None:
    assert dbx.gpu_runtime(CPU, today=TODAY) == NotApplicable("no GPU node type and no GPU ML runtime")
    assert dbx.gpu_runtime(with_(CPU, spark_version="15.4.x-gpu-ml-scala2.12"), today=TODAY) == [
        Finding(
            "sparkVersion",
            "15.4.x-gpu-ml-scala2.12 is a GPU ML runtime but the node types are not GPU sizes: Databricks refuses GPU "
            "runtimes on CPU nodes. Use GPU node types (e.g. Standard_NC4as_T4_v3) or a CPU runtime (drop "
            "'gpu-ml').",
        )
    ]
    assert dbx.gpu_runtime(with_(GPU, spark_version=None), today=TODAY) == NotApplicable("sparkVersion is not set")


@pytest.mark.parametrize(
    ("version", "image", "message"),
    [
        ("18.x-gpu-ml-scala2.13", None, None),
        ("15.4.x-gpu-ml-scala2.12", None, None),
        ("17.3.x-scala2.13", "img", None),
        (
            "17.3.x-gpu-ml-scala2.12",
            None,
            "17.3.x-gpu-ml-scala2.12: Databricks Runtime 17 and later ship Scala 2.13 only",
        ),
        ("15.4.x-scala2.13", "img", "15.4.x-scala2.13: Databricks Runtime 15 ships Scala 2.12 (use scala2.12)"),
        ("17.3-gpu-ml-scala2.13", None, "17.3-gpu-ml-scala2.13 is not a GPU ML runtime key: GPU clusters need "),
        ("17.3.x-scala2.13-foo", "img", "17.3.x-scala2.13-foo is not a standard Databricks runtime key: with a "),
    ],
)
def test_runtime_key(version: str, image: str | None, message: str | None) -> None:
    found = dbx.runtime_key(with_(GPU, spark_version=version, custom_image=image))
    assert_starts(found, *([("sparkVersion", message)] if message else []))


def test_runtime_helpers() -> None:
    assert dbx_facts.runtime_release("18.x-gpu-ml-scala2.13") == (18, 0)
    assert dbx_facts.runtime_release("15.4.x-scala2.12") == (15, 4)
    assert dbx_facts.runtime_release("15.4.x-photon-scala2.12") is None
    assert dbx.plain_runtime("17.3.x-gpu-ml-scala2.13") == "17.3.x-scala2.13"


# ----------------------------------------------------------------------------------- databricks-gpu-dedicated-access


def test_dedicated_access() -> None:
    assert dbx.gpu_dedicated_access(GPU) == []
    assert dbx.gpu_dedicated_access(with_(GROUP, single_user_name="ml-platform")) == []
    assert dbx.gpu_dedicated_access(with_(CPU, data_security_mode=None)) == NOT_A_GPU_CLUSTER
    shared = dbx.gpu_dedicated_access(with_(GPU, data_security_mode="USER_ISOLATION"))
    assert_starts(
        shared, ("dataSecurityMode", "a GPU cluster needs dedicated access, but dataSecurityMode is USER_ISOLATION: ")
    )
    assert dbx.gpu_dedicated_access(with_(GROUP, kind=None)) == [
        Finding(
            "dataSecurityMode",
            "DATA_SECURITY_MODE_DEDICATED is only available when kind is CLASSIC_PREVIEW, but kind is not set: "
            "Databricks refuses the request. Set kind: CLASSIC_PREVIEW, or use dataSecurityMode: SINGLE_USER with a "
            "user in singleUserName.",
        )
    ]


@pytest.mark.parametrize("principal", [None, "", "  "])
def test_dedicated_access_needs_a_principal(principal: str | None) -> None:
    found = dbx.gpu_dedicated_access(with_(GPU, data_security_mode="single_user", single_user_name=principal))
    assert isinstance(found, list) and [f.field for f in found] == ["singleUserName"]
    assert found[0].message.startswith(
        "a GPU cluster runs in dedicated access mode (dataSecurityMode SINGLE_USER), so singleUserName is required: "
        "the Databricks provider only creates dedicated compute with its principal; set singleUserName to a "
        "workspace user's e-mail"
    )


def test_dedicated_group() -> None:
    assert dbx.dedicated_group(GPU) == NotApplicable("the cluster is not dedicated to a group")
    assert dbx.dedicated_group(GROUP) == []
    found = dbx.dedicated_group(with_(GROUP, spark_version="14.3.x-scala2.12", custom_image="img"))
    assert_starts(
        found,
        ("dedicatedGroup", "dedicatedGroup cannot be combined with customImage: group-dedicated compute"),
        (
            "dedicatedGroup",
            "dedicatedGroup needs Databricks Runtime 15.4 or above, but sparkVersion is 14.3.x-scala2.12",
        ),
    )


# ---------------------------------------------------------------------------------------- databricks-gpu-task-amount


@pytest.mark.parametrize("amount", [None, "1", "0.5", "0.125", 1.0])
def test_task_amount_compliant(amount: str | float | None) -> None:
    expected = NotApplicable("spark.task.resource.gpu.amount is not set") if amount is None else []
    assert dbx.gpu_task_amount(with_(GPU, gpu_amount=amount)) == expected


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        ("0", "'0' is not a positive number. Use the GPUs per worker for training (e.g. 1) or 1/N (≤ 0.5) to share"),
        ("0.75", "0.75 is neither ≤ 0.5 nor a whole number, which Spark rejects (a task gets a fraction 1/N of a GPU"),
        ("2", "2 GPUs per task but each worker (Standard_NV36ads_A10_v5) has only 1 GPU(s), so no task could ever"),
    ],
)
def test_task_amount_violations(amount: str, message: str) -> None:
    assert_starts(
        dbx.gpu_task_amount(with_(GPU, gpu_amount=amount)), ("sparkConf.spark.task.resource.gpu.amount", message)
    )


def test_task_amount_on_single_node() -> None:
    conf = {"spark.task.resource.gpu.amount": "1", "spark.executor.resource.gpu.amount": "1", "spark.master": "x"}
    keys = dbx.gpu_settings(conf)
    assert keys == ("spark.task.resource.gpu.amount", "spark.executor.resource.gpu.amount")
    assert dbx.is_single_node_profile("SingleNode") and not dbx.is_single_node_profile(None)
    found = dbx.gpu_task_amount(with_(GPU, single_node=True, gpu_settings=keys))
    assert fields(found) == [f"sparkConf.{key}" for key in keys]
    assert isinstance(found, list) and found[0].message == (
        "GPU scheduling is off on single-node compute, so this setting has no effect (the driver runs every task with "
        "all its GPUs). Remove it, or use a multi-node cluster."
    )
    assert dbx.gpu_task_amount(with_(GPU, single_node=True)) == []


@pytest.mark.parametrize(
    ("workload", "value", "message"),
    [
        ("inference", 4, None),
        ("inference", MAX_TASKS_PER_GPU, None),
        ("training", None, None),
        ("inference", None, "tasksPerGpu is required for workload 'inference': how many Spark tasks share one GPU"),
        ("training", 4, "tasksPerGpu only applies to workload 'inference' (this cluster is 'training': training"),
        ("inference", 1.5, "tasksPerGpu must be a whole number ≥ 2, got 1.5: Spark shares a GPU between N tasks"),
        ("inference", True, "tasksPerGpu must be a whole number ≥ 2, got true: Spark shares a GPU between N tasks"),
        ("inference", 1032, "tasksPerGpu must be at most 1031, got 1032: the cluster gives each task 1/N of a GPU"),
    ],
)
def test_tasks_per_gpu(workload: str, value: object, message: str | None) -> None:
    found = dbx.tasks_per_gpu(DatabricksCluster(declared_gpu=True, workload=workload, tasks_per_gpu=value))
    assert_starts(found, *([("tasksPerGpu", message)] if message else []))


def test_task_gpu_amount_is_one_over_n() -> None:
    assert [dbx.task_gpu_amount(n) for n in (2, 3, 4)] == ["0.5", "0.333333", "0.25"]
    with pytest.raises(ValueError, match="from 2 to 1031, got 1"):
        dbx.task_gpu_amount(1)


def test_cost_tags_of_a_cluster_under_the_policy() -> None:
    """missing_cost_tags: the policy's cost tags a GPU cluster carries nowhere, in the policy's order — for every GPU
    cluster (user-, group-dedicated, custom container: all reference the policy); nothing for a CPU cluster."""
    assert dbx_policy.missing_cost_tags(GPU, ["cost-center", "owner"], {"owner": "x"}) == ["cost-center"]
    assert dbx_policy.missing_cost_tags(GPU, ["owner", "cost-center"], set(), {}) == ["owner", "cost-center"]
    assert dbx_policy.missing_cost_tags(GPU, ["cost-center", "owner"], {"cost-center"}, {"owner": "x"}) == []
    for other in (GROUP, replace(GPU, custom_image="img", spark_version="17.3.x-scala2.13")):
        assert dbx_policy.missing_cost_tags(other, ["cost-center"], set()) == ["cost-center"]
    assert dbx_policy.missing_cost_tags(CPU, ["cost-center"], set()) == []
    assert dbx_policy.blank_cost_tags(["cost-center", "", "  "]) == ["", "  "]
    assert dbx_policy.blank_cost_tags(["cost-center"]) == []


def test_policy_refusals_admit_both_request_shapes_and_custom_containers() -> None:
    nodes = dbx_facts.accepted_node_types(today=TODAY)
    group = replace(GROUP, spark_version="17.3.x-scala2.13", use_ml_runtime=True, single_user_name="ml-platform")
    image = replace(GPU, spark_version="17.3.x-scala2.13", custom_image="databricksruntime/gpu-pytorch:cuda11.8")
    for admitted in (GPU, group, image, replace(GPU, spark_version="18.x-gpu-ml-scala2.13")):
        assert dbx_policy.policy_refusals(admitted, nodes, today=TODAY) == []
    refused = replace(GPU, data_security_mode="USER_ISOLATION", spark_version="17.3.x-cpu-ml-scala2.13")
    assert [f.field for f in dbx_policy.policy_refusals(refused, nodes, today=TODAY)] == [
        "sparkVersion",
        "dataSecurityMode",
    ]
    below = dbx_policy.policy_refusals(
        GPU, dbx_facts.accepted_node_types("Standard_NC40ads_H100_v5", today=TODAY), today=TODAY
    )
    assert [f.field for f in below] == ["nodeTypeId"]
    assert below[0].message.startswith("Standard_NV36ads_A10_v5 is not on the cluster policy's node type allowlist: ")
    for mode in ("SINGLE_USER", "DATA_SECURITY_MODE_DEDICATED"):
        assert mode in dbx_policy.POLICY_ACCESS_MODES
    for key in ("17.3.x-gpu-ml-scala2.13", "17.3.x-scala2.13", "18.x-gpu-ml-scala2.13", "15.4.x-scala2.12"):
        assert dbx_policy.POLICY_RUNTIME_RE.match(key)
    for key in ("17.3.x-cpu-ml-scala2.13", "17.3.x-ml-scala2.13", "17.3.x-photon-scala2.13", "auto:latest-ml"):
        assert not dbx_policy.POLICY_RUNTIME_RE.match(key)


def test_accepted_node_types_are_what_the_node_type_rule_accepts() -> None:
    """One list for the exported cluster policy: each catalog size is on it exactly when the node-type rule with the
    size rules accepts it (at two floors)."""
    from gpu_catalog import default_catalog

    for floor in ("Standard_NC6s_v3", "Standard_NC40ads_H100_v5"):
        rule = sorted(
            s.name
            for s in default_catalog().sizes()
            if dbx.gpu_node_types(
                DatabricksCluster(node_type=s.name, declared_gpu=True), size_rules=True, floor=floor, today=TODAY
            )
            == []
        )
        assert dbx_facts.accepted_node_types(floor, today=TODAY) == rule
    assert "Standard_NC24ads_A100_v4" in dbx_facts.accepted_node_types(today=TODAY)
    assert "Standard_NC24ads_A100_v4" not in dbx_facts.accepted_node_types("Standard_NC40ads_H100_v5", today=TODAY)
