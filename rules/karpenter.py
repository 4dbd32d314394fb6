"""Karpenter NodePools on AKS node auto-provisioning (NAP): which VM sizes a NodePool's requirements admit, resolved
through the GPU catalog, and the rules over them. No Pulumi imports.

A NodePool does not name one size: its ``spec.template.spec.requirements`` (ANDed) constrain the labels of the nodes
Karpenter may create, and Karpenter picks any VM size whose labels satisfy all of them. The labels a size carries are
derived the way karpenter-provider-azure derives them (``gpu_catalog/facts/karpenter.json``):
``karpenter.azure.com/sku-name`` (and ``node.kubernetes.io/instance-type``) is the size, ``sku-family`` the letter
after ``Standard_`` (``N`` for every GPU size), ``sku-series`` the size name without ``Standard_`` and the vCPU count
(``NCads_A100_v4``), ``sku-gpu-name`` the accelerator named in the size (``A100``; absent for ``Standard_NC6s_v3``),
``sku-gpu-manufacturer`` ``nvidia``/``amd``, ``sku-gpu-count`` the GPUs per VM.

:func:`nodepool_sizes` returns every size to check: the sizes an ``In`` list on ``sku-name`` names as written (so an
unknown name is checked too) and every catalog size all requirements admit (a ``NotIn``, a family, a GPU name, or no
size requirement at all admit many). Where a requirement's effect on a size cannot be decided (a label this module
does not model, a fractional GPU count), the size counts as admitted: fail closed.

Rules (docstrings start with the policy name): :func:`gpu_nodepool_limits`; the size rules of :mod:`rules.sizes`
apply to every admitted size. :func:`limit_cost` prices a NodePool at its GPU limit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from fractions import Fraction
from functools import cache, lru_cache
from types import MappingProxyType
from typing import Any, Final, Literal

from gpu_catalog import Catalog, GpuSize, default_catalog, is_gpu_size
from gpu_catalog.karpenter import load_karpenter_facts
from rules import Finding
from rules.size_fields import join_path
from rules.sizes import (
    AMD_NEEDS,
    DEFAULT_FLOOR,
    accepted_sizes,
    check_aks_supported,
    check_gpu_size,
    check_is_gpu_size,
    check_minimum,
    check_retired,
)

FACTS = load_karpenter_facts()
SKU_NAME = FACTS.label("skuName")
INSTANCE_TYPE = FACTS.label("instanceType")
SKU_FAMILY = FACTS.label("skuFamily")
SKU_SERIES = FACTS.label("skuSeries")
SKU_GPU_NAME = FACTS.label("skuGpuName")
SKU_GPU_MANUFACTURER = FACTS.label("skuGpuManufacturer")
SKU_GPU_COUNT = FACTS.label("skuGpuCount")
CAPACITY_TYPE = FACTS.label("capacityType")
ZONE = FACTS.label("zone")
GPU_RESOURCE = FACTS.gpu_limit_resource
"""``nvidia.com/gpu``: the extended resource NVIDIA's device plugin advertises per GPU (a GPU instance type's
capacity in karpenter-provider-azure); pods request it, agent pools and NodePools advertise it."""

DEFAULT_CAPACITY_TYPES: Final = ("on-demand",)
"""The platform's NodePool defaults (its choices, within the CRD's enums in ``gpu_catalog/facts/karpenter.json``):
on-demand nodes only; consolidation ``WhenEmpty`` after ``5m`` (idle GPU nodes go, busy ones are never repacked).
The stack config and :class:`components.nap_pool.NapGpuPoolArgs` both default to these."""
DEFAULT_CONSOLIDATION_POLICY: Final = "WhenEmpty"
DEFAULT_CONSOLIDATE_AFTER: Final = "5m"

BudgetReason = Literal["Underutilized", "Empty", "Drifted"]
"""The disruption reasons a NodePool's ``spec.disruption.budgets[].reasons`` limit: the stack config's
``gpuNodePools[].disruption.budgets[].reasons`` and the package's ``BudgetReason``."""

