"""rules/network.py, rules/maintenance.py, rules/identity.py: each rule refusing and passing concrete values."""

from __future__ import annotations

from datetime import date

from gpu_catalog.landing_zone import landing_zone_role, load_landing_zone_facts
from rules import Finding
from rules.identity import Identities, RoleNeed, identity_findings, required_roles
from rules.maintenance import (
    MaintenanceWindow,
    SurgeUse,
    maintenance_window,
    past_not_allowed,
    surge_quota,
    window_without_channel,
)
from rules.network import (
    PoolAddresses,
    Subnet,
    ips_per_node,
    network_cidrs,
    outbound_prerequisites,
    pod_cidr_capacity,
    private_dns_zone,
    subnet_capacity,
    surge_nodes,
    upgrade_settings,
    usable_addresses,
)
from tests.conftest import TODAY

SUB = "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet-spoke/subnets"
GPU = Subnet("gpu", f"{SUB}/snet-gpu", "10.240.4.0/28", route_table=True)
SYSTEM = Subnet("system", f"{SUB}/snet-system", "10.240.0.0/24", route_table=True)
ZONE_ID = (
    "/subscriptions/0000/resourceGroups/rg-dns/providers/Microsoft.Network/privateDnsZones/"
    "privatelink.westeurope.azmk8s.io"
)


# ------------------------------------------------------------------------------------------------ facts


def test_facts_reserved_addresses_and_roles() -> None:
    f = load_landing_zone_facts()
    assert f.reserved_addresses == 5
    assert f.min_window_hours == 4 and f.max_window_hours == 24
    assert landing_zone_role("AcrPull").id == "7f951dda-4ed3-4680-a7ca-43fe172d538d"
    assert landing_zone_role("NetworkContributor").id == "4d97b98b-1d4f-4787-a291-c67834d212e7"
    assert landing_zone_role("ManagedIdentityOperator").id == "f1a07417-d97a-45cb-824c-7a7467783830"
    assert landing_zone_role("PrivateDnsZoneContributor").id == "b12aa53e-6015-4669-85d0-8515ebb3ae7f"


# ------------------------------------------------------------------------------------------------ surge


def test_surge_nodes_integer_percentage_and_default() -> None:
    assert surge_nodes("2", 8) == 2
    assert surge_nodes("33%", 4) == 2  # 1.32 rounded up
    assert surge_nodes("0", 4) == 0
    assert surge_nodes(None, 4) == 1  # 10 % of 4 = 0.4 -> 1; the docs' one node
    assert surge_nodes(None, 30) == 3  # 10 % of 30


def test_upgrade_settings_refuse_and_pass() -> None:
    assert upgrade_settings("1", None) == []
    assert upgrade_settings("0", "1", drain_timeout=60, soak=5) == []
    assert upgrade_settings("0", None) == [
        Finding("maxSurge", "maxSurge 0 needs maxUnavailable above 0 (AKS refuses an upgrade that moves no node)")
    ]
    assert upgrade_settings("one", None)[0].field == "maxSurge"
    assert upgrade_settings("1", None, soak=31) == [
        Finding("nodeSoakDurationInMinutes", "31 is outside 0..30 minutes (AKS REST API 2025-09-01)")
    ]


# ------------------------------------------------------------------------------------------------ capacity


def test_ips_per_node_by_mode() -> None:
    assert ips_per_node("overlay", 250, pod_subnet=False) == 1
    assert ips_per_node("flat", 30, pod_subnet=False) == 31
    assert ips_per_node("flat", 30, pod_subnet=True) == 1
    assert usable_addresses("10.240.4.0/28") == 11
    assert usable_addresses("10.240.0.0/24") == 251


def test_subnet_capacity_overlay_refuses_with_numbers() -> None:
    pools = [PoolAddresses("a100", "gpu", None, max_nodes=10, surge_nodes=2, max_pods=250)]
    found = subnet_capacity("overlay", {"gpu": GPU}, pools, default_subnet="system")
    assert found == [
        Finding(
            "subnets.gpu",
            "subnet 'gpu' (10.240.4.0/28: 11 usable addresses, Azure keeps 5) cannot hold its pools at their worst "
            "case: 12 addresses needed (a100: (10 + 2 surge) nodes × 1 = 12). Use a larger prefix, fewer nodes "
            "(maxCount, maxSurge) or another subnet for a pool",
        )
    ]


def test_subnet_capacity_overlay_passes_at_the_edge() -> None:
    pools = [PoolAddresses("a100", "gpu", None, max_nodes=9, surge_nodes=2, max_pods=250)]
    assert subnet_capacity("overlay", {"gpu": GPU}, pools, default_subnet="system") == []


