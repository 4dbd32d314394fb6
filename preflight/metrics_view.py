"""Which DCGM exporter serves each GPU pool, read from the recorded resources (the preflight's node-stack view).

The stack config already refuses a pool with no or two exporters (:func:`rules.node_stack.metrics_exporter_findings`);
this view shows, for a program with GPU monitoring (an ``azmonitoring.coreos.com`` ServiceMonitor), what the resources
deploy: the GPU operator's exporter (its Helm release with ``dcgmExporter.enabled``) on every pool it manages, the
``dcgm-exporter`` chart on the pools its node affinity names. Works on any program's resources; no Pulumi import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpu_catalog.monitoring import load_monitoring_facts
from preflight.model import RecordedResource
from rules.monitoring import POOL_NODE_LABEL
from rules.node_stack import DCGM_CHART, DCGM_OPERATOR

RELEASE = "kubernetes:helm.sh/v3:Release"
SERVICE_MONITOR = f"kubernetes:{load_monitoring_facts().scrape_crd_group}:ServiceMonitor"


def _affinity_pools(values: Mapping[str, Any]) -> set[str]:
    required = (
        values.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", {})
    )
    pools: set[str] = set()
    for term in required.get("nodeSelectorTerms", []) if isinstance(required, Mapping) else []:
        for expr in term.get("matchExpressions", []):
            if expr.get("key") == POOL_NODE_LABEL and expr.get("operator") == "In":
                pools.update(str(v) for v in expr.get("values", []))
    return pools


def pool_exporters(resources: Iterable[RecordedResource], pools: Iterable[str]) -> dict[str, list[str]]:
    """Pool name → the DCGM exporters that serve it; empty when the program has no GPU monitoring."""
    resources = list(resources)
    if not any(r.type == SERVICE_MONITOR for r in resources):
        return {}
    operator = False
    chart_pools: set[str] = set()
    for r in resources:
        if r.type != RELEASE:
            continue
        values = r.inputs.get("values")
        if not isinstance(values, Mapping):
            continue
        if r.inputs.get("chart") == "gpu-operator":
            operator = operator or bool(values.get("dcgmExporter", {}).get("enabled", True))
        elif r.inputs.get("chart") == DCGM_CHART:
            chart_pools |= _affinity_pools(values)
    out: dict[str, list[str]] = {}
    for pool in pools:
        found = ([DCGM_OPERATOR] if operator else []) + ([DCGM_CHART] if pool in chart_pools else [])
        out[pool] = found
    return out


def exporter_text(found: list[str]) -> str:
    if not found:
        return "none (no GPU metrics)"
    if len(found) > 1:
        return " + ".join(found) + " (two exporters: each GPU counted twice)"
    return found[0]
