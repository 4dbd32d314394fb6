"""Cost of a Karpenter GPU NodePool (node auto-provisioning): from $0 at the minimum to its GPU limit at the maximum.

A dynamic NodePool has no nodes until a pod needs one, so its minimum is 0 nodes. Its maximum is bounded by
``spec.limits["nvidia.com/gpu"]``: the estimate fills that many GPUs with the most expensive way any allowed, priced
size can (for each size, ``ceil(limit / GPUs per VM)`` nodes × its hourly price; the largest product wins), so the
maximum is an upper bound whichever sizes Karpenter picks. The line names that size and node count. A static NodePool
(``spec.replicas``) costs ``replicas`` nodes of its most expensive allowed size at both ends. Without a GPU limit (or
with a value unknown during the preview) the line is unpriced, with the reason (``gpu-nodepool-limits`` reports the
missing limit).

Only a NodePool that explicitly admits GPUs (``rules.karpenter.GpuScope.EXPLICIT``) is priced as GPU capacity. One that
excludes GPUs has no line (like any CPU pool); one that does not constrain GPUs is priced as CPU capacity: a $0 line
(this estimate prices GPU VMs only) whose note says that Karpenter could still create GPU nodes for it and how many
GPU sizes it could launch (``gpu-nodepool-constrains-gpus`` reports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_catalog import Catalog
from preflight.cost_line import CostLine
from preflight.model import RecordedResource
from preflight.wire import UNKNOWN, is_unknown
from rules.karpenter import (
    GPU_RESOURCE,
    GpuScope,
    gpu_scope,
    launchable_sizes,
    limit_cost,
    nodepool_sizes,
    parse_quantity,
    read_requirements,
)
from rules.node_stack import DEVICE_PLUGIN_CONFIG_LABEL

CPU_CAPACITY = "(CPU capacity)"
"""The size column of an unconstrained NodePool's line: it is priced as CPU capacity, which this estimate leaves out."""


def nodepool_cost_lines(r: RecordedResource, props: Mapping[str, Any], catalog: Catalog) -> list[CostLine]:
    """The cost line of one NodePool (none when it excludes GPUs; priced as CPU capacity when it does not constrain
    them)."""
    reqs, unknown = read_requirements(props, is_unknown)
    if unknown:
        return [CostLine(r.urn, r.type, "nodepool", UNKNOWN, 0, None, None, "requirements unknown during the preview")]
    sizes = nodepool_sizes(reqs, catalog)
    scope = gpu_scope(reqs, catalog)
    if scope is GpuScope.EXCLUDED:
        return []
    if scope is GpuScope.UNCONSTRAINED:
        note = (
            "no requirement on GPUs: priced as CPU capacity, which this GPU estimate leaves out; a pod that requests "
            f"{GPU_RESOURCE} could still make Karpenter create any of the {len(launchable_sizes(sizes))} GPU sizes it "
            "can launch (gpu-nodepool-constrains-gpus)"
        )
        return [CostLine(r.urn, r.type, "nodepool (GPUs unconstrained)", CPU_CAPACITY, 0, 0, 0.0, note)]
    names = sizes.all_sizes()
    spec = props.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    replicas = spec.get("replicas")
    if isinstance(replicas, int | float) and not isinstance(replicas, bool):
        worst = max(
            (catalog[n] for n in names if n in catalog and catalog[n].price_usd_per_hour),
            default=None,
            key=lambda s: s.price_usd_per_hour or 0.0,
        )
        if worst is None:
            return [CostLine(r.urn, r.type, "nodepool", names[0], None, None, None, "no allowed size is priced")]
        n = int(replicas)
        return [CostLine(r.urn, r.type, "nodepool (static)", worst.name, n, n, worst.price_usd_per_hour)]
    limits = spec.get("limits")
    raw_limit = limits.get(GPU_RESOURCE) if isinstance(limits, Mapping) else None
    if raw_limit == UNKNOWN:
        return [CostLine(r.urn, r.type, "nodepool", names[0], 0, None, None, "GPU limit unknown during the preview")]
    gpus = parse_quantity(raw_limit)
    if gpus is None:
        return [
            CostLine(r.urn, r.type, "nodepool", names[0], 0, None, None, f"no spec.limits[{GPU_RESOURCE!r}]: unbounded")
        ]
    worst_fill = limit_cost(names, gpus, catalog)
    if worst_fill is None:
        return [CostLine(r.urn, r.type, "nodepool", names[0], 0, None, None, "no allowed size is priced")]
    notes: list[str] = []
    unpriced = [n for n in names if n not in catalog or catalog[n].price_usd_per_hour is None]
    if unpriced:
        notes.append(f"maximum leaves out allowed sizes without a price: {', '.join(unpriced)}")
    template = spec.get("template")
    labels = template.get("metadata", {}).get("labels") if isinstance(template, Mapping) else None
    if isinstance(labels, Mapping) and DEVICE_PLUGIN_CONFIG_LABEL in labels:
        notes.append(
            "GPUs shared by time-slicing/MPS: Karpenter sizes new nodes by physical GPUs and counts a running node's "
            "replicas (kubernetes-sigs/karpenter #729), so the maximum is a burst of new nodes, one GPU per pending pod"
        )
    note = "; ".join(notes) or None
    return [
        CostLine(
            r.urn,
            r.type,
            f"nodepool (0..{gpus:g} {GPU_RESOURCE})",
            worst_fill.size,
            0,
            worst_fill.nodes,
            worst_fill.usd_per_node_hour,
            note,
        )
    ]
