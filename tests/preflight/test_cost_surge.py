"""The upgrade surge of a GPU pool, counted once (:func:`rules.network.surge_nodes`) by the cost estimate, the quota
demand and the stack's subnet and ``gpuQuota`` checks, with AKS's default when a pool states none; priced per hour of
upgrade, apart from the steady-state monthly totals and the budget."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from preflight.cost import (
    SURGE_NOTE,
    check_budget,
    cost_lines,
    estimate_cost,
    parse_budget,
    surge_total_text,
)
from preflight.model import RecordedResource
from preflight.quota import quota_demand
from rules.network import surge_nodes
from stack_config import StackConfigError, config_from_stack_yaml, validate_stack_config
from stack_config.landing_zone import pool_surge
from tests.components.test_landing_zone import example_config

POOL = "azure-native:containerservice:AgentPool"
A100 = "Standard_NC24ads_A100_v4"  # 24 vCPUs, $3.673 an hour in the catalog
WHERE = "stacks/Pulumi.dev.yaml: azure-gpu-platform:budget"


def pool(name: str = "a100", **inputs: Any) -> RecordedResource:
    props = {"vmSize": A100, "enableAutoScaling": True, "minCount": 1.0, "maxCount": 12.0, **inputs}
    return RecordedResource(urn=f"urn:pulumi:dev::p::{POOL}::{name}", type=POOL, name=name, inputs=props)


def surge_of(r: RecordedResource) -> tuple[int | None, int | None] | None:
    lines = [ln for ln in cost_lines(r) if ln.role == "pool.upgradeSurge"]
    return (lines[0].nodes_min, lines[0].nodes_max) if lines else None


def test_the_one_surge_count_default_stated_in_place_and_capped() -> None:
    assert surge_nodes(None, 12) == 2  # AKS's default 10 % of 12 = 1.2, rounded up
    assert surge_nodes(None, 3) == 1  # one node up to ten nodes (the upgrade article's "one extra node")
    assert surge_nodes("33%", 12) == 4
    assert surge_nodes("0", 12) == 0
    assert surge_nodes("5", 3) == 3  # never more than the nodes the upgrade moves
    assert surge_nodes(None, 0) == 0


def test_a_pool_without_max_surge_is_priced_with_aks_default() -> None:
    assert surge_of(pool()) == (0, 2)
    assert surge_of(pool(upgradeSettings={"maxUnavailable": "1"})) == (0, 2)  # maxSurge still AKS's default
    assert surge_of(pool(upgradeSettings={"maxSurge": "50%"})) == (0, 6)
    assert surge_of(pool(upgradeSettings={"maxSurge": "0", "maxUnavailable": "1"})) is None  # in place: no GPU more
    assert surge_of(pool(upgradeSettings={"maxSurge": "one"})) is None  # not a count: refused by the checks, not priced
    (line,) = [ln for ln in cost_lines(pool()) if ln.role == "pool.upgradeSurge"]
    assert (line.note, line.knob) == (SURGE_NOTE, "upgradeSettings.maxSurge")


def test_the_surge_is_apart_from_the_monthly_totals_and_the_budget() -> None:
    est = estimate_cost([pool()])
    assert est.hourly_max == pytest.approx(12 * 3.673)
    assert est.monthly_max == pytest.approx(12 * 3.673 * 730)
    assert est.surge_hourly_max == pytest.approx(2 * 3.673)
    doc = est.to_json()
    assert doc["monthlyMax"] == pytest.approx(round(12 * 3.673 * 730, 2))
    surge = next(x for x in doc["byResource"] if x["role"] == "pool.upgradeSurge")
    assert (surge["nodesMax"], surge["hourlyMax"], surge["monthlyMin"], surge["monthlyMax"]) == (2, 7.346, None, None)
    assert (doc["upgradeSurge"]["hourlyMax"], doc["upgradeSurge"]["nodesMax"]) == (7.346, 2)
    assert surge_total_text(est) == (
        "Upgrade surge: up to 2 GPU nodes more, $7.35/hour while upgrades run (not in the monthly totals or the "
        "budget; counted in the quota demand)"
    )
    # a budget that holds the pool at maxCount (12 x 3.673 x 730 = 32,175.48) but not with the surge for a month
    finding = check_budget(est, parse_budget({"monthlyUsd": 33000}, where=WHERE))
    assert finding is not None and not finding.over


def test_the_quota_demand_counts_the_same_surge() -> None:
    demand = quota_demand([pool()], default_region="westeurope")
    rows = {r.quota: (r.vcpus_min, r.vcpus_max) for r in demand.rows()}
    assert rows["StandardNCADSA100v4Family"] == (24, (12 + 2) * 24)


def test_cost_quota_and_stack_checks_agree_on_a_pool_without_max_surge() -> None:
    """The landing-zone example's GPU pool without ``upgrade``: the stack check and the estimate of the same pool
    count the same surge, AKS's default."""
    config = copy.deepcopy(example_config())
    gpu = config["azure-gpu-platform:gpuPools"][0]
    del gpu["upgrade"]
    cfg = validate_stack_config(config_from_stack_yaml(config), stack_file="Pulumi.landing-zone.yaml")
    (stack_pool,) = cfg.gpuPools
    assert stack_pool.maxCount == 2
    wire = pool(enableAutoScaling=True, minCount=1.0, maxCount=float(stack_pool.maxCount))
    assert pool_surge(stack_pool) == 1 and surge_of(wire) == (0, 1)
    # the stated quota holds the pool at maxCount (48) but not its default surge (+24): refused with the numbers
    config["azure-gpu-platform:gpuQuota"] = {"StandardNCADSA100v4Family": 48}
    with pytest.raises(StackConfigError, match=r"48 vCPUs at maxCount \+ 24 vCPUs of upgrade surge = 72"):
        validate_stack_config(config_from_stack_yaml(config), stack_file="Pulumi.landing-zone.yaml")
