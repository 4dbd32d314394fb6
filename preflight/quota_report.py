"""The report's quota section in each format: the offline demand table and, with ``--live``, the live comparison.

JSON: a top-level ``quota`` key (``QuotaDemand.to_json()`` plus ``live``); text and Markdown: a table per region; SARIF:
the same rows under the run's ``properties.quota`` (the live findings are SARIF results like every violation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from preflight.quota import QuotaDemand, unknown_reason

if TYPE_CHECKING:
    from preflight.live_quota import LiveResult

_TITLE = "GPU quota demand — vCPUs per region and Azure quota family (offline; spot counts against low-priority)"


def quota_json(demand: QuotaDemand | None, live: LiveResult | None) -> dict[str, Any]:
    if demand is None:
        return {}
    return {"quota": {**demand.to_json(), "live": live.to_json() if live is not None else None}}


def quota_sarif(demand: QuotaDemand | None, live: LiveResult | None) -> dict[str, Any]:
    if demand is None:
        return {}
    doc = demand.to_json()
    out: dict[str, Any] = {"quota": {"unit": doc["unit"], "rows": doc["rows"], "unknown": doc["unknown"]}}
    if live is not None:
        out["quota"]["live"] = live.to_json()
    return out


def _range(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _rows(demand: QuotaDemand) -> list[list[str]]:
    rows = [["region", "quota", "vCPUs min", "vCPUs max", "used by"]]
    for r in demand.rows():
        rows.append([r.region, r.label, str(r.vcpus_min), str(r.vcpus_max), ", ".join(r.uses) or "—"])
    return rows


def _notes(demand: QuotaDemand) -> list[str]:
    out = [f"not counted: {u.name} ({u.role}): {unknown_reason(u)}" for u in demand.unknown()]
    out += [
        f"CPU pool {c.name} ({c.role}) {c.vm_size} ×{c.nodes_max if c.nodes_max is not None else '?'}: not in the GPU "
        "catalog, its vCPUs come on top of the regional total"
        for c in demand.cpu
    ]
    out += [f"{u.name} ({u.role}): {u.note}" for u in demand.uses if u.note and u.known and u.family is not None]
    return out


def _live_rows(live: LiveResult) -> tuple[list[list[str]], list[list[str]]]:
    fam = [["region", "quota", "needed at max", "limit", "in use", "headroom", "verdict"]]
    for f in live.families:
        fam.append(
            [
                f.region,
                f.label,
                str(f.needed_max),
                "?" if f.limit is None else str(f.limit),
                "?" if f.in_use is None else str(f.in_use),
                "?" if f.headroom is None else str(f.headroom),
                "SHORT" if f.short else ("no usage entry" if f.limit is None else "ok"),
            ]
        )
    sizes = [["region", "size", "offered", "restricted", "zones offered", "zones asked"]]
    for s in live.sizes:
        sizes.append(
            [
                s.region,
                s.vm_size,
                "yes" if s.offered else "no",
                ", ".join(s.restricted) or "no",
                ", ".join(s.zones_offered) or "—",
                ", ".join(s.zones_asked) or "any",
            ]
        )
    return fam, sizes


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def quota_text(demand: QuotaDemand | None, live: LiveResult | None) -> list[str]:
    if demand is None:
        return []
    out = ["", _TITLE]
    if demand.uses:
        out += _table(_rows(demand))
    else:
        out.append("  no GPU sizes")
    out += [f"  {n}" for n in _notes(demand)]
    if live is not None:
        out.append("")
        out.append(live.line[0].upper() + live.line[1:])
        if live.ran:
            fam, sizes = _live_rows(live)
            out += _table(fam)
            out += _table(sizes)
    return out


def _md_table(rows: list[list[str]]) -> list[str]:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    head, *body = rows
    return [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(cell(c) for c in row) + " |" for row in body),
    ]


def quota_markdown(demand: QuotaDemand | None, live: LiveResult | None) -> list[str]:
    if demand is None:
        return []
    out = ["", "#### GPU quota demand (vCPUs per region and quota family; spot counts against low-priority)", ""]
    out += _md_table(_rows(demand)) if demand.uses else ["No GPU sizes."]
    notes = _notes(demand)
    if notes:
        out += ["", *(f"- {n}" for n in notes)]
    if live is not None:
        out += ["", live.line[0].upper() + live.line[1:]]
        if live.ran:
            fam, sizes = _live_rows(live)
            out += ["", *_md_table(fam), "", *_md_table(sizes)]
    return out
