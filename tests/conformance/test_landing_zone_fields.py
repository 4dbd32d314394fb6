"""The landing-zone fields of aks.json as the 2025-09-01 REST spec gives them (issue 37): ``vnetSubnetID`` /
``podSubnetID`` (``format: arm-id`` of ``Microsoft.Network/virtualNetworks/subnets``), ``privateDNSZone`` (``system``,
``none`` or a private DNS zone id), ``maxSurge`` / ``maxUnavailable`` (an integer or a percentage: the spec has no
pattern, its descriptions say so), and no ``maxUnavailable`` on a System pool. Each refused and passed on engine-shaped
inputs, with the exact path and rule."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance import check_resource, failures, load_facts
from conformance.schema_walk import arm_id_of, arm_resource_type
from rules.network import SURGE_RE
from tests.conformance.test_checker import AGENT_POOL, MANAGED_CLUSTER, ZONE_ID, base, only

SUBNET = (
    "/subscriptions/x/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet-spoke/subnets/snet-gpu"
)
NSG = "/subscriptions/x/resourceGroups/rg-net/providers/Microsoft.Network/networkSecurityGroups/nsg-gpu"


def test_arm_resource_type_of_an_id() -> None:
    assert arm_resource_type(SUBNET) == "Microsoft.Network/virtualNetworks/subnets"
    assert arm_resource_type(ZONE_ID) == "Microsoft.Network/privateDnsZones"
    assert arm_resource_type(SUBNET.rsplit("/", 1)[0]) is None  # a type segment without its name
    assert arm_resource_type("snet-gpu") is None
    assert arm_resource_type(SUBNET.replace("/resourceGroups/rg-net", "/resourceGroups/")) is None
    # ARM compares resource types case-insensitively
    assert arm_id_of(
        SUBNET.replace("virtualNetworks", "VIRTUALNETWORKS"), ["Microsoft.Network/virtualNetworks/subnets"]
    )
    assert not arm_id_of(NSG, ["Microsoft.Network/virtualNetworks/subnets"])


@pytest.mark.parametrize("field", ["vnetSubnetID", "podSubnetID"])
def test_pool_subnet_ids_are_subnet_resource_ids(field: str) -> None:
    inputs = base(AGENT_POOL)
    inputs[field] = SUBNET
    assert failures(check_resource(AGENT_POOL, inputs)) == []
    inputs[field] = NSG
    finding = only(check_resource(AGENT_POOL, inputs))
    assert (finding.path, finding.rule) == (field, "arm-id")
    assert finding.message.startswith(f'"{NSG}" is not the resource id of a Microsoft.Network/virtualNetworks/subnets')
    assert "managedClusters.json @ stable/2025-09-01" in finding.source
    inputs[field] = "snet-gpu"  # a subnet's name is not its id
    assert only(check_resource(AGENT_POOL, inputs)).rule == "arm-id"


def test_inline_pool_subnet_id() -> None:
    inputs = base(MANAGED_CLUSTER)
    inputs["agentPoolProfiles"][0]["vnetSubnetID"] = SUBNET.rsplit("/subnets/", 1)[0]  # the VNet, not a subnet
    finding = only(check_resource(MANAGED_CLUSTER, inputs))
    assert (finding.path, finding.rule) == ("agentPoolProfiles[0].vnetSubnetID", "arm-id")


def _private(zone: Any) -> dict[str, Any]:
    inputs = base(MANAGED_CLUSTER)
    inputs["identity"] = {"type": "UserAssigned", "userAssignedIdentities": ["/subscriptions/x/id"]}
    inputs["apiServerAccessProfile"] = {"enablePrivateCluster": True, "privateDNSZone": zone}
    return inputs


@pytest.mark.parametrize("zone", ["system", "none", ZONE_ID])
def test_private_dns_zone_passes_its_modes_and_a_zone_id(zone: str) -> None:
    assert failures(check_resource(MANAGED_CLUSTER, _private(zone))) == []


@pytest.mark.parametrize("zone", ["System", "custom", NSG, "privatelink.westeurope.azmk8s.io"])
def test_private_dns_zone_refuses_anything_else(zone: str) -> None:
    finding = only(check_resource(MANAGED_CLUSTER, _private(zone)))
    assert (finding.path, finding.rule) == ("apiServerAccessProfile.privateDNSZone", "arm-id")
    assert f'"{zone}" is not system, none or the resource id of a Microsoft.Network/privateDnsZones' in finding.message


@pytest.mark.parametrize("value", ["0", "1", "5", "33%", "50%", "100%", "12.5%"])
@pytest.mark.parametrize("field", ["maxSurge", "maxUnavailable"])
def test_surge_values_an_integer_or_a_percentage(field: str, value: str) -> None:
    inputs = base(AGENT_POOL)
    inputs["upgradeSettings"] = {field: value}
    assert failures(check_resource(AGENT_POOL, inputs)) == []


@pytest.mark.parametrize("value", ["one", "-1", "1.5", "%", "10 %", "1,5%", ""])
@pytest.mark.parametrize("field", ["maxSurge", "maxUnavailable"])
def test_surge_values_refuse_other_shapes(field: str, value: str) -> None:
    inputs = base(AGENT_POOL)
    inputs["upgradeSettings"] = {field: value}
    finding = only(check_resource(AGENT_POOL, inputs))
    assert (finding.path, finding.rule) == (f"upgradeSettings.{field}", "pattern")


def test_the_surge_pattern_is_the_rules_one() -> None:
    fields = load_facts().definitions["aks.PoolProperties"]["fields"]["upgradeSettings"]["fields"]
    assert fields["maxSurge"]["pattern"] == fields["maxUnavailable"]["pattern"] == SURGE_RE.pattern


def test_max_unavailable_on_a_system_pool_is_refused_on_the_wire() -> None:
    inputs = base(MANAGED_CLUSTER)
    inputs["agentPoolProfiles"][0]["upgradeSettings"] = {"maxSurge": "1", "maxUnavailable": "1"}
    finding = only(check_resource(MANAGED_CLUSTER, inputs))
    assert (finding.path, finding.rule) == (
        "agentPoolProfiles[0].upgradeSettings.maxUnavailable",
        "aks.system-pool-no-max-unavailable",
    )
    assert "maxUnavailable cannot be set on a System pool" in finding.message
    assert "MicrosoftDocs/azure-aks-docs articles/aks/upgrade-aks-node-pools-rolling.md" in finding.source
    # the same settings on a User pool (a standalone AgentPool or an inline profile) pass
    pool = base(AGENT_POOL)
    pool["upgradeSettings"] = {"maxSurge": "0", "maxUnavailable": "1"}
    assert failures(check_resource(AGENT_POOL, pool)) == []
    inline = copy.deepcopy(inputs)
    inline["agentPoolProfiles"].append({**inline["agentPoolProfiles"][0], "name": "user", "mode": "User"})
    del inline["agentPoolProfiles"][0]["upgradeSettings"]
    assert failures(check_resource(MANAGED_CLUSTER, inline)) == []
    # a standalone AgentPool in System mode is judged alike
    pool["mode"] = "System"
    finding = only(check_resource(AGENT_POOL, pool))
    assert (finding.path, finding.rule) == ("upgradeSettings.maxUnavailable", "aks.system-pool-no-max-unavailable")
