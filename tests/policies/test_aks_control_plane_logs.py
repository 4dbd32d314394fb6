"""aks-control-plane-logs (stack, advisory): Microsoft's 'Resource logs in Azure Kubernetes Service should be enabled'
(245fc9df-…): a diagnostic setting on each cluster with an audit category, matched by dependency or by name."""

from __future__ import annotations

import copy
from typing import Any

from pulumi_policy import EnforcementLevel, PolicyResource, StackValidationArgs

from policies.aks_control_plane_logs import POLICY
from tests.policies._helpers import CLUSTER, MANAGED_CLUSTER, UNKNOWN, _opts, run_stack_policy, urn_of

SETTING = "azure-native:monitor:DiagnosticSetting"
CLUSTER_ID = (
    "/subscriptions/0000/resourceGroups/rg-gpu-dev/providers/Microsoft.ContainerService/managedClusters/aks-gpu-dev"
)
LOGS = [{"category": c, "enabled": True} for c in ("kube-audit-admin", "kube-apiserver", "guard")]
DIAG: dict[str, Any] = {
    "name": "control-plane",
    "resourceUri": CLUSTER_ID,
    "workspaceId": "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/log",
    "logAnalyticsDestinationType": "Dedicated",
    "logs": LOGS,
}


def test_a_setting_naming_the_cluster_with_an_audit_category_passes() -> None:
    assert POLICY.enforcement_level == EnforcementLevel.ADVISORY
    resources = [(MANAGED_CLUSTER, "aks", CLUSTER), (SETTING, "diag", DIAG)]
    assert run_stack_policy(POLICY, resources).violations == []
    alias = [(MANAGED_CLUSTER, "aks", CLUSTER), ("azure-native:insights:DiagnosticSetting", "diag", DIAG)]
    assert run_stack_policy(POLICY, alias).violations == []
    group = {**DIAG, "logs": [{"categoryGroup": "audit", "enabled": True}]}
    assert run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", CLUSTER), (SETTING, "diag", group)]).violations == []


def test_no_setting_is_reported_on_the_cluster() -> None:
    outcome = run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", CLUSTER)])
    [message] = outcome.violations
    assert message.startswith("aks: no diagnostic setting sends the cluster's control-plane logs anywhere")
    assert "(245fc9df-fa96-4414-9a0b-3738c2f7341c)" in message
    assert outcome.violation_urns == [urn_of(MANAGED_CLUSTER, "aks")]


def test_a_setting_of_another_resource_or_without_audit_is_reported() -> None:
    other = {**DIAG, "resourceUri": CLUSTER_ID.replace("aks-gpu-dev", "aks-other")}
    assert len(run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", CLUSTER), (SETTING, "d", other)]).violations) == 1
    no_audit = {
        **DIAG,
        "logs": [{"category": "kube-apiserver", "enabled": True}, {"category": "kube-audit-admin", "enabled": False}],
    }
    [message] = run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", CLUSTER), (SETTING, "d", no_audit)]).violations
    assert message.startswith("aks: the cluster's diagnostic settings send kube-apiserver but no audit log")


def test_a_preview_matches_by_the_resource_uri_dependency() -> None:
    """In a preview the cluster's id is unknown; the engine still sends resourceUri's dependency on the cluster."""
    cluster = PolicyResource(
        MANAGED_CLUSTER, copy.deepcopy(CLUSTER), urn_of(MANAGED_CLUSTER, "aks"), "aks", _opts(), None, None, [], {}
    )
    setting = PolicyResource(
        SETTING,
        {**DIAG, "resourceUri": UNKNOWN},
        urn_of(SETTING, "diag"),
        "diag",
        _opts(),
        None,
        None,
        [cluster],
        {"resourceUri": [cluster]},
    )
    found: list[str] = []
    POLICY.validate(StackValidationArgs([cluster, setting], None), lambda message, urn=None: found.append(message))
    assert found == []
