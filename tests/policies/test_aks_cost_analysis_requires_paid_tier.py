"""aks-cost-analysis-requires-paid-tier: cost analysis needs sku.tier Standard or Premium."""

from __future__ import annotations

import pytest

from policies.aks_cost_analysis_requires_paid_tier import POLICY
from tests.policies._helpers import CLUSTER, MANAGED_CLUSTER, run_policy, with_


@pytest.mark.parametrize("tier", ["Standard", "Premium", "standard"])
def test_paid_tier_passes(tier: str) -> None:
    assert run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, sku={"name": "Base", "tier": tier})).violations == []


def test_free_tier_rejected() -> None:
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, sku={"name": "Base", "tier": "Free"}))
    assert outcome.violations == [
        "sku.tier: cost analysis is on but the cluster tier is 'Free': AKS offers the cost analysis add-on "
        "only on the Standard and Premium tiers and rejects the cluster otherwise. Allowed: Standard, Premium; "
        "or turn cost analysis off."
    ]


def test_unset_tier_is_free() -> None:
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, sku=None))
    assert len(outcome.violations) == 1
    assert "the cluster tier is not set (Free)" in outcome.violations[0]


def test_no_cost_analysis_no_requirement() -> None:
    cluster = with_(CLUSTER, sku={"name": "Base", "tier": "Free"}, metricsProfile={"costAnalysis": {"enabled": False}})
    assert run_policy(POLICY, MANAGED_CLUSTER, cluster).violations == []
