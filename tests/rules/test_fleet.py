"""rules/fleet.py: each refusal refusing on concrete values, and the passing case next to it (issue 38)."""

from __future__ import annotations

import typing
from dataclasses import replace

from gpu_catalog.fleet import load_fleet_facts
from gpu_catalog.gpu_regions import RegionalSizes, load_regional_sizes
from rules.fleet import (
    FleetFinding,
    fleet_channel_findings,
    fleet_findings,
    fleet_owns_version,
    member_channel_findings,
    member_label_findings,
    member_labels,
    member_name_findings,
    placement_findings,
    placement_members,
    region_findings,
    stage_findings,
)
from rules.kube_names import label_key_problem, label_value_problem
from rules.specs.fleet import (
    AutoUpgrade,
    FleetMember,
    FleetPool,
    FleetSpec,
    FleetUpgradeChannel,
    NodeImageSelection,
    Placement,
    UpdateStage,
)
from tests.conftest import TODAY

A100 = "Standard_NC24ads_A100_v4"
H100 = "Standard_NC40ads_H100_v5"
T4 = "Standard_NC16as_T4_v3"
OPERATOR = "v26.7.0"  # validated up to Kubernetes 1.36 (gpu_operator.json)

WEU = FleetMember(
    name="weu",
    region="westeurope",
    group="canary",
    kubernetes_version="1.36",
    auto_upgrade_channel="none",
    gpu_operator_version=OPERATOR,
    kaito_addon=True,
    pools=(FleetPool("a100", A100, ("nvidia.com/gpu",), 2),),
)
SEC = replace(
    WEU, name="sec", region="swedencentral", group="rest", pools=(FleetPool("t4", T4, ("nvidia.com/gpu",), 1),)
)
STAGES = (UpdateStage("canary", ("canary",), 3600), UpdateStage("rest", ("rest",)))


def fleet(*members: FleetMember, **changes: object) -> FleetSpec:
    return replace(FleetSpec("gpu-fleet", "westeurope", members=members or (WEU, SEC), stages=STAGES), **changes)


def refusals(found: list[FleetFinding]) -> list[tuple[str, str]]:
    return [(f.field, f.message) for f in found if not f.advisory]


def test_the_spec_literals_are_the_rest_spec_enums() -> None:
    facts = load_fleet_facts()
    assert typing.get_args(FleetUpgradeChannel) == facts.upgrade_channels
    assert typing.get_args(NodeImageSelection) == facts.node_image_selection_types
    assert facts.api_version == "2026-06-01"
    assert facts.typed_sdk_default == "2024-05-02-preview"


# --------------------------------------------------------------------------------------------------- names


def test_two_members_with_one_name_are_refused() -> None:
    twin = replace(SEC, name="weu")
    assert refusals(member_name_findings(fleet(WEU, twin))) == [
        (
            "members[1].name",
            "'weu' is already the name of members[0] (westeurope): a fleet has one FleetMember per name, and the "
            "name suffixes the member's cluster and resource group names. Give each member its own name.",
        )
    ]
    assert member_name_findings(fleet(WEU, SEC)) == []


# --------------------------------------------------------------------------------------------------- stages


def test_a_stage_naming_a_group_no_member_has_is_refused() -> None:
    spec = fleet(stages=(UpdateStage("canary", ("canary",)), UpdateStage("rest", ("rest", "eu"))))
    assert refusals(stage_findings(spec)) == [
        (
            "updateStrategy.stages[1].groups[1]",
            "no member is in group 'eu': the members' groups are canary, rest (fleet.members[].group). Fleet Manager "
            "refuses an update run whose strategy names a group without members.",
        )
    ]


def test_a_member_group_left_out_of_every_stage_is_refused() -> None:
    spec = fleet(stages=(UpdateStage("canary", ("canary",)),))
    assert refusals(stage_findings(spec)) == [
        (
            "members[1].group",
            "group 'rest' of member 'sec' is in no stage of updateStrategy: an update run following it would never "
            "upgrade sec. Add the group to a stage (staged: canary).",
        )
    ]


def test_a_member_without_a_group_under_a_strategy_is_refused_and_a_group_runs_once() -> None:
    spec = fleet(WEU, replace(SEC, group=None), stages=(UpdateStage("a", ("canary",)), UpdateStage("b", ("canary",))))
    assert [f for f, _ in refusals(stage_findings(spec))] == ["updateStrategy.stages[1].groups[0]", "members[1].group"]
    assert "group 'canary' is already in stages[0]: a group runs once." in [f.message for f in stage_findings(spec)]


