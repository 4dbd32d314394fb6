"""What a GPU pool costs while nothing runs on it, and whether it could cost nothing: the idle-cost rule.

A pool's *idle minimum* is the number of nodes it keeps when no pod needs them: ``minCount`` for an autoscaling AKS
pool, ``count`` for a fixed one, a KAITO workspace's ``resource.count`` (its nodes run while the workspace exists),
0 for a node auto-provisioning (Karpenter) NodePool. An idle hour costs that many nodes × the GPU catalog's
indicative hourly price; an idle month is :data:`HOURS_PER_MONTH` of them.

:func:`pool_idle_minimum` (policy ``gpu-pool-idle-minimum``, advisory) reports an AKS GPU pool whose minimum is
above zero where it could be zero. Sources (MicrosoftDocs/azure-aks-docs):

- ``articles/aks/scale-cluster.md`` ("Scale User node pools to 0"): user node pools can scale to 0; the cluster
  autoscaler allows (does not force) zero nodes on an autoscaled user pool with ``--min-count 0``;
- ``articles/aks/use-system-pools.md``: system pools must keep nodes, user pools can have zero or more;
- a pool the NVIDIA GPU operator manages keeps ``minCount ≥ 1`` (:func:`rules.aks.operator_autoscale_min_count`,
  Azure/AKS #2832), so its minimum is not an idle-cost lever;
- a MIG pool (``gpuInstanceProfile``): its pods request what the device plugin advertises only once a node runs, the
  same blind spot as #2832, so it is not reported either.

No Pulumi import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from gpu_catalog import Catalog, default_catalog

from . import Finding, NotApplicable
from .aks import AUTOSCALER_SCALE_FROM_ZERO_ISSUE

HOURS_PER_MONTH: Final = 730
"""Hours in the cost estimate's month (365 × 24 / 12 rounded), used by every monthly figure."""

POLICY_NAME: Final = "gpu-pool-idle-minimum"

SCALE_TO_ZERO_SOURCE: Final = "AKS docs, scale-cluster.md: user node pools can scale to 0"

GPU_OPERATOR_CHART: Final = "gpu-operator"
"""The NVIDIA GPU operator's Helm chart name (``gpu-operator``, ``nvidia/gpu-operator``, an OCI URL ending in it)."""


WEEKDAYS: Final[tuple[str, ...]] = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
"""The day names a stack's ``cluster.workingHours.days`` takes."""
HOURS_PER_WEEK: Final = 7 * 24


def clock_minutes(value: str) -> int:
    """``HH:MM`` → minutes after midnight (a validated value)."""
    hours, mins = value.split(":")
    return int(hours) * 60 + int(mins)


def working_hours_per_week(days: list[str], start: str, end: str) -> float:
    """Hours a week the cluster runs: days × (end − start)."""
    return len(set(days)) * (clock_minutes(end) - clock_minutes(start)) / 60


def describe_working_hours(days: list[str], start: str, end: str, time_zone: str) -> str:
    """``Mon–Fri 08:00–19:00 Europe/Amsterdam`` (three or more consecutive days as a range)."""
    picked = sorted(set(days), key=WEEKDAYS.index)
    first = WEEKDAYS.index(picked[0])
    consecutive = [WEEKDAYS.index(d) for d in picked] == list(range(first, first + len(picked)))
    shown = f"{picked[0]}–{picked[-1]}" if consecutive and len(picked) > 2 else ",".join(picked)
    return f"{shown} {start}–{end} {time_zone}"


def is_gpu_operator_chart(chart: object) -> bool:
    """Whether a Helm release's ``chart`` is the NVIDIA GPU operator's."""
    return isinstance(chart, str) and chart.rstrip("/").rsplit("/", 1)[-1].lower() == GPU_OPERATOR_CHART


@dataclass(frozen=True, slots=True)
class IdlePool:
    """An AKS GPU pool as the idle rule sees it."""

    label: str
    """How messages name it (``node pool 't4'``)."""
    vm_size: str
    min_nodes: int
    """Nodes kept with nothing scheduled: ``minCount`` when autoscaling, else ``count``."""
    autoscaling: bool = False
    system: bool = False
    """``mode: System``."""
    operator_managed: bool = False
    """A GPU operator release in the stack manages the (Linux) pool."""
    mig: bool = False
    """The pool sets ``gpuInstanceProfile``."""
    spot: bool = False
    """``scaleSetPriority: Spot``: the catalog's on-demand price is then an upper bound."""


POOL_KEYS: Final = ("enableAutoScaling", "minCount", "count", "mode", "gpuInstanceProfile", "scaleSetPriority")
"""The AKS pool properties (wire names) :func:`idle_pool` reads."""

