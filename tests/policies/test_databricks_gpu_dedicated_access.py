"""databricks-gpu-dedicated-access: GPU clusters use dedicated access and name its principal (raw resources too)."""

from __future__ import annotations

import pytest

from policies.databricks_gpu_dedicated_access import POLICY
from tests.policies._helpers import DATABRICKS_CLUSTER, DATABRICKS_GPU, UNKNOWN, run_policy, with_

GROUP = with_(
    DATABRICKS_GPU,
    kind="CLASSIC_PREVIEW",
    dataSecurityMode="DATA_SECURITY_MODE_DEDICATED",
    singleUserName="ml-platform",
    sparkVersion="17.3.x-scala2.13",
    useMlRuntime=True,
)

MISSING_PRINCIPAL = (
    "singleUserName: a GPU cluster runs in dedicated access mode (dataSecurityMode {mode}), so singleUserName is "
    "required: the Databricks provider only creates dedicated compute with its principal; set singleUserName to a "
    "workspace user's e-mail (dataSecurityMode SINGLE_USER), e.g. 'alice@contoso.com', or dedicate the cluster to a "
    "workspace group: dedicatedGroup in a stack file, which puts the group's name in singleUserName with kind "
    "CLASSIC_PREVIEW and dataSecurityMode DATA_SECURITY_MODE_DEDICATED (needs the workspace preview 'Compute: "
    "Dedicated group clusters', Unity Catalog and DBR 15.4+)"
)


def test_compliant_user_fixture_passes() -> None:
    assert DATABRICKS_GPU["dataSecurityMode"] == "SINGLE_USER"
    assert DATABRICKS_GPU["singleUserName"] == "ml-team@contoso.com"
    assert run_policy(POLICY, DATABRICKS_CLUSTER, DATABRICKS_GPU).violations == []


def test_compliant_group_fixture_passes() -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, GROUP).violations == []


def test_raw_single_user_cluster_without_single_user_name_is_a_violation() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, singleUserName=None))
    assert outcome.violations == [MISSING_PRINCIPAL.format(mode="SINGLE_USER")]


@pytest.mark.parametrize("blank", ["", "   "])
def test_blank_single_user_name_is_a_violation(blank: str) -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, singleUserName=blank))
    assert outcome.violations == [MISSING_PRINCIPAL.format(mode="SINGLE_USER")]


def test_dedicated_alias_without_a_principal_is_a_violation_too() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(GROUP, singleUserName=None))
    assert outcome.violations == [MISSING_PRINCIPAL.format(mode="DATA_SECURITY_MODE_DEDICATED")]


def test_dedicated_alias_without_kind_is_a_violation() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(GROUP, kind=None))
    assert outcome.violations == [
        "dataSecurityMode: DATA_SECURITY_MODE_DEDICATED is only available when kind is CLASSIC_PREVIEW, but kind is "
        "not set: Databricks refuses the request. Set kind: CLASSIC_PREVIEW, or use dataSecurityMode: SINGLE_USER "
        "with a user in singleUserName."
    ]


def test_shared_mode_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, dataSecurityMode="USER_ISOLATION"))
    assert outcome.violations == [
        "dataSecurityMode: a GPU cluster needs dedicated access, but dataSecurityMode is USER_ISOLATION: the GPU ML "
        "runtimes are not supported in standard (shared) access mode, and without an explicit mode the workspace "
        "default applies. Set dataSecurityMode: SINGLE_USER with singleUserName (a user), or kind: CLASSIC_PREVIEW "
        "with dataSecurityMode: DATA_SECURITY_MODE_DEDICATED and singleUserName (a user or group)."
    ]


@pytest.mark.parametrize("mode", ["DATA_SECURITY_MODE_AUTO", "DATA_SECURITY_MODE_STANDARD"])
def test_auto_and_standard_aliases_are_not_dedicated(mode: str) -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(GROUP, dataSecurityMode=mode))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith(
        f"dataSecurityMode: a GPU cluster needs dedicated access, but dataSecurityMode is {mode}: "
    )


def test_unset_mode_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, dataSecurityMode=None))
    assert len(outcome.violations) == 1
    assert "dataSecurityMode is not set" in outcome.violations[0]


def test_unknown_principal_is_named_not_flagged() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, singleUserName=UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("singleUserName can't be known during preview")


def test_unknown_mode_is_named_and_nothing_that_depends_on_it_is_checked() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(GROUP, dataSecurityMode=UNKNOWN, singleUserName=None))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("dataSecurityMode can't be known during preview")


def test_unknown_kind_with_the_dedicated_alias_is_named_and_the_principal_still_checked() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(GROUP, kind=UNKNOWN, singleUserName=None))
    assert outcome.violations == [MISSING_PRINCIPAL.format(mode="DATA_SECURITY_MODE_DEDICATED")]
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("kind can't be known during preview")


def test_cpu_cluster_not_checked() -> None:
    props = with_(
        DATABRICKS_GPU, nodeTypeId="Standard_D4s_v5", driverNodeTypeId=None, dataSecurityMode=None, singleUserName=None
    )
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []
