"""The preflight's verdict, :class:`Report`, and what every rendering of it reads (the resource tree, a pool's
summary, what a pod requests, a violation's own words).

The four renderings: :mod:`preflight.report_text` (terminal), :mod:`preflight.report_json`,
:mod:`preflight.report_markdown` (pull-request comment), :mod:`preflight.report_sarif`; :func:`preflight.render.render`
picks one. Exit code: 1 when any violation is mandatory, else 0 (errors that stop the preflight exit 2 before a report
exists).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
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
from preflight.fleet_report import FleetSummary, fleet_summary
from preflight.idle_cost import WorkingHours
from preflight.model import RecordedResource
from rules.exemptions import Exemption

if TYPE_CHECKING:
    from preflight.live_quota import LiveResult
    from preflight.quota import QuotaDemand

_LEVEL_ORDER = {"mandatory": 0, "remediate": 1, "advisory": 2, "disabled": 3}


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
    exempted: list[exemption_report.ExemptedViolation] = field(default_factory=list)
    """Violations an active exemption waives: shown in every format, never counted."""
    working_hours: WorkingHours | None = None
    """The stack's ``cluster.workingHours`` (shown with the idle cost; preflight/idle_cost.py)."""

    @cached_property
    def fleet(self) -> FleetSummary | None:
        """The figures split by fleet member (``preflight/fleet_report.py``); ``None`` for a stack without a fleet."""
        return fleet_summary(self.resources, self.cost, self.quota)

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


def detail(v: Violation) -> str:
    """The violation's own words: the engine prefixes the policy's description, which the rule already carries."""
    message = v.message.strip()
    description = v.description.strip()
    if description and message.startswith(description):
        rest = message[len(description) :].strip()
        if rest:
            return rest
    return message or description or v.policy_name


def display_path(path: Path | None) -> str:
    if path is None:
        return "(none)"
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def short(urn: str, by_urn: dict[str, RecordedResource]) -> str:
    r = by_urn.get(urn)
    if r is not None:
        return f"{r.type.split(':')[-1]} {r.name}"
    return urn.rsplit("::", 1)[-1] if urn else "(stack)"


def money(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"${value:,.{digits}f}"


def nodes_text(line: CostLine) -> str:
    if line.nodes_min is None or line.nodes_max is None:
        return "?"
    return str(line.nodes_min) if line.nodes_min == line.nodes_max else f"{line.nodes_min}–{line.nodes_max}"


def tree(resources: list[RecordedResource]) -> list[tuple[str, RecordedResource]]:
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


def gpu_note(r: RecordedResource, lines_by_urn: dict[str, list[CostLine]]) -> str:
    lines = lines_by_urn.get(r.urn, [])
    return "  [" + ", ".join(f"{ln.vm_size} ×{nodes_text(ln)}" for ln in lines) + "]" if lines else ""


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


def cost_lines_by_urn(cost: CostEstimate) -> dict[str, list[CostLine]]:
    out: dict[str, list[CostLine]] = {}
    for line in cost.lines:
        out.setdefault(line.urn, []).append(line)
    return out


def taint_text(t: Mapping[str, Any]) -> str:
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
                ", ".join(taint_text(t) for t in s.get("tolerations") or []) or "none",
            ]
        )
    return rows
