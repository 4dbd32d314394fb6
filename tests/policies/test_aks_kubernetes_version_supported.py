"""aks-kubernetes-version-supported (stack): versions AKS can no longer create are refused, on raw resources too.

The suite pins today to 2026-11-30 (tests/conftest.py): 1.33 ended 2026-07-31, 1.34 ends today, 1.36 is current.
"""

from __future__ import annotations

from typing import Any

import pytest

from policies.aks_kubernetes_version_supported import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    GPU_POOL,
    MANAGED_CLUSTER,
    UNKNOWN,
    run_stack_policy,
    urn_of,
    with_,
)

CURRENT = with_(CLUSTER, kubernetesVersion="1.36")
POOL = with_(GPU_POOL, orchestratorVersion="1.36")
LTS = {"sku": {"name": "Base", "tier": "Premium"}, "supportPlan": "AKSLongTermSupport"}


def stack(cluster: dict[str, Any] | None = CURRENT, pool: dict[str, Any] | None = POOL) -> list[tuple[str, str, dict]]:
    out: list[tuple[str, str, dict]] = []
    if cluster is not None:
        out.append((MANAGED_CLUSTER, "aks-cluster", cluster))
    if pool is not None:
        out.append((AGENT_POOL, "aks-t4", pool))
    return out


def test_current_versions_pass() -> None:
    outcome = run_stack_policy(POLICY, stack())
    assert outcome.violations == [] and outcome.not_applicable == []


def test_removed_cluster_version_refused_with_dates_and_choices() -> None:
    outcome = run_stack_policy(POLICY, stack(cluster=with_(CURRENT, kubernetesVersion="1.33")))
    assert len(outcome.violations) == 1
    message = outcome.violations[0]
    assert message.startswith(
        "aks-cluster: kubernetesVersion: Kubernetes 1.33 can no longer be created on AKS: its end of life was "
        "2026-07-31 (today is 2026-11-30)"
    )
    assert "Move to a supported version: 1.34 (until 2026-11-30), 1.35 (until 2027-03-31)" in message
    assert outcome.violation_urns == [urn_of(MANAGED_CLUSTER, "aks-cluster")]


def test_inline_profile_and_standalone_pool_versions_are_checked() -> None:
    profiles = [{**CURRENT["agentPoolProfiles"][0], "orchestratorVersion": "1.32.1"}]
    outcome = run_stack_policy(
        POLICY,
        stack(cluster=with_(CURRENT, agentPoolProfiles=profiles), pool=with_(POOL, orchestratorVersion="1.33.3")),
    )
    assert [v.split(": Kubernetes")[0] for v in outcome.violations] == [
        "aks-cluster: agentPoolProfiles[0].orchestratorVersion",
        "aks-t4: orchestratorVersion",
    ]
    assert "Kubernetes 1.32 can no longer be created" in outcome.violations[0]


def test_lts_accepted_only_with_premium_and_the_plan() -> None:
    lts_cluster = with_(CURRENT, kubernetesVersion="1.33", **LTS)
    assert (
        run_stack_policy(POLICY, stack(cluster=lts_cluster, pool=with_(POOL, orchestratorVersion="1.33"))).violations
        == []
    )
    standard_lts = with_(lts_cluster, sku={"name": "Base", "tier": "Standard"})
    outcome = run_stack_policy(POLICY, stack(cluster=standard_lts, pool=None))
    assert len(outcome.violations) == 1
    assert (
        "only with sku.tier Premium and supportPlan AKSLongTermSupport (this cluster has tier Standard"
        in (outcome.violations[0])
    )
    plan_missing = with_(lts_cluster, supportPlan=None)
    assert len(run_stack_policy(POLICY, stack(cluster=plan_missing, pool=None)).violations) == 1


def test_empty_orchestrator_version_means_the_control_plane() -> None:
    # ARM reads "" as unset (Microsoft's examples write it so): nothing to check on the pool itself.
    assert run_stack_policy(POLICY, stack(pool=with_(POOL, orchestratorVersion=""))).violations == []


def test_pool_of_a_cluster_outside_the_stack() -> None:
    refused = run_stack_policy(POLICY, stack(cluster=None, pool=with_(POOL, orchestratorVersion="1.30")))
    assert len(refused.violations) == 1, "1.30 is gone even with LTS"
    lts_only = run_stack_policy(POLICY, stack(cluster=None, pool=with_(POOL, orchestratorVersion="1.33")))
    assert lts_only.violations == []
    assert lts_only.not_applicable == [
        "aks-t4: orchestratorVersion is 1.33; whether AKS accepts it depends on its cluster's tier and support plan "
        "(long-term support), and that cluster is not in this stack"
    ]


@pytest.mark.parametrize("field", ["kubernetesVersion", "supportPlan"])
def test_unknown_values_are_named_not_passed(field: str) -> None:
    outcome = run_stack_policy(POLICY, stack(cluster=with_(CURRENT, **{field: UNKNOWN}), pool=None))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith(f"aks-cluster: {field} can't be known during preview")


def test_another_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGP_TODAY", "2027-07-01")
    outcome = run_stack_policy(POLICY, stack(pool=None))
    assert (
        len(outcome.violations) == 1
        and "its end of life was 2027-06-30 (today is 2027-07-01)" in (outcome.violations[0])
    )


def test_unknown_profiles_and_versions_are_named_in_the_list_order() -> None:
    profiles = [
        {"name": "system", "vmSize": "Standard_D4s_v5", "orchestratorVersion": UNKNOWN},
        UNKNOWN,
        {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "orchestratorVersion": "1.33"},
        {"name": "late", "vmSize": "Standard_D4s_v5", "orchestratorVersion": UNKNOWN},
    ]
    outcome = run_stack_policy(POLICY, stack(cluster=with_(CURRENT, agentPoolProfiles=profiles), pool=None))
    assert [v.split(":")[0] + ":" + v.split(":")[1] for v in outcome.violations] == [
        "aks-cluster: agentPoolProfiles[2].orchestratorVersion"
    ]
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith(
        "aks-cluster: agentPoolProfiles[0].orchestratorVersion, aks-cluster: agentPoolProfiles[1].orchestratorVersion, "
        "aks-cluster: agentPoolProfiles[3].orchestratorVersion can't be known during preview"
    )