_NAME_KEYS = (SKU_NAME, INSTANCE_TYPE)
_NUMERIC_OPS = {"Gt", "Lt", "Gte", "Lte"}


@dataclass(frozen=True, slots=True)
class Requirement:
    """One entry of ``spec.template.spec.requirements``."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


REQUIREMENTS_PATH = ("spec", "template", "spec", "requirements")
"""Where a NodePool (as the engine sends it) keeps its requirements."""


def read_requirements(props: Any, is_unknown: Callable[[Any], bool]) -> tuple[list[Requirement], list[str]]:
    """A NodePool's requirements as the engine sends them (``props``: the NodePool's inputs), the one reader of the
    policies and the cost estimate: the requirements that are known, and the paths of the unknown ones
    (``is_unknown`` tells a value unknown during a preview; the whole list's path when it, or a field above it, is
    unknown; ``spec.template.spec.requirements[1]`` when that entry's key, operator or a value is).

    An entry that is not a requirement (not a mapping; key or operator not a string; values not a list) is
    skipped: it constrains nothing, so the sizes the other requirements admit are all checked (fail closed)."""
    base = join_path(*REQUIREMENTS_PATH)
    raw: Any = props
    for key in REQUIREMENTS_PATH:
        if is_unknown(raw):
            return [], [base]
        raw = raw.get(key) if isinstance(raw, Mapping) else None
    if is_unknown(raw):
        return [], [base]
    out: list[Requirement] = []
    unknown: list[str] = []
    for i, entry in enumerate(raw if isinstance(raw, list) else []):
        if is_unknown(entry):
            unknown.append(join_path(base, i))
            continue
        if not isinstance(entry, Mapping):
            continue
        key, op, values = entry.get("key"), entry.get("operator"), entry.get("values")
        values = [] if values is None else values
        if is_unknown(key) or is_unknown(op) or is_unknown(values):
            unknown.append(join_path(base, i))
            continue
        if not isinstance(values, list):
            continue
        if any(is_unknown(v) for v in values):
            unknown.append(join_path(base, i))
            continue
        if isinstance(key, str) and isinstance(op, str):
            out.append(Requirement(key, op, tuple(str(v) for v in values)))
    return out, unknown


# ---------------------------------------------------------------------------------------------- size labels


def _size_part(name: str) -> str:
    return name.split("_", 1)[1] if name.lower().startswith("standard_") else name


def sku_family(name: str) -> str:
    """``karpenter.azure.com/sku-family``: ``N`` for ``Standard_NC24ads_A100_v4``."""
    return _size_part(name)[:1]


def sku_series(name: str) -> str:
    """``karpenter.azure.com/sku-series``: ``NCads_A100_v4`` for ``Standard_NC24ads_A100_v4``."""
    return re.sub(r"\d+", "", _size_part(name), count=1)


def sku_gpu_name(name: str) -> str | None:
    """``karpenter.azure.com/sku-gpu-name``: the accelerator the size names (``A100``), ``None`` when it names none."""
    parts = name.split("_")
    middle = [p for p in (parts[2:-1] if len(parts) >= 4 else []) if p != p.lower()]  # not "xl", "flex", "noib"
    return middle[-1] if middle else None


@cache
def size_labels(size: GpuSize) -> Mapping[str, str | None]:
    """The size labels Karpenter gives a node of ``size`` (``None``: the label is absent or cannot be known).
    Derived once per size (read-only)."""
    count = None if size.is_fractional else str(int(size.gpu_count))
    return MappingProxyType(
        {
            SKU_NAME: size.name,
            INSTANCE_TYPE: size.name,
            SKU_FAMILY: sku_family(size.name),
            SKU_SERIES: sku_series(size.name),
            SKU_GPU_NAME: sku_gpu_name(size.name),
            SKU_GPU_MANUFACTURER: size.gpu_vendor.lower(),
            SKU_GPU_COUNT: count,
        }
    )


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


_WHOLE_GPU_COUNTS: Final = tuple(str(n) for n in range(1, 17))
"""The counts a fractional size's ``sku-gpu-count`` label may carry (the SKU API's whole-GPU count, not known here;
0 would give the node no ``nvidia.com/gpu`` capacity, so no GPU pod would land on it)."""


def admits(req: Requirement, size: GpuSize) -> bool:
    """Whether a node of ``size`` can satisfy ``req`` (``True`` when this module cannot tell: fail closed)."""
    labels = size_labels(size)
    if req.key not in labels:
        return True  # a label that does not depend on the size (zone, capacity type, arch...) or one not modelled
    value = labels[req.key]
    if req.key == SKU_GPU_COUNT and value is None:
        # a fractional GPU: admitted when the requirement admits some whole count (Lt 1, In [0], DoesNotExist do not)
        return any(_admits_value(req, count) for count in _WHOLE_GPU_COUNTS)
    return _admits_value(req, value)


def _admits_value(req: Requirement, value: str | None) -> bool:
    wanted = {v.lower() for v in req.values}
    op = req.operator
    if op == "In":
        return value is not None and value.lower() in wanted
    if op == "NotIn":
        return value is None or value.lower() not in wanted
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in _NUMERIC_OPS:
        bound = _number(req.values[0]) if len(req.values) == 1 else None
        have = _number(value) if value is not None else None
        if bound is None or have is None:
            return value is not None
        return {"Gt": have > bound, "Lt": have < bound, "Gte": have >= bound, "Lte": have <= bound}[op]
    return True


# ---------------------------------------------------------------------------------------------- admitted sizes


@dataclass(frozen=True, slots=True)
class NamedSize:
    """A size named in an ``In`` list on ``sku-name`` / ``instance-type``: where, and as written."""

    requirement: int
    value: int
    size: str


@dataclass(frozen=True, slots=True)
class NodePoolSizes:
    """The sizes a NodePool's requirements allow."""

    named: tuple[NamedSize, ...]
    """Sizes named in ``In`` lists, as written (unknown names included)."""
    admitted: tuple[str, ...]
    """Catalog sizes every requirement admits (catalog spelling), cheapest first."""

    @property
    def extra(self) -> tuple[str, ...]:
        """Admitted catalog sizes no ``In`` list names (what an open requirement lets in)."""
        named = {n.size.lower() for n in self.named}
        return tuple(s for s in self.admitted if s.lower() not in named)

    def all_sizes(self) -> list[str]:
        seen: dict[str, str] = {}
        for name in [n.size for n in self.named] + list(self.admitted):
            seen.setdefault(name.lower(), name)
        return list(seen.values())

    def is_gpu(self, catalog: Catalog | None = None) -> bool:
        """A GPU NodePool: it admits a catalog GPU size, or names an N-family size."""
        return bool(self.admitted) or any(is_gpu_size(n.size, catalog) for n in self.named)


