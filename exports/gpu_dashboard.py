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

from gpu_catalog.monitoring import load_monitoring_facts
from rules.monitoring import (
    FB_FREE,
    FB_USED,
    POOL_NODE_LABEL,
    POWER,
    TEMP,
    UTIL,
    XID,
    by_pool,
    exported_metric,
    ksm_label,
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


def panel_queries() -> list[tuple[str, str, str, str]]:
    """(title, PromQL, legend, unit) of every panel, in order."""
    node, gpu, ns = FACTS.labels["node"], FACTS.labels["gpu"], FACTS.labels["namespace"]
    pod = FACTS.labels["pod"]
    pool = ksm_label(POOL_NODE_LABEL)
    util, used, free = exported_metric(UTIL), exported_metric(FB_USED), exported_metric(FB_FREE)
    allocated = f'{util}{{{pod}!=""}}'
    return [
        ("GPU utilisation per GPU", f"{util}", f"{{{{{node}}}}} GPU {{{{{gpu}}}}}", "percent"),
        ("GPU utilisation per pool", f"avg by ({pool}) ({by_pool(util)})", f"{{{{{pool}}}}}", "percent"),
        ("GPU memory used", f"100 * {used} / ({used} + {free})", f"{{{{{node}}}}} GPU {{{{{gpu}}}}}", "percent"),
        ("GPU power draw", f"sum by ({node}) ({exported_metric(POWER)})", f"{{{{{node}}}}}", "watt"),
        ("GPU temperature", f"max by ({node}) ({exported_metric(TEMP)})", f"{{{{{node}}}}}", "celsius"),
        ("GPUs allocated per namespace", f"count by ({ns}) ({allocated})", f"{{{{{ns}}}}}", "short"),
        (
            "GPUs allocated / total per pool",
            f"count by ({pool}) ({by_pool(allocated)}) / count by ({pool}) ({by_pool(util)})",
            f"{{{{{pool}}}}}",
            "percentunit",
        ),
        ("XID errors (last code)", f"max by ({node}) ({exported_metric(XID)})", f"{{{{{node}}}}}", "short"),
    ]


def dashboard() -> dict[str, Any]:
    """The dashboard document (Grafana's JSON model, importable through the UI or the HTTP API)."""
    panels = [_panel(i + 1, query, 12 * (i % 2), 8 * (i // 2)) for i, query in enumerate(panel_queries())]
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
    args = parser.parse_args(argv)
    text = json.dumps(dashboard(), indent=2) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
