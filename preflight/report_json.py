"""The preflight report as JSON: the issue's shape (stack, resources, violations, cost) plus context keys."""

from __future__ import annotations

from typing import Any

from preflight import exemptions as exemption_report
from preflight.fleet_report import fleet_json
from preflight.idle_cost import idle_json, working_hours_json
from preflight.quota_report import quota_json
from preflight.report import Report
from preflight.wire import mask_secrets


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
        **fleet_json(report.fleet),
        **exemption_report.json_section(report.exemptions, report.exempted, report.today),
    }
