"""Check resource inputs against the recorded upstream contracts in ``conformance/facts/``.

The facts files use this project's own compact format:

* ``sources``: id → where a fact was read (repository, path, tag and/or commit, date read, what was read there).
* ``definitions``: reusable schema nodes, referenced with ``{"ref": "<id>"}`` or merged with ``"extends": [...]``.
* ``types``: per Pulumi type token (``match`` is a regex, so versioned tokens such as
  ``azure-native:containerservice/v20250901:AgentPool`` match too) the ``schema`` of its inputs and the ids of the
  cross-field ``rules`` that apply.
* ``documents``: formats embedded in string fields (the device plugin's YAML config), checked where a schema node
  says ``"embedded": "<document id>"``.
* ``charts``: Helm chart values per chart name, checked for a ``kubernetes:helm.sh/v3:Release`` field of type
  ``chartValues``.
* ``rules``: id → description and source of a cross-field rule; the rule itself is a function in this module.
* ``skip``: type-token regexes that are not checked at all (this project's component resources).

A schema node has a ``type`` (``string``, ``boolean``, ``integer``, ``number``, ``object`` with ``fields``, ``map``
with ``values`` and optional ``keyPattern``, ``array`` with ``items``, ``any``, ``chartValues``; a list allows
several) and optional ``enum``, ``pattern``, ``minLength``/``maxLength``, ``minimum``/``maximum``,
``minItems``/``maxItems``, ``required``, ``open`` (an object that accepts unlisted keys), ``sdk`` (a Pulumi SDK
input, not part of the upstream body), ``armId`` (the REST spec's ``format: arm-id`` with the resource types of its
``x-ms-arm-id-details``: the value is the id of a resource of one of them; with ``enum``, one of those values or such
an id), ``source`` and ``note``.

Enums are compared exactly as upstream spells them (ARM treats most enum strings case-insensitively, but Pulumi diffs
compare them exactly; the policy pack reads them as ARM does). Fields of a covered type that the facts do not list are
failures; types no facts file covers are reported as ``not-covered`` with severity ``info``. Values unknown during a
preview are reported as ``unknown-value`` (``info``) and not checked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from conformance.contracts import SCHEMA_KEYS, SCHEMA_TYPES, Facts, load_facts
from conformance.cross_rules import RULES, chart_name, run_rule
from conformance.schema_walk import ERROR, INFO, Context, Finding, join, types_of, unwrap


def validate_facts(facts: Facts | None = None) -> list[str]:
    """Problems in the facts themselves: unknown source/definition/document ids, malformed schema nodes, bad regexes,
    rules declared without an implementation here (or implemented but never declared)."""
    facts = facts or load_facts()
    problems = list(facts.problems)

    def need_source(sid: str, where: str) -> None:
        if sid and sid not in facts.sources:
            problems.append(f"{where}: unknown source {sid!r}")

    def walk(node: Any, where: str) -> None:
        if not isinstance(node, Mapping):
            problems.append(f"{where}: schema node is not an object")
            return
        unknown = set(node) - SCHEMA_KEYS
        if unknown:
            problems.append(f"{where}: unknown schema keys {sorted(unknown)}")
        if "ref" in node and node["ref"] not in facts.definitions:
            problems.append(f"{where}: unknown definition {node['ref']!r}")
        for ref in node.get("extends", []):
            if ref not in facts.definitions:
                problems.append(f"{where}: unknown definition {ref!r}")
        types = node.get("type", "any")
        for t in types if isinstance(types, list) else [types]:
            if t not in SCHEMA_TYPES:
                problems.append(f"{where}: unknown type {t!r}")
        for key in ("pattern", "keyPattern"):
            if key in node:
                try:
                    re.compile(node[key])
                except re.error as exc:
                    problems.append(f"{where}: bad {key}: {exc}")
        arm = node.get("armId", ["Namespace/type"])
        if not (isinstance(arm, list) and arm and all(isinstance(t, str) and t.count("/") >= 1 for t in arm)):
            problems.append(f"{where}: armId is a list of resource types (Microsoft.Network/virtualNetworks/subnets)")
        if "embedded" in node and node["embedded"] not in facts.documents:
            problems.append(f"{where}: unknown document {node['embedded']!r}")
        need_source(node.get("source", ""), where)
        for name, child in node.get("fields", {}).items():
            walk(child, f"{where}.{name}")
        for key in ("values", "items"):
            if key in node:
                walk(node[key], f"{where}[{key}]")

    for did, node in facts.definitions.items():
        walk(node, f"definition {did}")
    for t in facts.types:
        need_source(t.source, f"type {t.token}")
        walk(t.schema, f"type {t.token}")
        for rid in t.rules:
            if rid not in facts.rules:
                problems.append(f"type {t.token}: undeclared rule {rid!r}")
    for d in facts.documents.values():
        need_source(d.source, f"document {d.id}")
        walk(d.schema, f"document {d.id}")
        for rid in d.rules:
            if rid not in facts.rules:
                problems.append(f"document {d.id}: undeclared rule {rid!r}")
    for c in facts.charts.values():
        need_source(c.source, f"chart {c.name}")
        need_source(c.repository_source, f"chart {c.name}")
        walk(c.values, f"chart {c.name}")
    for r in facts.rules.values():
        need_source(r.source, f"rule {r.id}")
        if not r.source:
            problems.append(f"rule {r.id}: no source")
        if r.id not in RULES:
            problems.append(f"rule {r.id}: declared in the facts but not implemented in conformance/cross_rules.py")
    for rid in RULES:
        if rid not in facts.rules:
            problems.append(f"rule {rid}: implemented but declared in no facts file")
    for s in facts.sources.values():
        if not s.repository or not s.path:
            problems.append(f"source {s.id}: needs repository and path")
    return problems


def check_resource(
    type_token: str, inputs: Mapping[str, Any], *, name: str = "", facts: Facts | None = None
) -> list[Finding]:
    """Findings for one resource's inputs (engine form: camelCase, numbers as floats, secrets unwrapped or not).

    A skipped type (this project's components) has none; a type no facts file covers has one ``not-covered``
    finding of severity ``info``.
    """
    facts = facts or load_facts()
    if facts.skipped(type_token):
        return []
    type_facts = facts.type_for(type_token)
    ctx = Context(facts, type_token, name, inputs, run_rule)
    if type_facts is None:
        ctx.add("", "not-covered", f"no facts file covers {type_token}: not checked", "", INFO)
        return ctx.findings
    plain = unwrap(inputs)
    if not isinstance(plain, Mapping):
        ctx.add("", "type", "inputs are not an object", type_facts.source)
        return ctx.findings
    ctx.inputs = plain
    if "chartValues" in json.dumps(type_facts.schema):
        ctx.chart_name = chart_name(plain.get("chart"))
        ctx.chart = facts.charts.get(ctx.chart_name)
    ctx.check(type_facts.schema, plain, "", type_facts.source, top=True)
    for rid in type_facts.rules:
        run_rule(ctx, rid, plain, "")
    return ctx.findings


def _record_fields(record: Any) -> tuple[str, str, Mapping[str, Any]]:
    if isinstance(record, Mapping):
        return str(record.get("type", "")), str(record.get("name", "")), record.get("inputs") or {}
    return str(record.type), str(getattr(record, "name", "")), getattr(record, "inputs", None) or {}


def check_resources(records: Iterable[Any], *, facts: Facts | None = None) -> list[Finding]:
    """Findings for many resources: objects with ``type``, ``name`` and ``inputs`` (e.g. the test harness's
    records) or mappings with those keys."""
    facts = facts or load_facts()
    out: list[Finding] = []
    for record in records:
        type_token, name, inputs = _record_fields(record)
        out.extend(check_resource(type_token, inputs, name=name, facts=facts))
    return out


def failures(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that are violations (severity ``error``)."""
    return [f for f in findings if f.severity == ERROR]


def missing_value_paths(chart: str, values_yaml: str, *, facts: Facts | None = None) -> list[str]:
    """Value paths the facts allow for ``chart`` that a chart's ``values.yaml`` text does not define.

    Use it when the pinned chart version moves, on the new tag's file, e.g.
    ``git show v26.7.0:deployments/gpu-operator/values.yaml``; every path it returns must leave the facts (or be
    re-read from the chart's templates) before the facts' version is raised.
    """
    facts = facts or load_facts()
    defined = yaml.safe_load(values_yaml) or {}
    missing: list[str] = []

    def walk(node: Mapping[str, Any], data: Any, path: str) -> None:
        for key, child in facts.resolve(node).get("fields", {}).items():
            child_path = join(path, key)
            if not isinstance(data, Mapping) or key not in data:
                missing.append(child_path)
                continue
            resolved = facts.resolve(child)
            if "object" in types_of(resolved):
                walk(resolved, data[key], child_path)

    walk(facts.charts[chart].values, defined, "")
    return missing
