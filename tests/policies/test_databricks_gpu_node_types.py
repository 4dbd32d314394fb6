"""databricks-gpu-node-types: GPU workers and driver, Databricks-supported GPU sizes."""

from __future__ import annotations

import pytest

from policies.databricks_gpu_node_types import POLICY
from tests.policies._helpers import DATABRICKS_CLUSTER, DATABRICKS_GPU, UNKNOWN, run_policy, with_

A10 = "Standard_NV36ads_A10_v5"
DBX = with_(DATABRICKS_GPU, nodeTypeId=A10, driverNodeTypeId=A10)
"""The shared baseline on a node type Azure Databricks launches (MS Learn databricks/compute/gpu lists NVadsA10_v5)."""
CPU = with_(DBX, nodeTypeId="Standard_D4s_v5", driverNodeTypeId="Standard_D4s_v5", sparkVersion="17.3.x-scala2.13")
ALLOWED = (
    "Standard_NC24ads_A100_v4, Standard_NC40ads_H100_v5, Standard_NC48ads_A100_v4, Standard_NC80adis_H100_v5, "
    "Standard_NC96ads_A100_v4, Standard_ND96asr_v4, Standard_ND96isr_H100_v5, Standard_NV36adms_A10_v5, "
    "Standard_NV36ads_A10_v5, Standard_NV72ads_A10_v5"
)
NOT_GPU = (
    "{field}: {size} is not a GPU node type: a GPU cluster needs GPU node types for its workers and its driver (the "
    f"GPU ML runtime's CUDA libraries do not run on a CPU node). Allowed: {ALLOWED}"
)


def test_gpu_cluster_passes() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, DBX).violations == []


@pytest.mark.parametrize(
    "size",
    [
        "Standard_NC40ads_H100_v5",
        "Standard_ND96isr_H100_v5",
        "Standard_NC24ads_A100_v4",
        "Standard_ND96asr_v4",
        "Standard_NV72ads_A10_v5",
    ],
)
def test_every_listed_family_passes(size: str) -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, with_(DBX, nodeTypeId=size, driverNodeTypeId=size)).violations == []


def test_driver_defaults_to_worker_type() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, with_(DBX, driverNodeTypeId=None)).violations == []


def test_cpu_cluster_not_checked() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, CPU).violations == []


def test_cpu_driver_with_gpu_workers_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DBX, driverNodeTypeId="Standard_D4s_v5"))
    assert outcome.violations == [NOT_GPU.format(field="driverNodeTypeId", size="Standard_D4s_v5")]


def test_cpu_workers_with_gpu_driver_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DBX, nodeTypeId="Standard_D4s_v5"))
    assert outcome.violations == [NOT_GPU.format(field="nodeTypeId", size="Standard_D4s_v5")]


def test_a_missing_worker_type_with_a_gpu_driver_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DBX, nodeTypeId=None, instancePoolId="pool-1"))
    assert outcome.violations == [
        "nodeTypeId: the worker node type is not set: a GPU cluster needs GPU node types for its workers and its "
        f"driver (the GPU ML runtime's CUDA libraries do not run on a CPU node). Allowed: {ALLOWED}"
    ]


def test_t4_is_not_refused_without_a_source() -> None:
    # Every copy of learn.microsoft.com/azure/databricks/compute/gpu read was cut off after NVadsA10_v5: no source
    # says NCasT4_v3 is not offered, so the rule does not refuse it (support.databricks "unconfirmed").
    assert run_policy(POLICY, DATABRICKS_CLUSTER, DATABRICKS_GPU).violations == []  # the fixture is on NC4as_T4_v3


def test_amd_size_refused_on_positive_evidence() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DBX, nodeTypeId="Standard_ND96isr_MI300X_v5"))
    assert outcome.violations[0].startswith(
        "nodeTypeId: Standard_ND96isr_MI300X_v5 (AMD Instinct MI300X 192 GiB) is not offered by Azure Databricks"
    )


def test_nc_v3_is_rejected() -> None:
    props = with_(DBX, nodeTypeId="Standard_NC12s_v3", driverNodeTypeId=None)
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, props)
    assert [v.split(": ")[0] for v in outcome.violations] == ["nodeTypeId", "driverNodeTypeId"]
    assert outcome.violations[0] == (
        "nodeTypeId: Standard_NC12s_v3 (NVIDIA Tesla V100 16 GiB) is not offered by Azure Databricks as a GPU node "
        f"type, so the cluster cannot be created. Allowed: {ALLOWED}"
    )


def test_unknown_driver_type_named_and_the_worker_still_checked() -> None:
    worker = with_(DATABRICKS_GPU, nodeTypeId="Standard_NC12s_v3", driverNodeTypeId=UNKNOWN)
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, worker)
    assert [v.split(": ")[0] for v in outcome.violations] == ["nodeTypeId"]
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("driverNodeTypeId can't be known during preview")


def test_unknown_worker_type_named() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DBX, nodeTypeId=UNKNOWN, driverNodeTypeId=UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("nodeTypeId, driverNodeTypeId can't be known during preview")
