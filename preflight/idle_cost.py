"""What an idle hour of each GPU pool costs: the cost estimate's lines at their minimum node count, with the lever.

For every cost line (``preflight/cost.py``) the idle cost is its minimum node count × its hourly price
(:func:`rules.idle.idle_hourly`): an AKS pool's ``minCount`` (autoscaling) or ``count``; a node auto-provisioning
NodePool's 0 (a static NodePool: its ``replicas``); a KAITO workspace's ``resource.count``; a Databricks cluster's
minimum workers and its driver. The *lever* says whether that minimum could be lower: for an AKS pool it is
:func:`rules.idle.pool_idle_minimum`, the rule of the ``gpu-pool-idle-minimum`` policy, so the estimate and the pack
agree on which pools could scale to zero and why the others cannot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from preflight.cost import SURGE_ROLE, CostEstimate, CostLine
from preflight.cost_line import role_profile
from preflight.model import RecordedResource
from preflight.nap_cost import CPU_CAPACITY
from preflight.wire import is_unknown, unwrap_secrets
from rules import NotApplicable
from rules.idle import (
    HOURS_PER_MONTH,
    HOURS_PER_WEEK,
    POLICY_NAME,
    POOL_KEYS,
    describe_working_hours,
    idle_hourly,
    idle_pool,
    is_gpu_operator_chart,
    pool_idle_minimum,
    working_hours_per_week,
)
from rules.resource_types import (
    is_agent_pool,
    is_databricks_cluster,
    is_helm_release,
    is_kaito_workspace,
    is_karpenter_node_pool,
    is_managed_cluster,
)

SCALES_FROM_ZERO = "scales from 0: no idle GPU cost"


@dataclass(frozen=True)
class IdleLine:
    """One cost line at its minimum node count."""

    line: CostLine
    lever: str
    """Whether the minimum could be lower, and how (or why not)."""

    @property
    def hourly(self) -> float | None:
        if not self.line.priced:
            return None
        return idle_hourly(self.line.nodes_min or 0, self.line.usd_per_node_hour or 0.0)

    @property
    def monthly(self) -> float | None:
        hourly = self.hourly
        return None if hourly is None else hourly * HOURS_PER_MONTH


def _operator_in(resources: Iterable[RecordedResource]) -> bool:
    """A GPU operator Helm release in the program (it then manages every Linux GPU pool, as in the pack)."""
    return any(
        is_helm_release(r.type) and is_gpu_operator_chart(unwrap_secrets(r.inputs).get("chart")) for r in resources
    )


def _pool_props(resource: RecordedResource, role: str) -> Mapping[str, Any] | None:
    """The AKS pool a line prices: the AgentPool itself (role ``pool``) or a ManagedCluster's
    ``agentPoolProfiles[<name>]`` (by name or index: :func:`preflight.cost_line.role_profile`)."""
    props = unwrap_secrets(resource.inputs)
    if is_agent_pool(resource.type) and role == "pool":
        return props
    if is_managed_cluster(resource.type):
        return role_profile(resource.type, props, role)
    return None


def _aks_lever(line: CostLine, pool: Mapping[str, Any], operator: bool) -> str:
    if any(is_unknown(pool.get(key)) for key in POOL_KEYS):
        return "pool settings unknown during the preview"
    if str(pool.get("osType") or "").lower() == "windows":
        return "Windows GPU pool: the minimum is kept as set"
    facts = idle_pool(
        str(pool.get("agentPoolName") or pool.get("name") or line.role),
        line.vm_size,
        {key: pool[key] for key in POOL_KEYS if pool.get(key) is not None},
        operator_managed=operator,
    )
    if facts is None:
        return "minimum not set"
    result = pool_idle_minimum(facts)
    if isinstance(result, NotApplicable):
        return f"kept: {result.reason}"
    if result:
        return f"could scale to 0 ({POLICY_NAME}): {result[0].field}: 0"
    return SCALES_FROM_ZERO


def _lever(line: CostLine, resource: RecordedResource | None, operator: bool) -> str:
    if resource is None:
        return ""
    if is_karpenter_node_pool(resource.type):
        if line.role.startswith("nodepool (static)"):
            return "static NodePool: its replicas always run"
        return "node auto-provisioning: no node until a pod needs one"
    if is_kaito_workspace(resource.type):
        return "KAITO workspace: its resource.count nodes run while the workspace exists"
    if is_databricks_cluster(resource.type):
        return "Databricks cluster: its minimum runs while the cluster runs"
    pool = _pool_props(resource, line.role)
    if pool is not None:
        return _aks_lever(line, pool, operator)
    return ""


def idle_lines(estimate: CostEstimate, resources: Iterable[RecordedResource]) -> list[IdleLine]:
    """Every GPU cost line at its minimum (lines priced as CPU capacity are left out: they have no GPU size)."""
    listed = list(resources)
    by_urn = {r.urn: r for r in listed}
    operator = _operator_in(listed)
    return [
        IdleLine(line, _lever(line, by_urn.get(line.urn), operator))
        for line in estimate.lines
        if line.vm_size != CPU_CAPACITY and not line.role.endswith(SURGE_ROLE)  # surge nodes run only in upgrades
    ]


def idle_json(estimate: CostEstimate, resources: Iterable[RecordedResource]) -> dict[str, Any]:
    """The report's ``cost.idle`` object: totals at the minimum and one entry per line."""
    lines = idle_lines(estimate, resources)
    hourly = sum(ln.hourly or 0.0 for ln in lines)
    return {
        "hourly": round(hourly, 4),
        "monthly": round(hourly * HOURS_PER_MONTH, 2),
        "byResource": [
            {
                "urn": ln.line.urn,
                "role": ln.line.role,
                "vmSize": ln.line.vm_size,
                "nodes": ln.line.nodes_min,
                "hourly": None if ln.hourly is None else round(ln.hourly, 4),
                "monthly": None if ln.monthly is None else round(ln.monthly, 2),
                "lever": ln.lever,
            }
            for ln in lines
        ],
    }


