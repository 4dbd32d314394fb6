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
        "GPU utilisation per GPU / MIG instance",
        "GPU utilisation per pool",
        "GPU memory used",
        "GPU power draw",
        "GPU temperature",
        "GPUs / MIG instances allocated per namespace",
        "GPUs / MIG instances allocated / total per pool",
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
    namespace = next(e for t, e, _, _ in panel_queries() if t.endswith("allocated per namespace"))
    assert namespace == (
        "count by (exported_namespace) (count by (node, UUID, GPU_I_ID, exported_namespace) "
        '(label_replace(DCGM_FI_DEV_FB_USED{exported_pod!=""}, "node", "$1", "hostname", "(.+)")))'
    )


def test_the_dashboard_reads_the_labels_of_the_chosen_exporter(tmp_path: Path) -> None:
    operator = json.dumps(dashboard())
    assert "hostname" in operator and "Hostname" not in operator and "{pod" not in operator
    out = tmp_path / "chart.json"
    assert main(["--out", str(out), "--exporter", "chart"]) == 0
    chart = out.read_text(encoding="utf-8")
    assert '"Hostname' in chart and "by (hostname)" not in chart


def test_the_cli_writes_the_same_document(tmp_path: Path) -> None:
    out = tmp_path / "gpu.json"
    assert main(["--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == dashboard()
