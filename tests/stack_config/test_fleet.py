"""The stack file's ``fleet`` section: its model's refusals (exact messages, every problem at once), the member
expansion (an override changes only its member; tags, location, names) and the FleetSpec it builds (issue 38)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_catalog.problems import Problem
from rules.specs.fleet import AutoUpgrade, FleetPool, Placement, UpdateStage
from stack_config import StackConfigError, validate_stack_config
from stack_config.fleet_members import fleet_spec_of, fleet_warnings, members_of, merge_over
from tests.conftest import TODAY

A100 = "Standard_NC24ads_A100_v4"
T4 = "Standard_NC16as_T4_v3"
FILE = "stacks/Pulumi.fleet.yaml"

STACK: dict[str, Any] = {
    "environment": "prod",
    "location": "westeurope",
    "gpuOperator": {"enabled": True},
    "gpuPools": [
        {"name": "a100", "vmSize": A100, "minCount": 1, "maxCount": 2},
        {"name": "t4", "vmSize": T4, "count": 1},
    ],
    "cluster": {"autoUpgradeChannel": "none", "tags": {"team": "ml"}, "access": {"deployerPrincipalType": "User"}},
    "fleet": {
        "name": "gpu-fleet",
        "members": [
            {"name": "weu", "region": "westeurope", "group": "canary"},
            {
                "name": "sec",
                "region": "swedencentral",
                "group": "rest",
                "labels": {"tier": "batch"},
                "overrides": {"gpuPools": [{"name": "a100", "maxCount": 4}]},
            },
        ],
        "updateStrategy": {
            "stages": [
                {"name": "canary", "groups": ["canary"], "afterStageWaitInSeconds": 3600},
                {"name": "rest", "groups": ["rest"]},
            ]
        },
        "autoUpgrade": {"channel": "Stable"},
        "placements": [{"name": "llm", "namespace": "team-a", "vmSizes": [A100]}],
    },
}


def stack(**fleet_changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(STACK)
    data["fleet"].update(fleet_changes)
    return data


def problems(data: dict[str, Any]) -> list[Problem]:
    with pytest.raises(StackConfigError) as info:
        validate_stack_config(data, stack_file=FILE, today=TODAY)
    return info.value.problems


# --------------------------------------------------------------------------------------------------- expansion


def test_each_member_is_the_template_with_its_own_overrides() -> None:
    cfg = validate_stack_config(STACK, stack_file=FILE, today=TODAY)
    weu, sec = members_of(cfg)
    assert [(p.name, p.vmSize, p.maxCount, p.count) for p in weu.config.gpuPools] == [
        ("a100", A100, 2, None),
        ("t4", T4, None, 1),
    ]
    assert [(p.name, p.vmSize, p.maxCount, p.count) for p in sec.config.gpuPools] == [
        ("a100", A100, 4, None),
        ("t4", T4, None, 1),
    ]
    assert [p.maxCount for p in cfg.gpuPools] == [2, None]  # the template itself is untouched


def test_a_member_is_located_in_its_region_tagged_with_its_name_and_named_apart() -> None:
    cfg = validate_stack_config(STACK, stack_file=FILE, today=TODAY)
    weu, sec = members_of(cfg)
    assert (weu.config.location, sec.config.location) == ("westeurope", "swedencentral")
    assert weu.config.cluster.tags == {"team": "ml", "fleet-member": "weu"}
    assert sec.config.cluster.tags == {"team": "ml", "fleet-member": "sec"}
    assert (sec.config.cluster_name, sec.config.resource_group_name) == ("aks-gpu-prod-sec", "rg-gpu-prod-sec")
    assert (weu.index, sec.index) == (0, 1)


def test_an_existing_resource_group_is_shared_and_a_named_cluster_is_suffixed() -> None:
    data = copy.deepcopy(STACK)
    data["resourceGroup"] = {"name": "rg-shared", "existing": True}
    data["cluster"]["name"] = "aks-ml"
    data["fleet"]["members"][1]["overrides"]["cluster"] = {"name": "aks-sweden"}
    weu, sec = members_of(validate_stack_config(data, stack_file=FILE, today=TODAY))
    assert (weu.config.resource_group_name, weu.config.cluster_name) == ("rg-shared", "aks-ml-weu")
    assert (sec.config.resource_group_name, sec.config.cluster_name) == ("rg-shared", "aks-sweden")


def test_the_member_specs_and_the_fleet_spec() -> None:
    cfg = validate_stack_config(STACK, stack_file=FILE, today=TODAY)
    spec = fleet_spec_of(cfg)
    assert spec is not None
    assert (spec.name, spec.location, spec.hub, spec.hub_vm_size) == ("gpu-fleet", "westeurope", True, None)
    assert spec.stages == (UpdateStage("canary", ("canary",), 3600), UpdateStage("rest", ("rest",), None))
    assert spec.auto_upgrade == AutoUpgrade("Stable", "Consistent", None, False)
    assert spec.placements == (Placement("llm", "team-a", (A100,), None, None),)
    sec = spec.members[1]
    assert (sec.name, sec.region, sec.group, sec.kubernetes_version, sec.gpu_operator_version) == (
        "sec",
        "swedencentral",
        "rest",
        "1.36",
        "v26.7.0",
    )
    assert sec.pools == (
        FleetPool("a100", A100, ("nvidia.com/gpu",), 4),
        FleetPool("t4", T4, ("nvidia.com/gpu",), 1),
    )
    assert dict(sec.labels) == {"tier": "batch"}
    assert (sec.cluster_name, sec.resource_group) == ("aks-gpu-prod-sec", "rg-gpu-prod-sec")


def test_under_a_fleet_profile_that_moves_versions_an_unset_member_channel_is_none() -> None:
    data = copy.deepcopy(STACK)
    del data["cluster"]["autoUpgradeChannel"]  # the template's own default: stable
    cfg = validate_stack_config(data, stack_file=FILE, today=TODAY)
    assert cfg.cluster.autoUpgradeChannel == "stable"
    assert [m.config.cluster.autoUpgradeChannel for m in members_of(cfg)] == ["none", "none"]


def test_a_member_channel_set_explicitly_under_the_fleet_profile_is_refused() -> None:
    data = copy.deepcopy(STACK)
    data["fleet"]["members"][1]["overrides"]["cluster"] = {"autoUpgradeChannel": "patch"}
    found = problems(data)
    assert [p.path for p in found] == ["fleet.members[1]"]
    assert found[0].message.startswith("member 'sec' keeps its own cluster.autoUpgradeChannel 'patch'")


def test_a_stack_without_a_fleet_has_no_members() -> None:
    plain = {k: v for k, v in STACK.items() if k != "fleet"}
    cfg = validate_stack_config(plain, stack_file=FILE, today=TODAY)
    assert (cfg.fleet, members_of(cfg), fleet_spec_of(cfg), fleet_warnings(cfg)) == (None, (), None, [])


def test_the_fleet_warnings_are_the_advisory_findings() -> None:
    cfg = validate_stack_config(STACK, stack_file=FILE, today=TODAY)
    assert [w.split(":")[0] for w in fleet_warnings(cfg)] == [
        "fleet.members[0].region",
        "fleet.members[1].region",
        "fleet.autoUpgrade.channel",
        "fleet.autoUpgrade.channel",
    ]


# --------------------------------------------------------------------------------------------------- merge


def test_merge_deep_merges_maps_merges_named_lists_by_name_and_replaces_other_lists() -> None:
    template = {
        "cluster": {"skuTier": "Standard", "tags": {"a": "1"}, "adminGroupObjectIds": ["x"]},
        "gpuPools": [{"name": "a", "vmSize": "A", "zones": ["1"]}, {"name": "b", "vmSize": "B"}],
    }
    override = {
        "cluster": {"tags": {"b": "2"}, "adminGroupObjectIds": ["y"], "skuTier": None},
        "gpuPools": [{"name": "b", "zones": ["2", "3"]}, {"name": "c", "vmSize": "C"}],
    }
    merged, provenance = merge_over(template, override)
    assert merged == {
        "cluster": {"tags": {"a": "1", "b": "2"}, "adminGroupObjectIds": ["y"]},
        "gpuPools": [
            {"name": "a", "vmSize": "A", "zones": ["1"]},
            {"name": "b", "vmSize": "B", "zones": ["2", "3"]},
            {"name": "c", "vmSize": "C"},
        ],
    }
    assert provenance == {
        "cluster.tags.b": "cluster.tags.b",
        "cluster.adminGroupObjectIds": "cluster.adminGroupObjectIds",
        "cluster.skuTier": "cluster.skuTier",
        "gpuPools[1].name": "gpuPools[0].name",
        "gpuPools[1].zones": "gpuPools[0].zones",
        "gpuPools[2]": "gpuPools[1]",
    }
    assert template["gpuPools"][1] == {"name": "b", "vmSize": "B"}  # the template is not changed


# --------------------------------------------------------------------------------------------------- refusals


def test_a_member_problem_is_reported_on_the_override_key_that_set_it() -> None:
    data = copy.deepcopy(STACK)
    data["fleet"]["members"][1]["overrides"] = {"gpuPools": [{"name": "a100", "vmSize": "Standard_NC24ads_A100_v9"}]}
    found = problems(data)
    assert [p.path for p in found] == ["fleet.members[1].overrides.gpuPools[0].vmSize"]
    assert found[0].message.startswith(
        "Standard_NC24ads_A100_v9 is not a GPU size in the catalog: unknown sizes are rejected because their GPU, "
        "memory and lifecycle cannot be checked"
    )


def test_a_template_problem_is_reported_once_on_its_own_key() -> None:
    data = copy.deepcopy(STACK)
    data["gpuPools"][0]["minCount"] = 0
    found = problems(data)
    assert [p.path for p in found] == ["gpuPools[0].minCount"]


def test_the_fleet_model_refuses_unknown_keys_and_names_with_the_allowed_values() -> None:
    data = copy.deepcopy(STACK)
    data["fleet"]["members"][0]["zone"] = "1"
    data["fleet"]["members"][1]["name"] = "Sweden_1"
    data["fleet"]["autoUpgrade"] = {"channel": "stable"}
    assert problems(data) == [
        Problem(
            "fleet.members[0].zone",
            "unknown key. Allowed keys here: name, region, group, labels, overrides.",
        ),
        Problem(
            "fleet.members[1].name",
            "must be lowercase letters, digits and '-', starting and ending with a letter or digit (got 'Sweden_1').",
        ),
        Problem(
            "fleet.autoUpgrade.channel",
            "Input should be 'Stable', 'Rapid', 'NodeImage' or 'TargetKubernetesVersion' (got 'stable').",
        ),
    ]


def test_every_problem_at_once_members_and_fleet_rules_together() -> None:
    data = copy.deepcopy(STACK)
    data["fleet"]["members"].append({"name": "weu", "region": "northeurope", "group": "eu"})
    data["fleet"]["members"][1]["overrides"]["location"] = "norwayeast"
    data["fleet"]["placements"] = [{"name": "llm", "namespace": "team-a", "vmSizes": ["Standard_NC40ads_H100_v5"]}]
    found = problems(data)
    assert [p.path for p in found] == [
        "fleet.members[1].overrides.location",
        "fleet.members[2].name",
        "fleet.members[2].group",
        "fleet.placements[0]",
    ]
    assert found[0].message == (
        "'location' cannot be overridden per member (environment, policy, budget and exemptions are the stack's; a "
        "member's location is its region). Allowed keys: resourceGroup, cluster, gpuPools, gpuNodePools, "
        "gpuOperator, devicePlugin, kaito, databricks, azurePolicy, monitoring, gpuQuota."
    )


def test_a_member_in_an_unknown_region_is_refused_with_the_closest_name() -> None:
    data = copy.deepcopy(STACK)
    data["fleet"]["members"][1]["region"] = "swedencentrall"
    found = problems(data)
    assert [p.path for p in found] == ["fleet.members[1].region"]
    assert found[0].message.startswith("'swedencentrall' is not an Azure region; did you mean swedencentral?")


def test_a_stage_naming_a_missing_group_is_refused_on_its_key() -> None:
    found = problems(stack(updateStrategy={"stages": [{"name": "all", "groups": ["canary", "rest", "eu"]}]}))
    assert [p.path for p in found] == ["fleet.updateStrategy.stages[0].groups[2]"]


def test_the_refusal_names_the_stack_file() -> None:
    data = copy.deepcopy(STACK)
    data["fleet"]["members"][1]["name"] = "weu"
    with pytest.raises(StackConfigError) as info:
        validate_stack_config(data, stack_file=FILE, today=TODAY)
    assert (
        str(info.value)
        .splitlines()[1]
        .startswith(
            "  stacks/Pulumi.fleet.yaml: fleet.members[1].name: 'weu' is already the name of members[0] (westeurope)"
        )
    )


def test_a_derived_name_too_long_is_reported_on_the_member_name() -> None:
    data = copy.deepcopy(STACK)
    data["cluster"]["name"] = "aks-ml-platform"  # 15 characters, + "-" + 48 = 64 > 63
    data["fleet"]["members"][1]["name"] = "sweden-central-gpu-capacity-for-the-batch-team-x"
    found = problems(data)
    assert [p.path for p in found] == ["fleet.members[1].name"]
    assert found[0].message == (
        "cluster.name (the template's cluster name with -<member name> appended): String should have at most 63 "
        "characters (got 'aks-ml-platform-sweden-central-gpu-capacity-for-the-batch-team-x')."
    )


def test_a_quota_grant_stays_in_its_region() -> None:
    data = copy.deepcopy(STACK)
    data["gpuQuota"] = {"StandardNCADSA100v4Family": 96}
    data["fleet"]["members"][1]["overrides"]["gpuQuota"] = {"StandardNCADSA100v4Family": 120}
    data["fleet"]["members"].append({"name": "neu", "region": "northeurope", "group": "rest"})
    weu, sec, neu = members_of(validate_stack_config(data, stack_file=FILE, today=TODAY))
    assert [m.config.gpuQuota for m in (weu, sec, neu)] == [
        {"StandardNCADSA100v4Family": 96},
        {"StandardNCADSA100v4Family": 120},
        {},
    ]


def test_a_member_with_node_auto_provisioning_qualifies_by_its_nap_sizes() -> None:
    data = copy.deepcopy(STACK)
    data["fleet"]["members"][1]["overrides"] = {  # NAP: its agent pools may not autoscale (null drops a key)
        "gpuPools": [{"name": "a100", "minCount": None, "maxCount": None, "count": 1}],
        "gpuNodePools": [{"name": "h100", "sizes": ["Standard_NC40ads_H100_v5"], "limits": {"gpus": 2}}],
    }
    data["fleet"]["placements"] = [{"name": "big", "namespace": "team-h", "vmSizes": ["Standard_NC40ads_H100_v5"]}]
    cfg = validate_stack_config(data, stack_file=FILE, today=TODAY)
    spec = fleet_spec_of(cfg)
    assert spec is not None
    assert spec.members[1].pools[-1] == FleetPool(
        "h100", "Standard_NC40ads_H100_v5", ("nvidia.com/gpu",), 2, auto_provisioned=True
    )
    assert spec.members[1].node_auto_provisioning is True
    assert "fleet.members[1]: member 'sec' runs node auto-provisioning" in " ".join(fleet_warnings(cfg))


def test_a_target_version_goes_with_its_channel_only() -> None:
    assert problems(stack(autoUpgrade={"channel": "TargetKubernetesVersion"})) == [
        Problem(
            "fleet.autoUpgrade.targetKubernetesVersion",
            "required with channel TargetKubernetesVersion: the minor to keep the members on ('1.36').",
        )
    ]
    assert problems(stack(autoUpgrade={"channel": "Rapid", "targetKubernetesVersion": "1.36"})) == [
        Problem(
            "fleet.autoUpgrade.targetKubernetesVersion",
            "only with channel TargetKubernetesVersion; channel Rapid chooses the version itself. Remove it or use "
            "channel TargetKubernetesVersion (got '1.36').",
        )
    ]
    cfg = validate_stack_config(
        stack(autoUpgrade={"channel": "TargetKubernetesVersion", "targetKubernetesVersion": "1.36"}),
        stack_file=FILE,
        today=TODAY,
    )
    spec = fleet_spec_of(cfg)
    assert spec is not None
    assert spec.auto_upgrade == AutoUpgrade("TargetKubernetesVersion", "Consistent", "1.36")
