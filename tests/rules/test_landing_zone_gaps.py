"""Issue 37's rules that had no refusing or no passing case (rules/network.py, rules/maintenance.py), each with
concrete values: no ``maxUnavailable`` on a System pool."""

from __future__ import annotations

from rules import Finding
from rules.network import (
    UpgradeSettings,
    system_pool_max_unavailable,
    upgrade_settings,
)

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


def test_a_malformed_value_on_a_system_pool_reports_both() -> None:
    assert [f.field for f in upgrade_settings("one", "x", system=True)] == [
        "maxUnavailable",
        "maxSurge",
        "maxUnavailable",
    ]
