"""aks-kaito-addon-version (stack): a raw KAITO add-on cluster's Kubernetes minor runs the add-on version whose preset
table the Workspaces beside it are checked against (``gpu_catalog/facts/kaito_addon.json``)."""

from __future__ import annotations

from policies.aks_kaito_addon_version import POLICY
from rules.kaito import KaitoCluster, addon_version
from tests.policies._helpers import (
    CLUSTER,
    KAITO_WORKSPACE,
    KAITO_WS,
    MANAGED_CLUSTER,
    UNKNOWN,
    run_stack_policy,
    with_,
)

ON_136 = with_(CLUSTER, kubernetesVersion="1.36")
ON_133 = with_(CLUSTER, kubernetesVersion="1.33")


def _expected(version: str) -> str:
    rule = addon_version(
        KaitoCluster(addon_enabled=True, workspaces=1, kubernetes_version=version),
        workspaces="the stack's KAITO Workspaces",
    )
    assert isinstance(rule, list) and len(rule) == 1
    return f"aks: kubernetesVersion: {rule[0].message}"


def test_a_minor_that_runs_the_checked_add_on_passes() -> None:
    outcome = run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", ON_136), (KAITO_WORKSPACE, "phi-4", KAITO_WS)])
    assert outcome.violations == [] and outcome.not_applicable == []


def test_a_minor_on_another_add_on_version_is_refused() -> None:
    outcome = run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", ON_133), (KAITO_WORKSPACE, "phi-4", KAITO_WS)])
    assert outcome.violations == [_expected("1.33")]
    assert "0.4.5" in outcome.violations[0] and "1.34, 1.35 or 1.36" in outcome.violations[0]


def test_no_workspace_or_no_add_on_is_not_judged() -> None:
    assert run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", ON_133)]).violations == []
    off = with_(ON_133, aiToolchainOperatorProfile={"enabled": False})
    assert run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", off), (KAITO_WORKSPACE, "w", KAITO_WS)]).violations == []


def test_two_clusters_say_why_they_are_not_checked() -> None:
    stack = [(MANAGED_CLUSTER, "a", ON_133), (MANAGED_CLUSTER, "b", ON_133), (KAITO_WORKSPACE, "w", KAITO_WS)]
    outcome = run_stack_policy(POLICY, stack)
    assert outcome.violations == []
    assert outcome.not_applicable == ["2 ManagedClusters in the stack: a KAITO Workspace names none of them"]


def test_an_unknown_version_is_named_during_preview() -> None:
    unknown = with_(CLUSTER, kubernetesVersion=UNKNOWN)
    outcome = run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", unknown), (KAITO_WORKSPACE, "w", KAITO_WS)])
    assert outcome.preview_unknown is not None and outcome.preview_unknown.startswith("aks: kubernetesVersion")
