"""The exported GPU dashboard: Grafana JSON whose every query parses and names only metrics the exporters expose."""

from __future__ import annotations

import json
from pathlib import Path

import promql_parser

from exports.gpu_dashboard import DATASOURCE, UID, dashboard, main, panel_queries
from gpu_catalog.monitoring import load_monitoring_facts
from tests.rules.test_monitoring_rules import selectors

FACTS = load_monitoring_facts()


def test_the_dashboard_covers_utilisation_memory_power_and_allocation() -> None:
    doc = dashboard()
    assert doc["uid"] == UID and doc["schemaVersion"] == 39
    assert [p["title"] for p in doc["panels"]] == [
        "GPU utilisation per GPU",
        "GPU utilisation per pool",
        "GPU memory used",
        "GPU power draw",
        "GPU temperature",
        "GPUs allocated per namespace",
        "GPUs allocated / total per pool",
        "XID errors (last code)",
    ]
    assert [p["id"] for p in doc["panels"]] == list(range(1, 9))
    assert doc["panels"][3]["gridPos"] == {"h": 8, "w": 12, "x": 12, "y": 8}
    assert all(p["datasource"] == DATASOURCE == {"type": "prometheus", "uid": "${datasource}"} for p in doc["panels"])
    assert doc["templating"]["list"][0] == {
        "name": "datasource",
        "type": "datasource",
        "query": "prometheus",
        "label": "Prometheus",
    }


def test_every_query_parses_and_names_exported_metrics_only() -> None:
    allowed = FACTS.common_metrics | {FACTS.node_labels_metric}
    for title, expr, _legend, _unit in panel_queries():
        names = {s.name for s in selectors(promql_parser.parse(expr))}
        assert names and names <= allowed, (title, names - allowed)
    namespace = next(e for t, e, _, _ in panel_queries() if t == "GPUs allocated per namespace")
    assert namespace == 'count by (namespace) (DCGM_FI_DEV_GPU_UTIL{pod!=""})'


def test_the_cli_writes_the_same_document(tmp_path: Path) -> None:
    out = tmp_path / "gpu.json"
    assert main(["--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == dashboard()
