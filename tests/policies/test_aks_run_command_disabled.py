"""aks-run-command-disabled (advisory): Microsoft's 'should disable Command Invoke' (89f2d532-…) on raw clusters."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel

from policies.aks_run_command_disabled import POLICY
from tests.policies._helpers import AGENT_POOL, CLUSTER, GPU_POOL, MANAGED_CLUSTER, UNKNOWN, run_policy, with_

OFF = {"authorizedIPRanges": ["203.0.113.0/24"], "disableRunCommand": True}


def test_is_advisory_over_managed_clusters() -> None:
    assert POLICY.enforcement_level == EnforcementLevel.ADVISORY
    assert run_policy(POLICY, AGENT_POOL, GPU_POOL).violations == []


def test_disabled_passes() -> None:
    assert run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, apiServerAccessProfile=OFF)).violations == []


def test_unset_or_false_is_reported_with_the_definition() -> None:
    for cluster in (CLUSTER, with_(CLUSTER, apiServerAccessProfile={**OFF, "disableRunCommand": False})):
        [message] = run_policy(POLICY, MANAGED_CLUSTER, cluster).violations
        assert message.startswith("apiServerAccessProfile.disableRunCommand: Run Command is enabled: az aks command")
        assert "Azure Kubernetes Service Clusters should disable Command Invoke' (89f2d532-" in message


def test_unknown_is_named_not_passed() -> None:
    outcome = run_policy(POLICY, MANAGED_CLUSTER, with_(CLUSTER, apiServerAccessProfile={"disableRunCommand": UNKNOWN}))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None and "apiServerAccessProfile.disableRunCommand" in outcome.preview_unknown
