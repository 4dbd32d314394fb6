"""databricks-gpu-no-photon: no Photon on GPU clusters."""

from __future__ import annotations

from policies.databricks_gpu_no_photon import POLICY
from tests.policies._helpers import DATABRICKS_CLUSTER, DATABRICKS_GPU, run_policy, with_


def test_standard_engine_passes() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, DATABRICKS_GPU).violations == []
    assert run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, runtimeEngine=None)).violations == []


def test_photon_engine_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, runtimeEngine="PHOTON"))
    assert outcome.violations == [
        "runtimeEngine: PHOTON is set on a GPU cluster, but Photon does not run on GPU compute (Databricks rejects the "
        "combination). Set runtimeEngine: STANDARD (or leave it unset)."
    ]


def test_photon_runtime_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkVersion="15.4.x-photon-scala2.12"))
    assert outcome.violations == [
        "sparkVersion: 15.4.x-photon-scala2.12 is a Photon runtime on a GPU cluster, but Photon does not run on GPU "
        "compute. Use a GPU ML runtime such as 17.3.x-gpu-ml-scala2.13."
    ]


def test_photon_on_cpu_cluster_is_fine() -> None:
    props = with_(DATABRICKS_GPU, nodeTypeId="Standard_D4s_v5", driverNodeTypeId=None, runtimeEngine="PHOTON")
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []
