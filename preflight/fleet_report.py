"""The report's fleet section: per member its region, GPU cost, idle cost and quota demand, and the fleet's totals.

Only for a stack whose resources carry the ``fleet-member`` tag (``preflight/fleet_members.py``); a stack without a
fleet reports exactly as before (no ``fleet`` key, no section). The figures are the report's own, split by member:
the cost estimate's lines (``preflight/cost.py``), their idle minimum (``preflight/idle_cost.py``) and the quota
demand's uses (``preflight/quota.py``, which already places each member's pools in its own cluster's region). The
totals are the whole stack's (the report's ``cost`` and ``quota``), so the members add up to them; resources of no
member (the Fleet and its hub) are counted in the totals only.

The hub is not priced (the catalog prices no CPU VM size): the section says so on its own line, with where its price
is (``docs/fleet.md``, "Hub or no hub"), so the fleet's totals never leave it out silently; JSON ``fleet.hub``:
``enabled`` (``null`` when the stack shows no Fleet resource or its hub profile is unknown), ``priced``, ``note``.

JSON: a top-level ``fleet`` object; text and Markdown: a section after the cost and quota; SARIF: the run's
``properties.fleet``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from preflight.cost import CostEstimate
from preflight.fleet_members import FleetMembership, fleet_membership
from preflight.idle_cost import idle_lines
from preflight.model import RecordedResource
from preflight.quota import QuotaDemand, QuotaRow
from preflight.wire import is_unknown, unwrap_secrets
from rules.fleet_wire import read_fleet_resource
from rules.idle import HOURS_PER_MONTH

_TITLE = "Fleet — per member: region, GPU cost, idle cost and quota demand (the sections above are the fleet's totals)"


HUB_PRICE_DOC = 'docs/fleet.md, "Hub or no hub"'
HUB_NOTES = {
    True: (
        "not priced: Fleet Manager runs and bills the hub, a single-node Standard-tier AKS cluster, every hour "
        "whether anything is placed or not (MicrosoftDocs/azure-aks-docs "
        "articles/kubernetes-fleet/concepts-choosing-fleet.md); the catalog prices no CPU VM size, so the fleet's "
        "totals leave it out: add one node's VM price and the "
        f"Standard tier's per-cluster charge ({HUB_PRICE_DOC})"
    ),
    False: "no hub: a fleet without one costs nothing (update orchestration only; placements need a hub)",
    None: (
        "unknown: the stack shows no Fleet resource, or its hub profile is unknown; a hub is not priced by the "
        f"preflight ({HUB_PRICE_DOC})"
    ),
}
"""The hub line's note, by whether the fleet has a hub (``None``: the stack does not say)."""


@dataclass(frozen=True)
class HubLine:
    """Whether the fleet has a hub, and that its cost is not in the totals."""

    enabled: bool | None

    @property
    def priced(self) -> bool:
        """Only a fleet without a hub is fully priced (it has nothing to price)."""
        return self.enabled is False

    @property
    def note(self) -> str:
        return HUB_NOTES[self.enabled]

    @property
    def label(self) -> str:
        return {True: "on", False: "off", None: "unknown"}[self.enabled]


def hub_line(resources: Sequence[RecordedResource]) -> HubLine:
    """The Fleet resources' hub (``hubProfile`` in their ARM properties, generic or typed): on when any has one."""
    states: list[bool | None] = []
    for r in resources:
        wire = read_fleet_resource(r.type, unwrap_secrets(r.inputs), is_unknown)
        if wire is None or wire.kind != "fleet":
            continue
        hub = wire.properties.get("hubProfile")
        states.append(None if is_unknown(hub) else hub is not None)
    if True in states:
        return HubLine(True)
    return HubLine(False if states and None not in states else None)


@dataclass(frozen=True)
class MemberSummary:
    name: str
    group: str | None
    regions: tuple[str, ...]
    resources: int
    cost: CostEstimate
    idle_hourly: float
    quota: QuotaDemand

    @property
    def quota_rows(self) -> list[QuotaRow]:
        return self.quota.rows()


@dataclass(frozen=True)
class FleetSummary:
    members: tuple[MemberSummary, ...]
    cost: CostEstimate
    """The whole stack's estimate (the members' lines and any of no member)."""
    idle_hourly: float
    quota: QuotaDemand | None
    hub: HubLine = HubLine(None)

    @property
    def regions(self) -> list[str]:
        return sorted({region for m in self.members for region in m.regions})


def fleet_summary(
    resources: Sequence[RecordedResource], cost: CostEstimate, quota: QuotaDemand | None
) -> FleetSummary | None:
    """The report's figures split by member; ``None`` for a stack without a fleet."""
    membership = fleet_membership(resources)
    if membership is None:
        return None
    return _summary(membership, resources, cost, quota)


def _summary(
    membership: FleetMembership, resources: Sequence[RecordedResource], cost: CostEstimate, quota: QuotaDemand | None
) -> FleetSummary:
    members: list[MemberSummary] = []
    for name in membership.members:
        mine = [r for r in resources if membership.of(r.urn) == name]
        urns = {r.urn for r in mine}
        estimate = CostEstimate(lines=[ln for ln in cost.lines if ln.urn in urns])
        demand = QuotaDemand(
            uses=[u for u in quota.uses if u.urn in urns] if quota else [],
            cpu=[c for c in quota.cpu if c.urn in urns] if quota else [],
        )
        idle = sum(ln.hourly or 0.0 for ln in idle_lines(estimate, mine))
        regions = membership.regions.get(name, ())
        members.append(MemberSummary(name, membership.groups.get(name), regions, len(mine), estimate, idle, demand))
    rest = [r for r in resources if membership.of(r.urn) is None]
    rest_urns = {r.urn for r in rest}
    rest_idle = sum(
        ln.hourly or 0.0 for ln in idle_lines(CostEstimate([ln for ln in cost.lines if ln.urn in rest_urns]), rest)
    )
    idle = sum(m.idle_hourly for m in members) + rest_idle
    return FleetSummary(tuple(members), cost, idle, quota, hub_line(resources))