def nodepool_sizes(requirements: Sequence[Requirement], catalog: Catalog | None = None) -> NodePoolSizes:
    """Every size a NodePool's requirements allow (module docstring). With the default catalog the answer is
    memoised per requirements (every size policy, gpu-nodepool-limits and the cost estimate ask for the same pool)."""
    reqs = tuple(requirements)
    if catalog is None or catalog is default_catalog():
        return _default_nodepool_sizes(reqs)
    return _nodepool_sizes(reqs, catalog)


@lru_cache(maxsize=256)
def _default_nodepool_sizes(requirements: tuple[Requirement, ...]) -> NodePoolSizes:
    return _nodepool_sizes(requirements, default_catalog())


def _nodepool_sizes(requirements: tuple[Requirement, ...], cat: Catalog) -> NodePoolSizes:
    named: list[NamedSize] = []
    name_reqs = [(i, r) for i, r in enumerate(requirements) if r.key in _NAME_KEYS and r.operator == "In"]
    for i, req in name_reqs:
        for j, value in enumerate(req.values):
            # a name another requirement excludes is not allowed (e.g. In [a, b] + NotIn [b])
            size = cat.lookup(value)
            if size is not None and not all(admits(r, size) for r in requirements):
                continue
            named.append(NamedSize(i, j, value))
    admitted = [s for s in cat.sizes() if all(admits(r, s) for r in requirements)]
    admitted.sort(key=lambda s: s.price_order)
    return NodePoolSizes(tuple(named), tuple(s.name for s in admitted))


# ---------------------------------------------------------------------------------------------- GPU scope


class GpuScope(StrEnum):
    """What a NodePool's own requirements say about GPUs (:func:`gpu_scope`)."""

    EXPLICIT = "explicit"
    """A requirement asks for GPU sizes (names, family or series N…, a GPU name, manufacturer or count) and some GPU
    size is admitted: the size rules and ``gpu-nodepool-limits`` apply."""
    EXCLUDED = "excluded"
    """No catalog GPU size is admitted and no GPU size is named: no GPU diagnostics."""
    UNCONSTRAINED = "unconstrained"
    """GPU sizes are admitted only because nothing restricts them: one finding (``gpu-nodepool-constrains-gpus``)."""


_GPU_LABEL_KEYS: Final = (SKU_GPU_NAME, SKU_GPU_MANUFACTURER)


def selects_gpus(req: Requirement, catalog: Catalog | None = None) -> bool:
    """Whether one requirement explicitly asks for GPU sizes: an ``In`` list on ``sku-name`` / ``instance-type``
    naming a GPU size, ``sku-family`` / ``sku-series`` ``In`` a value starting with ``N``, ``sku-gpu-name`` or
    ``sku-gpu-manufacturer`` ``In`` / ``Exists`` (only GPU sizes carry them), ``sku-gpu-count`` ``In`` a count
    ≥ 1, ``Gt`` ≥ 0 or ``Gte`` > 0.

    ``sku-gpu-count Exists`` is not one: karpenter-provider-azure gives every instance type that label (``0``
    without GPUs), so it admits CPU and GPU sizes alike. ``NotIn`` and ``DoesNotExist`` never ask for GPUs."""
    op, values = req.operator, req.values
    if req.key in _NAME_KEYS:
        return op == "In" and any(is_gpu_size(v, catalog) for v in values)
    if req.key in (SKU_FAMILY, SKU_SERIES):
        return op == "In" and any(v[:1].upper() == "N" for v in values)
    if req.key in _GPU_LABEL_KEYS:
        return op == "Exists" or (op == "In" and bool(values))
    if req.key == SKU_GPU_COUNT:
        numbers = [n for v in values if (n := _number(v)) is not None]
        if op == "In":
            return any(n >= 1 for n in numbers)
        if op in ("Gt", "Gte") and len(numbers) == 1:
            return numbers[0] >= 0 if op == "Gt" else numbers[0] > 0
    return False


def gpu_scope(requirements: Sequence[Requirement], catalog: Catalog | None = None) -> GpuScope:
    """Classify a NodePool by its own requirements (resolved through the catalog by :func:`nodepool_sizes`)."""
    reqs = tuple(requirements)
    if not nodepool_sizes(reqs, catalog).is_gpu(catalog):
        return GpuScope.EXCLUDED
    if any(selects_gpus(r, catalog) for r in reqs):
        return GpuScope.EXPLICIT
    return GpuScope.UNCONSTRAINED


EXCLUDE_GPUS: Final = Requirement(SKU_FAMILY, "NotIn", ("N",))
"""The one requirement that keeps GPU sizes out of a NodePool: every Azure GPU size is of family ``N`` (the catalog's
and karpenter-provider-azure's registry alike), and every node carries ``sku-family``."""

