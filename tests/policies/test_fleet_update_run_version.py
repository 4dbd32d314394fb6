"""fleet-update-run-version (mandatory): a Fleet update run's target Kubernetes version against the pinned GPU
software of the members it covers that the stack shows (rules.fleet.update_run_findings), generic
``azure-native:resources:Resource`` and typed ``UpdateRun`` alike."""

from __future__ import annotations

from typing import Any

from policies.fleet_update_run_version import POLICY
from tests.policies._helpers import UNKNOWN, run_stack_policy, urn_of
from tests.policies.test_fleet_auto_upgrade_channel import FLEET, GENERIC, NS, cluster, member, operator

TYPED = "azure-native:containerservice:UpdateRun"
STRATEGY_ID = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-gpu-fleet/providers/"
    "Microsoft.ContainerService/fleets/gpu-fleet/updateStrategies/gpu-stages"
)
REFUSED = (
    "fleet-k8s-137 (fleet gpu-fleet): update run 'k8s-137' (Full: control plane and node pools) moves member 'weu' "
    "(westeurope) from Kubernetes 1.34 to 1.37.1 as of 2026-11-30. But GPU operator v26.7.0 (NVIDIA's "
    "platform-support matrix) is validated up to 1.36. Target Kubernetes 1.36 or lower, leave this member's group out "
    "of the run's stages, or pin software validated on 1.37 first."
)


def update(upgrade_type: Any = "Full", version: Any = "1.37.1", **node_images: Any) -> dict[str, Any]:
    upgrade = {"type": upgrade_type} if version is None else {"type": upgrade_type, "kubernetesVersion": version}
    return {"upgrade": upgrade, "nodeImageSelection": {"type": "Consistent", **node_images}}


def run(managed: dict[str, Any] | None = None, **extra: Any) -> tuple[str, str, dict[str, Any]]:
    body = {"managedClusterUpdate": managed or update(), **extra}
    return (GENERIC, "fleet-k8s-137", {**NS, "parentResourcePath": "fleets/gpu-fleet", "resourceType": "updateRuns",
                                       "resourceName": "k8s-137", "properties": body})  # fmt: skip


def typed_run(managed: dict[str, Any] | None = None, **extra: Any) -> tuple[str, str, dict[str, Any]]:
    return (TYPED, "fleet-k8s-137", {"fleetName": "gpu-fleet", "resourceGroupName": "rg-gpu-fleet",
                                     "updateRunName": "k8s-137", "managedClusterUpdate": managed or update(),
                                     **extra})  # fmt: skip


def strategy(*stages: tuple[str, list[str]]) -> tuple[str, str, dict[str, Any]]:
    body = {"strategy": {"stages": [{"name": n, "groups": [{"name": g} for g in gs]} for n, gs in stages]}}
    return (GENERIC, "fleet-stages", {**NS, "parentResourcePath": "fleets/gpu-fleet",
                                      "resourceType": "updateStrategies", "resourceName": "gpu-stages",
                                      "properties": body})  # fmt: skip


def test_a_full_run_past_the_shipped_operators_range_is_refused_on_the_run() -> None:
    outcome = run_stack_policy(POLICY, [*FLEET, run()])
    assert outcome.violations == [REFUSED]
    assert outcome.violation_urns == [urn_of(GENERIC, "fleet-k8s-137")]


def test_the_typed_update_run_is_judged_the_same() -> None:
    outcome = run_stack_policy(POLICY, [*FLEET, typed_run()])
    assert outcome.violations == [REFUSED]
    assert outcome.violation_urns == [urn_of(TYPED, "fleet-k8s-137")]


def test_a_run_inside_the_range_passes() -> None:
    for target in (run(update("Full", "1.36.3")), typed_run(update("ControlPlaneOnly", "1.36"))):
        outcome = run_stack_policy(POLICY, [*FLEET, target])
        assert outcome.violations == [] and outcome.not_applicable == [] and outcome.preview_unknown is None


def test_control_plane_only_past_the_range_is_refused_too() -> None:
    outcome = run_stack_policy(POLICY, [*FLEET, typed_run(update("ControlPlaneOnly", "1.37"))])
    assert outcome.violations == [REFUSED.replace("Full: control plane and node pools", "ControlPlaneOnly: control "
                                                  "plane only").replace("to 1.37.1", "to 1.37")]  # fmt: skip