def test_subnet_capacity_flat_counts_max_pods_plus_one_and_sums_pools() -> None:
    pools = [
        PoolAddresses("system", None, None, max_nodes=3, surge_nodes=1, max_pods=30),
        PoolAddresses("t4", "system", None, max_nodes=4, surge_nodes=1, max_pods=30),
    ]
    found = subnet_capacity("flat", {"system": SYSTEM}, pools, default_subnet="system")
    assert [f.field for f in found] == ["subnets.system"]
    assert "279 addresses needed" in found[0].message
    assert "system: (3 + 1 surge) nodes × 31 = 124" in found[0].message
    assert "t4: (4 + 1 surge) nodes × 31 = 155" in found[0].message
    assert found[0].message.endswith("or a pod subnet")
    # with a pod subnet the node subnet holds one address per node, the pod subnet maxPods per node
    pod = Subnet("pods", f"{SUB}/snet-pods", "10.241.0.0/24")
    pools = [PoolAddresses("t4", "system", "pods", max_nodes=2, surge_nodes=1, max_pods=30)]
    assert subnet_capacity("flat", {"system": SYSTEM, "pods": pod}, pools, default_subnet="system") == []


def test_subnet_capacity_nap_burst_in_the_default_subnet() -> None:
    pools = [PoolAddresses("nap-a100", None, None, max_nodes=12, surge_nodes=0, max_pods=250)]
    found = subnet_capacity("overlay", {"gpu": GPU}, pools, default_subnet="gpu")
    assert found[0].field == "subnets.gpu"
    assert "nap-a100: (12 + 0 surge) nodes × 1 = 12" in found[0].message


def test_subnet_capacity_unknown_prefix_is_not_judged() -> None:
    unknown = Subnet("gpu", f"{SUB}/snet-gpu", None)
    pools = [PoolAddresses("a100", "gpu", None, max_nodes=1000, surge_nodes=0, max_pods=250)]
    assert subnet_capacity("overlay", {"gpu": unknown}, pools, default_subnet=None) == []


def test_pod_cidr_capacity() -> None:
    assert pod_cidr_capacity("192.168.0.0/16", 256) == []
    found = pod_cidr_capacity("192.168.0.0/22", 5)
    assert found == [
        Finding(
            "podCidr",
            "podCidr 192.168.0.0/22 holds 4 node blocks (/24 each) but the pools reach 5 nodes at their worst case "
            "(maxCount + surge): use a larger pod CIDR",
        )
    ]


def test_network_cidrs_refuse_and_pass() -> None:
    assert network_cidrs("overlay", "192.168.0.0/16", "172.16.0.0/16", "172.16.0.10", [SYSTEM, GPU]) == []
    found = network_cidrs("overlay", "10.240.0.0/16", "172.16.0.0/16", "172.17.0.10", [SYSTEM])
    assert Finding("dnsServiceIP", "'172.17.0.10' is not in serviceCidr 172.16.0.0/16") in found
    assert Finding("podCidr", "podCidr 10.240.0.0/16 overlaps subnet 'system' (10.240.0.0/24)") in found
    assert network_cidrs("flat", "192.168.0.0/16", None, None, [])[0].field == "podCidr"
    assert network_cidrs("overlay", None, "10.0.0.0/8", "10.0.0.10", [])[0].message.startswith("10.0.0.0/8 is too")
    assert network_cidrs("overlay", None, "172.16.0.0/16", None, [])[0].field == "dnsServiceIP"


# ------------------------------------------------------------------------------------------------ outbound


def test_udr_needs_a_route_table_on_every_node_subnet() -> None:
    assert outbound_prerequisites("userDefinedRouting", [SYSTEM, GPU]) == []
    bare = Subnet("gpu", f"{SUB}/snet-gpu", "10.240.4.0/24")
    found = outbound_prerequisites("userDefinedRouting", [SYSTEM, bare])
    assert found == [
        Finding(
            "subnets.gpu.routeTableId",
            "outboundType userDefinedRouting needs a route table with 0.0.0.0/0 to a firewall or NVA associated with "
            "every node subnet; subnet 'gpu' states none (routeTableId)",
        )
    ]
    assert outbound_prerequisites("userDefinedRouting", [])[0].field == "outboundType"


def test_nat_gateway_types() -> None:
    natted = Subnet("gpu", f"{SUB}/snet-gpu", "10.240.4.0/24", nat_gateway=True)
    assert outbound_prerequisites("userAssignedNATGateway", [natted]) == []
    assert outbound_prerequisites("userAssignedNATGateway", [GPU])[0].field == "subnets.gpu.natGatewayId"
    assert "AKS-managed virtual network" in outbound_prerequisites("managedNATGateway", [GPU])[0].message
    assert outbound_prerequisites("managedNATGateway", []) == []
    assert outbound_prerequisites("loadBalancer", [GPU]) == []


# ------------------------------------------------------------------------------------------------ private DNS


