"""preflight/pack_config.pack_config: the stack's values into the ``--policy-pack-config`` shape, in-process (the
command and the agreement with the pack: tests/policies/test_pack_config.py)."""

from __future__ import annotations

from datetime import date
from typing import Any

from gpu_catalog.problems import Problem
from preflight.pack_config import pack_config

TODAY = date(2026, 11, 30)
POLICIES = ("gpu-size-minimum", "gpu-size-not-retired", "gpu-pool-tainted")


def entry(**changes: Any) -> dict[str, Any]:
    return {
        "policy": "gpu-size-minimum",
        "resource": "aks-t4",
        "reason": "T4 pool kept for the legacy scorer until January",
        "owner": "ml-platform@contoso.com",
        "expires": "2027-01-15",
        **changes,
    }


def test_a_level_becomes_an_object_when_exemptions_join_it_and_max_days_travels() -> None:
    values = {
        "p:policy": {"gpu-size-minimum": "advisory", "gpu-pool-tainted": "disabled", "all": "mandatory"},
        "p:exemptions": [entry(), entry(policy="gpu-size-not-retired", resource="aks-p100", category="Mitigated")],
        "p:exemptionMaxDays": 90,
    }
    config, problems = pack_config(values, "p", today=TODAY, policies=POLICIES)
    assert problems == []
    assert config == {
        "all": "mandatory",
        "gpu-pool-tainted": "disabled",
        "gpu-size-minimum": {
            "enforcementLevel": "advisory",
            "exemptions": [
                {
                    "resource": "aks-t4",
                    "reason": "T4 pool kept for the legacy scorer until January",
                    "owner": "ml-platform@contoso.com",
                    "expires": "2027-01-15",
                    "category": "Waiver",
                }
            ],
            "exemptionMaxDays": 90,
        },
        "gpu-size-not-retired": {
            "exemptions": [
                {
                    "resource": "aks-p100",
                    "reason": "T4 pool kept for the legacy scorer until January",
                    "owner": "ml-platform@contoso.com",
                    "expires": "2027-01-15",
                    "category": "Mitigated",
                }
            ],
            "exemptionMaxDays": 90,
        },
    }
    assert values["p:policy"]["gpu-size-minimum"] == "advisory"  # the stack's values are not changed


def test_no_policy_and_no_exemptions_is_an_empty_config() -> None:
    assert pack_config({}, "p", today=TODAY, policies=POLICIES) == ({}, [])


def test_every_problem_at_once_with_its_key() -> None:
    values = {
        "p:policy": ["gpu-size-minimum"],
        "p:exemptions": [entry(expires="2027-09-01")],
        "p:exemptionMaxDays": 0,
    }
    config, problems = pack_config(values, "p", today=TODAY, policies=POLICIES)
    assert config == {}
    assert [p.path for p in problems] == ["policy", "exemptionMaxDays", "exemptions[0].expires"]
    assert problems[0] == Problem(
        "policy", 'must be a mapping of policy name to a level or to its settings; got ["gpu-size-minimum"]'
    )
    assert problems[2].message.startswith("2027-09-01 is 275 days ahead; allowed: at most 180 days ahead")


def test_an_exemptions_property_written_under_the_policy_is_kept_and_extended() -> None:
    own = {"resource": "aks-a100", "reason": "kept as written in the policy key", "owner": "x", "expires": "2027-01-01"}
    values = {"p:policy": {"gpu-size-minimum": {"exemptions": [own]}}, "p:exemptions": [entry()]}
    config, problems = pack_config(values, "p", today=TODAY, policies=POLICIES)
    assert problems == []
    assert [e["resource"] for e in config["gpu-size-minimum"]["exemptions"]] == ["aks-a100", "aks-t4"]
    _, problems = pack_config(
        {"p:policy": {"gpu-size-minimum": {"exemptions": "aks-a100"}}, "p:exemptions": [entry()]},
        "p",
        today=TODAY,
        policies=POLICIES,
    )
    assert problems == [Problem("policy.gpu-size-minimum.exemptions", "must be a list of exemptions; got 'aks-a100'")]


def test_a_policy_entry_of_the_wrong_type_is_left_for_the_pack_s_schema_check() -> None:
    """No traceback: the command's check against the pack names ``policy.gpu-size-minimum`` (exit 2)."""
    config, problems = pack_config(
        {"p:policy": {"gpu-size-minimum": 5}, "p:exemptions": [entry()]}, "p", today=TODAY, policies=POLICIES
    )
    assert (config, problems) == ({"gpu-size-minimum": 5}, [])