# --------------------------------------------------------------------------------------------------------------------
# JSON and SARIF


def _cost_json(cost: CostEstimate) -> dict[str, Any]:
    return {
        "hourlyMin": round(cost.hourly_min, 4),
        "hourlyMax": round(cost.hourly_max, 4),
        "monthlyMin": round(cost.monthly_min, 2),
        "monthlyMax": round(cost.monthly_max, 2),
        "unpriced": sorted({ln.vm_size for ln in cost.unpriced_lines}),
    }


def _idle_json(hourly: float) -> dict[str, Any]:
    return {"hourly": round(hourly, 4), "monthly": round(hourly * HOURS_PER_MONTH, 2)}


def _rows_json(rows: list[QuotaRow]) -> list[dict[str, Any]]:
    return [
        {"region": r.region, "quota": r.quota, "label": r.label, "vcpusMin": r.vcpus_min, "vcpusMax": r.vcpus_max}
        for r in rows
    ]


def fleet_doc(summary: FleetSummary) -> dict[str, Any]:
    """The ``fleet`` object: one entry per member, then the fleet's totals."""
    return {
        "members": [
            {
                "name": m.name,
                "group": m.group,
                "regions": list(m.regions),
                "resources": m.resources,
                "cost": _cost_json(m.cost),
                "idle": _idle_json(m.idle_hourly),
                "quota": _rows_json(m.quota_rows),
            }
            for m in summary.members
        ],
        "totals": {
            "members": len(summary.members),
            "regions": summary.regions,
            "cost": _cost_json(summary.cost),
            "idle": _idle_json(summary.idle_hourly),
            "quota": _rows_json(summary.quota.rows()) if summary.quota else [],
        },
        "hub": {"enabled": summary.hub.enabled, "priced": summary.hub.priced, "note": summary.hub.note},
    }


def fleet_json(summary: FleetSummary | None) -> dict[str, Any]:
    """``{"fleet": ...}`` for the JSON report and SARIF's run properties; empty without a fleet."""
    return {} if summary is None else {"fleet": fleet_doc(summary)}


# --------------------------------------------------------------------------------------------------------------------
# Text and Markdown


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _span(lo: float, hi: float) -> str:
    return _money(lo) if abs(lo - hi) < 0.005 else f"{_money(lo)}–{_money(hi)}"


def _quota_cell(rows: list[QuotaRow], regions: tuple[str, ...]) -> str:
    """A member's quota rows in one cell (``<quota> <min>–<max>``; the region named only for a member in several)."""
    cells: list[str] = []
    for r in rows:
        where = f"{r.region} " if len(regions) != 1 else ""
        span = f"{r.vcpus_min}–{r.vcpus_max}" if r.vcpus_min != r.vcpus_max else str(r.vcpus_max)
        cells.append(f"{where}{r.label} {span}")
    return ", ".join(cells) or "no GPU sizes"


def _rows(summary: FleetSummary) -> list[list[str]]:
    rows = [["member", "group", "region", "GPU $/month (min–max)", "idle $/month", "quota demand (vCPUs)"]]
    for m in summary.members:
        rows.append(
            [
                m.name,
                m.group or "—",
                ", ".join(m.regions) or "?",
                _span(m.cost.monthly_min, m.cost.monthly_max),
                _money(m.idle_hourly * HOURS_PER_MONTH),
                _quota_cell(m.quota_rows, m.regions),
            ]
        )
    c = summary.cost
    rows.append(
        [
            f"fleet ({len(summary.members)} members)",
            "",
            f"{len(summary.regions)} region(s)",
            _span(c.monthly_min, c.monthly_max),
            _money(summary.idle_hourly * HOURS_PER_MONTH),
            "per region: the quota table",
        ]
    )
    return rows


def fleet_text(summary: FleetSummary | None) -> list[str]:
    if summary is None:
        return []
    rows = _rows(summary)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = ["", _TITLE]
    for n, row in enumerate(rows):
        if n == len(rows) - 1:
            out.append("  " + "  ".join("-" * w for w in widths))
        out.append("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    out.append(f"  hub: {summary.hub.label} — {summary.hub.note}")
    return out


def fleet_markdown(summary: FleetSummary | None) -> list[str]:
    if summary is None:
        return []
    head, *body = _rows(summary)
    *members, total = body
    cell = lambda text: text.replace("|", "\\|")  # noqa: E731
    out = ["", f"#### Fleet: {len(summary.members)} members in {len(summary.regions)} region(s)", ""]
    out += ["| " + " | ".join(head) + " |", "|---|---|---|---:|---:|---|"]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in members]
    out.append("| " + " | ".join(f"**{cell(c)}**" if c else "" for c in total) + " |")
    out += ["", f"**Hub:** {summary.hub.label} — {summary.hub.note}"]
    return out
