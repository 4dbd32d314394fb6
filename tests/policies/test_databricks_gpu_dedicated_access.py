"""databricks-gpu-dedicated-access: GPU clusters use dedicated (single user) access."""

from __future__ import annotations

import pytest

from policies.databricks_gpu_dedicated_access import POLICY
from tests.policies._helpers import DATABRICKS_CLUSTER, DATABRICKS_GPU, run_policy, with_


@pytest.mark.parametrize("mode", ["SINGLE_USER", "DATA_SECURITY_MODE_DEDICATED"])
def test_dedicated_passes(mode: str) -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, dataSecurityMode=mode)).violations == []


def test_shared_mode_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, dataSecurityMode="USER_ISOLATION"))
    assert outcome.violations == [
        "dataSecurityMode: a GPU cluster needs dedicated access, but dataSecurityMode is USER_ISOLATION: the GPU ML "
        "runtimes are not supported in standard (shared) access mode, and without an explicit mode the workspace "
        "default applies. Set dataSecurityMode: SINGLE_USER with singleUserName (a user or group)."
    ]


def test_unset_mode_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, dataSecurityMode=None))
    assert len(outcome.violations) == 1
    assert "dataSecurityMode is not set" in outcome.violations[0]


def test_cpu_cluster_not_checked() -> None:
    props = with_(DATABRICKS_GPU, nodeTypeId="Standard_D4s_v5", driverNodeTypeId=None, dataSecurityMode=None)
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []
