"""The preflight report as text, for a terminal."""

from __future__ import annotations

from preflight import exemptions as exemption_report
from preflight.analyzer.protocol import Violation
from preflight.fleet_report import fleet_text
from preflight.idle_cost import idle_text, working_hours_text
from preflight.metrics_view import exporter_text, pool_exporters
from preflight.model import RecordedResource
from preflight.quota_report import quota_text
from preflight.report import (
    Report,
    cost_lines_by_urn,
    detail,
    display_path,
    gpu_note,
    money,
    nodes_text,
    pool_summary,
    request_rows,
    short,
    tree,
)


def _cost_rows(report: Report) -> list[list[str]]:
    by_urn = report.by_urn()
    hours = report.cost.hours_per_month
    rows = [["resource", "role", "size", "nodes", "$/h min", "$/h max", "$/month min", "$/month max"]]
    for ln in report.cost.lines:
        rows.append(
            [
                short(ln.urn, by_urn),
                ln.role,
                ln.vm_size,
                nodes_text(ln),
                money(ln.hourly_min),
                money(ln.hourly_max),
                money(None if ln.hourly_min is None else ln.hourly_min * hours),
                money(None if ln.hourly_max is None else ln.hourly_max * hours),
            ]
        )
    c = report.cost
    rows.append(
        [
            "total",
            "",
            "",
            "",
            money(c.hourly_min),
            money(c.hourly_max),
            money(c.monthly_min),
            money(c.monthly_max),
        ]
    )
    return rows


def render_text(report: Report) -> str:
    """The terminal report: header, resources, pod requests, violations and exemptions, cost and quota, result."""
    by_urn = report.by_urn()
    out: list[str] = []
    out.append(
        f"Preflight: stack {report.stack} · project {report.project} · program {display_path(report.program_dir)}"
        f" · stack file {display_path(report.stack_file)}"
        + (f" · dates checked as of {report.checked_on}" if report.checked_on else "")
    )
    out.append(f"Policy pack: {report.pack_name} {report.pack_version} ({len(report.policies)} policies)")
    out.append("")
    out += _text_resources(report)
    out += _text_requests(report)
    out += _text_violations(report, by_urn)
    out += _text_cost(report, by_urn)
    out += _text_result(report)
    return "\n".join(out) + "\n"


def _text_resources(report: Report) -> list[str]:
    """The resource tree, each resource with its GPU note and pool summary."""
    out = [f"Resources ({len(report.resources)})"]
    lines_by_urn = cost_lines_by_urn(report.cost)
    for prefix, r in tree(report.resources):
        out.append(f"  {prefix}{r.type}  {r.name}{gpu_note(r, lines_by_urn)}{pool_summary(r, report, lines_by_urn)}")
    out.append("")
    return out


def _text_requests(report: Report) -> list[str]:
    """What a pod requests on each GPU pool (the output contract), with the pool's GPU metrics; none without rows."""
    out: list[str] = []
    rows = request_rows(report)
    if rows:
        out.append("What a pod requests (output contract, from each node's software stack)")
        exporters = pool_exporters(report.resources, [row[0].split(".", 1)[-1] for row in rows])
        for pool, request, plugin, sharing, selector, tolerations in rows:
            out.append(f"  {pool}: {request} · device plugin {plugin} · sharing {sharing}")
            out.append(f"      nodeSelector {selector} · tolerations {tolerations}")
            name = pool.split(".", 1)[-1]
            if name in exporters:
                out.append(f"      GPU metrics: {exporter_text(exporters[name])}")
        out.append("")
    return out


def _text_violations(report: Report, by_urn: dict[str, RecordedResource]) -> list[str]:
    """The violations by enforcement level, then the exemptions and the not-applicable results."""
    out: list[str] = []
    groups: dict[str, list[Violation]] = {}
    for v in report.sorted_violations():
        groups.setdefault(v.enforcement_level, []).append(v)
    if not report.violations:
        out.append("Violations: none")
    for level, items in groups.items():
        mark = {"mandatory": "✗", "advisory": "!"}.get(level, "·")
        out.append(f"{level.capitalize()} violations ({len(items)})")
        for v in items:
            out.append(f"  {mark} [{v.policy_name}] {short(v.urn, by_urn)}")
            if v.urn:
                out.append(f"      urn: {v.urn}")
            for i, text in enumerate(detail(v).splitlines()):
                out.append(("      " if i else "      message: ") + text)
            if v.description and detail(v) != v.description.strip():
                out.append(f"      policy: {v.description.strip()}")
            fix = report.fix(v)
            if fix and fix not in v.message:
                out.append(f"      fix: {fix}")
        out.append("")
    if report.exemptions and not report.violations:
        out.append("")  # after "Violations: none"
    out += exemption_report.text_lines(report.exemptions, report.exempted, report.today)
    if report.not_applicable:
        out.append(f"Not applicable ({len(report.not_applicable)}): policies that could not check a resource")
        for n in report.not_applicable:
            out.append(f"  · [{n.policy_name}] {short(n.urn, by_urn)}: {n.reason}")
        out.append("")
    return out


def _text_cost(report: Report, by_urn: dict[str, RecordedResource]) -> list[str]:
    """The GPU cost table with its unpriced lines, notes and idle cost, working hours, budget and quota."""
    out = [f"GPU cost — indicative {report.cost.currency} prices, VM only, {report.cost.hours_per_month} h/month"]
    if report.cost.lines:
        rows = _cost_rows(report)
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for n, row in enumerate(rows):
            if n == len(rows) - 1:
                out.append("  " + "  ".join("-" * w for w in widths))
            cells = [
                cell.ljust(w) if i < 4 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            ]
            out.append("  " + "  ".join(cells).rstrip())
        for ln in report.cost.unpriced_lines:
            out.append(f"  not priced: {ln.vm_size} ({short(ln.urn, by_urn)}): {ln.note}")
        for ln in report.cost.priced_lines:
            if ln.note:
                out.append(f"  note: {short(ln.urn, by_urn)} {ln.role}: {ln.note}")
        out += idle_text(report.cost, report.resources, lambda urn: short(urn, by_urn))
    else:
        out.append("  no GPU sizes")
    out += [f"  {line}" for line in working_hours_text(report.working_hours, report.cost, report.resources)]
    if report.budget is not None:
        verdict = "OVER BUDGET" if report.budget.over else "within budget"
        out.append(f"  budget: {verdict} — {report.budget.message}")
    out.extend(quota_text(report.quota, report.live))
    out.extend(fleet_text(report.fleet))
    return out


def _text_result(report: Report) -> list[str]:
    """The warnings, then the result line (FAIL with the exit code when a mandatory violation is found)."""
    out: list[str] = []
    if report.warnings:
        out.append("")
        out.append("Warnings")
        out.extend(f"  - {w}" for w in report.warnings)
    out.append("")
    n_mand = len(report.mandatory)
    n_other = len(report.violations) - n_mand
    if report.exit_code:
        out.append(f"Result: FAIL — {n_mand} mandatory, {n_other} other violation(s) (exit 1)")
    else:
        out.append(f"Result: PASS — no mandatory violation, {n_other} advisory violation(s) (exit 0)")
    return out