def test_private_dns_zone_combinations() -> None:
    assert private_dns_zone(True, "system", "westeurope", user_assigned_control_plane=False) == []
    assert private_dns_zone(True, "none", "westeurope", user_assigned_control_plane=False) == []
    assert private_dns_zone(True, ZONE_ID, "westeurope", user_assigned_control_plane=True) == []
    assert private_dns_zone(False, "system", "westeurope", user_assigned_control_plane=False) == [
        Finding("privateDnsZone", "privateDnsZone applies to a private cluster only: set privateCluster: true")
    ]
    found = private_dns_zone(True, ZONE_ID, "westeurope", user_assigned_control_plane=False)
    assert [f.field for f in found] == ["identity.controlPlane"]
    other = ZONE_ID.replace("westeurope", "northeurope")
    found = private_dns_zone(True, other, "westeurope", user_assigned_control_plane=True)
    assert found[0].message == (
        "zone 'privatelink.northeurope.azmk8s.io' is for region 'northeurope', the cluster in 'westeurope'"
    )
    wrong = ZONE_ID.replace("privatelink.westeurope.azmk8s.io", "corp.example.com")
    assert (
        "privatelink.<region>.azmk8s.io"
        in private_dns_zone(True, wrong, "westeurope", user_assigned_control_plane=True)[0].message
    )


# ------------------------------------------------------------------------------------------------ maintenance


def test_maintenance_window_shapes() -> None:
    ok = MaintenanceWindow("nodeOs", "weekly", 1, day_of_week="Sunday", start_time="01:00", duration_hours=4)
    assert maintenance_window(ok) == []
    assert ok.config_name == "aksManagedNodeOSUpgradeSchedule"
    short = MaintenanceWindow("autoUpgrade", "weekly", day_of_week="Sunday", duration_hours=3)
    assert maintenance_window(short) == [
        Finding(
            "durationHours",
            "3 hours: a aksManagedAutoUpgradeSchedule window lasts 4 to 24 hours (AKS REST API 2025-09-01; "
            "auto-upgrade needs four hours or more)",
        )
    ]
    bad = MaintenanceWindow("autoUpgrade", "relativeMonthly", day_of_month=3, start_time="24:00", utc_offset="5:30")
    fields = [f.field for f in maintenance_window(bad)]
    assert fields == ["startTime", "utcOffset", "dayOfWeek", "weekIndex", "dayOfMonth"]


def test_window_advisories() -> None:
    w = MaintenanceWindow(
        "autoUpgrade",
        "daily",
        not_allowed=((date(2026, 12, 20), date(2027, 1, 3)), (date(2026, 1, 1), date(2026, 1, 2))),
    )
    assert [f.field for f in past_not_allowed(w, TODAY)] == ["notAllowedDates[1]"]
    assert window_without_channel(w, "stable") == []
    assert window_without_channel(w, "none")[0].field == "autoUpgradeChannel"


def test_surge_quota_refuses_with_numbers_and_passes() -> None:
    uses = [SurgeUse("a100", "StandardNCADSA100v4Family", 24, max_nodes=2, surge_nodes=1)]
    assert surge_quota(uses, {"StandardNCADSA100v4Family": 72}) == []
    assert surge_quota(uses, {}) == []  # no stated grant: not judged offline
    found = surge_quota(uses, {"StandardNCADSA100v4Family": 48})
    assert found == [
        Finding(
            "gpuQuota.StandardNCADSA100v4Family",
            "StandardNCADSA100v4Family: 48 vCPUs at maxCount + 24 vCPUs of upgrade surge = 72, but the stated quota is "
            "48: the upgrade surge cannot be placed (a100: (2 + 1 surge) × 24 vCPUs). Ask for more quota, lower "
            "maxSurge (maxSurge '0' with maxUnavailable '1' upgrades in place, no extra GPU) or maxCount",
        )
    ]


# ------------------------------------------------------------------------------------------------ identity


def test_identity_findings_and_required_roles() -> None:
    uami = "/subscriptions/0000/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-cp"
    acr = "/subscriptions/0000/resourceGroups/rg-acr/providers/Microsoft.ContainerRegistry/registries/acrcorp"
    assert identity_findings(Identities(uami, "create"), registries=[acr]) == []
    assert [f.field for f in identity_findings(Identities(None, uami), registries=["acrcorp"])] == [
        "identity.kubelet",
        "containerRegistries[0]",
    ]
    assert identity_findings(Identities("id-cp"), registries=[])[0].field == "identity.controlPlane"
    needs = required_roles(
        Identities(uami, "create"), subnet_ids=[GPU.id, GPU.id], private_dns_zone_id=ZONE_ID, registries=[acr]
    )
    vnet = "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet-spoke"
    assert needs == [
        RoleNeed("controlPlane", "NetworkContributor", GPU.id, "joins nodes or pods to the subnet and its route table"),
        RoleNeed("controlPlane", "NetworkContributor", vnet, "the spoke VNet a custom private DNS zone serves"),
        RoleNeed("controlPlane", "PrivateDnsZoneContributor", ZONE_ID, "writes the API record"),
        RoleNeed("controlPlane", "ManagedIdentityOperator", "kubelet", "assigns the kubelet identity to nodes"),
        RoleNeed("kubelet", "AcrPull", acr, "pulls images from the registry"),
    ]
    # a system-assigned control plane needs Network Contributor on its subnets too (granted after the cluster)
    assert required_roles(Identities(), subnet_ids=[GPU.id], private_dns_zone_id=None, registries=[acr]) == [
        RoleNeed("controlPlane", "NetworkContributor", GPU.id, "joins nodes or pods to the subnet and its route table"),
        RoleNeed("kubelet", "AcrPull", acr, "pulls images from the registry"),
    ]
