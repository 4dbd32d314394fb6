"""The GPU dashboard as Grafana dashboard JSON, for teams that bring their own Grafana (or import it into Azure
Managed Grafana): ``python -m exports.gpu_dashboard [--out FILE]``.

Every query is built from the metric names and labels in ``gpu_catalog/facts/gpu_monitoring.json`` through
:mod:`rules.monitoring` (the names the alerts use), and every one names only metrics both pinned DCGM exporters
expose by default. The data source is a dashboard variable (``${datasource}``, type prometheus): point it at the Azure
Monitor workspace's Prometheus query endpoint. Why an export and not an Azure Managed Grafana instance:
``docs/monitoring.md``. No Pulumi import.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpu_catalog.monitoring import StoredLabels, load_monitoring_facts
from rules.monitoring import (
    FB_FREE,
    FB_USED,
    NODE,
    POOL_NODE_LABEL,
    POWER,
    TEMP,
    XID,
    by_pool,
    distinct_gpus,
    exported_metric,
    ksm_label,
    labels_of,
    mig_util,
    whole_gpu_util,
    with_node,
)

FACTS = load_monitoring_facts()
UID = "azure-gpu-platform-gpus"
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


def _panel(pid: int, query: tuple[str, str, str, str], x: int, y: int) -> dict[str, Any]:
    title, expr, legend, unit = query
    return {
        "id": pid,
        "type": "timeseries",
        "title": title,
        "datasource": DATASOURCE,
        "gridPos": {"h": 8, "w": 12, "x": x, "y": y},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "targets": [{"refId": "A", "datasource": DATASOURCE, "expr": expr, "legendFormat": legend}],
    }


def panel_queries(labels: StoredLabels | None = None) -> list[tuple[str, str, str, str]]:
    """(title, PromQL, legend, unit) of every panel, in order, reading ``labels`` (default: the GPU operator
    exporter's, as the managed agent stores them). Utilisation: ``GPU_UTIL`` of whole and shared GPUs, the engine
    activity of MIG instances; GPU counts: distinct physical GPUs (node, ``UUID``) or MIG instances."""
    lb = labels or labels_of()
    node, gpu, ns, pod, inst = lb.node, lb.gpu, lb.namespace, lb.pod, lb.mig_instance
    pool = ksm_label(POOL_NODE_LABEL)
    used, free = exported_metric(FB_USED), exported_metric(FB_FREE)
    util = f"({whole_gpu_util(lb)}) or ({mig_util(lb)})"
    held = f'{used}{{{pod}!=""}}'
    per_gpu = f"{{{{{node}}}}} GPU {{{{{gpu}}}}} {{{{{inst}}}}}"
    pools = f"max by ({NODE}, {pool}) ({FACTS.node_labels_metric})"

    def gpus_per_pool(series: str) -> str:
        gpus = distinct_gpus(with_node(series, lb), lb, instances=True)
        return f"count by ({pool}) ({gpus} * on ({NODE}) group_left ({pool}) {pools})"

    device = f'{lb.mig_profile}=""'
    return [
        ("GPU utilisation per GPU / MIG instance", util, per_gpu, "percent"),
        ("GPU utilisation per pool", f"avg by ({pool}) ({by_pool(util, lb)})", f"{{{{{pool}}}}}", "percent"),
        ("GPU memory used", f"100 * {used} / ({used} + {free})", per_gpu, "percent"),
        ("GPU power draw", f"sum by ({node}) ({exported_metric(POWER)}{{{device}}})", f"{{{{{node}}}}}", "watt"),
        ("GPU temperature", f"max by ({node}) ({exported_metric(TEMP)}{{{device}}})", f"{{{{{node}}}}}", "celsius"),
        (
            "GPUs / MIG instances allocated per namespace",
            f"count by ({ns}) (count by ({NODE}, {lb.uuid}, {inst}, {ns}) ({with_node(held, lb)}))",
            f"{{{{{ns}}}}}",
            "short",
        ),
        (
            "GPUs / MIG instances allocated / total per pool",
            f"{gpus_per_pool(held)} / {gpus_per_pool(used)}",
            f"{{{{{pool}}}}}",
            "percentunit",
        ),
        ("XID errors (last code)", f"max by ({node}) ({exported_metric(XID)}{{{device}}})", f"{{{{{node}}}}}", "short"),
    ]


def dashboard(labels: StoredLabels | None = None) -> dict[str, Any]:
    """The dashboard document (Grafana's JSON model, importable through the UI or the HTTP API)."""
    queries = panel_queries(labels)
    panels = [_panel(i + 1, query, 12 * (i % 2), 8 * (i // 2)) for i, query in enumerate(queries)]
    return {
        "uid": UID,
        "title": "GPU utilisation (azure-gpu-platform)",
        "tags": ["gpu", "dcgm", "azure-gpu-platform"],
        "timezone": "utc",
        "schemaVersion": 39,
        "refresh": "1m",
        "time": {"from": "now-6h", "to": "now"},
        "templating": {
            "list": [{"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"}]
        },
        "panels": panels,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m exports.gpu_dashboard", description="Write the GPU dashboard as Grafana JSON."
    )
    parser.add_argument("--out", type=Path, help="write to this file instead of stdout")
    parser.add_argument(
        "--exporter",
        choices=("operator", "chart"),
        default="operator",
        help="whose label names to read: the GPU operator's DCGM exporter (default) or the dcgm-exporter chart's",
    )
    args = parser.parse_args(argv)
    exporter = FACTS.operator if args.exporter == "operator" else FACTS.chart.exporter
    text = json.dumps(dashboard(labels_of(exporter)), indent=2) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