def test_stages_covering_every_group_pass_and_no_strategy_means_no_stage_rule() -> None:
    assert stage_findings(fleet()) == []
    assert stage_findings(fleet(replace(WEU, group=None), stages=())) == []


# --------------------------------------------------------------------------------------------------- regions

RECORDED = RegionalSizes(
    offered={"westeurope": {A100: "test source: offered"}},
    not_offered={"swedencentral": {T4: "test source: az vm list-skus --location swedencentral, 2026-12-01"}},
)


def test_a_member_in_a_region_without_its_size_is_refused_with_the_source() -> None:
    assert refusals(region_findings(fleet(), RECORDED)) == [
        (
            "members[1].region",
            "member 'sec': swedencentral does not offer Standard_NC16as_T4_v3 (pool 't4'; test source: az vm "
            "list-skus --location swedencentral, 2026-12-01; gpu_catalog/facts/gpu_regions.json), so AKS cannot "
            "create the pool there. Override the pool's vmSize for this member (fleet.members[1].overrides.gpuPools: "
            "[{name: t4, vmSize: ...}]) or place the member in a region that offers it.",
        )
    ]


def test_a_recorded_offer_passes_and_an_unrecorded_one_is_only_advisory() -> None:
    assert region_findings(fleet(WEU), RECORDED) == []
    found = region_findings(fleet(replace(WEU, region="northeurope")), RECORDED)
    assert [(f.field, f.advisory) for f in found] == [("members[0].region", True)]
    assert found[0].message.startswith(
        "member 'weu': whether northeurope offers Standard_NC24ads_A100_v4 is not recorded in "
        "gpu_catalog/facts/gpu_regions.json, so it was not checked"
    )


def test_the_shipped_regional_facts_record_positive_evidence_only() -> None:
    shipped = load_regional_sizes()
    assert shipped.offer("southcentralus", A100)[0] == "offered"
    assert shipped.offer("westeurope", A100) == ("unrecorded", None)
    assert refusals(region_findings(fleet())) == []


# --------------------------------------------------------------------------------------------------- upgrades


def test_a_fleet_channel_that_outruns_the_operator_is_refused_naming_the_member_and_the_date() -> None:
    spec = fleet(WEU, auto_upgrade=AutoUpgrade("Rapid"))
    assert refusals(fleet_channel_findings(spec, today=TODAY)) == [
        (
            "autoUpgrade.channel",
            "fleet auto-upgrade channel 'Rapid' moves member 'weu' (westeurope) from Kubernetes 1.36 to 1.37 as of "
            "2026-11-30, and Fleet Manager upgrades its control plane and node pools with no pulumi up. But GPU "
            "operator v26.7.0 (NVIDIA's platform-support matrix) is validated up to 1.36; the KAITO add-on 0.6.0 "
            "(AKS add-on table, gpu_catalog/facts/kaito_addon.json) is validated up to 1.36. Allowed today: Stable, "
            "NodeImage, a targetKubernetesVersion inside the range, or pin software validated on the target.",
        )
    ]


def test_every_member_the_channel_outruns_is_named() -> None:
    found = refusals(fleet_channel_findings(fleet(auto_upgrade=AutoUpgrade("Rapid")), today=TODAY))
    assert [m.split(" (")[0] for _, m in found] == [
        "fleet auto-upgrade channel 'Rapid' moves member 'weu'",
        "fleet auto-upgrade channel 'Rapid' moves member 'sec'",
    ]


def test_a_target_version_past_the_range_is_refused_and_one_inside_passes() -> None:
    past = fleet(WEU, auto_upgrade=AutoUpgrade("TargetKubernetesVersion", target_kubernetes_version="1.37"))
    assert [f for f, _ in refusals(fleet_channel_findings(past, today=TODAY))] == [
        "autoUpgrade.targetKubernetesVersion"
    ]
    inside = fleet(WEU, auto_upgrade=AutoUpgrade("TargetKubernetesVersion", target_kubernetes_version="1.36"))
    assert fleet_channel_findings(inside, today=TODAY) == []


def test_stable_passes_today_and_warns_of_its_next_move() -> None:
    found = fleet_channel_findings(fleet(WEU, auto_upgrade=AutoUpgrade("Stable")), today=TODAY)
    assert refusals(found) == []
    assert [f.advisory for f in found] == [True]
    assert found[0].message.startswith(
        "member 'weu' (westeurope), fleet channel 'Stable' (the rule of AKS channel 'stable'): 'stable' will move "
        "this cluster from 1.36 to Kubernetes 1.37 when AKS makes 1.38 generally available"
    )


