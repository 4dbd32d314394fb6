"""aks-kaito-requires-oidc: the KAITO add-on needs the OIDC issuer."""

from __future__ import annotations

from policies.aks_kaito_requires_oidc import POLICY
from tests.policies._helpers import AGENT_POOL, CLUSTER, GPU_POOL, MANAGED_CLUSTER, UNKNOWN, run_policy, with_

MESSAGE = (
    "oidcIssuerProfile.enabled: the KAITO add-on is on but the OIDC issuer is off: KAITO's controllers "
    "authenticate to Azure with workload identity, which needs the cluster's OIDC issuer, so AKS rejects the "
    "cluster. Turn the OIDC issuer on."
)


def test_kaito_with_oidc_passes() -> None:
    assert run_policy(POLICY, MANAGED_CLUSTER, CLUSTER).violations == []


def test_kaito_without_oidc_rejected() -> None:
    assert run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, oidcIssuerProfile=None)).violations == [MESSAGE]
    off = with_(CLUSTER, oidcIssuerProfile={"enabled": False})
    assert run_policy(POLICY, MANAGED_CLUSTER, off).violations == [MESSAGE]


def test_no_kaito_no_requirement() -> None:
    cluster = with_(CLUSTER, aiToolchainOperatorProfile={"enabled": False}, oidcIssuerProfile=None)
    assert run_policy(POLICY, MANAGED_CLUSTER, cluster).violations == []
    assert run_policy(POLICY, AGENT_POOL, GPU_POOL).violations == []


def test_unknown_oidc_named() -> None:
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, oidcIssuerProfile={"enabled": UNKNOWN}))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("oidcIssuerProfile.enabled can't be known during preview")