def test_a_node_image_only_run_is_not_judged_for_version() -> None:
    for target in (
        run(update("NodeImageOnly", None, customNodeImageVersions=[])),
        typed_run(update("NodeImageOnly", None)),
    ):
        outcome = run_stack_policy(POLICY, [*FLEET, target])
        assert outcome.violations == [] and outcome.not_applicable == [] and outcome.preview_unknown is None
    # no member facts are needed, so members the stack does not show are not named either
    assert run_stack_policy(POLICY, [run(update("NodeImageOnly", None))]).not_applicable == []


def test_the_runs_strategy_decides_the_members_it_covers() -> None:
    rest_only = {"strategy": {"stages": [{"name": "rest", "groups": [{"name": "rest"}]}]}}
    assert run_stack_policy(POLICY, [*FLEET, run(**rest_only)]).violations == []
    both = {"strategy": {"stages": [{"name": "canary", "groups": [{"name": "canary"}]},
                                    {"name": "rest", "groups": [{"name": "rest"}]}]}}  # fmt: skip
    assert run_stack_policy(POLICY, [*FLEET, typed_run(**both)]).violations == [REFUSED]
    # updateStrategyId names a strategy of the stack: its stages count
    named = run(updateStrategyId=STRATEGY_ID)
    assert run_stack_policy(POLICY, [*FLEET, strategy(("rest", ["rest"])), named]).violations == []
    assert run_stack_policy(POLICY, [*FLEET, strategy(("c", ["canary"]), ("r", ["rest"])), named]).violations == [
        REFUSED
    ]
    # a strategy the stack does not show: which members it updates is not known, so the run is not judged
    unseen = run_stack_policy(POLICY, [*FLEET, named])
    assert unseen.violations == []
    assert unseen.not_applicable == [
        "fleet-k8s-137: its updateStrategyId names strategy 'gpu-stages', which is not in this stack, so the members "
        "its stages update are not known"
    ]


def test_members_the_stack_does_not_show_are_not_checked() -> None:
    outcome = run_stack_policy(POLICY, [run()])
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "fleet gpu-fleet: no FleetMember of it in the stack, so no member's pinned GPU software is known"
    ]
    outcome = run_stack_policy(POLICY, [*FLEET, member("eus", "rest"), run()])
    assert outcome.violations == [REFUSED]
    partial = run_stack_policy(POLICY, [*FLEET[3:], member("eus", "rest"), run()])
    assert partial.violations == []
    assert partial.not_applicable == [
        "fleet gpu-fleet: members eus have no ManagedCluster tagged fleet-member in the stack, so their pinned GPU "
        "software is not known"
    ]


def test_an_unknown_target_or_strategy_during_preview() -> None:
    outcome = run_stack_policy(POLICY, [*FLEET, run(update("Full", UNKNOWN))])
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("fleet-k8s-137: managedClusterUpdate.upgrade.kubernetesVersion can't be")
    outcome = run_stack_policy(POLICY, [*FLEET, typed_run(update(UNKNOWN, "1.37"))])
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("fleet-k8s-137: managedClusterUpdate.upgrade.type can't be")
    outcome = run_stack_policy(POLICY, [*FLEET, run(updateStrategyId=UNKNOWN)])  # the strategy's id, before it exists
    assert outcome.violations == []
    assert outcome.preview_unknown is not None and outcome.preview_unknown.startswith("fleet-k8s-137: updateStrategyId")
    unknown_version = [*FLEET[:1], cluster("weu", "westeurope", kubernetesVersion=UNKNOWN), *FLEET[2:]]
    outcome = run_stack_policy(POLICY, [*unknown_version, run()])
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("weu-aks-cluster: kubernetesVersion")


def test_the_refusal_follows_the_pinned_releases_facts() -> None:
    """v25.10.1 is validated up to 1.35, v26.7.0 up to 1.36: a run to 1.36 refuses the first only; no operator and
    no KAITO add-on, nothing pinned, nothing refused."""
    to_136 = run(update("Full", "1.36.2"))
    older = [*FLEET[:2], operator("weu", "v25.10.1"), *FLEET[3:]]
    assert run_stack_policy(POLICY, [*older, to_136]).violations == [
        "fleet-k8s-137 (fleet gpu-fleet): update run 'k8s-137' (Full: control plane and node pools) moves member "
        "'weu' (westeurope) from Kubernetes 1.34 to 1.36.2 as of 2026-11-30. But GPU operator v25.10.1 (NVIDIA's "
        "platform-support matrix) is validated up to 1.35. Target Kubernetes 1.35 or lower, leave this member's group "
        "out of the run's stages, or pin software validated on 1.36 first."
    ]
    assert run_stack_policy(POLICY, [*FLEET, to_136]).violations == []
    no_operator = [*FLEET[:2], *FLEET[3:]]
    assert run_stack_policy(POLICY, [*no_operator, run()]).violations == []