SHOWN_SIZES: Final = 5
"""How many sizes a NodePool message names before it says how many more there are."""


def _requirement_text(req: Requirement) -> str:
    return f"{{key: {req.key}, operator: {req.operator}, values: [{', '.join(req.values)}]}}"


def _first(names: Sequence[str], shown: int = SHOWN_SIZES) -> str:
    text = ", ".join(names[:shown])
    return f"{text} and {len(names) - shown} more" if len(names) > shown else text


def launchable_sizes(sizes: NodePoolSizes) -> tuple[str, ...]:
    """The admitted catalog sizes Karpenter on AKS can launch at all (karpenter-provider-azure's GPU registry,
    :meth:`gpu_catalog.karpenter.KarpenterFacts.launchable_gpu_size`), cheapest first."""
    return tuple(name for name in sizes.admitted if FACTS.launchable_gpu_size(name))


def unconstrained_gpus(
    nodepool: str,
    sizes: NodePoolSizes,
    *,
    gpu_tainted: bool,
    gpu_limited: bool = False,
    floor: str = DEFAULT_FLOOR,
    today: date,
    catalog: Catalog | None = None,
) -> Finding:
    """gpu-nodepool-constrains-gpus.

    One finding for a NodePool whose requirements do not restrict GPUs (:attr:`GpuScope.UNCONSTRAINED`): how many
    GPU sizes Karpenter on AKS could launch for it, how many of those the size rules refuse (retired, below the
    floor, not AKS-supported) and the first of them, why it matters, and the requirement to add."""
    cat = catalog if catalog is not None else default_catalog()
    launchable = launchable_sizes(sizes)
    refused = [n for n in launchable if check_gpu_size(n, floor=floor, today=today, catalog=cat)]
    retired = sum(1 for n in refused if check_retired(n, today, cat) is not None)
    below = sum(1 for n in refused if check_minimum(n, floor, cat, today=today) is not None)
    unsupported = sum(1 for n in refused if check_aks_supported(n, cat) is not None)
    reasons = [f"{retired} retired"] if retired else []
    reasons += [f"{below} below the floor {floor}"] if below else []
    reasons += [f"{unsupported} not supported by AKS"] if unsupported else []
    if refused:
        judged = f"{len(refused)} of them are refused by the size rules ({', '.join(reasons)}): {_first(refused)}"
    else:
        judged = "none of them is refused by the size rules"
    taint = "" if gpu_tainted else f", on a node without the {GPU_RESOURCE} taint (so ordinary pods share the GPU VM)"
    limit = "" if gpu_limited else f", and bound them with spec.limits[{GPU_RESOURCE!r}]"
    deployable = [n for n in accepted_sizes(floor, today=today, require_aks=True, catalog=cat) if n in launchable]
    pinned = sorted(deployable, key=lambda n: cat[n].price_order)[:3]
    pin = Requirement(SKU_NAME, "In", tuple(pinned) or ("<sizes>",))
    return Finding(
        "requirements",
        f"NodePool '{nodepool}' does not constrain GPUs: its requirements admit {len(launchable)} GPU sizes that "
        f"Karpenter on AKS can launch (karpenter-provider-azure's GPU registry), and {judged}. A pending pod that "
        f"requests {GPU_RESOURCE} makes Karpenter create whichever of them fits{taint}. "
        f"Add the requirement {_requirement_text(EXCLUDE_GPUS)} to keep GPUs out of this NodePool, or pin its GPU "
        f"sizes, e.g. {_requirement_text(pin)}{limit}.",
    )


