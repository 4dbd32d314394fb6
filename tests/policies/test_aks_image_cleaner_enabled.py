"""aks-image-cleaner-enabled (advisory): Microsoft's 'should enable Image Cleaner' (af3c26b2-…) on raw clusters."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel

from policies.aks_image_cleaner_enabled import POLICY
from tests.policies._helpers import CLUSTER, MANAGED_CLUSTER, UNKNOWN, run_policy, with_


def cleaner(**fields: object) -> dict[str, object]:
    return with_(CLUSTER, securityProfile={"workloadIdentity": {"enabled": True}, "imageCleaner": fields})


def test_on_with_a_week_passes() -> None:
    assert POLICY.enforcement_level == EnforcementLevel.ADVISORY
    assert run_policy(POLICY, MANAGED_CLUSTER, cleaner(enabled=True, intervalHours=168.0)).violations == []


def test_off_or_unset_is_reported() -> None:
    for cluster in (CLUSTER, cleaner(enabled=False, intervalHours=168.0)):
        [message] = run_policy(POLICY, MANAGED_CLUSTER, cluster).violations
        assert message.startswith("securityProfile.imageCleaner.enabled: Image Cleaner is off")
        assert "(af3c26b2-6fad-493e-9236-9c68928516ab)" in message


def test_an_interval_aks_refuses_is_reported() -> None:
    [message] = run_policy(POLICY, MANAGED_CLUSTER, cleaner(enabled=True, intervalHours=12.0)).violations
    assert message == (
        "securityProfile.imageCleaner.intervalHours: 12 is outside what AKS takes: Image Cleaner runs every 24 to "
        "2160 hours (three months). Allowed: 24-2160, e.g. 168 (a week)"
    )


def test_unknown_is_named() -> None:
    outcome = run_policy(POLICY, MANAGED_CLUSTER, cleaner(enabled=UNKNOWN, intervalHours=168.0))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None and "securityProfile.imageCleaner.enabled" in outcome.preview_unknown
