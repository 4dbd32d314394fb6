"""Issues 25 and 40 in the program: a size-rule exemption lets its pool be built and, where the stack assigns the
Azure Policy, becomes an entry of the assignment's ``exemptedPools`` (inputs as the engine sees them, checked against
the conformance facts) that exists before the pool: the assignment is registered before the ManagedCluster, which
depends on it, and every GPU pool after the cluster (the registered dependency graph, as the preflight records it).
Today is the suite's (2026-11-30) unless a test sets ``AGP_TODAY``."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import check_resource, failures
from gpu_catalog.clock import TODAY_ENV
from stack_config import StackConfigError
from tests.components.harness import Record, Run, merged, run_main

EXEMPTION = "azure-native:authorization:PolicyExemption"
ASSIGNMENT = "azure-native:authorization:PolicyAssignment"
DEFINITION = "azure-native:authorization:PolicyDefinition"
CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
REASON = "T4 pool kept for the legacy scorer until the January migration"
BASE: dict[str, Any] = {
    "environment": "dev",
    "location": "westeurope",
    "gpuPools": [
        {"name": "a100", "vmSize": "Standard_NC24ads_A100_v4", "count": 1},
        {"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "count": 1},
    ],
    "policy": {"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}},
    "azurePolicy": {"enabled": True, "effect": "Deny"},
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


def depends_on(run: Run, record: Record) -> set[str]:
    """Every URN ``record`` waits for, directly or through what it depends on (the engine's ordering)."""
    seen: set[str] = set()
    todo = list(record.dependencies)
    while todo:
        urn = todo.pop()
        if urn not in seen:
            seen.add(urn)
            todo += run.by_urn(urn).dependencies
    return seen


def test_a_size_exemption_is_an_exempted_pool_of_the_assignment() -> None:
    run = run_main(merged(BASE, exemptions=[entry(category="Mitigated")]))
    assert run.error is None, run.error
    assignment = run.one(ASSIGNMENT)
    t4 = run.by_name("aks-t4", POOL)
    assert assignment.inputs["parameters"] == {
        "effect": {"value": "Deny"},
        "exemptedPools": {
            "value": [
                {
                    "cluster": "aks-gpu-dev",
                    "pool": t4.inputs["agentPoolName"],  # the pool's Azure name, as its PUT carries it
                    "expiresOn": "2027-01-15T00:00:00.0000000Z",
                    "policies": ["gpu-size-minimum"],
                    "reason": REASON,
                    "owner": "ml-platform@contoso.com",
                    "category": "Mitigated",
                }
            ]
        },
    }
    assert t4.inputs["agentPoolName"] == "t486bc"
    assert failures(check_resource(ASSIGNMENT, assignment.inputs, name=assignment.name)) == []
    assert run.of_type(EXEMPTION) == []  # no PolicyExemption scoped to the pool: it could only follow the pool
    definition = run.one(DEFINITION)
    assert definition.inputs["parameters"]["exemptedPools"]["defaultValue"] == []


def test_the_assignment_exists_before_the_cluster_and_every_pool() -> None:
    """Under Deny the pool's PUT (create, replace) and the cluster's PUT are judged with the exempted pools: the
    assignment is registered first and the ManagedCluster depends on it directly, every GPU pool through the cluster."""
    run = run_main(merged(BASE, exemptions=[entry()]))
    assert run.error is None, run.error
    assignment, cluster = run.one(ASSIGNMENT), run.one(CLUSTER)
    assert assignment.urn in cluster.dependencies
    order = [r.urn for r in run.records]
    for pool in run.of_type(POOL):
        assert assignment.urn in depends_on(run, pool), pool.name
        assert order.index(assignment.urn) < order.index(cluster.urn) < order.index(pool.urn)
    rg = run.by_name("aks-rg", "azure-native:resources:ResourceGroup")
    assert rg.urn in assignment.dependencies  # assigned to the group, once it exists


def test_without_the_azure_policy_the_pool_is_built_and_nothing_waits_for_a_policy() -> None:
    run = run_main(merged(BASE, azurePolicy={"enabled": False}, exemptions=[entry()]))
    assert run.error is None, run.error
    assert run.of_type(ASSIGNMENT) == []
    assert [u.rsplit("::", 1)[-1] for u in run.one(CLUSTER).dependencies] == ["aks-rg"]
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


@pytest.mark.parametrize(
    "changes",
    [
        {"azurePolicy": {"enabled": True, "effect": "Deny", "scope": "subscription"}},
        {"resourceGroup": {"existing": True, "name": "rg-gpu-shared"}},
    ],
)
def test_the_order_holds_for_a_subscription_assignment_and_an_existing_group(changes: dict[str, Any]) -> None:
    run = run_main(merged(BASE, exemptions=[entry()], **changes))
    assert run.error is None, run.error
    assignment, cluster = run.one(ASSIGNMENT), run.one(CLUSTER)
    assert assignment.urn in cluster.dependencies
    assert all(assignment.urn in depends_on(run, pool) for pool in run.of_type(POOL))


def test_a_misspelt_pool_is_named_with_the_closest_pool_in_the_refusal() -> None:
    """The floor refuses the T4 pool before the program runs; the typo that left it unexempted is named with the
    closest pool (the preflight's match against every resource would only run after the program)."""
    run = run_main(merged(BASE, exemptions=[entry(resource="aks-t5")]))
    assert isinstance(run.error, StackConfigError), run.error
    assert run.error.paths == ["gpuPools[1].vmSize", "exemptions[0].resource"]
    assert (
        "exemptions[0].resource: 'aks-t5' names no GPU pool of the stack; did you mean 'aks-t4' (the AgentPool of "
        "gpuPools[1], t4, which gpu-size-minimum refuses)? Allowed: a pool's AgentPool name aks-<gpuPools[].name> "
        "(aks-a100, aks-t4) or another resource's name or URN"
    ) in str(run.error)
    # the closest pool passes the rule (default floor): nothing hides the typo here (the preflight still checks it)
    far = run_main(merged(BASE, policy={}, exemptions=[entry(resource="aks-t5")]))
    assert far.error is None, far.error