def _money(value: float | None) -> str:
    return "—" if value is None else f"${value:,.2f}"


def idle_text(estimate: CostEstimate, resources: Iterable[RecordedResource], short: Any) -> list[str]:
    """The text report's lines under the cost table (``short(urn)`` names a resource)."""
    lines = idle_lines(estimate, resources)
    if not lines:
        return []
    total = sum(ln.hourly or 0.0 for ln in lines)
    out = [f"  idle at minimum nodes (nothing scheduled): {_money(total)}/h, {_money(total * HOURS_PER_MONTH)}/month"]
    for ln in lines:
        nodes = "?" if ln.line.nodes_min is None else str(ln.line.nodes_min)
        lever = f" — {ln.lever}" if ln.lever else ""
        out.append(
            f"    {short(ln.line.urn)} {ln.line.role}: {nodes} × {ln.line.vm_size}: {_money(ln.hourly)}/h, "
            f"{_money(ln.monthly)}/month{lever}"
        )
    return out


def idle_markdown(estimate: CostEstimate, resources: Iterable[RecordedResource], short: Any) -> list[str]:
    """The Markdown report's idle lines (a short list under the cost table)."""
    lines = idle_lines(estimate, resources)
    if not lines:
        return []
    total = sum(ln.hourly or 0.0 for ln in lines)
    out = ["", f"Idle at minimum nodes: **{_money(total)}/h**, {_money(total * HOURS_PER_MONTH)}/month", ""]
    out += [
        f"- `{short(ln.line.urn)}` {ln.line.role}: {ln.line.nodes_min if ln.line.nodes_min is not None else '?'} × "
        f"`{ln.line.vm_size}`: {_money(ln.hourly)}/h{f' — {ln.lever}' if ln.lever else ''}"
        for ln in lines
    ]
    return out


# --------------------------------------------------------------------------------------------------------------------
# Working hours (``<project>:cluster.workingHours``): shown, never acted on


WORKING_HOURS_DOC = "docs/idle-cost.md"


@dataclass(frozen=True)
class WorkingHours:
    """A stack's declared working hours (the program validated them: ``stack_config/working_hours.py``)."""

    days: list[str]
    start: str
    end: str
    time_zone: str

    @classmethod
    def from_stack(cls, cluster: Any) -> WorkingHours | None:
        """From the stack file's ``cluster`` value; ``None`` when it declares no working hours."""
        value = cluster.get("workingHours") if isinstance(cluster, Mapping) else None
        if not isinstance(value, Mapping):
            return None
        return cls(
            days=[str(d) for d in value.get("days") or []],
            start=str(value.get("start")),
            end=str(value.get("end")),
            time_zone=str(value.get("timeZone")),
        )

    @property
    def hours_per_week(self) -> float:
        return working_hours_per_week(self.days, self.start, self.end)

    @property
    def running_share(self) -> float:
        """The share of a week the cluster runs when it is stopped outside its working hours."""
        return self.hours_per_week / HOURS_PER_WEEK

    def describe(self) -> str:
        return describe_working_hours(self.days, self.start, self.end, self.time_zone)


def working_hours_json(
    hours: WorkingHours | None, estimate: CostEstimate, resources: Iterable[RecordedResource]
) -> Any:
    """The report's ``workingHours`` object (``None`` when the stack declares none)."""
    if hours is None:
        return None
    idle = sum(ln.hourly or 0.0 for ln in idle_lines(estimate, resources)) * HOURS_PER_MONTH
    return {
        "days": hours.days,
        "start": hours.start,
        "end": hours.end,
        "timeZone": hours.time_zone,
        "hoursPerWeek": round(hours.hours_per_week, 2),
        "idleMonthlyAlwaysOn": round(idle, 2),
        "idleMonthlyStoppedOutside": round(idle * hours.running_share, 2),
        "howToStop": WORKING_HOURS_DOC,
    }


def working_hours_text(
    hours: WorkingHours | None, estimate: CostEstimate, resources: Iterable[RecordedResource]
) -> list[str]:
    """One line for the text and Markdown reports (empty when the stack declares none)."""
    doc = working_hours_json(hours, estimate, resources)
    if hours is None or doc is None:
        return []
    return [
        f"working hours: {hours.describe()} ({doc['hoursPerWeek']:g} of {HOURS_PER_WEEK} h a week); stopped outside "
        f"them (az aks stop / az aks start on your own schedule, {WORKING_HOURS_DOC}) the idle minimum costs "
        f"{_money(doc['idleMonthlyStoppedOutside'])}/month instead of {_money(doc['idleMonthlyAlwaysOn'])}"
    ]
