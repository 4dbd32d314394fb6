"""Issue 37's rules that had no refusing or no passing case (rules/network.py, rules/maintenance.py), each with
concrete values: no ``maxUnavailable`` on a System pool, a not-allowed date range that ends before it starts, and
NAP's burst bound in the default subnet at the edge; and the protections' sources in the landing-zone facts."""

from __future__ import annotations

import json
from datetime import date

from gpu_catalog.landing_zone import LANDING_ZONE_FACTS
from rules import Finding
from rules.maintenance import MaintenanceWindow, maintenance_window
from rules.network import (
    PoolAddresses,
    Subnet,
    UpgradeSettings,
    subnet_capacity,
    system_pool_max_unavailable,
    upgrade_settings,
)

SUB = "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet-spoke/subnets"
GPU = Subnet("gpu", f"{SUB}/snet-gpu", "10.240.4.0/28", route_table=True)  # 16 - 5 = 11 usable
SYSTEM_POOL_REFUSAL = (
    "'1': maxUnavailable cannot be set on a System pool (AKS: \"You can't set max unavailable on system node pools\", "
    "MicrosoftDocs/azure-aks-docs articles/aks/upgrade-aks-node-pools-rolling.md); leave it unset and upgrade by "
    "maxSurge"
)


# ------------------------------------------------------------------------------------------------ system pool


def test_max_unavailable_on_a_system_pool_is_refused() -> None:
    assert upgrade_settings("1", "1", system=True) == [Finding("maxUnavailable", SYSTEM_POOL_REFUSAL)]
    assert system_pool_max_unavailable("1") == [Finding("maxUnavailable", SYSTEM_POOL_REFUSAL)]
    # "0" is setting it too: the article refuses the key, not a value
    assert [f.field for f in upgrade_settings("1", "0", system=True)] == ["maxUnavailable"]
    assert UpgradeSettings("33%", "10%").findings(system=True)[0].message.startswith("'10%': maxUnavailable cannot")


def test_a_system_pool_without_max_unavailable_passes() -> None:
    assert upgrade_settings("1", None, system=True) == []
    assert upgrade_settings("33%", None, drain_timeout=30, soak=0, system=True) == []
    assert system_pool_max_unavailable(None) == []
    assert UpgradeSettings("1").findings(system=True) == []


def test_the_same_settings_pass_on_a_user_pool() -> None:
    assert upgrade_settings("0", "1") == []
    assert UpgradeSettings("0", "1").findings() == []


def test_a_system_pool_upgrades_by_surge_only() -> None:
    assert upgrade_settings("0", None, system=True) == [
        Finding("maxSurge", "maxSurge 0 on a System pool: it upgrades by surge only (no maxUnavailable)")
    ]


def test_a_malformed_value_on_a_system_pool_reports_every_problem() -> None:
    assert [f.field for f in upgrade_settings("one", "x", system=True)] == [
        "maxUnavailable",
        "maxSurge",
        "maxUnavailable",
    ]


# ------------------------------------------------------------------------------------------------ maintenance


def _window(*ranges: tuple[date, date]) -> MaintenanceWindow:
    return MaintenanceWindow("autoUpgrade", "weekly", day_of_week="Sunday", not_allowed=ranges)


def test_a_not_allowed_range_that_ends_before_it_starts_is_refused() -> None:
    freeze = (date(2026, 12, 19), date(2027, 1, 4))
    backwards = (date(2027, 1, 4), date(2026, 12, 19))
    assert maintenance_window(_window(freeze, backwards)) == [
        Finding("notAllowedDates[1]", "ends (2026-12-19) before it starts (2027-01-04)")
    ]


def test_a_not_allowed_range_forwards_or_of_one_day_passes() -> None:
    assert maintenance_window(_window((date(2026, 12, 19), date(2027, 1, 4)))) == []
    assert maintenance_window(_window((date(2026, 12, 24), date(2026, 12, 24)))) == []


# ------------------------------------------------------------------------------------------------ NAP burst


def test_nap_burst_at_the_edge_of_the_default_subnet_passes() -> None:
    pools = [PoolAddresses("gpuNodePools.burst", None, None, max_nodes=11, surge_nodes=0, max_pods=250)]
    assert subnet_capacity("overlay", {"gpu": GPU}, pools, default_subnet="gpu") == []


def test_nap_burst_one_node_over_the_default_subnet_is_refused_with_the_numbers() -> None:
    pools = [PoolAddresses("gpuNodePools.burst", None, None, max_nodes=12, surge_nodes=0, max_pods=250)]
    assert subnet_capacity("overlay", {"gpu": GPU}, pools, default_subnet="gpu") == [
        Finding(
            "subnets.gpu",
            "subnet 'gpu' (10.240.4.0/28: 11 usable addresses, Azure keeps 5) cannot hold its pools at their worst "
            "case: 12 addresses needed (gpuNodePools.burst: (12 + 0 surge) nodes × 1 = 12). Use a larger prefix, "
            "fewer nodes (maxCount, maxSurge) or another subnet for a pool",
        )
    ]


# ------------------------------------------------------------------------------------------------ protections


def test_the_protections_name_their_sources_in_the_facts() -> None:
    """docs/landing-zone.md says every value traces to the landing-zone facts: the Azure Policy add-on's key (sent as
    addonProfiles.azurepolicy, tests/components/test_landing_zone.py) and Defender's profile are recorded there with
    sources the file lists."""
    doc = json.loads(LANDING_ZONE_FACTS.read_text(encoding="utf-8"))
    ids = {s["id"] for s in doc["sources"]}
    protections = doc["protections"]
    assert protections["azurePolicyAddon"]["addonProfile"] == "azurepolicy"
    assert protections["defender"]["field"] == "securityProfile.defender"
    for entry in protections.values():
        assert entry["default"] is False
        assert {s.strip() for s in entry["source"].split(",")} <= ids
    assert "use-azure-policy.md" in next(s["path"] for s in doc["sources"] if s["id"] == "aks-docs-azure-policy")
