"""Issue 25 in the program: a size-rule exemption lets its pool be built and, where the stack assigns the Azure
Policy, becomes a PolicyExemption of the assignment at the pool's scope (inputs as the engine sees them), checked
against the conformance facts. Today is the suite's (2026-11-30) unless a test sets ``AGP_TODAY``."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import check_resource, failures
from gpu_catalog.clock import TODAY_ENV
from stack_config import StackConfigError
from tests.components.harness import merged, run_main

EXEMPTION = "azure-native:authorization:PolicyExemption"
ASSIGNMENT = "azure-native:authorization:PolicyAssignment"
REASON = "T4 pool kept for the legacy scorer until the January migration"
BASE: dict[str, Any] = {
    "environment": "dev",
    "location": "westeurope",
    "gpuPools": [
        {"name": "a100", "vmSize": "Standard_NC24ads_A100_v4", "count": 1},
        {"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "count": 1},
    ],
    "policy": {"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}},
    "azurePolicy": {"enabled": True},
}


def entry(**changes: Any) -> dict[str, Any]:
    return {
        "policy": "gpu-size-minimum",
        "resource": "aks-t4",
        "reason": REASON,
        "owner": "ml-platform@contoso.com",
        "expires": "2027-01-15",
        **changes,
    }


def test_a_size_exemption_becomes_a_policy_exemption_on_the_pool() -> None:
    run = run_main(merged(BASE, exemptions=[entry(category="Mitigated")]))
    assert run.error is None, run.error
    exemption = run.one(EXEMPTION)
    assert exemption.name == "azure-policy-exemption-aks-t4"
    assert exemption.parent.endswith("azure-gpu-platform:components:AksGpuSizePolicy::azure-policy")
    assert exemption.inputs == {
        "assignmentScopeValidation": "Default",  # the SDK's default: the pool lies under the assignment's group
        "policyExemptionName": "agp-exempt-aks-t4",
        "scope": "/mock/azure-native:containerservice:AgentPool/aks-t4",
        "policyAssignmentId": "/mock/azure-native:authorization:PolicyAssignment/azure-policy-assignment",
        "exemptionCategory": "Mitigated",
        "expiresOn": "2027-01-15T00:00:00Z",
        "displayName": "gpu-size-minimum: aks-t4",
        "description": REASON,
        "metadata": {
            "owner": "ml-platform@contoso.com",
            "policies": ["gpu-size-minimum"],
            "source": "azure-gpu-platform exemptions",
        },
    }
    assert failures(check_resource(EXEMPTION, exemption.inputs, name=exemption.name)) == []
    assert len(run.of_type(ASSIGNMENT)) == 1  # the assignment itself is unchanged: mandatory for the rest


def test_without_the_azure_policy_the_pool_is_built_and_no_exemption_resource() -> None:
    run = run_main(merged(BASE, azurePolicy={"enabled": False}, exemptions=[entry()]))
    assert run.error is None, run.error
    assert run.of_type(EXEMPTION) == []
    assert run.by_name("aks-t4", "azure-native:containerservice:AgentPool").inputs["vmSize"] == "Standard_NC4as_T4_v3"


def test_an_exemption_of_another_rule_creates_no_azure_exemption_and_waives_no_size_rule() -> None:
    run = run_main(merged(BASE, exemptions=[entry(policy="gpu-pool-tainted")]))
    assert isinstance(run.error, StackConfigError), run.error
    assert run.error.paths == ["gpuPools[1].vmSize"]  # the floor still refuses the T4 pool


def test_another_pool_is_not_covered() -> None:
    config = merged(BASE, exemptions=[entry(resource="aks-a100")])
    run = run_main(config)
    assert isinstance(run.error, StackConfigError), run.error
    assert run.error.paths == ["gpuPools[1].vmSize"]


def test_on_the_expiry_date_the_pool_is_refused_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TODAY_ENV, "2027-01-15")
    run = run_main(merged(BASE, exemptions=[entry()]))
    assert isinstance(run.error, StackConfigError), run.error
    # the refusal names the pool and the expired entry, with its date
    assert run.error.paths == ["gpuPools[1].vmSize", "exemptions[0].expires"]
    assert "expired on 2027-01-15, so it no longer waives gpuPools[1] (t4)" in str(run.error)
    assert run.records == []


def test_an_expired_exemption_of_a_pool_that_now_passes_is_not_a_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    """Expired entries are kept (they no longer apply); only a pool the rule refuses again makes it a problem."""
    monkeypatch.setenv(TODAY_ENV, "2027-01-15")
    run = run_main(merged(BASE, policy={}, exemptions=[entry()]))  # the default floor: the T4 pool passes it
    assert run.error is None, run.error
