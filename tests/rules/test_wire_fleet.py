"""Fleet Manager resources read from the wire, generic (``azure-native:resources:Resource``) and typed alike."""

from __future__ import annotations

from rules.fleet_wire import WireStage, arm_type, member_tag, read_fleet_resource, strategy_stages

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
GENERIC = "azure-native:resources:Resource"


def _unknown(value: object) -> bool:
    return value == UNKNOWN


STAGES = {"stages": [{"name": "canary", "groups": [{"name": "canary"}], "afterStageWaitInSeconds": 3600.0},
                     {"name": "rest", "groups": [{"name": "rest"}, {"name": "eu"}]}]}  # fmt: skip


def test_arm_type_from_parent_path_or_full_type() -> None:
    assert arm_type("fleets/gpu-fleet", "members") == "fleets/members"
    assert arm_type("", "fleets/updateStrategies") == "fleets/updatestrategies"
    assert arm_type(None, "fleets") == "fleets"
    parent_unknown = {"resourceProviderNamespace": "Microsoft.ContainerService", "parentResourcePath": UNKNOWN,
                      "resourceType": "members"}  # fmt: skip
    assert read_fleet_resource(GENERIC, parent_unknown, _unknown) is None


def test_generic_update_strategy_and_member() -> None:
    strategy = read_fleet_resource(
        GENERIC,
        {
            "resourceProviderNamespace": "Microsoft.ContainerService",
            "parentResourcePath": "fleets/gpu-fleet",
            "resourceType": "updateStrategies",
            "resourceName": "staged",
            "apiVersion": "2025-03-01",
            "properties": {"strategy": STAGES},
        },
        _unknown,
    )
    assert strategy is not None
    assert (strategy.kind, strategy.fleet, strategy.name, strategy.api_version, strategy.generic) == (
        "updateStrategy", "gpu-fleet", "staged", "2025-03-01", True,
    )  # fmt: skip
    assert strategy_stages(strategy) == [
        WireStage("canary", ("canary",), 3600.0),
        WireStage("rest", ("rest", "eu"), None),
    ]
    member = read_fleet_resource(
        GENERIC,
        {"resourceProviderNamespace": "Microsoft.ContainerService", "resourceType": "fleets/members",
         "resourceName": "gpu-fleet/weu", "properties": {"group": "canary"}},
        _unknown,
    )  # fmt: skip
    assert member is not None and (member.kind, member.fleet, member.name) == ("member", "gpu-fleet", "weu")
    assert member.properties == {"group": "canary"}


def test_typed_resources_flatten_their_properties() -> None:
    profile = read_fleet_resource(
        "azure-native:containerservice:AutoUpgradeProfile",
        {"fleetName": "gpu-fleet", "resourceGroupName": "rg", "autoUpgradeProfileName": "stable",
         "channel": "Stable", "nodeImageSelection": {"type": "Consistent"}},
        _unknown,
    )  # fmt: skip
    assert profile is not None and (profile.kind, profile.fleet, profile.name, profile.api_version) == (
        "autoUpgradeProfile", "gpu-fleet", "stable", None,
    )  # fmt: skip
    assert profile.properties == {"channel": "Stable", "nodeImageSelection": {"type": "Consistent"}}
    versioned = read_fleet_resource(
        "azure-native:containerservice/v20250301:FleetUpdateStrategy",
        {"fleetName": "f", "updateStrategyName": "s", "strategy": {"stages": UNKNOWN}},
        _unknown,
    )
    assert versioned is not None and versioned.kind == "updateStrategy" and strategy_stages(versioned) == UNKNOWN


def test_other_resources_are_not_fleet_resources() -> None:
    assert read_fleet_resource("azure-native:containerservice:ManagedCluster", {"fleetName": "x"}, _unknown) is None
    assert read_fleet_resource(GENERIC, {"resourceProviderNamespace": "Microsoft.Storage",
                                         "resourceType": "storageAccounts"}, _unknown) is None  # fmt: skip
    assert member_tag({"tags": {"fleet-member": "weu"}}) == "weu"
    assert member_tag({"tags": {"fleet-member": ""}}) is None and member_tag({}) is None