DEFAULT_COUNT: Final = 1
"""AKS's node count of a pool that does not set ``count`` (the REST API's default)."""


def _flag(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def idle_pool(label: str, vm_size: str, pool: Mapping[str, Any], *, operator_managed: bool) -> IdlePool | None:
    """An AKS pool's idle facts from its properties (an AgentPool or an ``agentPoolProfiles`` entry, wire names:
    :data:`POOL_KEYS`, values already known); ``None`` when the minimum is not given (an autoscaling pool without
    ``minCount``: ``gpu-operator-autoscale-min-count`` and AKS itself speak to that)."""
    autoscaling = _flag(pool.get("enableAutoScaling"))
    raw = pool.get("minCount") if autoscaling else pool.get("count", DEFAULT_COUNT)
    if raw is None and not autoscaling:
        raw = DEFAULT_COUNT
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    return IdlePool(
        label=label,
        vm_size=vm_size,
        min_nodes=max(int(raw), 0),
        autoscaling=autoscaling,
        system=str(pool.get("mode") or "").lower() == "system",
        operator_managed=operator_managed,
        mig=bool(pool.get("gpuInstanceProfile")),
        spot=str(pool.get("scaleSetPriority") or "").lower() == "spot",
    )


def idle_hourly(min_nodes: int, usd_per_node_hour: float) -> float:
    """An idle hour at the minimum: nodes × price per node hour."""
    return max(min_nodes, 0) * usd_per_node_hour


def idle_monthly(min_nodes: int, usd_per_node_hour: float) -> float:
    """An idle month at the minimum: :func:`idle_hourly` × :data:`HOURS_PER_MONTH`."""
    return idle_hourly(min_nodes, usd_per_node_hour) * HOURS_PER_MONTH


def price_of(vm_size: str, catalog: Catalog | None = None) -> float | None:
    """The catalog's indicative USD price per node hour (``None``: unknown size or no price)."""
    entry = (catalog or default_catalog()).lookup(vm_size)
    return entry.price_usd_per_hour if entry is not None else None


def scale_from_zero_blocker(pool: IdlePool) -> str | None:
    """Why the pool's minimum cannot be 0 (``None`` when it can)."""
    if pool.system:
        return "a System node pool always keeps nodes (AKS docs, use-system-pools.md); only User pools scale to 0"
    if pool.operator_managed:
        return (
            "the GPU operator manages it: gpu-operator-autoscale-min-count keeps minCount ≥ 1 "
            f"({AUTOSCALER_SCALE_FROM_ZERO_ISSUE})"
        )
    if pool.mig:
        return (
            "a MIG pool: its slices appear only once a node runs, so the autoscaler cannot scale it up from 0 "
            f"({AUTOSCALER_SCALE_FROM_ZERO_ISSUE})"
        )
    return None


def _money(value: float) -> str:
    return f"${value:,.2f}"


def pool_idle_minimum(pool: IdlePool, catalog: Catalog | None = None) -> list[Finding] | NotApplicable:
    """gpu-pool-idle-minimum: a GPU pool that could scale to 0 keeps no node idle; the finding carries the monthly
    idle cost of its minimum (nodes × catalog price × 730 h)."""
    blocker = scale_from_zero_blocker(pool)
    if blocker is not None:
        return NotApplicable(blocker)
    if pool.min_nodes <= 0:
        return []
    price = price_of(pool.vm_size, catalog)
    field = "minCount" if pool.autoscaling else "count"
    nodes = f"{pool.min_nodes} node{'s' if pool.min_nodes != 1 else ''}"
    if price is None:
        cost = "its idle cost is unknown (no indicative price in the GPU catalog)"
    else:
        cost = (
            f"idle it costs {_money(idle_monthly(pool.min_nodes, price))}/month ({pool.min_nodes} × "
            f"${price:,.3f}/h × {HOURS_PER_MONTH} h, indicative catalog price, VM only"
            f"{'; spot: the on-demand price, an upper bound' if pool.spot else ''})"
        )
    how = (
        "set minCount: 0"
        if pool.autoscaling
        else "turn on autoscaling (enableAutoScaling) with minCount: 0 and a maxCount"
    )
    return [
        Finding(
            field,
            f"{pool.label} ({pool.vm_size}) keeps {nodes} running with nothing scheduled ({field} "
            f"{pool.min_nodes}): {cost}. AKS user node pools can scale to 0 ({SCALE_TO_ZERO_SOURCE}): {how} if the "
            "first GPU pod may wait for a node to start, or keep the warm node and accept the cost.",
        )
    ]
