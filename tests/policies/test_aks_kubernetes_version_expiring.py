"""aks-kubernetes-version-expiring (stack, advisory): warns within warnDays (default 60) of end of life."""

from __future__ import annotations

import pytest

from policies.aks_kubernetes_version_expiring import POLICY
from tests.policies._helpers import CLUSTER, MANAGED_CLUSTER, run_stack_policy, with_


def cluster(version: str) -> list[tuple[str, str, dict]]:
    return [(MANAGED_CLUSTER, "aks-cluster", with_(CLUSTER, kubernetesVersion=version))]


def test_far_from_end_of_life_passes() -> None:
    assert run_stack_policy(POLICY, cluster("1.36")).violations == []


def test_warns_on_the_last_day() -> None:
    outcome = run_stack_policy(POLICY, cluster("1.34"))
    assert outcome.violations == [
        "aks-cluster: kubernetesVersion: Kubernetes 1.34 reaches its AKS end of life on 2026-11-30, in 0 days: from "
        "the day after, new clusters and node pools (including replacements and scale-out of new pools) on 1.34 are "
        "refused. Upgrade one minor at a time to 1.35, 1.36, 1.37 before then."
    ]


def test_window_is_configurable() -> None:
    assert run_stack_policy(POLICY, cluster("1.35")).violations == []  # 121 days left
    warned = run_stack_policy(POLICY, cluster("1.35"), config={"warnDays": 150})
    assert len(warned.violations) == 1 and "in 121 days" in warned.violations[0]


def test_refused_versions_are_left_to_the_mandatory_policy() -> None:
    assert run_stack_policy(POLICY, cluster("1.33")).violations == []


def test_bad_window_fails_the_policy() -> None:
    with pytest.raises(ValueError, match="warnDays must be a number of days ≥ 0, got -1"):
        run_stack_policy(POLICY, cluster("1.36"), config={"warnDays": -1})
