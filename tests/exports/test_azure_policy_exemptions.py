"""Issue 40: the Azure Policy's exempted pools, evaluated offline on ARM request bodies (tests/exports/
azure_policy_eval.py) at a given ``utcNow()``: an exempted pool passes under ``Deny`` in both branches of the
definition — its own PUT (create, replace: ``fullName`` ``<cluster>/<pool>``) and a full cluster PUT that carries it
inline — every other refused pool is still denied, and the exemption ends at the start of its expiry day, without a
``pulumi up``."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from exports.azure_policy import (
    AGENT_POOL_TYPE,
    EXEMPTED_PARAMETER,
    MANAGED_CLUSTER_TYPE,
    MAX_EXEMPTED_POOLS,
    ExemptedPool,
    exempted_pools_value,
    policy_definition,
)
from tests.exports.azure_policy_eval import UnsupportedPolicy, evaluate

FLOOR = "Standard_NC24ads_A100_v4"
DEFINITION = policy_definition(effect="Deny", floor=FLOOR)
T4 = "Standard_NC4as_T4_v3"  # below the A100 floor: refused unless exempted
A100 = "Standard_NC24ads_A100_v4"
T4_POOL = ExemptedPool(
    cluster="aks-gpu-dev",
    pool="t4",
    expires=date(2027, 1, 15),
    policies=("gpu-size-minimum",),
    reason="The legacy scorer needs CUDA 11 on T4 until its port to A100 (ML-1234), due in January.",
    owner="ml-platform@contoso.com",
    category="Waiver",
)
PARAMS = {EXEMPTED_PARAMETER: exempted_pools_value([T4_POOL])}
BEFORE = datetime(2027, 1, 14, 23, 59, 59, tzinfo=UTC)
EXPIRY = datetime(2027, 1, 15, 0, 0, 0, tzinfo=UTC)


def agent_pool(cluster: str, pool: str, size: str) -> dict[str, Any]:
    return {"type": AGENT_POOL_TYPE, "name": f"{cluster}/{pool}", "properties": {"vmSize": size, "mode": "User"}}


def vm_agent_pool(cluster: str, pool: str, size: str) -> dict[str, Any]:
    manual = [{"size": size, "count": 1}]
    props = {"type": "VirtualMachines", "mode": "User", "virtualMachinesProfile": {"scale": {"manual": manual}}}
    return {"type": AGENT_POOL_TYPE, "name": f"{cluster}/{pool}", "properties": props}


def cluster(name: str, *pools: tuple[str, str]) -> dict[str, Any]:
    """A full managed-cluster PUT: AKS reads back every pool into ``agentPoolProfiles``."""
    profiles = [{"name": "system", "vmSize": "Standard_D4ds_v5", "mode": "System", "count": 2}]
    profiles += [{"name": pool, "vmSize": size, "mode": "User", "count": 1} for pool, size in pools]
    return {"type": MANAGED_CLUSTER_TYPE, "name": name, "properties": {"agentPoolProfiles": profiles}}


def test_the_parameter_entry_as_the_assignment_sends_it() -> None:
    assert PARAMS == {
        "exemptedPools": [
            {
                "cluster": "aks-gpu-dev",
                "pool": "t4",
                "expiresOn": "2027-01-15T00:00:00.0000000Z",
                "policies": ["gpu-size-minimum"],
                "reason": "The legacy scorer needs CUDA 11 on T4 until its port to A100 (ML-1234), due in January.",
                "owner": "ml-platform@contoso.com",
                "category": "Waiver",
            }
        ]
    }


@pytest.mark.parametrize("shape", [agent_pool, vm_agent_pool])
def test_the_pool_put_of_an_exempted_pool_passes_under_deny_until_the_expiry_day(shape: Any) -> None:
    """Create and replace are the same PUT of the agent pool: judged before any resource scoped to the pool exists."""
    request = shape("aks-gpu-dev", "t4", T4)
    assert evaluate(DEFINITION, request, now=BEFORE) == "Deny"  # no exemption passed: refused
    assert evaluate(DEFINITION, request, PARAMS, now=BEFORE) is None
    assert evaluate(DEFINITION, request, PARAMS, now=EXPIRY) == "Deny"  # from the expiry day on, on its own
    assert evaluate(DEFINITION, request, PARAMS, now=EXPIRY + timedelta(days=30)) == "Deny"


@pytest.mark.parametrize(
    "request_",
    [
        agent_pool("aks-gpu-dev", "t4b", T4),  # another pool of the cluster
        agent_pool("aks-gpu-prod", "t4", T4),  # the same pool name in another cluster
        vm_agent_pool("aks-gpu-dev", "t4b", T4),
    ],
)
def test_only_the_named_pool_of_the_named_cluster_is_exempted(request_: dict[str, Any]) -> None:
    assert evaluate(DEFINITION, request_, PARAMS, now=BEFORE) == "Deny"


def test_a_full_cluster_put_carrying_the_exempted_pool_passes_and_any_other_refused_pool_is_denied() -> None:
    with_t4 = cluster("aks-gpu-dev", ("a100", A100), ("t4", T4))
    assert evaluate(DEFINITION, with_t4, now=BEFORE) == "Deny"
    assert evaluate(DEFINITION, with_t4, PARAMS, now=BEFORE) is None
    assert evaluate(DEFINITION, with_t4, PARAMS, now=EXPIRY) == "Deny"
    another = cluster("aks-gpu-dev", ("t4", T4), ("t4b", T4))
    assert evaluate(DEFINITION, another, PARAMS, now=BEFORE) == "Deny"
    elsewhere = cluster("aks-gpu-prod", ("t4", T4))
    assert evaluate(DEFINITION, elsewhere, PARAMS, now=BEFORE) == "Deny"


def test_the_expiry_is_written_as_utc_now_writes_a_time() -> None:
    """A plain ``…T00:00:00Z`` would sort after ``utcNow()``'s ``…T00:00:00.0000000Z`` as a string and keep the
    exemption for the whole expiry day; the same format gives the same answer as a time comparison."""
    assert T4_POOL.expires_on == "2027-01-15T00:00:00.0000000Z"
    late = {EXEMPTED_PARAMETER: [{**PARAMS[EXEMPTED_PARAMETER][0], "expiresOn": "2027-01-15T00:00:00Z"}]}
    assert evaluate(DEFINITION, agent_pool("aks-gpu-dev", "t4", T4), late, now=EXPIRY) is None  # the trap


def test_names_compare_case_insensitively_as_azure_policy_does() -> None:
    assert evaluate(DEFINITION, agent_pool("AKS-GPU-DEV", "T4", T4), PARAMS, now=BEFORE) is None


def test_the_list_stays_within_azure_policy_limits() -> None:
    many = [
        ExemptedPool("c", f"p{i}", date(2027, 1, 1), ("gpu-size-minimum",), "r" * 10, "o", "Waiver") for i in range(101)
    ]
    assert len(exempted_pools_value(many[:MAX_EXEMPTED_POOLS])) == 100
    with pytest.raises(ValueError, match="101 exempted pools: a value count iterates at most 100"):
        exempted_pools_value(many)
    with pytest.raises(UnsupportedPolicy, match="at most 100"):
        evaluate(DEFINITION, agent_pool("c", "p0", T4), {EXEMPTED_PARAMETER: [p.to_parameter() for p in many]})