def summarise_sizes(nodepool: str, refused: Sequence[tuple[str, str, str]]) -> str | None:
    """One violation for every size of a NodePool that one size rule refuses: ``refused`` holds (path, size,
    message) per size, in the order found. One size keeps its own message (``<path>: <message>``); several become
    one message naming the count and the first sizes, then the first size's message (what, why, what instead)."""
    if not refused:
        return None
    if len(refused) == 1:
        path, _, message = refused[0]
        return f"{path}: {message}"
    base = join_path(*REQUIREMENTS_PATH)
    names = [
        size if not path.startswith(base + "[") else f"{size} (requirements{path.removeprefix(base)})"
        for path, size, _ in refused
    ]
    return (
        f"{base}: NodePool '{nodepool}' admits {len(refused)} sizes this policy refuses: {_first(names)}. "
        f"The first: {refused[0][2]}"
    )


# ---------------------------------------------------------------------------------------------- limits and cost


def parse_quantity(value: Any) -> float | None:
    """A Kubernetes quantity as a NodePool limit carries it (``8``, ``8.0``, ``"8"``, ``"1k"``); ``None`` if not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return None
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*(k|M|G)?\s*", value)
    if match is None:
        return None
    factor = {"k": 1e3, "M": 1e6, "G": 1e9}.get(match.group(2) or "", 1.0)
    return float(match.group(1)) * factor


def gpu_nodepool_limits(limits: Mapping[str, Any] | None, *, gpu: bool) -> list[Finding]:
    """gpu-nodepool-limits.

    A NodePool that explicitly admits GPU sizes (``gpu`` when :func:`gpu_scope` is :attr:`GpuScope.EXPLICIT`) bounds
    the GPUs Karpenter may create: ``spec.limits["nvidia.com/gpu"]``."""
    if not gpu:
        return []
    value = (limits or {}).get(GPU_RESOURCE)
    if value is None:
        return [
            Finding(
                "limits",
                f"the NodePool admits GPU sizes but sets no spec.limits[{GPU_RESOURCE!r}]: Karpenter would create GPU "
                "nodes for every pending GPU pod, bounded only by the subscription's quota (unbounded spend). "
                f"Set limits.{GPU_RESOURCE} to the most GPUs this pool may run.",
            )
        ]
    if parse_quantity(value) is None:
        return [Finding("limits", f"spec.limits[{GPU_RESOURCE!r}] is {value!r}, not a GPU count.")]
    return []


@dataclass(frozen=True, slots=True)
class LimitCost:
    """The most a NodePool can cost at its GPU limit: ``nodes`` nodes of ``size``."""

    size: str
    nodes: int
    usd_per_node_hour: float


def nodes_for_gpus(size: GpuSize, gpus: float) -> int:
    """Nodes of ``size`` that hold ``gpus`` GPUs (rounded up: Karpenter stops launching once the limit is reached,
    and the last node may pass it)."""
    per_node = size.gpu_count if size.gpu_count > 0 else Fraction(1)
    return max(math.ceil(Fraction(gpus).limit_denominator(1000) / per_node), 0)


def limit_cost(sizes: Iterable[str], gpu_limit: float, catalog: Catalog | None = None) -> LimitCost | None:
    """The most expensive way to fill ``gpu_limit`` GPUs with one admitted, priced size (``None``: none is priced)."""
    cat = catalog if catalog is not None else default_catalog()
    best: LimitCost | None = None
    for name in sizes:
        size = cat.lookup(name)
        if size is None or size.price_usd_per_hour is None:
            continue
        candidate = LimitCost(size.name, nodes_for_gpus(size, gpu_limit), size.price_usd_per_hour)
        if best is None or candidate.nodes * candidate.usd_per_node_hour > best.nodes * best.usd_per_node_hour:
            best = candidate
    return best


# ---------------------------------------------------------------------------------------------- resolving config


def _deployable(size: GpuSize, floor: str, today: date, cat: Catalog) -> bool:
    if size.gpu_vendor != "NVIDIA":
        return False
    return size.name in accepted_sizes(floor, today=today, require_aks=True, catalog=cat)


def resolve_sizes(
    sizes: Sequence[str],
    series: Sequence[str] = (),
    gpu_models: Sequence[str] = (),
    *,
    floor: str = DEFAULT_FLOOR,
    today: date,
    catalog: Catalog | None = None,
) -> tuple[list[str], list[Finding]]:
    """The ``sku-name`` values a configured GPU NodePool allows, cheapest first, and what is wrong.

    ``sizes`` are taken as written and must each pass every size rule (field ``sizes[i]``). ``series``
    (``sku-series``, e.g. ``NCas_T4_v3``) and ``gpu_models`` (``sku-gpu-name``, e.g. ``A100``) stand for every catalog
    size of that series or GPU deployable on ``today`` (NVIDIA, current, AKS-supported, at or above the floor); one
    that stands for none is a finding (field ``series[i]`` / ``gpuModels[i]``).
    """
    cat = catalog if catalog is not None else default_catalog()
    found: list[Finding] = []
    out: dict[str, str] = {}
    for i, name in enumerate(sizes):
        problems = [*(f.message for f in check_gpu_size(name, floor=floor, today=today, catalog=cat))]
        not_gpu = check_is_gpu_size(name, cat)
        if not_gpu is not None:
            problems.append(not_gpu.message)
        size = cat.lookup(name)
        if size is not None and size.gpu_vendor != "NVIDIA" and not problems:
            problems.append(
                f"{size.name} has {size.gpu_vendor} GPUs ({size.gpu_model}): NAP GPU NodePools here run NVIDIA's "
                f"driver and device plugin. {AMD_NEEDS}."
            )
        found += [Finding(f"sizes[{i}]", p) for p in problems]
        out.setdefault(name.lower(), size.name if size is not None else name)
    for field, wanted, label in (("series", series, sku_series), ("gpuModels", gpu_models, sku_gpu_name)):
        for i, value in enumerate(wanted):
            matching = [s for s in cat.sizes() if (label(s.name) or "").lower() == value.lower()]
            usable = [s for s in matching if _deployable(s, floor, today, cat)]
            if not matching:
                known = sorted({v for s in cat.sizes() if (v := label(s.name))})
                found.append(Finding(f"{field}[{i}]", f"{value!r} names no catalog size. Known: {', '.join(known)}."))
            elif not usable:
                found.append(
                    Finding(
                        f"{field}[{i}]",
                        f"{value!r} stands for {', '.join(s.name for s in matching)}, and none is deployable today "
                        f"(NVIDIA, not retired, AKS-supported, at or above the floor {floor}).",
                    )
                )
            for s in usable:
                out.setdefault(s.name.lower(), s.name)
    ordered = sorted(out.values(), key=lambda n: cat[n].price_order if n in cat else (True, 0.0, n))
    return ordered, found


# ---------------------------------------------------------------------------------------------- the NAP cluster


@dataclass(frozen=True, slots=True)
class AgentPoolFacts:
    """An agent pool created on the same cluster as the NAP NodePools."""

    name: str
    autoscaling: bool
    os: str = "Linux"


def nap_agent_pools(pools: Sequence[AgentPoolFacts]) -> list[Finding]:
    """Agent pools a cluster with node auto-provisioning on cannot be given (field ``<index>.maxCount`` /
    ``<index>.os``): autoscaling pools cannot be created in mode Auto, and NAP does not support Windows."""
    found: list[Finding] = []
    for i, pool in enumerate(pools):
        if pool.autoscaling:
            found.append(
                Finding(
                    f"{i}.maxCount",
                    f"pool {pool.name!r} autoscales, and gpuNodePools turn node auto-provisioning on: "
                    f"{FACTS.limitations['autoscalingAgentPools']}. Give the pool a fixed count, or move its "
                    "workloads to a gpuNodePools entry (which scales from zero).",
                )
            )
        if pool.os == "Windows":
            found.append(Finding(f"{i}.os", f"pool {pool.name!r} is a Windows pool: {FACTS.limitations['windows']}."))
    return found
