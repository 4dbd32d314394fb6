"""fleet-auto-upgrade-channel (mandatory) and fleet-auto-upgrade-next-move (advisory): a Fleet auto-upgrade profile
against the pinned GPU software of the members the stack shows (:mod:`rules.fleet`'s channel rules), generic
``azure-native:resources:Resource`` and typed ``AutoUpgradeProfile`` alike."""

from __future__ import annotations

from typing import Any

from policies.fleet_auto_upgrade_channel import POLICY as CHANNEL
from policies.fleet_auto_upgrade_next_move import POLICY as NEXT_MOVE
from tests.policies._helpers import CLUSTER, HELM_RELEASE, MANAGED_CLUSTER, UNKNOWN, run_stack_policy, urn_of, with_

GENERIC = "azure-native:resources:Resource"
NS = {"resourceProviderNamespace": "Microsoft.ContainerService", "apiVersion": "2026-06-01"}
Stack = list[tuple[str, str, dict[str, Any]]]


def member(name: str, group: str) -> tuple[str, str, dict[str, Any]]:
    return (GENERIC, f"fleet-member-{name}", {**NS, "parentResourcePath": "fleets/gpu-fleet", "resourceType": "members",
                                             "resourceName": name, "properties": {"group": group}})  # fmt: skip


def cluster(name: str, region: str, **changes: Any) -> tuple[str, str, dict[str, Any]]:
    base = {"kubernetesVersion": "1.34", "location": region, "tags": {"fleet-member": name},
            "aiToolchainOperatorProfile": {"enabled": False}}  # fmt: skip
    props = with_(CLUSTER, **{**base, **changes})
    return (MANAGED_CLUSTER, f"{name}-aks-cluster", props)


def operator(member_name: str, version: str = "v26.7.0") -> tuple[str, str, dict[str, Any]]:
    return (HELM_RELEASE, f"{member_name}-gpu-operator-release",
            {"chart": "gpu-operator", "version": version, "values": {"driver": {"enabled": True}}})  # fmt: skip


def profile(channel: Any, **extra: Any) -> tuple[str, str, dict[str, Any]]:
    body = {"channel": channel, "nodeImageSelection": {"type": "Consistent"}, **extra}
    return (GENERIC, "fleet-auto-upgrade", {**NS, "parentResourcePath": "fleets/gpu-fleet",
                                            "resourceType": "autoUpgradeProfiles", "resourceName": "gpu-auto-upgrade",
                                            "properties": body})  # fmt: skip


FLEET: Stack = [
    member("weu", "canary"), cluster("weu", "westeurope"), operator("weu"),
    member("sec", "rest"), cluster("sec", "swedencentral"),
]  # fmt: skip

RAPID = (
    "fleet-auto-upgrade (fleet gpu-fleet): fleet auto-upgrade channel 'Rapid' moves member 'weu' (westeurope) from "
    "Kubernetes 1.34 to 1.37 as of 2026-11-30, and Fleet Manager upgrades its control plane and node pools with no "
    "pulumi up. But GPU operator v26.7.0 (NVIDIA's platform-support matrix) is validated up to 1.36. Allowed today: "
    "Stable, NodeImage, a targetKubernetesVersion inside the range, or pin software validated on the target."
)


def test_a_channel_past_the_operators_range_is_refused_on_the_profile() -> None:
    outcome = run_stack_policy(CHANNEL, [*FLEET, profile("Rapid")])
    assert outcome.violations == [RAPID]
    assert outcome.violation_urns == [urn_of(GENERIC, "fleet-auto-upgrade")]


def test_the_typed_profile_is_judged_the_same() -> None:
    typed = ("azure-native:containerservice:AutoUpgradeProfile", "fleet-auto-upgrade",
             {"fleetName": "gpu-fleet", "resourceGroupName": "rg", "autoUpgradeProfileName": "gpu-auto-upgrade",
              "channel": "Rapid", "nodeImageSelection": {"type": "Latest"}})  # fmt: skip
    assert run_stack_policy(CHANNEL, [*FLEET, typed]).violations == [RAPID]


