"""databricks-gpu-no-photon: no Photon on GPU clusters."""

from __future__ import annotations

from policies.databricks_gpu_no_photon import POLICY
from tests.policies._helpers import DATABRICKS_CLUSTER, DATABRICKS_GPU, UNKNOWN, run_policy, with_


def test_standard_engine_passes() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, DATABRICKS_GPU).violations == []
    assert run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, runtimeEngine=None)).violations == []


def test_photon_engine_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, runtimeEngine="PHOTON"))
    assert outcome.violations == [
        "runtimeEngine: Photon is on (runtimeEngine PHOTON), but Photon does not run on GPU instance types: "
        "Databricks rejects the combination, so the GPU cluster cannot start. Turn Photon off: runtimeEngine "
        "STANDARD, the default (in a stack file, photon must be false)."
    ]


def test_photon_runtime_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkVersion="15.4.x-photon-scala2.12"))
    assert outcome.violations == [
        "sparkVersion: 15.4.x-photon-scala2.12 is a Photon runtime, but Photon does not run on GPU instance types "
        "(Databricks rejects the combination). Use a GPU ML runtime such as 17.3.x-gpu-ml-scala2.13."
    ]


def test_unknown_engine_is_named_and_the_runtime_still_checked() -> None:
    props = with_(DATABRICKS_GPU, runtimeEngine=UNKNOWN, sparkVersion="15.4.x-photon-scala2.12")
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, props)
    assert [v.split(": ")[0] for v in outcome.violations] == ["sparkVersion"]
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("runtimeEngine can't be known during preview")


def test_photon_on_cpu_cluster_is_fine() -> None:
    props = with_(DATABRICKS_GPU, nodeTypeId="Standard_D4s_v5", driverNodeTypeId=None, runtimeEngine="PHOTON")
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []
