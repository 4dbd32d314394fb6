"""Indicative GPU cost of a program's resources, from the GPU catalog, and the stack's optional monthly budget.

Every GPU size wherever it appears is priced at the minimum and the maximum node count the resource allows:

- ``azure-native:containerservice:AgentPool``: ``count``; with ``enableAutoScaling`` ``minCount``..``maxCount``;
- ``azure-native:containerservice:ManagedCluster``: each entry of ``agentPoolProfiles``, the same way;
- ``databricks:index/cluster:Cluster``: workers (``nodeTypeId``: ``numWorkers`` or ``autoscale.minWorkers``..
  ``maxWorkers``) and the driver (``driverNodeTypeId``, else ``nodeTypeId``: one node);
- ``databricks:index/instancePool:InstancePool``: ``nodeTypeId``, ``minIdleInstances``..``maxCapacity``;
- ``kubernetes:kaito.sh/v1beta1:Workspace``: ``resource.instanceType`` × ``resource.count`` (default 1);
- ``kubernetes:karpenter.sh/v1:NodePool``: 0 nodes at the minimum, the GPU limit filled with the most expensive allowed
  size at the maximum (``preflight/nap_cost.py``);
- an AKS pool of type ``VirtualMachines`` (standalone or inline): each ``virtualMachinesProfile.scale.manual[]``
  entry, ``size`` × ``count``;
- every other type of the size table (``gpu_catalog/facts/vm_size_fields.json``, its ``nodes`` entry): a VM as one
  node, a scale set at its capacity (``sku.capacity``; classic ``instances``), an Azure ML cluster from
  ``scaleSettings.minNodeCount`` (default 0) to ``maxNodeCount`` (a compute instance: one node), a Batch pool at its
  fixed-scale target (``targetDedicatedNodes`` + ``targetLowPriorityNodes``; with an autoscale formula the count is
  decided at run time, so the line is unpriced), classic AKS pools at ``nodeCount`` or ``minCount``..``maxCount``.
  A count the inputs do not give is listed unpriced with a note, never guessed.

Every AKS GPU pool (standalone or inline, not a ``VirtualMachines`` pool's manual scale) also gets an upgrade-surge
line, role ``<pool>.upgradeSurge``: 0 to the nodes an upgrade adds at its maximum (:func:`rules.network.surge_nodes`,
the count the quota demand and the stack's subnet and ``gpuQuota`` checks use: ``upgradeSettings.maxSurge``, else
AKS's default). Those nodes exist only while an upgrade runs: the line is priced per hour, has no monthly figure, and
the steady-state totals and the budget leave it out (``upgradeSurge`` in the JSON states it apart).

Prices are the catalog's indicative third-party figures (USD per VM hour; VM only: no disks, network, Databricks
DBUs or support). A month is 730 hours. A GPU size without a price (or unknown in the catalog, or unknown during
the preview) is listed with ``None`` and a note, and left out of the totals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from gpu_catalog import Catalog, default_catalog, is_gpu_size
from gpu_catalog.kaito_presets import KAITO_DEFAULT_COUNT
from gpu_catalog.problems import Problem, key_path
from preflight.cost_line import CostLine
from preflight.model import RecordedResource
from preflight.nap_cost import nodepool_cost_lines
from preflight.wire import UNKNOWN, is_unknown, unwrap_secrets
from rules.budget import budget_shape
from rules.idle import HOURS_PER_MONTH
from rules.network import SURGE_RE, surge_nodes
from rules.resource_types import (
    is_databricks_cluster,
    is_databricks_instance_pool,
    is_kaito_workspace,
    is_karpenter_node_pool,
)
from rules.size_fields import SizeResource, condition_holds, find_values, size_table
from rules.wire_pools import aks_pools

CURRENCY = "USD"
BUDGET_POLICY = "gpu-budget"
BUDGET_PACK = "azure-gpu-platform-preflight"
"""Budget violations come from the preflight itself (the pack cannot see prices across the whole stack)."""
BUDGET_DESCRIPTION = (
    "The indicative monthly GPU cost at maximum node counts stays within the stack's budget "
    "(`<project>:budget.monthlyUsd`)."
)


class BudgetConfigError(ValueError):
    """The stack's budget is malformed; the message names the stack file and the key path."""

    def __init__(self, message: str, problems: list[Problem] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


@dataclass(frozen=True)
class CostEstimate:
    lines: list[CostLine]
    hours_per_month: int = HOURS_PER_MONTH
    currency: str = CURRENCY
    indicative: bool = True

    @property
    def priced_lines(self) -> list[CostLine]:
        return [line for line in self.lines if line.priced]

    @property
    def unpriced_lines(self) -> list[CostLine]:
        return [line for line in self.lines if not line.priced]

    @property
    def steady_lines(self) -> list[CostLine]:
        """The priced lines of the running resources: every priced line but the upgrade surges."""
        return [line for line in self.priced_lines if not is_surge(line)]

    @property
    def surge_lines(self) -> list[CostLine]:
        """The priced upgrade-surge lines (GPU nodes that exist only while an upgrade runs)."""
        return [line for line in self.priced_lines if is_surge(line)]

    @property
    def hourly_min(self) -> float:
        """Steady state (the upgrade surges are apart: :attr:`surge_hourly_max`)."""
        return sum((line.hourly_min or 0.0) for line in self.steady_lines)

    @property
    def hourly_max(self) -> float:
        """Steady state at maximum node counts (the upgrade surges are apart: :attr:`surge_hourly_max`)."""
        return sum((line.hourly_max or 0.0) for line in self.steady_lines)

    @property
    def surge_hourly_max(self) -> float:
        """What every pool's upgrade surge adds per hour while the upgrades run (all at once: the worst case)."""
        return sum((line.hourly_max or 0.0) for line in self.surge_lines)

    @property
    def monthly_min(self) -> float:
        return self.hourly_min * self.hours_per_month

    @property
    def monthly_max(self) -> float:
        return self.hourly_max * self.hours_per_month

    def to_json(self) -> dict[str, Any]:
        """The report's ``cost`` object (the issue's shape, plus ``unpriced`` and per-line detail)."""
        return {
            "currency": self.currency,
            "indicative": self.indicative,
            "hoursPerMonth": self.hours_per_month,
            "hourlyMin": round(self.hourly_min, 4),
            "hourlyMax": round(self.hourly_max, 4),
            "monthlyMin": round(self.monthly_min, 2),
            "monthlyMax": round(self.monthly_max, 2),
            "upgradeSurge": {
                "hourlyMax": round(self.surge_hourly_max, 4),
                "nodesMax": sum(line.nodes_max or 0 for line in self.surge_lines),
                "note": SURGE_TOTAL_NOTE,
            },
            "byResource": [
                {
                    "urn": line.urn,
                    "type": line.resource_type,
                    "role": line.role,
                    "vmSize": line.vm_size,
                    "nodesMin": line.nodes_min,
                    "nodesMax": line.nodes_max,
                    "usdPerNodeHour": line.usd_per_node_hour,
                    "hourlyMin": _round(line.hourly_min, 4),
                    "hourlyMax": _round(line.hourly_max, 4),
                    "monthlyMin": _round(self.line_monthly(line, line.hourly_min), 2),
                    "monthlyMax": _round(self.line_monthly(line, line.hourly_max), 2),
                    "priced": line.priced,
                    "note": line.note,
                }
                for line in self.lines
            ],
            "unpriced": sorted({line.vm_size for line in self.unpriced_lines}),
        }

    def line_monthly(self, line: CostLine, hourly: float | None) -> float | None:
        """A line's month at ``hourly`` (its minimum or maximum); ``None`` for an upgrade surge, which runs only while
        an upgrade does (its cost is per hour of upgrade: :attr:`surge_hourly_max`)."""
        return None if is_surge(line) else _times(hourly, self.hours_per_month)


def is_surge(line: CostLine) -> bool:
    """Whether the line prices the nodes an upgrade adds (role ``….upgradeSurge``)."""
    return line.role.endswith(SURGE_ROLE)


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _times(value: float | None, factor: int) -> float | None:
    return None if value is None else value * factor


# --------------------------------------------------------------------------------------------------------------------
# Reading node counts from inputs


def _count(value: Any) -> int | None:
    """A node count from the wire (floats); ``None`` when unknown during the preview or not a number."""
    if isinstance(value, bool) or value is None or value == UNKNOWN:
        return None
    if isinstance(value, int | float):
        return max(int(value), 0)
    return None


UNKNOWN_NODES: Final = "node count unknown during the preview"
NOT_SET: Final = "node count not set in the inputs"


def _known(lo: Any, hi: Any) -> tuple[int | None, int | None, str | None]:
    """(min, max) from two wire values that the inputs must give, and why not when they do not."""
    if is_unknown(lo) or is_unknown(hi):
        return None, None, UNKNOWN_NODES
    a, b = _count(lo), _count(hi)
    return a, b, None if a is not None and b is not None else NOT_SET


@dataclass(frozen=True, slots=True)
class PoolKeys:
    """The inputs that give an AKS pool's node count (azure-native and the classic provider name them differently).
    Both take the autoscaling bounds from ``minCount`` and ``maxCount``."""

    count: str
    """The fixed node count."""
    autoscale: str
    """The flag that turns autoscaling on."""
    default: int | None = None
    """The count when ``count`` is absent (azure-native: the API's default, 1; an absent bound is then the count
    too, and a count that is not a number is unknown during the preview); ``None``: the inputs must give every
    count the pool uses, else the line says it is not set."""


AKS_POOL: Final = PoolKeys(count="count", autoscale="enableAutoScaling", default=1)
"""azure-native AgentPool and ManagedCluster.agentPoolProfiles[] (``nodes.aksPool`` in the size table)."""
CLASSIC_POOL: Final = PoolKeys(count="nodeCount", autoscale="autoScalingEnabled")
"""The classic provider's KubernetesCluster.defaultNodePool and KubernetesClusterNodePool (``nodes.classicPool``)."""


def _pool_nodes(pool: Mapping[str, Any], keys: PoolKeys) -> tuple[int | None, int | None, str | None]:
    """(min, max) nodes of an AKS pool, and why not when the inputs do not say: with autoscaling
    ``minCount``..``maxCount``, else the fixed count (see :class:`PoolKeys`)."""
    count = pool.get(keys.count, keys.default)
    if pool.get(keys.autoscale) is True:
        bound = count if keys.default is not None else None
        lo, hi = pool.get("minCount", bound), pool.get("maxCount", bound)
    else:
        lo = hi = count
    if keys.default is None:
        return _known(lo, hi)
    a, b = _count(lo), _count(hi)
    return a, b, None if a is not None and b is not None else UNKNOWN_NODES


def _size_of(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# --------------------------------------------------------------------------------------------------------------------
# Estimate


def _line(
    catalog: Catalog,
    r: RecordedResource,
    role: str,
    size: str,
    nodes: tuple[int | None, int | None],
    *,
    why: str | None = None,
) -> CostLine | None:
    """The line of one GPU size (``None`` for a size that is not a GPU size); ``why`` says why a node count is
    missing (default: :data:`UNKNOWN_NODES`)."""
    if size == UNKNOWN:
        return CostLine(r.urn, r.type, role, size, nodes[0], nodes[1], None, "VM size unknown during the preview")
    if not is_gpu_size(size, catalog):
        return None
    entry = catalog.lookup(size)
    lo, hi = nodes
    note: str | None = None
    price: float | None = None
    if entry is None:
        note = "not in the GPU catalog: no price"
    elif entry.price_usd_per_hour is None:
        note = "no indicative price in the catalog"
    else:
        price = entry.price_usd_per_hour
    if lo is None or hi is None:
        note = (note + "; " if note else "") + (why or UNKNOWN_NODES)
    name = entry.name if entry is not None else size
    return CostLine(r.urn, r.type, role, name, lo, hi, price, note)


def cost_lines(resource: RecordedResource, catalog: Catalog | None = None) -> list[CostLine]:
    """The GPU cost lines of one resource (empty when it uses no GPU size)."""
    cat = catalog or default_catalog()
    props = unwrap_secrets(resource.inputs)
    lines: list[CostLine | None] = []
    if is_databricks_cluster(resource.type):
        worker = _size_of(props.get("nodeTypeId"))
        driver = _size_of(props.get("driverNodeTypeId")) or worker
        autoscale = props.get("autoscale")
        if isinstance(autoscale, Mapping):
            workers = (_count(autoscale.get("minWorkers", 0)), _count(autoscale.get("maxWorkers", 0)))
        else:
            n = _count(props.get("numWorkers", 0))
            workers = (n, n)
        if worker and workers[1] != 0:
            lines.append(_line(cat, resource, "workers", worker, workers))
        if driver:
            lines.append(_line(cat, resource, "driver", driver, (1, 1)))
    elif is_databricks_instance_pool(resource.type):
        size = _size_of(props.get("nodeTypeId"))
        if size:
            lo = _count(props.get("minIdleInstances", 0))
            hi = _count(props["maxCapacity"]) if "maxCapacity" in props else lo
            lines.append(_line(cat, resource, "pool", size, (lo, hi)))
    elif is_kaito_workspace(resource.type):
        spec = props.get("resource")
        if isinstance(spec, Mapping):
            size = _size_of(spec.get("instanceType"))
            n = _count(spec.get("count", KAITO_DEFAULT_COUNT))
            if size:
                lines.append(_line(cat, resource, "workspace", size, (n, n)))
    elif is_karpenter_node_pool(resource.type):
        lines.extend(nodepool_cost_lines(resource, props, cat))
    else:
        entry = size_table().for_type(resource.type)
        if entry is not None:
            lines.extend(_table_lines(cat, resource, props, entry))
    return [_annotated(resource, props, line) for line in lines if line is not None]


SPOT_NOTE = (
    "spot: priced at on-demand rates, an upper bound (spot prices vary by region and hour; the catalog has no "
    "documented spot price)"
)
"""What a spot line's price means: the catalog's indicative on-demand price (``gpu_catalog/catalog.json``)."""


def _spot(resource: RecordedResource, props: Mapping[str, Any]) -> bool:
    """Whether the resource asks for spot capacity: an AKS pool's ``scaleSetPriority: Spot``, a Karpenter NodePool
    that allows the ``spot`` capacity type, a Databricks cluster's ``azureAttributes.availability`` ``SPOT_*``."""
    if str(props.get("scaleSetPriority", "")).lower() == "spot":
        return True
    if is_karpenter_node_pool(resource.type):
        spec = props.get("spec")
        template = spec.get("template") if isinstance(spec, Mapping) else None
        inner = template.get("spec") if isinstance(template, Mapping) else None
        requirements = inner.get("requirements") if isinstance(inner, Mapping) else None
        for req in requirements if isinstance(requirements, list) else []:
            if isinstance(req, Mapping) and req.get("key") == "karpenter.sh/capacity-type":
                values = req.get("values")
                return isinstance(values, list) and "spot" in values and req.get("operator", "In") == "In"
        return False
    attributes = props.get("azureAttributes")
    return isinstance(attributes, Mapping) and str(attributes.get("availability", "")).upper().startswith("SPOT")


def _knob(resource: RecordedResource, props: Mapping[str, Any], line: CostLine) -> str | None:
    """The property that bounds the line's node count (see :attr:`CostLine.knob`)."""
    if is_karpenter_node_pool(resource.type):
        return "limits (nvidia.com/gpu; a stack file's gpuNodePools[].limits.gpus)"
    if is_databricks_cluster(resource.type):
        if line.role != "workers":
            return None
        return "autoscale.maxWorkers" if isinstance(props.get("autoscale"), Mapping) else "numWorkers"
    if is_kaito_workspace(resource.type):
        return "resource.count (a stack file's kaito.workspaces[].count)"
    if line.role.endswith(SURGE_ROLE):
        return "upgradeSettings.maxSurge"
    if line.role == "pool" and resource.type.endswith(":AgentPool"):
        return "maxCount" if props.get("enableAutoScaling") else "count"
    return None


def _annotated(resource: RecordedResource, props: Mapping[str, Any], line: CostLine) -> CostLine:
    note = line.note
    if line.priced and _spot(resource, props):
        note = SPOT_NOTE if note is None else f"{note}; {SPOT_NOTE}"
    return replace(line, note=note, knob=_knob(resource, props, line))


_STEP = re.compile(r"^(?P<key>[^\[\]]+)(?:\[(?P<index>\d+)\])?$")


def _at(props: Any, path: str) -> Any:
    """The value at a concrete path (``workerProfiles[1].count``); ``None`` when absent."""
    value = props
    for step in path.split("."):
        m = _STEP.match(step)
        if m is None or not isinstance(value, Mapping):
            return None
        value = value.get(m.group("key"))
        if m.group("index") is not None:
            i = int(m.group("index"))
            value = value[i] if isinstance(value, list) and i < len(value) else None
        if value is None:
            return None
    return value


def _holds(props: Mapping[str, Any], conditions: Iterable[tuple[str, Any]]) -> bool:
    return all(
        any(condition_holds(v, tuple(allowed)) for _, v in find_values(props, cond, is_unknown))
        for cond, allowed in conditions
    )


def _table_nodes(
    props: Mapping[str, Any], nodes: Mapping[str, Any], size_path: str
) -> tuple[int | None, int | None, str | None]:
    """(min, max) nodes of one size field from the table's ``nodes`` entry (module docstring), and why not when the
    inputs do not say."""
    if "unpriced" in nodes:
        return None, None, str(nodes["unpriced"])
    if "fixed" in nodes:
        return _known(nodes["fixed"], nodes["fixed"])
    if _holds(props, (nodes.get("single") or {}).items()) and nodes.get("single"):
        return 1, 1, None
    if "count" in nodes:
        n = _at(props, nodes["count"])
        return _known(n, n)
    if "min" in nodes:
        lo = _at(props, nodes["min"])
        return _known(lo if lo is not None else nodes.get("minDefault"), _at(props, nodes["max"]))
    if "sibling" in nodes:
        parent = size_path.rsplit(".", 1)[0] if "." in size_path else ""
        n = _at(props, f"{parent}.{nodes['sibling']}" if parent else nodes["sibling"])
        return _known(n, n)
    if "sum" in nodes:
        if _at(props, nodes["formula"]) is not None:
            return None, None, "autoscale formula: the node count is decided at run time"
        values = [_at(props, p) for p in nodes["sum"]]
        if any(is_unknown(v) for v in values):
            return None, None, UNKNOWN_NODES
        if all(v is None for v in values):
            return None, None, NOT_SET
        total = sum(_count(v) or 0 for v in values)
        return total, total, None
    if "classicPool" in nodes:
        pool = _at(props, nodes["classicPool"]) if nodes["classicPool"] else props
        if not isinstance(pool, Mapping):
            return None, None, NOT_SET
        return _pool_nodes(pool, CLASSIC_POOL)
    return None, None, "node count not modelled for this type"


def _table_lines(
    cat: Catalog, r: RecordedResource, props: Mapping[str, Any], entry: SizeResource
) -> list[CostLine | None]:
    """The cost lines of a type priced from the size table alone."""
    if "aksPool" in entry.nodes:
        return _aks_pool_lines(cat, r, props, entry)
    out: list[CostLine | None] = []
    for spec in entry.sizes:
        if not _holds(props, spec.when):
            continue
        for path, value in find_values(props, spec.path, is_unknown):
            size = value if is_unknown(value) else _size_of(value)
            if size is None or not path.endswith(spec.path.rsplit(".", 1)[-1]):
                continue
            lo, hi, why = _table_nodes(props, entry.nodes, path)
            out.append(_line(cat, r, path, size, (lo, hi), why=why))
    return out


def _pools(resource_type: str, props: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(label, pool) of every AKS pool of an AgentPool or ManagedCluster, read by the one reader of AKS pools
    (:func:`rules.wire_pools.aks_pools`): the AgentPool itself is labelled ``""``, each ``agentPoolProfiles[]`` entry
    ``agentPoolProfiles[<name>]`` (or by its index when it has no name)."""
    for pool in aks_pools(resource_type, props, is_unknown=is_unknown).pools:
        name = pool.name
        if pool.standalone or not isinstance(name, str):
            yield pool.prefix, pool.data
        else:
            yield pool.prefix[: pool.prefix.rindex("[")] + f"[{name}]", pool.data


def _aks_pool_lines(
    cat: Catalog, r: RecordedResource, props: Mapping[str, Any], entry: SizeResource
) -> list[CostLine | None]:
    """An azure-native AKS pool, pool by pool: the pool's own size (``vmSize``) at its node count (role ``pool``
    or the profile's label), then each size in a list (a VirtualMachines pool's ``virtualMachinesProfile.scale.
    manual[]``) at its entry's ``count`` (role: the entry's path)."""
    where = str(entry.nodes["aksPool"])
    out: list[CostLine | None] = []
    for label, pool in _pools(r.type, props):
        for spec in entry.sizes:
            if not _holds(props, spec.when):
                continue
            rel = spec.path.removeprefix(f"{where}.") if where else spec.path
            leaf = rel.rsplit(".", 1)[-1]
            for path, value in find_values(pool, rel, is_unknown):
                size = _size_of(value)
                if size is None or not (path == leaf or path.endswith(f".{leaf}")):
                    continue
                if "[]" in rel:
                    at = path.rsplit(".", 1)[0]
                    n = _count(_at(pool, f"{at}.count"))
                    out.append(_line(cat, r, f"{label}.{at}" if label else at, size, (n, n)))
                else:
                    lo, hi, why = _pool_nodes(pool, AKS_POOL)
                    out.append(_line(cat, r, label or "pool", size, (lo, hi), why=why))
                    out.append(_surge_line(cat, r, label or "pool", size, pool=pool, nodes=hi))
    return out


SURGE_ROLE: Final = ".upgradeSurge"
"""How the role of a pool's upgrade-surge line ends (``agentPoolProfiles[<name>].upgradeSurge``)."""
SURGE_NOTE: Final = (
    "upgrade surge (upgradeSettings.maxSurge, AKS's 10% when unset): GPU nodes only while an upgrade runs, on the "
    "same quota; not in the monthly totals"
)
SURGE_TOTAL_NOTE: Final = (
    "the GPU nodes every pool's upgrade surge adds, per hour while the upgrades run: apart from the steady-state "
    "totals and the budget, counted in the quota demand"
)


def _surge_line(
    cat: Catalog, r: RecordedResource, role: str, size: str, *, pool: Mapping[str, Any], nodes: int | None
) -> CostLine | None:
    """The nodes an upgrade adds to a GPU pool at its maximum (0..surge, :func:`rules.network.surge_nodes`: the
    stated ``upgradeSettings.maxSurge``, else AKS's default), priced per hour: the same count the quota demand and the
    stack's subnet and ``gpuQuota`` checks use. None when the count is not known (unknown during the preview, or a
    ``maxSurge`` that is not a count or a percentage: the policies refuse it)."""
    settings = pool.get("upgradeSettings")
    surge = settings.get("maxSurge") if isinstance(settings, Mapping) else None
    if nodes is None or (surge is not None and not (isinstance(surge, str) and SURGE_RE.match(surge))):
        return None
    if size == UNKNOWN or cat.lookup(size) is None:
        return None  # the pool's own line says the size is not known; nothing to count twice
    extra = surge_nodes(surge, nodes)
    line = _line(cat, r, f"{role}{SURGE_ROLE}", size, (0, extra)) if extra > 0 else None
    return replace(line, note=SURGE_NOTE if line.note is None else f"{line.note}; {SURGE_NOTE}") if line else None


def surge_total_text(estimate: CostEstimate) -> str:
    """The report's sentence under the cost table: what the upgrade surges add, and only while upgrades run."""
    nodes = sum(line.nodes_max or 0 for line in estimate.surge_lines)
    return (
        f"Upgrade surge: up to {nodes} GPU node{'s' if nodes != 1 else ''} more, "
        f"${estimate.surge_hourly_max:,.2f}/hour while upgrades run (not in the monthly totals or the budget; "
        "counted in the quota demand)"
    )


def estimate_cost(resources: Iterable[RecordedResource], catalog: Catalog | None = None) -> CostEstimate:
    """Price every GPU size in ``resources`` at min and max node counts (indicative, USD)."""
    cat = catalog or default_catalog()
    lines: list[CostLine] = []
    for r in resources:
        lines.extend(cost_lines(r, cat))
    return CostEstimate(lines=lines)


# --------------------------------------------------------------------------------------------------------------------
# Budget


@dataclass(frozen=True)
class Budget:
    monthly_usd: float
    enforcement_level: str = "advisory"
    source: str = field(default="", compare=False)
    """Where it was read: ``<stack file>: <project>:budget``."""


def budget_problems(value: Any, key: str = "budget") -> list[Problem]:
    """Every problem of a ``budget`` value (:func:`rules.budget.budget_shape`), each on its key path under ``key``;
    empty when the value is fine or absent."""
    return [Problem(key_path([key, f.field]) if f.field else key, f.message) for f in budget_shape(value)]


def parse_budget(value: Any, *, where: str) -> Budget | None:
    """Validate the stack's ``budget`` value (see :func:`budget_problems`).

    ``where`` names the file and the key (``stacks/Pulumi.dev.yaml: azure-gpu-platform:budget``); every error names it
    with the bad sub-key and the allowed values.
    """
    problems = budget_problems(value)
    if problems:
        lines = [f"{where}{p.path.removeprefix('budget')}: {p.message}" for p in problems]
        raise BudgetConfigError("\n".join(lines), problems)
    if value is None:
        return None
    monthly, level = value["monthlyUsd"], value.get("enforcementLevel", "advisory")
    return Budget(monthly_usd=float(monthly), enforcement_level=str(level), source=where)


@dataclass(frozen=True)
class BudgetFinding:
    """The budget verdict: over (a ``gpu-budget`` violation) or within."""

    budget: Budget
    over: bool
    message: str


def budget_fix(estimate: CostEstimate) -> str:
    """What to change when over budget: the knob of the resource whose maximum costs the most, else the generic fix."""
    steady = estimate.steady_lines
    lines = [ln for ln in steady if ln.knob is not None and (ln.hourly_max or 0) > (ln.hourly_min or 0)]
    lines = lines or [ln for ln in steady if ln.knob is not None]
    if not lines:
        return "lower the node counts or pick smaller GPU sizes, or raise the budget."
    top = max(lines, key=lambda ln: ln.hourly_max or 0.0)
    monthly = (top.hourly_max or 0.0) * estimate.hours_per_month
    name = top.urn.rsplit("::", 1)[-1] if "::" in top.urn else top.urn
    kind = top.resource_type.split(":")[-1]
    return (
        f"the largest maximum is {kind} {name} ({top.vm_size}, up to ${monthly:,.2f}/month): lower its {top.knob}, or "
        "pick a smaller GPU size, or raise the budget."
    )


def check_budget(estimate: CostEstimate, budget: Budget | None) -> BudgetFinding | None:
    """Over budget when the indicative monthly cost at maximum node counts exceeds ``monthlyUsd``."""
    if budget is None:
        return None
    unpriced = sorted({line.vm_size for line in estimate.unpriced_lines})
    caveat = (
        f" {len(unpriced)} GPU size(s) have no price and are not counted: {', '.join(unpriced)}." if unpriced else ""
    )
    at_max, at_min = estimate.monthly_max, estimate.monthly_min
    if at_max > budget.monthly_usd:
        floor_note = (
            f" Even at minimum node counts it is ${at_min:,.2f}/month."
            if at_min > budget.monthly_usd
            else f" At minimum node counts it is ${at_min:,.2f}/month."
        )
        message = (
            f"Indicative GPU cost can reach ${at_max:,.2f}/month at maximum node counts, over the budget of "
            f"${budget.monthly_usd:,.2f}/month ({budget.source}.monthlyUsd).{floor_note}{caveat} "
            f"Fix: {budget_fix(estimate)}"
        )
        return BudgetFinding(budget=budget, over=True, message=message)
    message = (
        f"Indicative GPU cost at most ${at_max:,.2f}/month, within the budget of ${budget.monthly_usd:,.2f}/month."
        f"{caveat}"
    )
    return BudgetFinding(budget=budget, over=False, message=message)
