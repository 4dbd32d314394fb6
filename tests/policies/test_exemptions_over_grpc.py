"""Issue 25: exemptions in the pack's own config, as ``--policy-pack-config`` or a policy group hands them over, through
the real pack over the analyzer protocol (what ``pulumi preview --policy-pack`` sees). Today is pinned by the suite
(``AGP_TODAY=2026-11-30``, tests/conftest.py) and passed to the pack's process."""

from __future__ import annotations

from typing import Any

import pytest

from preflight.analyzer.client import PolicyPackProcess
from preflight.analyzer.protocol import PolicyConfigError
from preflight.model import RecordedResource

pytestmark = pytest.mark.slow

POOL = "azure-native:containerservice:AgentPool"
PREFIX = "urn:pulumi:dev::raw::"
P100 = "Standard_NC6s_v2"  # retired, and below the V100 floor: gpu-size-not-retired and gpu-size-minimum


def pool(name: str, size: str = P100) -> RecordedResource:
    props = {
        "vmSize": size,
        "count": 1.0,
        "mode": "User",
        "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"],
        "securityProfile": {"sshAccess": "Disabled"},  # keeps the built-in SSH advisory out of the verdicts
    }
    return RecordedResource(urn=f"{PREFIX}{POOL}::{name}", type=POOL, name=name, inputs=props)


def exemption(**changes: Any) -> dict[str, Any]:
    return {
        "resource": "legacy",
        "reason": "P100 pool kept for the legacy scorer until the January migration",
        "owner": "ml-platform@contoso.com",
        "expires": "2027-01-15",
        **changes,
    }


@pytest.fixture(scope="module")
def pack(preview_pack: PolicyPackProcess) -> PolicyPackProcess:
    """The session's pack (``tests/policies/conftest.py``), with the default policy config."""
    preview_pack.configure(None)
    return preview_pack


def verdict(pack: PolicyPackProcess, *resources: RecordedResource) -> set[tuple[str, str, str]]:
    analysis = pack.analyze_many(list(resources))
    return {(v.policy_name, v.urn.rsplit("::", 1)[-1], v.enforcement_level) for v in analysis.violations}


def test_an_exempted_violation_is_not_reported_and_is_logged_with_its_reason(pack: PolicyPackProcess) -> None:
    pack.configure({"gpu-size-minimum": {"exemptions": [exemption()]}})
    before = len(pack.logs)
    assert verdict(pack, pool("legacy"), pool("other")) == {
        ("gpu-size-not-retired", "legacy", "mandatory"),  # another rule: still mandatory on the exempted pool
        ("gpu-size-not-retired", "other", "mandatory"),
        ("gpu-size-minimum", "other", "mandatory"),  # another pool: still mandatory
    }
    logged = [m for m in pack.logs[before:] if m.urn == f"{PREFIX}{POOL}::legacy"]
    assert len(logged) == 1 and logged[0].severity == "warning"
    assert logged[0].message.startswith(
        "gpu-size-minimum: exempted from gpu-size-minimum: P100 pool kept for the legacy scorer until the January "
        "migration (owner ml-platform@contoso.com; expires 2027-01-15, 46 days left): "
    )
    assert "below the GPU floor" in logged[0].message


def test_a_urn_pattern_may_cover_every_stack_but_only_its_resource(pack: PolicyPackProcess) -> None:
    urn = f"urn:pulumi:*::raw::{POOL}::legacy"
    pack.configure({"gpu-size-minimum": {"exemptions": [exemption(resource=urn, policy="gpu-size-minimum")]}})
    assert ("gpu-size-minimum", "legacy", "mandatory") not in verdict(pack, pool("legacy"))
    assert ("gpu-size-minimum", "other", "mandatory") in verdict(pack, pool("other"))


def test_an_exemption_too_far_ahead_waives_nothing_and_says_why(pack: PolicyPackProcess) -> None:
    pack.configure({"gpu-size-minimum": {"exemptions": [exemption(expires="2027-06-30")]}})
    before = len(pack.logs)
    assert ("gpu-size-minimum", "legacy", "mandatory") in verdict(pack, pool("legacy"))
    assert any(
        "exemption refused, it waives nothing: exemptions[0].expires: 2027-06-30 is 212 days ahead; allowed: at most "
        "180 days ahead (on or before 2027-05-29)" in m.message
        for m in pack.logs[before:]
    )


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        (exemption(reason="legacy"), "gpu-size-minimum.exemptions.0.reason"),
        (exemption(policy="gpu-size-known"), "gpu-size-minimum.exemptions.0.policy"),
        ({k: v for k, v in exemption().items() if k != "owner"}, "gpu-size-minimum.exemptions.0: 'owner'"),
        (exemption(expires="15 Jan 2027"), "gpu-size-minimum.exemptions.0.expires"),
    ],
)
def test_the_config_schema_refuses_malformed_entries_as_the_engine_would(
    pack: PolicyPackProcess, entry: dict[str, Any], needle: str
) -> None:
    with pytest.raises(PolicyConfigError) as exc:
        pack.configure({"gpu-size-minimum": {"exemptions": [entry]}})
    assert any(needle in e for e in exc.value.errors), exc.value.errors


def messages(pack: PolicyPackProcess, *resources: RecordedResource) -> dict[tuple[str, str], str]:
    analysis = pack.analyze_many(list(resources))
    return {(v.policy_name, v.urn.rsplit("::", 1)[-1]): v.message for v in analysis.violations}


def test_an_expired_or_refused_exemption_is_named_on_the_violation_with_its_date(pack: PolicyPackProcess) -> None:
    """Issue 40: under ``pulumi up`` the violation an exemption no longer waives names the entry and its date."""
    pack.configure(
        {
            "gpu-size-minimum": {
                "exemptions": [exemption(expires="2026-11-30"), exemption(resource="other", expires="2027-09-01")]
            }
        }
    )
    found = messages(pack, pool("legacy"), pool("other"))
    assert found[("gpu-size-minimum", "legacy")].endswith(
        " [the exemption of gpu-size-minimum for legacy (owner ml-platform@contoso.com) expired on 2026-11-30: from "
        "that day it no longer waives this violation; fix the resource or renew the exemption with a new reason and "
        "expiry date]"
    )
    assert "is below the GPU floor Standard_NC6s_v3" in found[("gpu-size-minimum", "legacy")]
    assert found[("gpu-size-minimum", "other")].endswith(
        " [the exemption of gpu-size-minimum for other (expires 2027-09-01) is not valid, so it waives nothing: "
        "expires: 2027-09-01 is 275 days ahead; allowed: at most 180 days ahead (on or before 2027-05-29); renew it "
        "when it runs out]"
    )
    assert "[the exemption" not in found[("gpu-size-not-retired", "legacy")]  # another policy's entries only
