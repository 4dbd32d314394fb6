"""The stack policies that must know which cluster a release or Workspace runs on judge a fleet stack (every
ManagedCluster tagged ``fleet-member``) member by member, as one-cluster stacks (policies/_fleet.py
``member_groups``, rules/fleet_wire.py ``attribute_members``); without the tags they say what they did not check.

Two members, ``weu`` and ``sec``, each a ManagedCluster (tagged), a T4 AgentPool and a gpu-operator release, the
pools and releases named with the member's ``<member>-`` prefix as the fleet component names them. Raw resources,
camelCase, numbers as floats.
"""

from __future__ import annotations

from typing import Any

from policies.aks_kaito_addon_version import POLICY as KAITO_VERSION
from policies.gpu_node_device_plugin import POLICY as TWO_PLUGINS
from policies.gpu_node_device_plugin_missing import POLICY as NO_PLUGIN
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    HELM_RELEASE,
    KAITO_WORKSPACE,
    KAITO_WS,
    MANAGED_CLUSTER,
    run_stack_policy,
    urn_of,
    with_,
)
from tests.policies.test_gpu_node_device_plugin import CHART, OPERATOR, T4_POOL

Stack = list[tuple[str, str, dict[str, Any]]]


def _cluster(member: str, *, tagged: bool = True, kaito: bool = False, version: str = "1.36") -> dict[str, Any]:
    return with_(
        CLUSTER,
        resourceName=f"aks-{member}",
        kubernetesVersion=version,
        aiToolchainOperatorProfile={"enabled": kaito},
        tags={"fleet-member": member} if tagged else None,
    )


def _member(member: str, *releases: tuple[str, dict[str, Any]], tagged: bool = True) -> Stack:
    pool = with_(T4_POOL, resourceName=f"aks-{member}")
    return [
        (MANAGED_CLUSTER, f"{member}-aks", _cluster(member, tagged=tagged)),
        (AGENT_POOL, f"{member}-t4", pool),
        *[(HELM_RELEASE, f"{member}-{name}", props) for name, props in releases],
    ]


def test_each_member_with_its_operator_passes_and_nothing_is_left_unchecked() -> None:
    stack = [*_member("weu", ("op", OPERATOR)), *_member("sec", ("op", OPERATOR))]
    for policy in (TWO_PLUGINS, NO_PLUGIN):
        outcome = run_stack_policy(policy, stack)
        assert (outcome.violations, outcome.not_applicable) == ([], []), policy.name


def test_two_plugins_on_one_member_are_refused_on_that_members_pool_only() -> None:
    stack = [*_member("weu", ("op", OPERATOR)), *_member("sec", ("op", OPERATOR), ("chart", CHART))]
    outcome = run_stack_policy(TWO_PLUGINS, stack)
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "sec-t4")]
    [message] = outcome.violations
    assert message.startswith(
        "sec-t4: node pool 't4' (Standard_NC4as_T4_v3): 2 NVIDIA device plugins land on these GPU nodes (the NVIDIA "
        "GPU operator's device plugin and the nvidia-device-plugin chart)"
    )
    assert outcome.not_applicable == []


def test_a_member_without_a_plugin_is_named_and_the_other_is_not() -> None:
    stack = [*_member("weu", ("op", OPERATOR)), *_member("sec")]
    outcome = run_stack_policy(NO_PLUGIN, stack)
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "sec-t4")]
    assert outcome.violations[0].startswith("sec-t4: node pool 't4' (Standard_NC4as_T4_v3): no NVIDIA device plugin")
    assert outcome.not_applicable == []


def test_without_the_member_tags_the_clusters_are_not_told_apart() -> None:
    stack = [*_member("weu", ("op", OPERATOR)), *_member("sec", ("op", OPERATOR), tagged=False)]
    outcome = run_stack_policy(NO_PLUGIN, stack)
    assert outcome.violations == []
    [note] = outcome.not_applicable
    assert note.startswith("weu-t4: this stack has 2 AKS clusters")
    assert note.endswith("so whether a device plugin lands on these GPU nodes was not checked")


def test_a_release_no_member_claims_keeps_the_whole_stack_reading() -> None:
    stack = [*_member("weu", ("op", OPERATOR)), *_member("sec"), (HELM_RELEASE, "shared-op", OPERATOR)]
    outcome = run_stack_policy(NO_PLUGIN, stack)
    assert outcome.violations == []
    assert len(outcome.not_applicable) == 1 and "this stack has 2 AKS clusters" in outcome.not_applicable[0]
    assert "gpu-operator Helm release 'shared-op'" in outcome.not_applicable[0]


def _kaito_member(member: str, version: str) -> Stack:
    return [
        (MANAGED_CLUSTER, f"{member}-aks", _cluster(member, kaito=True, version=version)),
        (KAITO_WORKSPACE, f"{member}-phi-4", KAITO_WS),
    ]


def test_each_members_workspaces_are_judged_against_its_own_minor() -> None:
    outcome = run_stack_policy(KAITO_VERSION, [*_kaito_member("weu", "1.36"), *_kaito_member("sec", "1.33")])
    assert outcome.not_applicable == []
    assert outcome.violation_urns == [urn_of(MANAGED_CLUSTER, "sec-aks")]
    assert outcome.violations[0].startswith("sec-aks: kubernetesVersion: ")
    assert "0.4.5" in outcome.violations[0]
    both_current = run_stack_policy(KAITO_VERSION, [*_kaito_member("weu", "1.36"), *_kaito_member("sec", "1.36")])
    assert (both_current.violations, both_current.not_applicable) == ([], [])


def test_a_workspace_on_a_member_without_the_add_on_is_not_judged() -> None:
    off = [(MANAGED_CLUSTER, "sec-aks", _cluster("sec", version="1.33")), (KAITO_WORKSPACE, "sec-w", KAITO_WS)]
    outcome = run_stack_policy(KAITO_VERSION, [*_kaito_member("weu", "1.36"), *off])
    assert (outcome.violations, outcome.not_applicable) == ([], [])
