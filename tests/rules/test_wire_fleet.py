"""Fleet Manager resources read from the wire, generic (``azure-native:resources:Resource``) and typed alike."""

from __future__ import annotations

from rules.fleet_wire import (
    MemberItem,
    WireStage,
    arm_type,
    attribute_members,
    member_tag,
    read_fleet_resource,
    strategy_stages,
)

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


def _member_resource(member: str) -> MemberItem:
    props = {"resourceProviderNamespace": "Microsoft.ContainerService", "parentResourcePath": "fleets/gpu-fleet",
             "resourceType": "members", "resourceName": member, "properties": {"group": "rest"}}  # fmt: skip
    return MemberItem(f"urn:fleetmember:{member}", f"fleet-{member}", GENERIC, props)


def test_members_by_tag_then_provider_then_parent_then_longest_prefix() -> None:
    tagged = {"tags": {"fleet-member": "weu"}}
    items = [
        MemberItem("urn:aks:weu", "weu-aks", "azure-native:containerservice:ManagedCluster", tagged),
        MemberItem("urn:provider:k8s", "k8s", "pulumi:providers:kubernetes", {}, parent="urn:aks:weu"),
        MemberItem("urn:release", "gpu-operator", "kubernetes:helm.sh/v3:Release", {}, provider="urn:provider:k8s"),
        MemberItem("urn:pool:1", "weu-east-t4", "azure-native:containerservice:AgentPool", {}),
        MemberItem("urn:pool:2", "weu-t4", "azure-native:containerservice:AgentPool", {}),
        MemberItem("urn:other", "hub-namespace", "kubernetes:core/v1:Namespace", {}),
        _member_resource("weu-east"),
        _member_resource("weu"),
    ]
    attribution = attribute_members(items, _unknown)
    assert attribution is not None
    assert attribution.members == ("weu", "weu-east")  # tags and FleetMember resources
    assert dict(attribution.by_urn) == {
        "urn:aks:weu": "weu",
        "urn:provider:k8s": "weu",  # its parent's
        "urn:release": "weu",  # its provider's, though its name has no member prefix
        "urn:pool:1": "weu-east",  # the longest member name that prefixes it
        "urn:pool:2": "weu",
    }  # the hub's namespace and the FleetMember resources belong to no member
    assert attribution.fleet_urns == {"urn:fleetmember:weu-east", "urn:fleetmember:weu"}


def test_no_member_tag_is_no_fleet() -> None:
    items = [MemberItem("urn:aks", "weu-aks", "azure-native:containerservice:ManagedCluster", {"tags": {}})]
    assert attribute_members(items, _unknown) is None
