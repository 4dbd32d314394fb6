"""databricks-gpu-node-types: GPU workers and driver, Databricks-supported GPU sizes."""

from __future__ import annotations

from policies.databricks_gpu_node_types import POLICY
from tests.policies._helpers import DATABRICKS_CLUSTER, DATABRICKS_GPU, UNKNOWN, run_policy, with_

CPU = with_(
    DATABRICKS_GPU, nodeTypeId="Standard_D4s_v5", driverNodeTypeId="Standard_D4s_v5", sparkVersion="15.4.x-scala2.12"
)


def test_gpu_cluster_passes() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, DATABRICKS_GPU).violations == []


def test_driver_defaults_to_worker_type() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, driverNodeTypeId=None)).violations == []


def test_cpu_cluster_not_checked() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, CPU).violations == []


def test_cpu_driver_with_gpu_workers_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, driverNodeTypeId="Standard_D4s_v5"))
    assert outcome.violations == [
        "driverNodeTypeId: the driver node type Standard_D4s_v5 is not a GPU size while the workers use GPUs: "
        "Databricks GPU compute needs GPU node types for the workers and the driver (the GPU runtime does not start "
        "otherwise). Use a GPU node type such as Standard_NC4as_T4_v3, Standard_NC8as_T4_v3, Standard_NC16as_T4_v3 "
        "for both."
    ]


def test_cpu_workers_with_gpu_driver_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, nodeTypeId="Standard_D4s_v5"))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith(
        "nodeTypeId: the worker node type Standard_D4s_v5 is not a GPU size while the driver uses GPUs"
    )


def test_gpu_size_databricks_does_not_offer_rejected() -> None:
    props = with_(DATABRICKS_GPU, nodeTypeId="Standard_ND96isr_H100_v5", driverNodeTypeId="Standard_ND96isr_H100_v5")
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, props)
    assert [v.split(": ")[0] for v in outcome.violations] == ["nodeTypeId", "driverNodeTypeId"]
    assert outcome.violations[0] == (
        "nodeTypeId: Standard_ND96isr_H100_v5 (NVIDIA H100 SXM 80 GiB) is not a GPU instance type Azure Databricks "
        "supports, so the cluster cannot be created. Use one of Standard_NC4as_T4_v3, Standard_NC8as_T4_v3, "
        "Standard_NC16as_T4_v3."
    )


def test_unknown_worker_type_named() -> None:
    outcome = run_policy(
        POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, nodeTypeId=UNKNOWN, driverNodeTypeId=UNKNOWN)
    )
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("nodeTypeId, driverNodeTypeId can't be known during preview")