def test_a_disabled_profile_or_a_member_without_pinned_gpu_software_is_not_judged() -> None:
    assert fleet_channel_findings(fleet(auto_upgrade=AutoUpgrade("Rapid", disabled=True)), today=TODAY) == []
    bare = replace(WEU, gpu_operator_version=None, kaito_addon=False)
    assert fleet_channel_findings(fleet(bare, auto_upgrade=AutoUpgrade("Rapid")), today=TODAY) == []
    assert fleet_owns_version(fleet(auto_upgrade=AutoUpgrade("Stable")))
    assert not fleet_owns_version(fleet(auto_upgrade=AutoUpgrade("NodeImage")))


def test_a_member_keeping_a_moving_channel_under_the_fleet_profile_is_refused() -> None:
    spec = fleet(replace(WEU, auto_upgrade_channel="stable"), SEC, auto_upgrade=AutoUpgrade("Stable"))
    assert refusals(member_channel_findings(spec)) == [
        (
            "members[0]",
            "member 'weu' keeps its own cluster.autoUpgradeChannel 'stable' under the fleet's auto-upgrade channel "
            "'Stable': Fleet Manager leaves a member's auto-upgrade on, and whichever runs first upgrades the cluster "
            "(Fleet FAQ), so the member would move outside the update strategy's stages. Set "
            "cluster.autoUpgradeChannel: none for the members (the template or this member's overrides) and let the "
            "fleet's profile upgrade them.",
        )
    ]


def test_a_patch_pin_under_a_version_moving_profile_is_refused() -> None:
    spec = fleet(replace(WEU, kubernetes_pin="1.36.2"), SEC, auto_upgrade=AutoUpgrade("Stable"))
    assert refusals(member_channel_findings(spec)) == [
        (
            "members[0]",
            "member 'weu' pins the patch 1.36.2 (cluster.kubernetesVersion), but the fleet's 'Stable' profile moves "
            "it to newer patches: the next pulumi up would send 1.36.2 again, a downgrade AKS refuses. Pin the minor "
            "('1.36').",
        )
    ]
    minor = fleet(replace(WEU, kubernetes_pin="1.36"), auto_upgrade=AutoUpgrade("Stable"))
    node_images = fleet(replace(WEU, kubernetes_pin="1.36.2"), auto_upgrade=AutoUpgrade("NodeImage"))
    assert refusals(member_channel_findings(minor)) == refusals(member_channel_findings(node_images)) == []


def test_member_channels_none_pass_node_image_and_nap_are_warnings() -> None:
    assert member_channel_findings(fleet(auto_upgrade=AutoUpgrade("Stable"))) == []
    assert member_channel_findings(fleet(replace(WEU, auto_upgrade_channel="stable"))) == []  # no fleet profile
    spec = fleet(
        replace(WEU, auto_upgrade_channel="node-image"),
        replace(SEC, node_auto_provisioning=True),
        auto_upgrade=AutoUpgrade("Stable"),
    )
    assert [(f.field, f.advisory) for f in member_channel_findings(spec)] == [
        ("members[0]", True),
        ("members[1]", True),
    ]


# --------------------------------------------------------------------------------------------------- placements


def test_a_placement_no_member_can_satisfy_is_refused() -> None:
    spec = fleet(placements=(Placement("llm", "team-a", vm_sizes=(H100,)),))
    assert refusals(placement_findings(spec, today=TODAY)) == [
        (
            "placements[0]",
            "no member can run placement 'llm' (namespace team-a): it needs a GPU pool of Standard_NC40ads_H100_v5. "
            "Members: weu (westeurope): Standard_NC24ads_A100_v4; sec (swedencentral): Standard_NC16as_T4_v3. Add "
            "such a pool to a member (its overrides) or change the placement.",
        )
    ]


def test_a_placement_lands_where_the_size_is() -> None:
    spec = fleet(placements=(Placement("llm", "team-a", vm_sizes=(A100,)),))
    assert placement_findings(spec, today=TODAY) == []
    assert [m.name for m in placement_members(spec, 0, today=TODAY)] == ["weu"]


