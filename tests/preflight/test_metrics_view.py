"""The preflight's GPU-metrics view: which DCGM exporter the recorded resources deploy on each pool."""

from __future__ import annotations

from typing import Any

from preflight.metrics_view import RELEASE, SERVICE_MONITOR, exporter_text, pool_exporters
from preflight.model import RecordedResource


def res(type_: str, name: str, inputs: dict[str, Any]) -> RecordedResource:
    return RecordedResource(urn=f"urn:pulumi:s::p::{type_}::{name}", type=type_, name=name, inputs=inputs)


MONITOR = res(SERVICE_MONITOR, "scrape", {"spec": {}})
OPERATOR = res(RELEASE, "op", {"chart": "gpu-operator", "values": {"dcgmExporter": {"enabled": True}}})
OPERATOR_OFF = res(RELEASE, "op", {"chart": "gpu-operator", "values": {"dcgmExporter": {"enabled": False}}})
AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "azure-gpu-platform/pool", "operator": "In", "values": ["t4"]}]}
            ]
        }
    }
}
CHART = res(RELEASE, "dcgm", {"chart": "dcgm-exporter", "values": {"affinity": AFFINITY}})


def test_without_monitoring_there_is_no_view() -> None:
    assert pool_exporters([OPERATOR, CHART], ["t4"]) == {}


def test_operator_serves_every_pool() -> None:
    assert pool_exporters([MONITOR, OPERATOR], ["t4", "h100"]) == {
        "t4": ["gpu-operator-dcgm-exporter"],
        "h100": ["gpu-operator-dcgm-exporter"],
    }


def test_chart_serves_the_pools_of_its_affinity() -> None:
    found = pool_exporters([MONITOR, OPERATOR_OFF, CHART], ["t4", "h100"])
    assert found == {"t4": ["dcgm-exporter"], "h100": []}
    assert exporter_text(found["h100"]) == "none (no GPU metrics)"


def test_two_exporters_are_shown_as_such() -> None:
    found = pool_exporters([MONITOR, OPERATOR, CHART], ["t4"])
    assert exporter_text(found["t4"]) == (
        "gpu-operator-dcgm-exporter + dcgm-exporter (two exporters: each GPU counted twice)"
    )
