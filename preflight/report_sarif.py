"""The preflight report as SARIF 2.1.0, for code scanning: one rule per policy, one result per violation, located in
the program's sources where a line names the resource."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from preflight import exemptions as exemption_report
from preflight.analyzer.protocol import Violation
from preflight.cost import BUDGET_POLICY
from preflight.fleet_report import fleet_json
from preflight.model import RecordedResource
from preflight.quota_report import quota_sarif
from preflight.report import Report, budget_policy, detail
from rules.exemptions import Exemption

TOOL_NAME = "azure-gpu-platform-preflight"
TOOL_URI = "https://github.com/azure-gpu-platform/azure-gpu-platform#offline-preflight"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"mandatory": "error", "remediate": "warning", "advisory": "warning", "disabled": "none"}
_SEVERITY_SCORE = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "2.0"}


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
            **fleet_json(report.fleet),
        },
    }
    doc = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2) + "\n"
