"""The preflight report as Markdown, for a pull-request comment."""

from __future__ import annotations

from preflight import exemptions as exemption_report
from preflight.fleet_report import fleet_markdown
from preflight.idle_cost import idle_markdown, working_hours_text
from preflight.quota_report import quota_markdown
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


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\r", "").strip().replace("\n", "<br>")


def render_markdown(report: Report) -> str:
    by_urn = report.by_urn()
    n_mand = len(report.mandatory)
    n_other = len(report.violations) - n_mand
    icon = "❌" if report.exit_code else "✅"
    out = [
        f"### {icon} GPU preflight `{report.stack}`: {n_mand} mandatory, {n_other} advisory violation(s)",
        "",
        f"Program `{display_path(report.program_dir)}` · stack file `{display_path(report.stack_file)}` · "
        f"policy pack `{report.pack_name}` {report.pack_version} · {len(report.resources)} resources",
        "",
    ]
    if report.violations:
        out += ["| Level | Policy | Resource | Message | Fix |", "|---|---|---|---|---|"]
        for v in report.sorted_violations():
            resource = f"`{short(v.urn, by_urn)}`" if v.urn else "stack"
            fix = report.fix(v)
            out.append(
                f"| {v.enforcement_level} | `{v.policy_name}` | {resource} | {_md(detail(v))} | "
                f"{_md(fix) if fix and fix not in v.message else ''} |"
            )
        out.append("")
    else:
        out += ["No policy violations.", ""]
    out += exemption_report.markdown_lines(report.exemptions, report.exempted, report.today)
    rows = request_rows(report)
    if rows:
        out += ["#### What a pod requests", ""]
        out += [
            "| Pool | Request | Device plugin | Sharing | Node selector | Tolerations |",
            "|---|---|---|---|---|---|",
        ]
        out += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in rows]
        out.append("")
    c = report.cost
    out.append(f"#### GPU cost (indicative {c.currency}, VM only, {c.hours_per_month} h/month)")
    out.append("")
    if c.lines:
        out += ["| Resource | Role | Size | Nodes | $/hour | $/month |", "|---|---|---|---|---:|---:|"]
        for ln in c.lines:
            hourly = _range(ln.hourly_min, ln.hourly_max)
            monthly = _range(
                None if ln.hourly_min is None else ln.hourly_min * c.hours_per_month,
                None if ln.hourly_max is None else ln.hourly_max * c.hours_per_month,
            )
            out.append(
                f"| `{short(ln.urn, by_urn)}` | {ln.role} | `{ln.vm_size}` | {nodes_text(ln)} | {hourly} | {monthly} |"
            )
        total_h, total_m = _range(c.hourly_min, c.hourly_max), _range(c.monthly_min, c.monthly_max)
        out.append(f"| **Total** | | | | **{total_h}** | **{total_m}** |")
        notes = [ln for ln in c.priced_lines if ln.note]
        if notes:
            out.append("")
            out += [f"- `{short(ln.urn, by_urn)}` {ln.role}: {_md(ln.note or '')}" for ln in notes]
        unpriced = c.unpriced_lines
        if unpriced:
            out.append("")
            out.append("Not priced: " + "; ".join(f"`{ln.vm_size}` ({ln.note})" for ln in unpriced))
        out += idle_markdown(c, report.resources, lambda urn: short(urn, by_urn))
    hours = working_hours_text(report.working_hours, c, report.resources)
    if hours:
        out += ["", *hours]
    else:
        out.append("No GPU sizes.")
    if report.budget is not None:
        out += ["", f"Budget: {'**over**' if report.budget.over else 'within'} — {_md(report.budget.message)}"]
    out += quota_markdown(report.quota, report.live)
    out += fleet_markdown(report.fleet)
    out += ["", f"<details><summary>Resources ({len(report.resources)})</summary>", "", "```"]
    lines_by_urn = cost_lines_by_urn(c)
    out += [
        f"{prefix}{r.type}  {r.name}{gpu_note(r, lines_by_urn)}{pool_summary(r, report, lines_by_urn)}"
        for prefix, r in tree(report.resources)
    ]
    out += ["```", "", "</details>", ""]
    return "\n".join(out)


def _range(lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None:
        return "—"
    return money(lo) if abs(lo - hi) < 0.005 else f"{money(lo)}–{money(hi)}"
