"""The cost estimate's idle lines: each GPU line at its minimum node count, with the lever the idle rule gives."""

from __future__ import annotations

from typing import Any

import pytest

from preflight.cost import estimate_cost
from preflight.idle_cost import SCALES_FROM_ZERO, idle_json, idle_lines, idle_text
from preflight.model import RecordedResource

PREFIX = "urn:pulumi:dev::azure-gpu-platform::"
POOL = "azure-native:containerservice:AgentPool"
CLUSTER = "azure-native:containerservice:ManagedCluster"
KAITO = "kubernetes:kaito.sh/v1beta1:Workspace"
RELEASE = "kubernetes:helm.sh/v3:Release"
T4, A100 = "Standard_NC4as_T4_v3", "Standard_NC24ads_A100_v4"  # 0.526 and 3.673 USD/h in the catalog


def res(typ: str, name: str, **inputs: Any) -> RecordedResource:
    return RecordedResource(urn=f"{PREFIX}{typ}::{name}", type=typ, name=name, inputs=inputs)


def warm_t4(**changes: Any) -> RecordedResource:
    inputs = {"agentPoolName": "t4", "vmSize": T4, "enableAutoScaling": True, "minCount": 2.0, "maxCount": 4.0}
    return res(POOL, "aks-t4", **{**inputs, **changes})


def levers(resources: list[RecordedResource]) -> list[tuple[str, int | None, float | None, str]]:
    return [
        (ln.line.role, ln.line.nodes_min, None if ln.monthly is None else round(ln.monthly, 2), ln.lever)
        for ln in idle_lines(estimate_cost(resources), resources)
    ]


def test_warm_pool_idles_at_its_minimum_and_could_scale_to_zero() -> None:
    assert levers([warm_t4()]) == [
        ("pool", 2, 767.96, "could scale to 0 (gpu-pool-idle-minimum): minCount: 0"),
    ]


def test_scale_from_zero_pool_costs_nothing_idle() -> None:
    assert levers([warm_t4(minCount=0.0)]) == [("pool", 0, 0.0, SCALES_FROM_ZERO)]


def test_operator_managed_pool_keeps_its_minimum_with_the_reason() -> None:
    operator = res(RELEASE, "gpu-operator", chart="gpu-operator", values={})
    [(_, nodes, monthly, lever)] = levers([warm_t4(minCount=1.0, vmSize=A100), operator])
    assert (nodes, monthly) == (1, 2681.29)
    assert lever.startswith("kept: the GPU operator manages it: gpu-operator-autoscale-min-count keeps minCount ≥ 1")


def test_cluster_profile_fixed_count_and_kaito_workspace() -> None:
    cluster = res(
        CLUSTER,
        "aks",
        agentPoolProfiles=[
            {"name": "system", "vmSize": "Standard_D4ds_v5", "count": 2.0, "mode": "System"},
            {"name": "gpu", "vmSize": T4, "count": 1.0, "mode": "User"},
        ],
    )
    workspace = res(KAITO, "kaito-phi", resource={"instanceType": A100, "count": 2.0})
    assert levers([cluster, workspace]) == [
        ("agentPoolProfiles[gpu]", 1, 383.98, "could scale to 0 (gpu-pool-idle-minimum): count: 0"),
        ("workspace", 2, 5362.58, "KAITO workspace: its resource.count nodes run while the workspace exists"),
    ]


def test_json_totals_and_text_lines() -> None:
    resources = [warm_t4(), warm_t4(minCount=0.0, agentPoolName="t4b")]
    resources[1].urn += "b"
    estimate = estimate_cost(resources)
    doc = idle_json(estimate, resources)
    assert doc["hourly"] == pytest.approx(1.052)
    assert doc["monthly"] == 767.96
    assert [(e["nodes"], e["monthly"]) for e in doc["byResource"]] == [(2, 767.96), (0, 0.0)]
    text = idle_text(estimate, resources, lambda urn: urn.rsplit("::", 1)[-1])
    assert text[0] == "  idle at minimum nodes (nothing scheduled): $1.05/h, $767.96/month"
    assert text[1] == (
        "    aks-t4 pool: 2 × Standard_NC4as_T4_v3: $1.05/h, $767.96/month — could scale to 0 "
        "(gpu-pool-idle-minimum): minCount: 0"
    )


def test_working_hours_from_the_stack_file_and_what_stopping_saves() -> None:
    from preflight.idle_cost import WorkingHours, working_hours_json, working_hours_text

    assert WorkingHours.from_stack({"skuTier": "Free"}) is None
    assert WorkingHours.from_stack(None) is None
    hours = WorkingHours.from_stack(
        {
            "workingHours": {
                "days": ["Mon", "Tue", "Wed", "Thu", "Fri"],
                "start": "08:00",
                "end": "19:00",
                "timeZone": "UTC",
            }
        }
    )
    assert hours is not None
    resources = [warm_t4(minCount=1.0)]  # 0.526 USD/h idle: $383.98/month always on
    estimate = estimate_cost(resources)
    doc = working_hours_json(hours, estimate, resources)
    assert doc == {
        "days": ["Mon", "Tue", "Wed", "Thu", "Fri"],
        "start": "08:00",
        "end": "19:00",
        "timeZone": "UTC",
        "hoursPerWeek": 55.0,
        "idleMonthlyAlwaysOn": 383.98,
        "idleMonthlyStoppedOutside": 125.71,  # 383.98 × 55 / 168
        "howToStop": "docs/idle-cost.md",
    }
    assert working_hours_text(hours, estimate, resources) == [
        "working hours: Mon–Fri 08:00–19:00 UTC (55 of 168 h a week); stopped outside them (az aks stop / az aks "
        "start on your own schedule, docs/idle-cost.md) the idle minimum costs $125.71/month instead of $383.98"
    ]
    assert working_hours_json(None, estimate, resources) is None
    assert working_hours_text(None, estimate, resources) == []
