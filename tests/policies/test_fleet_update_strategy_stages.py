"""fleet-update-strategy-stages (stack): the stages of a Fleet update strategy stage every group of the fleet's
members in the stack (:func:`rules.fleet.stage_findings`), generic ``azure-native:resources:Resource`` and typed."""

from __future__ import annotations

from typing import Any

from policies.fleet_update_strategy_stages import POLICY
from tests.policies._helpers import UNKNOWN, run_stack_policy, urn_of

GENERIC = "azure-native:resources:Resource"
TYPED_MEMBER = "azure-native:containerservice:FleetMember"
TYPED_STRATEGY = "azure-native:containerservice:FleetUpdateStrategy"
NS = {"resourceProviderNamespace": "Microsoft.ContainerService", "apiVersion": "2026-06-01"}


def member(name: str, group: Any) -> tuple[str, str, dict[str, Any]]:
    props: dict[str, Any] = {"clusterResourceId": f"/subscriptions/0/resourceGroups/rg/.../{name}-aks"}
    if group is not None:
        props["group"] = group
    return (
        GENERIC,
        f"fleet-member-{name}",
        {
            **NS,
            "parentResourcePath": "fleets/gpu-fleet",
            "resourceType": "members",
            "resourceName": name,
            "properties": props,
        },
    )


def strategy(*stages: tuple[str, list[str]], name: str = "fleet-update-strategy") -> tuple[str, str, dict[str, Any]]:
    body = {"strategy": {"stages": [{"name": n, "groups": [{"name": g} for g in groups]} for n, groups in stages]}}
    return (
        GENERIC,
        name,
        {
            **NS,
            "parentResourcePath": "fleets/gpu-fleet",
            "resourceType": "updateStrategies",
            "resourceName": "gpu-staged",
            "properties": body,
        },
    )


MEMBERS = [member("weu", "canary"), member("sec", "rest"), member("eus", "rest")]


def test_every_group_staged_passes() -> None:
    outcome = run_stack_policy(POLICY, [*MEMBERS, strategy(("canary", ["canary"]), ("rest", ["rest"]))])
    assert outcome.violations == [] and outcome.not_applicable == [] and outcome.preview_unknown is None


def test_an_unstaged_group_is_refused_on_each_of_its_members() -> None:
    outcome = run_stack_policy(POLICY, [*MEMBERS, strategy(("canary", ["canary"]))])
    assert outcome.violations == [
        "fleet-update-strategy (fleet gpu-fleet): group 'rest' of member 'sec' is in no stage of updateStrategy: an "
        "update run following it would never upgrade sec. Add the group to a stage (staged: canary).",
        "fleet-update-strategy (fleet gpu-fleet): group 'rest' of member 'eus' is in no stage of updateStrategy: an "
        "update run following it would never upgrade eus. Add the group to a stage (staged: canary).",
    ]
    assert outcome.violation_urns == [urn_of(GENERIC, "fleet-member-sec"), urn_of(GENERIC, "fleet-member-eus")]


def test_a_member_without_a_group_and_a_group_without_members() -> None:
    stack = [member("weu", "canary"), member("sec", None), strategy(("canary", ["canary"]), ("rest", ["rst"]))]
    outcome = run_stack_policy(POLICY, stack)
    assert outcome.violations == [
        "fleet-update-strategy (fleet gpu-fleet): no member is in group 'rst': the members' groups are canary "
        "(fleet.members[].group). Fleet Manager refuses an update run whose strategy names a group without members.",
        "fleet-update-strategy (fleet gpu-fleet): member 'sec' has no group, but the update strategy upgrades groups "
        "stage by stage: an update run following it would never upgrade sec. Set its group to one of canary, rst.",
    ]
    assert outcome.violation_urns == [urn_of(GENERIC, "fleet-update-strategy"), urn_of(GENERIC, "fleet-member-sec")]


def test_typed_resources_are_judged_the_same() -> None:
    typed_members = [
        (
            TYPED_MEMBER,
            f"m-{n}",
            {
                "fleetName": "gpu-fleet",
                "resourceGroupName": "rg",
                "fleetMemberName": n,
                "clusterResourceId": "/x",
                "group": g,
            },
        )
        for n, g in (("weu", "canary"), ("sec", "rest"))
    ]
    typed = (
        TYPED_STRATEGY,
        "staged",
        {
            "fleetName": "gpu-fleet",
            "resourceGroupName": "rg",
            "updateStrategyName": "staged",
            "strategy": {"stages": [{"name": "one", "groups": [{"name": "canary"}]}]},
        },
    )
    outcome = run_stack_policy(POLICY, [*typed_members, typed])
    assert outcome.violations == [
        "staged (fleet gpu-fleet): group 'rest' of member 'sec' is in no stage of updateStrategy: an update run "
        "following it would never upgrade sec. Add the group to a stage (staged: canary)."
    ]


def test_no_member_in_the_stack_is_not_checked() -> None:
    outcome = run_stack_policy(POLICY, [strategy(("canary", ["canary"]))])
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "fleet gpu-fleet: no FleetMember of it in the stack, so the groups fleet-update-strategy must stage are not "
        "known (members joined from another stack are not seen)"
    ]


def test_members_of_another_fleet_do_not_count() -> None:
    other = member("x", "rest")
    other[2]["parentResourcePath"] = "fleets/other-fleet"
    outcome = run_stack_policy(POLICY, [member("weu", "canary"), other, strategy(("canary", ["canary"]))])
    assert outcome.violations == []


def test_unknown_group_or_stages_during_preview() -> None:
    outcome = run_stack_policy(POLICY, [member("weu", UNKNOWN), strategy(("canary", ["canary"]))])
    assert outcome.preview_unknown is not None and outcome.preview_unknown.startswith("fleet-member-weu: group")
    unknown_stages = strategy()
    unknown_stages[2]["properties"] = {"strategy": {"stages": UNKNOWN}}
    outcome = run_stack_policy(POLICY, [member("weu", "canary"), unknown_stages])
    assert outcome.preview_unknown is not None and outcome.preview_unknown.startswith(
        "fleet-update-strategy: strategy.stages"
    )
