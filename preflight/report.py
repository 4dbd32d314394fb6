"""The preflight's verdict and its four renderings: text (terminal), JSON, Markdown (pull-request comment), SARIF.

:class:`Report` carries everything a rendering needs; :func:`render` picks the format. Exit code: 1 when any violation
is mandatory, else 0 (errors that stop the preflight exit 2 before a report exists).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpu_catalog import clock
from preflight import exemptions as exemption_report
from preflight.analyzer.protocol import NotApplicable, PolicyInfo, Violation
from preflight.cost import (
    BUDGET_DESCRIPTION,
    BUDGET_PACK,
    BUDGET_POLICY,
    SPOT_NOTE,
    BudgetFinding,
    CostEstimate,
    CostLine,
)
from preflight.idle_cost import (
    WorkingHours,
    idle_json,
    idle_markdown,
    idle_text,
    working_hours_json,
    working_hours_text,
)
from preflight.metrics_view import exporter_text, pool_exporters
from preflight.model import RecordedResource
from preflight.quota_report import quota_json, quota_markdown, quota_sarif, quota_text
from preflight.wire import mask_secrets
from rules.exemptions import Exemption

ExemptedViolation = exemption_report.ExemptedViolation

if TYPE_CHECKING:
    from preflight.live_quota import LiveResult
    from preflight.quota import QuotaDemand

FORMATS: tuple[str, ...] = ("text", "json", "markdown", "sarif")
TOOL_NAME = "azure-gpu-platform-preflight"
TOOL_URI = "https://github.com/azure-gpu-platform/azure-gpu-platform#offline-preflight"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL_ORDER = {"mandatory": 0, "remediate": 1, "advisory": 2, "disabled": 3}
_SARIF_LEVEL = {"mandatory": "error", "remediate": "warning", "advisory": "warning", "disabled": "none"}
_SEVERITY_SCORE = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "2.0"}


@dataclass
class Report:
    stack: str
    project: str
    program_dir: Path
    stack_file: Path | None
    resources: list[RecordedResource]
    violations: list[Violation]
    policies: list[PolicyInfo]
    pack_name: str
    pack_version: str
    cost: CostEstimate
    budget: BudgetFinding | None = None
    warnings: list[str] = field(default_factory=list)
    policy_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    not_applicable: list[NotApplicable] = field(default_factory=list)
    """Policies that said they could not check a resource, with the reason (not violations)."""
    checked_on: str | None = None
    """The date the lifecycle checks used (ISO): today, or ``--today``."""
    scheduling: dict[str, dict[str, Any]] = field(default_factory=dict)
    """What a pod requests per pool (``gpuPools.<name>`` → the output contract's ``scheduling``), computed by the
    components from the node-stack model (rules/node_stack.py)."""
    quota: QuotaDemand | None = None
    """The offline vCPU demand per region and quota family (``preflight/quota.py``)."""
    live: LiveResult | None = None
    """The ``--live`` check's result (``None`` without ``--live``)."""
    exemptions: list[Exemption] = field(default_factory=list)
    """The stack's exemptions (``exemptions``), active, expiring and expired (preflight/exemptions.py)."""
    exempted: list[ExemptedViolation] = field(default_factory=list)
    """Violations an active exemption waives: shown in every format, never counted."""
    working_hours: WorkingHours | None = None
    """The stack's ``cluster.workingHours`` (shown with the idle cost; preflight/idle_cost.py)."""

    @property
    def today(self) -> date:
        return date.fromisoformat(self.checked_on) if self.checked_on else clock.today()

    @property
    def mandatory(self) -> list[Violation]:
        return [v for v in self.violations if v.enforcement_level == "mandatory"]

    @property
    def exit_code(self) -> int:
        return 1 if self.mandatory else 0

    def sorted_violations(self) -> list[Violation]:
        return sorted(
            self.violations, key=lambda v: (_LEVEL_ORDER.get(v.enforcement_level, 9), v.policy_name, v.urn, v.message)
        )

    def policy(self, name: str) -> PolicyInfo | None:
        return next((p for p in self.policies if p.name == name), None)

    def fix(self, v: Violation) -> str:
        p = self.policy(v.policy_name)
        return p.remediation_steps if p is not None else ""

    def by_urn(self) -> dict[str, RecordedResource]:
        return {r.urn: r for r in self.resources}


def budget_policy(level: str = "advisory") -> PolicyInfo:
    """The preflight's own policy (the pack cannot price a whole stack), so SARIF has a rule for it."""
    return PolicyInfo(
        name=BUDGET_POLICY,
        description=BUDGET_DESCRIPTION,
        enforcement_level=level,
        policy_type="stack",
        display_name="GPU budget",
        remediation_steps="Lower the bound the message names on the resource with the largest maximum (an AKS pool's "
        "maxCount, a Databricks cluster's autoscale.maxWorkers, a NAP pool's limits.gpus, a KAITO workspace's count), "
        "pick smaller GPU sizes, or raise the stack's budget.monthlyUsd.",
        tags=("gpu", "cost"),
    )


def budget_violation(finding: BudgetFinding, stack_urn: str) -> Violation:
    return Violation(
        policy_name=BUDGET_POLICY,
        policy_pack_name=BUDGET_PACK,
        enforcement_level=finding.budget.enforcement_level,
        urn=stack_urn,
        message=finding.message,
        description=BUDGET_DESCRIPTION,
    )


# --------------------------------------------------------------------------------------------------------------------
# helpers


def detail(v: Violation) -> str:
    """The violation's own words: the engine prefixes the policy's description, which the rule already carries."""
    message = v.message.strip()
    description = v.description.strip()
    if description and message.startswith(description):
        rest = message[len(description) :].strip()
        if rest:
            return rest
    return message or description or v.policy_name


def _display_path(path: Path | None) -> str:
    if path is None:
        return "(none)"
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _short(urn: str, by_urn: dict[str, RecordedResource]) -> str:
    r = by_urn.get(urn)
    if r is not None:
        return f"{r.type.split(':')[-1]} {r.name}"
    return urn.rsplit("::", 1)[-1] if urn else "(stack)"


def _money(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"${value:,.{digits}f}"


def _nodes(line: CostLine) -> str:
    if line.nodes_min is None or line.nodes_max is None:
        return "?"
    return str(line.nodes_min) if line.nodes_min == line.nodes_max else f"{line.nodes_min}–{line.nodes_max}"


def _tree(resources: list[RecordedResource]) -> list[tuple[str, RecordedResource]]:
    """(prefix, resource) rows of the parent/child tree, in registration order."""
    urns = {r.urn for r in resources}
    children: dict[str | None, list[RecordedResource]] = {}
    for r in resources:
        parent = r.parent if r.parent in urns else None
        children.setdefault(parent, []).append(r)
    rows: list[tuple[str, RecordedResource]] = []

    def walk(node: RecordedResource, prefix: str, last: bool, root: bool) -> None:
        rows.append((prefix if root else prefix + ("└─ " if last else "├─ "), node))
        kids = children.get(node.urn, [])
        inner = prefix if root else prefix + ("   " if last else "│  ")
        for i, kid in enumerate(kids):
            walk(kid, inner, i == len(kids) - 1, False)

    for r in children.get(None, []):
        walk(r, "", True, True)
    return rows


def _gpu_note(r: RecordedResource, lines_by_urn: dict[str, list[CostLine]]) -> str:
    lines = lines_by_urn.get(r.urn, [])
    return "  [" + ", ".join(f"{ln.vm_size} ×{_nodes(ln)}" for ln in lines) + "]" if lines else ""


_MIG_RESOURCE = "nvidia.com/mig-"
_POOL_LABEL = "azure-gpu-platform/pool"


def _labels(r: RecordedResource) -> Mapping[str, Any]:
    """The node labels a pool resource gives its nodes (an AKS AgentPool's ``nodeLabels``, a Karpenter NodePool's
    ``spec.template.metadata.labels``)."""
    labels = r.inputs.get("nodeLabels")
    if isinstance(labels, Mapping):
        return labels
    spec = r.inputs.get("spec")
    template = spec.get("template") if isinstance(spec, Mapping) else None
    meta = template.get("metadata") if isinstance(template, Mapping) else None
    found = meta.get("labels") if isinstance(meta, Mapping) else None
    return found if isinstance(found, Mapping) else {}


def _driver(r: RecordedResource, report: Report) -> str | None:
    """Who installs the NVIDIA driver on the pool's nodes: ``gpuProfile.driver`` of an AgentPool, ``spec.gpu.mode`` of
    the AKSNodeClass a NodePool references."""
    profile = r.inputs.get("gpuProfile")
    if isinstance(profile, Mapping) and profile.get("driver") is not None:
        return "AKS" if str(profile["driver"]) == "Install" else "not AKS (gpuProfile.driver None)"
    spec = r.inputs.get("spec")
    template = spec.get("template") if isinstance(spec, Mapping) else None
    inner = template.get("spec") if isinstance(template, Mapping) else None
    ref = inner.get("nodeClassRef") if isinstance(inner, Mapping) else None
    if isinstance(ref, Mapping):
        for other in report.resources:
            if other.type.endswith(":AKSNodeClass") and other.inputs.get("metadata", {}).get("name") == ref.get("name"):
                gpu = other.inputs.get("spec", {}).get("gpu") or {}
                mode = gpu.get("mode", "Driver") if isinstance(gpu, Mapping) else "Driver"
                return "AKS" if mode == "Driver" else f"not AKS (AKSNodeClass gpu.mode {mode})"
    return None


def pool_summary(r: RecordedResource, report: Report, lines_by_urn: dict[str, list[CostLine]]) -> str:
    """What the tree shows for a GPU pool: MIG profile, sharing (mode × replicas), spot, driver and device plugin —
    the pool's ``scheduling`` (output contract, :func:`request_rows`) and the pool resource's own inputs. Empty for
    any other resource."""
    pool = _labels(r).get(_POOL_LABEL)
    entry = next(
        (s for s in report.scheduling.values() if (s.get("nodeSelector") or {}).get(_POOL_LABEL) == pool), None
    )
    if pool is None or entry is None:
        return ""
    parts: list[str] = []
    resource = str(entry.get("resourceName") or "")
    profile = r.inputs.get("gpuInstanceProfile") or _labels(r).get("nvidia.com/mig.config")
    if resource.startswith(_MIG_RESOURCE):
        parts.append(f"MIG {resource.removeprefix(_MIG_RESOURCE)}")
    elif profile:
        parts.append(f"MIG {profile}")
    sharing = entry.get("sharing") or "none"
    parts.append(f"sharing {sharing} ×{entry.get('replicas')}" if sharing != "none" else "no sharing")
    spot = any(ln.note is not None and SPOT_NOTE in ln.note for ln in lines_by_urn.get(r.urn, []))
    parts.append("spot" if spot else "on-demand")
    driver = _driver(r, report)
    plugin = entry.get("devicePlugin") or "none"
    if driver is not None:
        parts.append(f"driver {'GPU operator, ' + driver if plugin == 'gpu-operator' and driver != 'AKS' else driver}")
    parts.append(f"device plugin {plugin}")
    return "  (" + " · ".join(parts) + ")"


def _lines_by_urn(cost: CostEstimate) -> dict[str, list[CostLine]]:
    out: dict[str, list[CostLine]] = {}
    for line in cost.lines:
        out.setdefault(line.urn, []).append(line)
    return out


# --------------------------------------------------------------------------------------------------------------------
# JSON


def to_json(report: Report) -> dict[str, Any]:
    """The issue's shape (stack, resources, violations, cost) plus context keys."""
    counts: dict[str, int] = {}
    for v in report.violations:
        counts[v.enforcement_level] = counts.get(v.enforcement_level, 0) + 1
    return {
        "stack": report.stack,
        "project": report.project,
        "programDir": str(report.program_dir),
        "stackFile": str(report.stack_file) if report.stack_file else None,
        "checkedOn": report.checked_on,
        "policyPack": {"name": report.pack_name, "version": report.pack_version},
        "resources": [
            {
                "urn": r.urn,
                "type": r.type,
                "name": r.name,
                "parent": r.parent,
                "inputs": mask_secrets(r.inputs),
                "custom": r.custom,
                "provider": r.provider,
                "dependencies": r.dependencies,
                "protect": r.protect,
            }
            for r in report.resources
        ],
        "violations": [
            {
                "policyName": v.policy_name,
                "policyPackName": v.policy_pack_name,
                "enforcementLevel": v.enforcement_level,
                "urn": v.urn,
                "message": v.message,
                "description": v.description,
                "severity": v.severity,
                "fix": report.fix(v),
            }
            for v in report.sorted_violations()
        ],
        "cost": {**report.cost.to_json(), "idle": idle_json(report.cost, report.resources)},
        "budget": (
            {
                "monthlyUsd": report.budget.budget.monthly_usd,
                "enforcementLevel": report.budget.budget.enforcement_level,
                "over": report.budget.over,
                "message": report.budget.message,
            }
            if report.budget
            else None
        ),
        "notApplicable": [
            {"policyName": n.policy_name, "urn": n.urn, "reason": n.reason} for n in report.not_applicable
        ],
        "summary": {
            "resources": len(report.resources),
            "violations": len(report.violations),
            "mandatory": counts.get("mandatory", 0),
            "advisory": counts.get("advisory", 0),
            "exitCode": report.exit_code,
        },
        "warnings": report.warnings,
        "scheduling": report.scheduling,
        "workingHours": working_hours_json(report.working_hours, report.cost, report.resources),
        **quota_json(report.quota, report.live),
        **exemption_report.json_section(report.exemptions, report.exempted, report.today),
    }


# --------------------------------------------------------------------------------------------------------------------
# Text


def _cost_rows(report: Report) -> list[list[str]]:
    by_urn = report.by_urn()
    hours = report.cost.hours_per_month
    rows = [["resource", "role", "size", "nodes", "$/h min", "$/h max", "$/month min", "$/month max"]]
    for ln in report.cost.lines:
        rows.append(
            [
                _short(ln.urn, by_urn),
                ln.role,
                ln.vm_size,
                _nodes(ln),
                _money(ln.hourly_min),
                _money(ln.hourly_max),
                _money(None if ln.hourly_min is None else ln.hourly_min * hours),
                _money(None if ln.hourly_max is None else ln.hourly_max * hours),
            ]
        )
    c = report.cost
    rows.append(
        [
            "total",
            "",
            "",
            "",
            _money(c.hourly_min),
            _money(c.hourly_max),
            _money(c.monthly_min),
            _money(c.monthly_max),
        ]
    )
    return rows


def _taint_text(t: Mapping[str, Any]) -> str:
    value = f"={t['value']}" if t.get("value") else ""
    return f"{t.get('key', '')}{value}:{t.get('effect', '')}" + (" (Exists)" if t.get("operator") == "Exists" else "")


def request_rows(report: Report) -> list[list[str]]:
    """One row per pool: pool, what a pod requests (resource × per node), device plugin, sharing, node selector,
    tolerations."""
    rows: list[list[str]] = []
    for pool, s in report.scheduling.items():
        sharing = s.get("sharing") or "none"
        shared = f"{sharing} ×{s.get('replicas')}" if sharing != "none" else "none"
        if s.get("mpsActiveThreadPercentage") is not None:
            shared += f" ({s['mpsActiveThreadPercentage']}% threads each)"
        per_node = s.get("allocatablePerNode")
        rows.append(
            [
                pool,
                f"{s.get('resourceName')} ×{per_node} per node",
                str(s.get("devicePlugin") or "none"),
                shared,
                ", ".join(f"{k}={v}" for k, v in (s.get("nodeSelector") or {}).items()),
                ", ".join(_taint_text(t) for t in s.get("tolerations") or []) or "none",
            ]
        )
    return rows


def render_text(report: Report) -> str:
    """The terminal report: header, resources, pod requests, violations and exemptions, cost and quota, result."""
    by_urn = report.by_urn()
    out: list[str] = []
    out.append(
        f"Preflight: stack {report.stack} · project {report.project} · program {_display_path(report.program_dir)}"
        f" · stack file {_display_path(report.stack_file)}"
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
    lines_by_urn = _lines_by_urn(report.cost)
    for prefix, r in _tree(report.resources):
        out.append(f"  {prefix}{r.type}  {r.name}{_gpu_note(r, lines_by_urn)}{pool_summary(r, report, lines_by_urn)}")
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
            out.append(f"  {mark} [{v.policy_name}] {_short(v.urn, by_urn)}")
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
            out.append(f"  · [{n.policy_name}] {_short(n.urn, by_urn)}: {n.reason}")
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
            out.append(f"  not priced: {ln.vm_size} ({_short(ln.urn, by_urn)}): {ln.note}")
        for ln in report.cost.priced_lines:
            if ln.note:
                out.append(f"  note: {_short(ln.urn, by_urn)} {ln.role}: {ln.note}")
        out += idle_text(report.cost, report.resources, lambda urn: _short(urn, by_urn))
    else:
        out.append("  no GPU sizes")
    out += [f"  {line}" for line in working_hours_text(report.working_hours, report.cost, report.resources)]
    if report.budget is not None:
        verdict = "OVER BUDGET" if report.budget.over else "within budget"
        out.append(f"  budget: {verdict} — {report.budget.message}")
    out.extend(quota_text(report.quota, report.live))
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


# --------------------------------------------------------------------------------------------------------------------
# Markdown


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
        f"Program `{_display_path(report.program_dir)}` · stack file `{_display_path(report.stack_file)}` · "
        f"policy pack `{report.pack_name}` {report.pack_version} · {len(report.resources)} resources",
        "",
    ]
    if report.violations:
        out += ["| Level | Policy | Resource | Message | Fix |", "|---|---|---|---|---|"]
        for v in report.sorted_violations():
            resource = f"`{_short(v.urn, by_urn)}`" if v.urn else "stack"
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
                f"| `{_short(ln.urn, by_urn)}` | {ln.role} | `{ln.vm_size}` | {_nodes(ln)} | {hourly} | {monthly} |"
            )
        total_h, total_m = _range(c.hourly_min, c.hourly_max), _range(c.monthly_min, c.monthly_max)
        out.append(f"| **Total** | | | | **{total_h}** | **{total_m}** |")
        notes = [ln for ln in c.priced_lines if ln.note]
        if notes:
            out.append("")
            out += [f"- `{_short(ln.urn, by_urn)}` {ln.role}: {_md(ln.note or '')}" for ln in notes]
        unpriced = c.unpriced_lines
        if unpriced:
            out.append("")
            out.append("Not priced: " + "; ".join(f"`{ln.vm_size}` ({ln.note})" for ln in unpriced))
        out += idle_markdown(c, report.resources, lambda urn: _short(urn, by_urn))
    hours = working_hours_text(report.working_hours, c, report.resources)
    if hours:
        out += ["", *hours]
    else:
        out.append("No GPU sizes.")
    if report.budget is not None:
        out += ["", f"Budget: {'**over**' if report.budget.over else 'within'} — {_md(report.budget.message)}"]
    out += quota_markdown(report.quota, report.live)
    out += ["", f"<details><summary>Resources ({len(report.resources)})</summary>", "", "```"]
    lines_by_urn = _lines_by_urn(c)
    out += [
        f"{prefix}{r.type}  {r.name}{_gpu_note(r, lines_by_urn)}{pool_summary(r, report, lines_by_urn)}"
        for prefix, r in _tree(report.resources)
    ]
    out += ["```", "", "</details>", ""]
    return "\n".join(out)


def _range(lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None:
        return "—"
    return _money(lo) if abs(lo - hi) < 0.005 else f"{_money(lo)}–{_money(hi)}"


# --------------------------------------------------------------------------------------------------------------------
# SARIF 2.1.0


def _rel_uri(path: Path, root: Path) -> tuple[str, str | None]:
    """(uri, uriBaseId): relative to ``root`` (%SRCROOT%) when inside it, else an absolute file URI."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix(), "%SRCROOT%"
    except ValueError:
        return path.resolve().as_uri(), None


def _find_line(path: Path, needles: Iterable[str]) -> int | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    lowered = [n.lower() for n in needles if n]
    for needle in lowered:
        for i, text in enumerate(lines, start=1):
            if needle in text.lower():
                return i
    return None


def _program_files(program_dir: Path, limit: int = 200) -> list[Path]:
    files: list[Path] = []
    for base, dirs, names in os.walk(program_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "tests", "node_modules"))
        files.extend(Path(base) / n for n in sorted(names) if n.endswith(".py"))
        if len(files) >= limit:
            break
    main = program_dir / "__main__.py"
    return ([main] if main in files else []) + [f for f in files if f != main]


def _needles(v: Violation, r: RecordedResource | None) -> list[str]:
    """Strings that tie a violation to a source line: the resource's string inputs that the message quotes."""
    if r is None:
        return []
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and len(value) >= 4 and value.lower() in v.message.lower():
            found.append(value)

    walk(r.inputs)
    return sorted(set(found), key=len, reverse=True)


def _location(report: Report, v: Violation, root: Path, files: list[Path]) -> dict[str, Any]:
    r = report.by_urn().get(v.urn)
    needles = [f"{report.project}:budget:"] if v.policy_name == BUDGET_POLICY else _needles(v, r)
    target: Path | None = None
    line: int | None = None
    candidates = ([report.stack_file] if report.stack_file else []) + files
    for path in candidates:
        line = _find_line(path, needles) if needles else None
        if line is not None:
            target = path
            break
    if target is None:
        target = report.stack_file or (report.program_dir / "__main__.py")
        line = 1
    uri, base = _rel_uri(target, root)
    artifact: dict[str, Any] = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    loc: dict[str, Any] = {"physicalLocation": {"artifactLocation": artifact, "region": {"startLine": line}}}
    if v.urn:
        loc["logicalLocations"] = [
            {"fullyQualifiedName": v.urn, "name": r.name if r else v.urn.rsplit("::", 1)[-1], "kind": "resource"}
        ]
    return loc


def _sarif_rules(report: Report) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """One SARIF rule per policy of the pack (plus ``gpu-budget`` when the pack does not list it), at the stack's
    enforcement level, and each rule's index by policy name."""
    policies = list(report.policies)
    if not any(p.name == BUDGET_POLICY for p in policies):
        level = report.budget.budget.enforcement_level if report.budget else "advisory"
        policies.append(budget_policy(level))
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for p in policies:
        index[p.name] = len(rules)
        level = str(report.policy_config.get(p.name, {}).get("enforcementLevel", p.enforcement_level))
        props: dict[str, Any] = {"tags": list(p.tags), "enforcementLevel": level}
        if p.severity in _SEVERITY_SCORE:
            props["security-severity"] = _SEVERITY_SCORE[p.severity]
        rule: dict[str, Any] = {
            "id": p.name,
            "name": "".join(part.capitalize() for part in p.name.split("-")),
            "shortDescription": {"text": (p.display_name or p.description.split(" — ")[0] or p.name)[:1024]},
            "fullDescription": {"text": p.description or p.name},
            "defaultConfiguration": {"level": _SARIF_LEVEL.get(level, "warning")},
            "properties": props,
        }
        if p.remediation_steps:
            rule["help"] = {"text": p.remediation_steps}
        if p.url:
            rule["helpUri"] = p.url
        rules.append(rule)
    return rules, index


def _sarif_results(
    report: Report, rules: list[dict[str, Any]], index: dict[str, int], src_root: Path
) -> list[dict[str, Any]]:
    """One SARIF result per violation, then per exempted violation (suppressed); a violation of a policy the pack
    did not list adds its rule to ``rules`` and ``index``."""
    files = _program_files(report.program_dir)
    results: list[dict[str, Any]] = []
    # Exempted violations are results too, suppressed (kind external, justification = the exemption's reason): code
    # scanning shows them as suppressed, not as fixed.
    exempted: list[tuple[Violation, Exemption | None]] = [(x.violation, x.exemption) for x in report.exempted]
    for v, exemption in [(v, None) for v in report.sorted_violations()] + exempted:
        if v.policy_name not in index:  # a violation from a policy the pack did not list: still one rule each
            index[v.policy_name] = len(rules)
            rules.append(
                {
                    "id": v.policy_name,
                    "shortDescription": {"text": v.policy_name},
                    "fullDescription": {"text": v.description or v.policy_name},
                    "defaultConfiguration": {"level": _SARIF_LEVEL.get(v.enforcement_level, "warning")},
                }
            )
        results.append(
            {
                "ruleId": v.policy_name,
                "ruleIndex": index[v.policy_name],
                "level": _SARIF_LEVEL.get(v.enforcement_level, "warning"),
                "message": {"text": detail(v)},
                "locations": [_location(report, v, src_root, files)],
                "partialFingerprints": {"preflightUrnPolicy/v1": f"{v.policy_name}:{v.urn}"},
                "properties": {
                    "enforcementLevel": v.enforcement_level,
                    "policyPackName": v.policy_pack_name,
                    "urn": v.urn,
                    "stack": report.stack,
                },
            }
        )
        if exemption is not None:
            results[-1]["suppressions"] = [exemption_report.sarif_suppression(exemption, report.today)]
    return results


def render_sarif(report: Report, *, root: Path | None = None) -> str:
    """SARIF 2.1.0: one rule per policy (the pack's policies and ``gpu-budget``), one result per violation.

    Locations point at the line of the stack file (else the program's source) that mentions the offending value
    (e.g. the VM size), so code scanning annotates the pull request where the fix goes.
    """
    src_root = root or Path.cwd()
    rules, index = _sarif_rules(report)
    results = _sarif_results(report, rules, index, src_root)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "informationUri": TOOL_URI,
                "version": report.pack_version or "0",
                "rules": rules,
            }
        },
        "automationDetails": {"id": f"preflight/{report.stack}/"},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": src_root.resolve().as_uri() + "/"}},
        "invocations": [{"executionSuccessful": True, "exitCode": report.exit_code}],
        "results": results,
        "properties": {
            "project": report.project,
            "stack": report.stack,
            "policyPack": report.pack_name,
            **quota_sarif(report.quota, report.live),
        },
    }
    doc = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2) + "\n"


def render(report: Report, fmt: str) -> str:
    if fmt == "text":
        return render_text(report)
    if fmt == "json":
        return json.dumps(to_json(report), indent=2) + "\n"
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "sarif":
        return render_sarif(report)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
