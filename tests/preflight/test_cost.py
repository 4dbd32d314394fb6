"""Cost math: node counts per resource kind, catalog prices, totals, unpriced sizes, budget parsing and verdicts."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_catalog import default_catalog
from preflight.cost import (
    HOURS_PER_MONTH,
    Budget,
    BudgetConfigError,
    CostEstimate,
    check_budget,
    cost_lines,
    estimate_cost,
    parse_budget,
)
from preflight.model import RecordedResource
from preflight.wire import SECRET_SIG, SIG_KEY, UNKNOWN

PREFIX = "urn:pulumi:dev::azure-gpu-platform::"
POOL = "azure-native:containerservice:AgentPool"
CLUSTER = "azure-native:containerservice:ManagedCluster"
DBX = "databricks:index/cluster:Cluster"
DBX_POOL = "databricks:index/instancePool:InstancePool"
KAITO = "kubernetes:kaito.sh/v1beta1:Workspace"


def price(size: str) -> float:
    value = default_catalog()[size].price_usd_per_hour
    assert value is not None
    return value


def res(typ: str, name: str, **inputs: Any) -> RecordedResource:
    return RecordedResource(urn=f"{PREFIX}{typ}::{name}", type=typ, name=name, inputs=inputs)


def test_catalog_prices_used_here_exist() -> None:
    # The arithmetic below relies on these sizes having indicative prices in the catalog.
    assert price("Standard_NC4as_T4_v3") == pytest.approx(0.526)
    assert price("Standard_NC24ads_A100_v4") == pytest.approx(3.673)
    assert default_catalog()["Standard_NC40ads_H100_v5"].price_usd_per_hour is None


def test_fixed_agent_pool_uses_count() -> None:
    line, surge = cost_lines(res(POOL, "t4", vmSize="Standard_NC4as_T4_v3", count=3.0))
    assert (line.role, line.vm_size, line.nodes_min, line.nodes_max) == ("pool", "Standard_NC4as_T4_v3", 3, 3)
    assert line.hourly_min == pytest.approx(3 * 0.526)
    assert line.hourly_max == pytest.approx(3 * 0.526)
    # no maxSurge stated: AKS's default 10 % of 3 nodes, rounded up
    assert (surge.role, surge.nodes_min, surge.nodes_max, surge.knob) == (
        "pool.upgradeSurge",
        0,
        1,
        "upgradeSettings.maxSurge",
    )


def test_autoscaling_pool_uses_min_and_max_not_count() -> None:
    r = res(
        POOL, "a100", vmSize="standard_nc24ads_a100_v4", enableAutoScaling=True, count=2.0, minCount=1.0, maxCount=4.0
    )
    line, _surge = cost_lines(r)
    assert line.vm_size == "Standard_NC24ads_A100_v4"  # case-insensitive lookup, canonical name reported
    assert (line.nodes_min, line.nodes_max) == (1, 4)
    assert line.hourly_min == pytest.approx(3.673)
    assert line.hourly_max == pytest.approx(4 * 3.673)


def test_pool_without_count_defaults_to_one_node_and_zero_min_is_free() -> None:
    fixed, _surge = cost_lines(res(POOL, "one", vmSize="Standard_NC4as_T4_v3"))
    assert (fixed.nodes_min, fixed.nodes_max) == (1, 1)
    zero, _surge = cost_lines(
        res(POOL, "zero", vmSize="Standard_NC4as_T4_v3", enableAutoScaling=True, minCount=0.0, maxCount=2.0)
    )
    assert zero.hourly_min == 0.0
    assert zero.hourly_max == pytest.approx(2 * 0.526)


def test_cpu_pools_cost_nothing_here() -> None:
    assert cost_lines(res(POOL, "sys", vmSize="Standard_D4ds_v5", count=3.0)) == []


def test_managed_cluster_profiles_each_priced_only_gpu() -> None:
    r = res(
        CLUSTER,
        "aks",
        agentPoolProfiles=[
            {"name": "system", "vmSize": "Standard_D4ds_v5", "count": 2.0},
            {
                "name": "gpu",
                "vmSize": "Standard_NC4as_T4_v3",
                "enableAutoScaling": True,
                "minCount": 1.0,
                "maxCount": 3.0,
            },
        ],
    )
    line, surge = cost_lines(r)
    assert line.role == "agentPoolProfiles[gpu]"
    assert (line.nodes_min, line.nodes_max) == (1, 3)
    assert (surge.role, surge.nodes_min, surge.nodes_max) == ("agentPoolProfiles[gpu].upgradeSurge", 0, 1)


def test_databricks_workers_and_driver() -> None:
    r = res(DBX, "c", nodeTypeId="Standard_NC4as_T4_v3", driverNodeTypeId="Standard_NC24ads_A100_v4", numWorkers=2.0)
    workers, driver = cost_lines(r)
    assert (workers.role, workers.nodes_min, workers.nodes_max) == ("workers", 2, 2)
    assert (driver.role, driver.vm_size, driver.nodes_min, driver.nodes_max) == (
        "driver",
        "Standard_NC24ads_A100_v4",
        1,
        1,
    )
    est = estimate_cost([r])
    assert est.hourly_min == pytest.approx(2 * 0.526 + 3.673)


def test_databricks_autoscale_and_driver_defaults_to_worker_type() -> None:
    r = res(DBX, "c", nodeTypeId="Standard_NC4as_T4_v3", autoscale={"minWorkers": 1.0, "maxWorkers": 5.0})
    workers, driver = cost_lines(r)
    assert (workers.nodes_min, workers.nodes_max) == (1, 5)
    assert driver.vm_size == "Standard_NC4as_T4_v3"
    est = estimate_cost([r])
    assert est.hourly_min == pytest.approx(2 * 0.526)
    assert est.hourly_max == pytest.approx(6 * 0.526)


def test_databricks_single_node_has_only_the_driver() -> None:
    lines = cost_lines(res(DBX, "single", nodeTypeId="Standard_NC4as_T4_v3", numWorkers=0.0))
    assert [ln.role for ln in lines] == ["driver"]


def test_databricks_instance_pool() -> None:
    r = res(DBX_POOL, "p", nodeTypeId="Standard_NC4as_T4_v3", minIdleInstances=0.0, maxCapacity=4.0)
    [line] = cost_lines(r)
    assert (line.nodes_min, line.nodes_max) == (0, 4)


def test_kaito_workspace_count_defaults_to_one() -> None:
    [one] = cost_lines(res(KAITO, "w", resource={"instanceType": "Standard_NC24ads_A100_v4"}))
    assert (one.nodes_min, one.nodes_max) == (1, 1)
    [two] = cost_lines(res(KAITO, "w2", resource={"instanceType": "Standard_NC24ads_A100_v4", "count": 2.0}))
    assert two.hourly_max == pytest.approx(2 * 3.673)


def test_unpriced_unknown_and_preview_unknown_sizes_are_listed_not_counted() -> None:
    resources = [
        res(POOL, "h100", vmSize="Standard_NC40ads_H100_v5", count=1.0),  # in the catalog, no price
        res(POOL, "mystery", vmSize="Standard_NC999_v9", count=1.0),  # N-family, not in the catalog
        res(POOL, "later", vmSize=UNKNOWN, count=1.0),  # unknown during the preview
        res(POOL, "t4", vmSize="Standard_NC4as_T4_v3", count=1.0),
    ]
    est = estimate_cost(resources)
    notes = {ln.urn.rsplit("::", 1)[-1]: ln.note for ln in est.unpriced_lines if ln.role == "pool"}
    assert notes == {
        "h100": "no indicative price in the catalog",
        "mystery": "not in the GPU catalog: no price",
        "later": "VM size unknown during the preview",
    }
    assert est.hourly_max == pytest.approx(0.526)
    doc = est.to_json()
    assert doc["unpriced"] == sorted(["Standard_NC40ads_H100_v5", "Standard_NC999_v9", UNKNOWN])
    h100 = next(x for x in doc["byResource"] if x["vmSize"] == "Standard_NC40ads_H100_v5")
    assert h100["hourlyMin"] is None and h100["hourlyMax"] is None and h100["priced"] is False


def test_unknown_node_count_is_not_priced() -> None:
    [line] = cost_lines(
        res(POOL, "p", vmSize="Standard_NC4as_T4_v3", enableAutoScaling=True, minCount=1.0, maxCount=UNKNOWN)
    )
    assert line.priced is False
    assert line.note == "node count unknown during the preview"


def test_secret_inputs_are_unwrapped_for_pricing() -> None:
    r = res(POOL, "s", vmSize={SIG_KEY: SECRET_SIG, "value": "Standard_NC4as_T4_v3"}, count=2.0)
    line, _surge = cost_lines(r)
    assert line.hourly_max == pytest.approx(2 * 0.526)


def test_totals_monthly_is_730_hours_and_json_shape() -> None:
    est = estimate_cost(
        [
            res(POOL, "a", vmSize="Standard_NC4as_T4_v3", enableAutoScaling=True, minCount=1.0, maxCount=2.0),
            res(POOL, "b", vmSize="Standard_NC24ads_A100_v4", count=1.0),
        ]
    )
    assert HOURS_PER_MONTH == 730
    assert est.hourly_min == pytest.approx(0.526 + 3.673)
    assert est.hourly_max == pytest.approx(2 * 0.526 + 3.673)
    assert est.monthly_max == pytest.approx((2 * 0.526 + 3.673) * 730)
    doc = est.to_json()
    assert doc["currency"] == "USD" and doc["indicative"] is True
    assert doc["monthlyMin"] == pytest.approx(round((0.526 + 3.673) * 730, 2))
    assert set(doc["byResource"][0]) >= {"urn", "vmSize", "nodesMin", "nodesMax", "hourlyMin", "hourlyMax"}
    assert doc["byResource"][0]["urn"] == f"{PREFIX}{POOL}::a"


# ---------------------------------------------------------------------------------------------------------------------
# budget

WHERE = "stacks/Pulumi.dev.yaml: azure-gpu-platform:budget"


def test_parse_budget_defaults_to_advisory() -> None:
    assert parse_budget({"monthlyUsd": 1500}, where=WHERE) == Budget(1500.0, "advisory")
    assert parse_budget(None, where=WHERE) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"monthlyUsd": -5}, f"{WHERE}.monthlyUsd: must be a number greater than 0, got -5"),
        ({"monthlyUsd": "lots"}, f"{WHERE}.monthlyUsd: must be a number greater than 0, got 'lots'"),
        ({}, f"{WHERE}.monthlyUsd: required (the monthly GPU budget in USD)"),
        (
            {"monthlyUsd": 10, "enforcementLevel": "strict"},
            f"{WHERE}.enforcementLevel: must be one of advisory, mandatory, got 'strict'",
        ),
        ({"monthlyUsd": 10, "monthly": 3}, f"{WHERE}.monthly: unknown key (allowed: monthlyUsd, enforcementLevel)"),
        (1500, f"{WHERE}: must be a mapping {{monthlyUsd: <number>, enforcementLevel: advisory|mandatory}}, got 1500"),
        ({"monthlyUsd": True}, f"{WHERE}.monthlyUsd: must be a number greater than 0, got true"),
    ],
)
def test_parse_budget_errors_name_file_and_key(value: Any, expected: str) -> None:
    with pytest.raises(BudgetConfigError) as err:
        parse_budget(value, where=WHERE)
    assert str(err.value) == expected


def _estimate(max_nodes: float) -> CostEstimate:
    r = res(POOL, "a", vmSize="Standard_NC24ads_A100_v4", enableAutoScaling=True, minCount=1.0, maxCount=max_nodes)
    return estimate_cost([r])


def test_budget_over_at_max_nodes() -> None:
    budget = parse_budget({"monthlyUsd": 5000, "enforcementLevel": "mandatory"}, where=WHERE)
    finding = check_budget(_estimate(4.0), budget)  # 1 node 2681.29/month, 4 nodes 10725.16/month
    assert finding is not None and finding.over
    assert finding.budget.enforcement_level == "mandatory"
    assert finding.message.startswith(
        "Indicative GPU cost can reach $10,725.16/month at maximum node counts, over the budget of $5,000.00/month "
        f"({WHERE}.monthlyUsd). At minimum node counts it is $2,681.29/month."
    )


def test_budget_within() -> None:
    finding = check_budget(_estimate(1.0), parse_budget({"monthlyUsd": 5000}, where=WHERE))
    assert finding is not None and not finding.over
    assert check_budget(_estimate(1.0), None) is None


def test_versioned_type_tokens_are_priced_like_the_default_version() -> None:
    """One type matcher (rules/resource_types.py) for the pack and the estimate: the pack checks an
    ``azure-native:containerservice/v20250901:AgentPool``, so the estimate prices it too."""
    versioned = res("azure-native:containerservice/v20250901:AgentPool", "a", vmSize="Standard_NC4as_T4_v3", count=2.0)
    line, _surge = cost_lines(versioned)
    assert (line.role, line.vm_size, line.nodes_min, line.nodes_max) == ("pool", "Standard_NC4as_T4_v3", 2, 2)
    assert line.hourly_max == pytest.approx(2 * 0.526)