def test_stable_stays_in_range_today_and_its_next_move_is_a_warning() -> None:
    outcome = run_stack_policy(CHANNEL, [*FLEET, profile("Stable")])
    assert outcome.violations == [] and outcome.not_applicable == []
    warned = run_stack_policy(NEXT_MOVE, [*FLEET, profile("Stable")])
    assert len(warned.violations) == 1
    assert warned.violations[0].startswith(
        "fleet-auto-upgrade (fleet gpu-fleet): member 'weu' (westeurope), fleet channel 'Stable' (the rule of AKS "
        "channel 'stable'): 'stable' will move this cluster from 1.36 to Kubernetes 1.37 when AKS makes 1.38 "
        "generally available (expected around Feb 2027"
    )


def test_the_kaito_add_ons_range_counts_too() -> None:
    kaito = [*FLEET[:4], cluster("sec", "swedencentral", aiToolchainOperatorProfile={"enabled": True})]
    outcome = run_stack_policy(CHANNEL, [*kaito, profile("Rapid")])
    assert outcome.violations[1] == (
        "fleet-auto-upgrade (fleet gpu-fleet): fleet auto-upgrade channel 'Rapid' moves member 'sec' (swedencentral) "
        "from Kubernetes 1.34 to 1.37 as of 2026-11-30, and Fleet Manager upgrades its control plane and node pools "
        "with no pulumi up. But the KAITO add-on 0.6.0 (AKS add-on table, gpu_catalog/facts/kaito_addon.json) is "
        "validated up to 1.36. Allowed today: Stable, NodeImage, a targetKubernetesVersion inside the range, or pin "
        "software validated on the target."
    )
    assert outcome.violations[0] == RAPID


def test_a_members_own_channel_is_refused_on_its_cluster() -> None:
    own = [*FLEET[:4], cluster("sec", "swedencentral", autoUpgradeProfile={"upgradeChannel": "stable"})]
    outcome = run_stack_policy(CHANNEL, [*own, profile("Stable")])
    assert outcome.violations == [
        "fleet-auto-upgrade (fleet gpu-fleet): member 'sec' keeps its own cluster.autoUpgradeChannel 'stable' under "
        "the fleet's auto-upgrade channel 'Stable': Fleet Manager leaves a member's auto-upgrade on, and whichever "
        "runs first upgrades the cluster (Fleet FAQ), so the member would move outside the update strategy's stages. "
        "Set cluster.autoUpgradeChannel: none for the members (the template or this member's overrides) and let the "
        "fleet's profile upgrade them."
    ]
    assert outcome.violation_urns == [urn_of(MANAGED_CLUSTER, "sec-aks-cluster")]


def test_a_disabled_profile_or_no_pinned_software_passes() -> None:
    assert run_stack_policy(CHANNEL, [*FLEET, profile("Rapid", disabled=True)]).violations == []
    no_operator = [FLEET[0], FLEET[1], FLEET[3], FLEET[4]]
    assert run_stack_policy(CHANNEL, [*no_operator, profile("Rapid")]).violations == []


def test_members_the_stack_does_not_show_are_not_checked() -> None:
    outcome = run_stack_policy(CHANNEL, [profile("Rapid")])
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "fleet gpu-fleet: no FleetMember of it in the stack, so no member's pinned GPU software is known"
    ]
    outcome = run_stack_policy(CHANNEL, [*FLEET, member("eus", "rest"), profile("Rapid")])
    assert outcome.violations == [RAPID]  # the members it sees are judged; eus is named as not checked
    partial = run_stack_policy(CHANNEL, [FLEET[3], FLEET[4], member("eus", "rest"), profile("Stable")])
    assert partial.not_applicable == [
        "fleet gpu-fleet: members eus have no ManagedCluster tagged fleet-member in the stack, so their pinned GPU "
        "software is not known"
    ]


def test_unknown_channel_or_version_during_preview() -> None:
    outcome = run_stack_policy(CHANNEL, [*FLEET, profile(UNKNOWN)])
    assert outcome.preview_unknown is not None and outcome.preview_unknown.startswith("fleet-auto-upgrade: channel")
    unknown_version = [*FLEET[:1], cluster("weu", "westeurope", kubernetesVersion=UNKNOWN), *FLEET[2:]]
    outcome = run_stack_policy(CHANNEL, [*unknown_version, profile("Rapid")])
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("weu-aks-cluster: kubernetesVersion")
