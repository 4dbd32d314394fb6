"""databricks-gpu-runtime: GPU node types ⇔ '-gpu-ml-' runtime, or a standard runtime with a custom image."""

from __future__ import annotations

from policies.databricks_gpu_runtime import POLICY
from tests.policies._helpers import DATABRICKS_CLUSTER, DATABRICKS_GPU, UNKNOWN, run_policy, with_

NOT_GPU_ML = (
    "sparkVersion: {version} is not a GPU ML runtime: only '-gpu-ml-' runtimes ship the CUDA libraries, so the "
    "cluster's GPUs would be unusable. Use a GPU ML runtime such as 17.3.x-gpu-ml-scala2.13 (17.3 LTS, the default) "
    "or 18.x-gpu-ml-scala2.13 (18 LTS; DBR 17+ is Scala 2.13 only), or a standard runtime with a custom GPU image."
)
ML_WITH_IMAGE = (
    "sparkVersion: {shown} is an ML runtime, but customImage contoso.azurecr.io/cuda:12.4 is set (dockerImage on the "
    "cluster): Databricks Container Services needs a standard (non-ML) runtime, e.g. 17.3.x-scala2.13; the image "
    "brings CUDA and the ML libraries. Use a standard runtime with the image, or drop the image to use the GPU ML "
    "runtime (17.3.x-gpu-ml-scala2.13)."
)
CUSTOM = with_(DATABRICKS_GPU, sparkVersion="15.4.x-scala2.12", dockerImage={"url": "contoso.azurecr.io/cuda:12.4"})


def test_gpu_ml_runtime_passes() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, DATABRICKS_GPU).violations == []


def test_dbr17_scala213_passes() -> None:
    props = with_(DATABRICKS_GPU, sparkVersion="17.3.x-gpu-ml-scala2.13")
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []


def test_standard_runtime_with_custom_image_passes() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, CUSTOM).violations == []


def test_standard_runtime_without_image_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkVersion="15.4.x-scala2.12"))
    assert outcome.violations == [NOT_GPU_ML.format(version="15.4.x-scala2.12")]


def test_cpu_ml_runtime_on_gpu_nodes_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkVersion="15.4.x-cpu-ml-scala2.12"))
    assert outcome.violations == [NOT_GPU_ML.format(version="15.4.x-cpu-ml-scala2.12")]


def test_custom_image_with_ml_runtime_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(CUSTOM, sparkVersion="15.4.x-gpu-ml-scala2.12"))
    assert outcome.violations == [ML_WITH_IMAGE.format(shown="15.4.x-gpu-ml-scala2.12")]


def test_gpu_runtime_on_cpu_nodes_rejected() -> None:
    props = with_(DATABRICKS_GPU, nodeTypeId="Standard_D4s_v5", driverNodeTypeId="Standard_D8s_v5")
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, props)
    assert outcome.violations == [
        "sparkVersion: 15.4.x-gpu-ml-scala2.12 is a GPU ML runtime but the node types are not GPU sizes: Databricks "
        "refuses GPU runtimes on CPU nodes. Use GPU node types (e.g. Standard_NC4as_T4_v3) or a CPU runtime (drop "
        "'gpu-ml')."
    ]


def test_cpu_cluster_with_cpu_runtime_passes() -> None:
    props = with_(DATABRICKS_GPU, nodeTypeId="Standard_D4s_v5", driverNodeTypeId=None, sparkVersion="15.4.x-scala2.12")
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []


def test_unknown_runtime_named() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkVersion=UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("sparkVersion can't be known during preview")


def test_unknown_node_type_with_gpu_runtime_not_flagged_but_named() -> None:
    props = with_(DATABRICKS_GPU, nodeTypeId=UNKNOWN, driverNodeTypeId=None)
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, props)
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("nodeTypeId can't be known during preview")


# kind: CLASSIC_PREVIEW (group-dedicated compute): the DBR release + useMlRuntime selects the GPU ML runtime

KIND = with_(
    DATABRICKS_GPU,
    kind="CLASSIC_PREVIEW",
    dataSecurityMode="DATA_SECURITY_MODE_DEDICATED",
    singleUserName="ml-platform",
    sparkVersion="17.3.x-scala2.13",
    useMlRuntime=True,
)


def test_kind_with_release_and_ml_runtime_passes() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, KIND).violations == []
    assert run_policy(POLICY, DATABRICKS_CLUSTER, with_(KIND, sparkVersion="18.x-scala2.13")).violations == []


def test_kind_with_a_gpu_ml_key_passes() -> None:
    props = with_(KIND, sparkVersion="17.3.x-gpu-ml-scala2.13", useMlRuntime=None)
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []


def test_kind_without_use_ml_runtime_is_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(KIND, useMlRuntime=None))
    assert outcome.violations == [
        "useMlRuntime: the cluster has GPU node types and kind CLASSIC_PREVIEW but runtime 17.3.x-scala2.13 without "
        "useMlRuntime: true is not a GPU ML runtime: with kind, Databricks runs the GPU ML runtime (the only one that "
        "ships CUDA) when sparkVersion is the DBR release and useMlRuntime is true. Set sparkVersion: "
        "17.3.x-scala2.13 and useMlRuntime: true."
    ]


def test_kind_with_cpu_ml_key_is_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(KIND, sparkVersion="17.3.x-cpu-ml-scala2.13"))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith("useMlRuntime: the cluster has GPU node types and kind CLASSIC_PREVIEW")


def test_kind_with_ml_runtime_and_custom_image_is_rejected() -> None:
    props = with_(KIND, dockerImage={"url": "contoso.azurecr.io/cuda:12.4"})
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, props)
    assert outcome.violations == [ML_WITH_IMAGE.format(shown="17.3.x-scala2.13 with useMlRuntime: true")]


def test_unknown_use_ml_runtime_with_kind_is_named() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(KIND, useMlRuntime=UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("useMlRuntime can't be known during preview")
