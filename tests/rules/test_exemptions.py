"""rules/exemptions.py: one valid entry, one mutation each; concrete dates (today injected)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from rules.exemptions import (
    EXEMPTIONS_KEY,
    MAX_DAYS_KEY,
    Exemption,
    closest_name,
    entry_findings,
    exemption_for,
    lapsed_notes,
    matches_resource,
    matches_type_and_name,
    max_days_findings,
    parse_entries,
    refused_note,
    resolve_max_days,
    unmatched,
    with_notes,
)

TODAY = date(2026, 11, 30)
POOL_URN = (
    "urn:pulumi:dev::azure-gpu-platform::azure-gpu-platform:components:AksGpuCluster$"
    "azure-gpu-platform:components:GpuNodePool$azure-native:containerservice:AgentPool::aks-legacy"
)
OTHER_URN = POOL_URN.replace("::aks-legacy", "::aks-t4")
POLICIES = {"gpu-size-minimum", "gpu-size-not-retired"}


def entry(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "policy": "gpu-size-minimum",
        "resource": "aks-legacy",
        "reason": "T4 pool kept for the legacy scorer until its migration in January",
        "owner": "ml-platform@contoso.com",
        "expires": "2027-01-15",
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def test_a_complete_entry_is_accepted_and_parsed() -> None:
    assert entry_findings(entry(), today=TODAY, policies=POLICIES) == []
    (e,), found = parse_entries([entry()], today=TODAY)
    assert found == []
    assert e == Exemption(
        "gpu-size-minimum",
        "aks-legacy",
        "T4 pool kept for the legacy scorer until its migration in January",
        "ml-platform@contoso.com",
        date(2027, 1, 15),
        "Waiver",
    )


@pytest.mark.parametrize(
    ("today", "status", "days_left", "applies"),
    [
        (date(2026, 11, 30), "active", 46, True),
        (date(2027, 1, 1), "expiring", 14, True),  # 14 days left: an advisory finding, still waived
        (date(2027, 1, 14), "expiring", 1, True),
        (date(2027, 1, 15), "expired", 0, False),  # on the expiry date the violation is back
        (date(2027, 3, 1), "expired", -45, False),
    ],
)
def test_expiry_is_real(today: date, status: str, days_left: int, applies: bool) -> None:
    (e,), _ = parse_entries([entry()], today=TODAY)
    assert (e.status(today), e.days_left(today), e.applies(today)) == (status, days_left, applies)
    assert (exemption_for([e], "gpu-size-minimum", POOL_URN, today) is e) is applies


def test_an_exemption_covers_its_policy_and_resource_only() -> None:
    (e,), _ = parse_entries([entry()], today=TODAY)
    assert exemption_for([e], "gpu-size-minimum", POOL_URN, TODAY) is e
    assert exemption_for([e], "gpu-size-not-retired", POOL_URN, TODAY) is None  # another policy stays mandatory
    assert exemption_for([e], "gpu-size-minimum", OTHER_URN, TODAY) is None  # another pool stays mandatory
    assert exemption_for([e], "gpu-size-minimum", "", TODAY) is None  # a stack-wide violation: never


def test_urn_patterns_match_segment_by_segment() -> None:
    any_stack = POOL_URN.replace("urn:pulumi:dev::", "urn:pulumi:*::")
    assert matches_resource(any_stack, POOL_URN)
    assert matches_resource(any_stack, POOL_URN.replace(":dev::", ":prod::"))
    assert not matches_resource(any_stack, OTHER_URN)
    any_parent = "urn:pulumi:dev::azure-gpu-platform::*$azure-native:containerservice:AgentPool::aks-legacy"
    assert matches_resource(any_parent, POOL_URN)
    assert not matches_resource(any_parent.replace("AgentPool", "ManagedCluster"), POOL_URN)
    assert matches_type_and_name(any_parent, "azure-native:containerservice:AgentPool", "aks-legacy")
    assert not matches_type_and_name(any_parent, "azure-native:containerservice:AgentPool", "aks-t4")


@pytest.mark.parametrize(
    ("changes", "field", "needle"),
    [
        ({"policy": "gpu-size-minimun"}, "policy", "did you mean 'gpu-size-minimum'?"),
        ({"reason": None}, "reason", "required; an exemption names policy, resource, reason, owner, expires"),
        ({"reason": "legacy"}, "reason", "at least 10 characters"),
        ({"owner": " "}, "owner", "must name who answers"),
        (
            {"expires": "2027-06-01"},
            "expires",
            "183 days ahead; allowed: at most 180 days ahead (on or before 2027-05-29)",
        ),
        ({"expires": "15/01/2027"}, "expires", "must be a date YYYY-MM-DD"),
        ({"resource": "*"}, "resource", "is not a name"),
        ({"resource": "urn:pulumi:*::*::*::*"}, "resource", "the resource name must be literal"),
        ({"resource": "urn:pulumi:dev::p::*::aks-legacy"}, "resource", "own type must be a literal type token"),
        ({"category": "Exempt"}, "category", "allowed: Waiver, Mitigated"),
        ({"ticket": "OPS-1"}, "ticket", "unknown key; allowed: policy, resource, reason, owner, expires, category"),
    ],
)
def test_each_malformed_entry_is_refused_with_its_key_and_the_allowed_values(
    changes: dict[str, Any], field: str, needle: str
) -> None:
    found = entry_findings(entry(**changes), today=TODAY, policies=POLICIES)
    assert [f.field for f in found] == [field]
    assert needle in found[0].message
    good, refused = parse_entries([entry(), entry(**changes)], today=TODAY, policies=POLICIES)
    assert len(good) == 1 and [f.field for f in refused] == [f"[1].{field}"]


def test_the_maximum_is_configurable() -> None:
    assert entry_findings(entry(expires="2026-12-30"), today=TODAY, max_days=30) == []
    (finding,) = entry_findings(entry(expires="2027-01-15"), today=TODAY, max_days=30)
    assert finding.message.endswith(
        "allowed: at most 30 days ahead (on or before 2026-12-30); renew it when it runs out"
    )


def test_an_exemption_that_matches_no_resource_is_found() -> None:
    good, _ = parse_entries([entry(), entry(resource="aks-gone")], today=TODAY)
    assert unmatched(good, [POOL_URN, OTHER_URN]) == [1]


@pytest.mark.parametrize(
    ("value", "days"),
    [(None, 180), (30, 30), (1, 1), (0, 180), (-5, 180), (True, 180), ("90", 180), (90.0, 180)],
)
def test_max_days_resolves_in_one_place(value: Any, days: int) -> None:
    """``exemptionMaxDays``: its value when valid, else the default (the refusal is reported by the caller)."""
    assert resolve_max_days(value) == days
    assert (max_days_findings(value) == []) == (value is None or days == value)


def test_the_keys_are_defined_once_in_the_rules() -> None:
    """Issue 39: the stack config, the preflight, the pack and the pack-config writer use the rules' keys (no layer
    spells ``exemptions`` / ``exemptionMaxDays`` as its own constant or resolves the maximum itself)."""
    assert (EXEMPTIONS_KEY, MAX_DAYS_KEY) == ("exemptions", "exemptionMaxDays")
    repo = Path(__file__).resolve().parents[2]
    for rel in (
        "stack_config/exemptions.py",
        "preflight/exemptions.py",
        "policies/_exemptions.py",
        "preflight/pack_config.py",
        "composition/wiring.py",
        "exports/azure_policy.py",
        "components/azure_policy.py",
    ):
        text = (repo / rel).read_text(encoding="utf-8")
        assert '"exemptionMaxDays"' not in text and '= "exemptions"' not in text, rel
        assert "DEFAULT_MAX_DAYS" not in text, rel  # the maximum is resolved by resolve_max_days only


def test_an_expired_exemption_is_named_on_the_violation_it_no_longer_waives() -> None:
    (e,) = parse_entries([entry()], today=TODAY)[0]
    assert lapsed_notes([e], "gpu-size-minimum", POOL_URN, TODAY) == []  # still applies
    notes = lapsed_notes([e], "gpu-size-minimum", POOL_URN, date(2027, 1, 15))
    assert notes == [
        "the exemption of gpu-size-minimum for aks-legacy (owner ml-platform@contoso.com) expired on 2027-01-15: from "
        "that day it no longer waives this violation; fix the resource or renew the exemption with a new reason and "
        "expiry date"
    ]
    assert lapsed_notes([e], "gpu-size-minimum", OTHER_URN, date(2027, 1, 15)) == []  # another resource
    assert lapsed_notes([e], "gpu-size-known", POOL_URN, date(2027, 1, 15)) == []  # another policy
    assert with_notes("below the GPU floor.", notes) == f"below the GPU floor. [{notes[0]}]"
    assert with_notes("below the GPU floor.", []) == "below the GPU floor."


def test_a_refused_entry_is_named_with_its_date_and_why() -> None:
    value = entry(expires="2027-09-01")
    found = entry_findings(value, today=TODAY)
    assert refused_note(value, found) == (
        "the exemption of gpu-size-minimum for aks-legacy (expires 2027-09-01) is not valid, so it waives nothing: "
        "expires: 2027-09-01 is 275 days ahead; allowed: at most 180 days ahead (on or before 2027-05-29); renew it "
        "when it runs out"
    )


def test_the_closest_name_is_offered() -> None:
    assert closest_name("aks-t5", ["aks-a100", "aks-t4", "aks-cluster"]) == "aks-t4"
    assert closest_name("databricks", ["aks-a100", "aks-t4"]) is None


def test_the_pack_config_schema_takes_the_rules_keys_and_requires_the_same() -> None:
    """The policy config's JSON schema (what the engine validates a pack config against) is built from the keys the
    rules define once; only ``policy`` is optional there, the entry sitting under its policy already."""
    from policies._exemptions import config_schema
    from rules.exemptions import EXEMPTION_KEYS, EXEMPTIONS_KEY, REQUIRED_KEYS

    entry = config_schema("gpu-size-minimum")[EXEMPTIONS_KEY]["items"]
    assert tuple(entry["properties"]) == EXEMPTION_KEYS
    assert EXEMPTION_KEYS == ("policy", "resource", "reason", "owner", "expires", "category")
    assert entry["required"] == ["resource", "reason", "owner", "expires"]
    assert set(REQUIRED_KEYS) - set(entry["required"]) == {"policy"}
    assert entry["properties"]["policy"] == {"type": "string", "enum": ["gpu-size-minimum"]}
    assert entry["additionalProperties"] is False