def test_a_kaito_preset_placement_needs_the_addon_and_a_size_meeting_the_preset() -> None:
    phi = (Placement("phi", "team-b", kaito_preset="phi-4"),)
    # one T4 node has 16 GiB of GPU memory, phi-4 needs 40 (kaito_presets.py); three would fit (count = maxCount)
    assert [m.name for m in placement_members(fleet(placements=phi), 0, today=TODAY)] == ["weu"]
    three = replace(SEC, pools=(FleetPool("t4", T4, ("nvidia.com/gpu",), 3),))
    assert [m.name for m in placement_members(fleet(WEU, three, placements=phi), 0, today=TODAY)] == ["weu", "sec"]
    no_addon = fleet(replace(WEU, kaito_addon=False), SEC, placements=phi)
    assert [f for f, _ in refusals(placement_findings(no_addon, today=TODAY))] == ["placements[0]"]
    assert "whose size meets KAITO preset phi-4's GPU needs, and the KAITO add-on" in (
        placement_findings(no_addon, today=TODAY)[0].message
    )


def test_two_stages_or_two_placements_with_one_name_are_refused() -> None:
    stages = fleet(stages=(UpdateStage("all", ("canary",)), UpdateStage("all", ("rest",))))
    assert refusals(stage_findings(stages)) == [
        (
            "updateStrategy.stages[1].name",
            "'all' is already the name of stages[0]: a stage's name is unique within the strategy (REST spec "
            "UpdateStage.name).",
        )
    ]
    twice = (Placement("llm", "team-a", vm_sizes=(A100,)), Placement("llm", "team-b", vm_sizes=(A100,)))
    assert [f for f, _ in refusals(placement_findings(fleet(placements=twice), today=TODAY))] == ["placements[1].name"]


def test_placements_without_a_hub_are_refused() -> None:
    spec = fleet(hub=False, placements=(Placement("llm", "team-a", vm_sizes=(A100,)),))
    assert [f for f, _ in refusals(placement_findings(spec, today=TODAY))] == ["hub.enabled"]


def test_unknown_sizes_and_presets_and_too_many_clusters() -> None:
    spec = fleet(
        placements=(
            Placement("a", "team-a", vm_sizes=("Standard_NC24ads_A100_v9",)),
            Placement("b", "team-b", kaito_preset="no-such-model"),
            Placement("c", "team-c", vm_sizes=(A100,), number_of_clusters=2),
        )
    )
    found = placement_findings(spec, today=TODAY)
    assert [(f.field, f.advisory) for f in found] == [
        ("placements[0].vmSizes[0]", False),
        ("placements[1].kaitoPreset", False),
        ("placements[2].numberOfClusters", True),
    ]
    assert found[0].message.startswith("Standard_NC24ads_A100_v9 is not a GPU size in the catalog; closest: ")


# --------------------------------------------------------------------------------------------------- labels


def test_member_labels_carry_region_sizes_and_resources_as_valid_labels() -> None:
    member = replace(
        WEU,
        labels={"team": "ml"},
        pools=(FleetPool("a100", A100, ("nvidia.com/mig-3g.40gb",), 2), FleetPool("t4", T4, ("nvidia.com/gpu",), 1)),
    )
    labels = member_labels(member)
    assert labels == {
        "team": "ml",
        "azure-gpu-platform/region": "westeurope",
        "gpu-size.azure-gpu-platform/Standard_NC24ads_A100_v4": "true",
        "gpu-resource.azure-gpu-platform/nvidia.com_mig-3g.40gb": "true",
        "gpu-size.azure-gpu-platform/Standard_NC16as_T4_v3": "true",
        "gpu-resource.azure-gpu-platform/nvidia.com_gpu": "true",
    }
    assert all(label_key_problem(k) is None and label_value_problem(v) is None for k, v in labels.items())


def test_a_member_label_kubernetes_refuses_is_refused() -> None:
    spec = fleet(replace(WEU, labels={"bad key": "x", "ok": "-no-"}))
    assert [f for f, _ in refusals(member_label_findings(spec))] == [
        "members[0].labels.bad key",
        "members[0].labels.ok",
    ]


# --------------------------------------------------------------------------------------------------- all of them


def test_a_partial_fleet_runs_only_the_rules_on_names_groups_and_labels() -> None:
    spec = fleet(WEU, replace(SEC, name="weu"), auto_upgrade=AutoUpgrade("Rapid"))
    assert [f.field for f in fleet_findings(spec, today=TODAY, complete=False)] == ["members[1].name"]
    assert [f.field for f in refusals_of(fleet_findings(spec, today=TODAY))] == [
        "members[1].name",
        "autoUpgrade.channel",
        "autoUpgrade.channel",
    ]


def refusals_of(found: list[FleetFinding]) -> list[FleetFinding]:
    return [f for f in found if not f.advisory]
