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
input, not part of the upstream body), ``source`` and ``note``.

Enums are compared exactly as upstream spells them (ARM treats most enum strings case-insensitively, but Pulumi diffs
compare them exactly; the policy pack reads them as ARM does). Fields of a covered type that the facts do not list are
failures; types no facts file covers are reported as ``not-covered`` with severity ``info``. Values unknown during a
preview are reported as ``unknown-value`` (``info``) and not checked.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from policies._resources import agent_pools
from preflight.wire import SECRET_SIG, SIG_KEY, UNKNOWN
from rules import aks as rules_aks
from rules import databricks as rules_databricks
from rules.hardening import network_policy

FACTS_DIR = Path(__file__).resolve().parent / "facts"

ERROR = "error"
INFO = "info"

_SCHEMA_TYPES = {"string", "boolean", "integer", "number", "object", "map", "array", "any", "chartValues"}
_SCHEMA_KEYS = {
    "type",
    "fields",
    "values",
    "keyPattern",
    "items",
    "enum",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "required",
    "open",
    "sdk",
    "source",
    "note",
    "ref",
    "extends",
    "embedded",
}


@dataclass(frozen=True)
class Finding:
    """One problem (or, with severity ``info``, one thing that could not be checked) in one resource."""

    path: str
    """Field path in the inputs, e.g. ``agentPoolProfiles[0].osSKU`` or ``values.migManager.enabeld``."""
    rule: str
    """``unknown-field``, ``enum``, ``pattern``, ``required``, ``type``, ``length``, ``range``, ``items``,
    ``yaml``, a cross-field rule id (``device-plugin.no-mixed-mig-with-mps``), or, with severity ``info``,
    ``not-covered`` / ``unknown-value``."""
    message: str
    """What is wrong, what is allowed, and the source."""
    source: str
    """Where the violated fact was read (repository, path, tag/commit)."""
    type: str = ""
    name: str = ""
    severity: str = ERROR

    def __str__(self) -> str:
        where = f"{self.type} {self.name}".strip()
        prefix = f"{where}: " if where else ""
        return f"{prefix}{self.path or '<resource>'}: [{self.rule}] {self.message}"


@dataclass(frozen=True)
class Source:
    id: str
    repository: str
    path: str
    ref: str

    def cite(self) -> str:
        return f"{self.repository} {self.path} @ {self.ref}"


@dataclass(frozen=True)
class TypeFacts:
    token: str
    pattern: re.Pattern[str]
    schema: dict[str, Any]
    rules: tuple[str, ...]
    source: str
    contract: str

    @property
    def wildcard(self) -> bool:
        return "*" in self.token


@dataclass(frozen=True)
class DocumentFacts:
    id: str
    format: str
    schema: dict[str, Any]
    rules: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class ChartFacts:
    name: str
    version: str
    values: dict[str, Any]
    source: str
    repositories: tuple[str, ...]
    repository_source: str


@dataclass(frozen=True)
class RuleFacts:
    id: str
    description: str
    source: str


@dataclass
class Facts:
    """Every facts file merged (ids are global: a definition, source or rule id names one thing)."""

    sources: dict[str, Source] = field(default_factory=dict)
    definitions: dict[str, dict[str, Any]] = field(default_factory=dict)
    types: list[TypeFacts] = field(default_factory=list)
    documents: dict[str, DocumentFacts] = field(default_factory=dict)
    charts: dict[str, ChartFacts] = field(default_factory=dict)
    rules: dict[str, RuleFacts] = field(default_factory=dict)
    skip: list[tuple[re.Pattern[str], str]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Duplicate ids found while merging (see :func:`validate_facts` for the rest)."""

    def cite(self, source_id: str) -> str:
        source = self.sources.get(source_id)
        return source.cite() if source is not None else f"<unknown source {source_id!r}>"

    def type_for(self, type_token: str) -> TypeFacts | None:
        """Exact token first, then specific regexes, then wildcard entries (``pulumi:providers:*``)."""
        for facts in self.types:
            if facts.token == type_token:
                return facts
        for wildcard in (False, True):
            for facts in self.types:
                if facts.wildcard == wildcard and facts.pattern.search(type_token):
                    return facts
        return None

    def skipped(self, type_token: str) -> bool:
        return any(pattern.search(type_token) for pattern, _ in self.skip)

    def resolve(self, node: Mapping[str, Any]) -> dict[str, Any]:
        """A schema node with ``ref`` replaced by its definition and ``extends`` fields merged in."""
        out: dict[str, Any]
        if "ref" in node:
            base = self.resolve(self.definitions[node["ref"]])
            out = {**base, **{k: v for k, v in node.items() if k != "ref"}}
        else:
            out = dict(node)
        if "extends" in out:
            fields: dict[str, Any] = {}
            source = out.get("source")
            for ref in out["extends"]:
                base = self.resolve(self.definitions[ref])
                fields.update(base.get("fields", {}))
                source = source or base.get("source")
            fields.update(out.get("fields", {}))
            out = {**{k: v for k, v in out.items() if k != "extends"}, "fields": fields, "type": "object"}
            if source:
                out["source"] = source
        return out


def _source_of(raw: Mapping[str, Any], source_id: str) -> Source:
    ref_parts = [str(raw[k]) for k in ("tag", "ref") if raw.get(k)]
    if raw.get("commit"):
        ref_parts.append(str(raw["commit"])[:12])
    return Source(
        id=source_id,
        repository=str(raw.get("repository", "")),
        path=str(raw.get("path", "")),
        ref=", ".join(ref_parts) or "unversioned",
    )


def load_facts(directory: Path | str | None = None) -> Facts:
    """Read and merge every ``*.json`` facts file (cached for the default directory)."""
    if directory is None:
        return _default_facts()
    return _load(Path(directory))


@lru_cache(maxsize=1)
def _default_facts() -> Facts:
    return _load(FACTS_DIR)


def _load(directory: Path) -> Facts:
    facts = Facts()
    for path in sorted(directory.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        contract = str(doc.get("contract", path.stem))
        facts.files.append(path.name)

        def put(table: dict[str, Any], key: str, value: Any, kind: str, file: str = path.name) -> None:
            if key in table:
                facts.problems.append(f"{file}: duplicate {kind} id {key!r}")
            table[key] = value

        for sid, raw in doc.get("sources", {}).items():
            put(facts.sources, sid, _source_of(raw, sid), "source")
        for did, node in doc.get("definitions", {}).items():
            put(facts.definitions, did, node, "definition")
        for rid, raw in doc.get("rules", {}).items():
            put(facts.rules, rid, RuleFacts(rid, str(raw.get("description", "")), str(raw.get("source", ""))), "rule")
        for docid, raw in doc.get("documents", {}).items():
            document = DocumentFacts(
                id=docid,
                format=str(raw.get("format", "yaml")),
                schema=raw["schema"],
                rules=tuple(raw.get("rules", ())),
                source=str(raw.get("source", "")),
            )
            put(facts.documents, docid, document, "document")
        for name, raw in doc.get("charts", {}).items():
            chart = ChartFacts(
                name=name,
                version=str(raw["version"]),
                values=raw["values"],
                source=str(raw.get("source", "")),
                repositories=tuple(raw.get("repositories", ())),
                repository_source=str(raw.get("repositorySource", raw.get("source", ""))),
            )
            put(facts.charts, name, chart, "chart")
        for raw in doc.get("types", []):
            facts.types.append(
                TypeFacts(
                    token=str(raw["token"]),
                    pattern=re.compile(raw.get("match") or f"^{re.escape(raw['token'])}$"),
                    schema=raw["schema"],
                    rules=tuple(raw.get("rules", ())),
                    source=str(raw.get("source", "")),
                    contract=contract,
                )
            )
        for raw in doc.get("skip", []):
            facts.skip.append((re.compile(raw["match"]), str(raw.get("reason", ""))))
    return facts


# ----------------------------------------------------------------------------------------------------------------
# Facts self-check


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
        unknown = set(node) - _SCHEMA_KEYS
        if unknown:
            problems.append(f"{where}: unknown schema keys {sorted(unknown)}")
        if "ref" in node and node["ref"] not in facts.definitions:
            problems.append(f"{where}: unknown definition {node['ref']!r}")
        for ref in node.get("extends", []):
            if ref not in facts.definitions:
                problems.append(f"{where}: unknown definition {ref!r}")
        types = node.get("type", "any")
        for t in types if isinstance(types, list) else [types]:
            if t not in _SCHEMA_TYPES:
                problems.append(f"{where}: unknown type {t!r}")
        for key in ("pattern", "keyPattern"):
            if key in node:
                try:
                    re.compile(node[key])
                except re.error as exc:
                    problems.append(f"{where}: bad {key}: {exc}")
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
        if r.id not in _RULES:
            problems.append(f"rule {r.id}: declared in the facts but not implemented in conformance/checker.py")
    for rid in _RULES:
        if rid not in facts.rules:
            problems.append(f"rule {rid}: implemented but declared in no facts file")
    for s in facts.sources.values():
        if not s.repository or not s.path:
            problems.append(f"source {s.id}: needs repository and path")
    return problems


# ----------------------------------------------------------------------------------------------------------------
# Checking


def _unwrap(value: Any) -> Any:
    """Engine-form secrets (``{sig: secret, value: ...}``) → their value, recursively."""
    if isinstance(value, Mapping):
        if value.get(SIG_KEY) == SECRET_SIG:
            return _unwrap(value.get("value"))
        return {k: _unwrap(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_unwrap(v) for v in value]
    return value


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def _join(path: str, key: str) -> str:
    if _IDENT.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


def _types_of(node: Mapping[str, Any]) -> list[str]:
    t = node.get("type", "any")
    return list(t) if isinstance(t, list) else [t]


def _is_type(value: Any, t: str) -> bool:
    if t == "any":
        return True
    if t == "string":
        return isinstance(value, str)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if t == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if t in ("object", "map", "chartValues"):
        return isinstance(value, Mapping)
    if t == "array":
        return isinstance(value, list | tuple)
    return False


def _show(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _allowed(values: Iterable[Any]) -> str:
    return ", ".join(v if isinstance(v, str) else _show(v) for v in values)


class _Context:
    def __init__(self, facts: Facts, type_token: str, name: str, inputs: Mapping[str, Any]) -> None:
        self.facts = facts
        self.type = type_token
        self.name = name
        self.inputs = inputs
        self.findings: list[Finding] = []
        self.chart: ChartFacts | None = None
        self.chart_name = ""

    def add(self, path: str, rule: str, message: str, source_id: str, severity: str = ERROR) -> None:
        cite = self.facts.cite(source_id)
        self.findings.append(
            Finding(
                path=path,
                rule=rule,
                message=f"{message} (source: {cite})",
                source=cite,
                type=self.type,
                name=self.name,
                severity=severity,
            )
        )

    # -- schema walk ------------------------------------------------------------------------------------------

    def check(self, node: Mapping[str, Any], value: Any, path: str, source: str, top: bool = False) -> None:
        node = self.facts.resolve(node)
        source = node.get("source") or source
        if value is None:
            return
        if isinstance(value, str) and value == UNKNOWN:
            self.add(path, "unknown-value", "unknown during preview: not checked", source, INFO)
            return
        types = _types_of(node)
        if "any" in types:
            return
        if not any(_is_type(value, t) for t in types):
            self.add(path, "type", f"{_show(value)} is not of type {' or '.join(types)}", source)
            return
        if "chartValues" in types and isinstance(value, Mapping):
            self.check_chart_values(value, path)
            return
        if "enum" in node and value not in node["enum"]:
            hint = ""
            folded = [
                e for e in node["enum"] if isinstance(e, str) and isinstance(value, str) and e.lower() == value.lower()
            ]
            if folded:
                hint = f" (spelled {_show(folded[0])} upstream; compared exactly)"
            self.add(
                path, "enum", f"{_show(value)} is not an allowed value{hint}; allowed: {_allowed(node['enum'])}", source
            )
        if isinstance(value, str):
            self.check_string(node, value, path, source)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if "minimum" in node and value < node["minimum"]:
                self.add(path, "range", f"{_show(value)} is below the minimum {_show(node['minimum'])}", source)
            if "maximum" in node and value > node["maximum"]:
                self.add(path, "range", f"{_show(value)} is above the maximum {_show(node['maximum'])}", source)
        elif isinstance(value, list | tuple):
            self.check_array(node, list(value), path, source)
        elif isinstance(value, Mapping):
            if "object" in types:
                self.check_object(node, value, path, source, top)
            else:
                self.check_map(node, value, path, source)

    def check_string(self, node: Mapping[str, Any], value: str, path: str, source: str) -> None:
        if "pattern" in node and not re.search(node["pattern"], value):
            self.add(path, "pattern", f"{_show(value)} does not match the pattern {node['pattern']}", source)
        if "minLength" in node and len(value) < node["minLength"]:
            self.add(path, "length", f"{_show(value)} is shorter than {node['minLength']} characters", source)
        if "maxLength" in node and len(value) > node["maxLength"]:
            self.add(path, "length", f"{_show(value)} has {len(value)} characters; at most {node['maxLength']}", source)
        if "embedded" in node:
            self.check_document(self.facts.documents[node["embedded"]], value, path)

    def check_array(self, node: Mapping[str, Any], value: list[Any], path: str, source: str) -> None:
        if "minItems" in node and len(value) < node["minItems"]:
            self.add(path, "items", f"has {len(value)} items; at least {node['minItems']}", source)
        if "maxItems" in node and len(value) > node["maxItems"]:
            self.add(path, "items", f"has {len(value)} items; at most {node['maxItems']}", source)
        item_node = node.get("items", {"type": "any"})
        for i, item in enumerate(value):
            self.check(item_node, item, f"{path}[{i}]", source)

    def check_map(self, node: Mapping[str, Any], value: Mapping[str, Any], path: str, source: str) -> None:
        value_node = node.get("values", {"type": "any"})
        for key, item in value.items():
            child = _join(path, str(key))
            if "keyPattern" in node and not re.search(node["keyPattern"], str(key)):
                self.add(child, "pattern", f"key {_show(key)} does not match the pattern {node['keyPattern']}", source)
            self.check(value_node, item, child, source)

    def check_object(
        self, node: Mapping[str, Any], value: Mapping[str, Any], path: str, source: str, top: bool = False
    ) -> None:
        fields: Mapping[str, Any] = node.get("fields", {})
        for key, item in value.items():
            if top and str(key).startswith("__"):
                continue  # engine-internal (e.g. __defaults), stripped before providers and policies see inputs
            child = _join(path, str(key))
            if key in fields:
                self.check(fields[key], item, child, source)
            elif not node.get("open"):
                known = sorted(fields)
                close = difflib.get_close_matches(str(key), known, n=1)
                hint = f" (did you mean {_show(close[0])}?)" if close else ""
                self.add(
                    child,
                    "unknown-field",
                    f"field {_show(key)} is not in the facts{hint}; known here: {', '.join(known) or '(none)'}",
                    source,
                )
        for key, child_node in fields.items():
            resolved = self.facts.resolve(child_node)
            if resolved.get("required") and value.get(key) is None:
                self.add(
                    _join(path, key),
                    "required",
                    f"required field {_show(key)} is missing",
                    resolved.get("source") or source,
                )

    def check_chart_values(self, value: Mapping[str, Any], path: str) -> None:
        chart = self.chart
        if chart is None:
            self.add(
                path,
                "not-covered",
                f"values of chart {_show(self.chart_name)} are not covered by the facts: not checked",
                "",
                INFO,
            )
            return
        self.check(chart.values, value, path, chart.source)

    def check_document(self, document: DocumentFacts, text: str, path: str) -> None:
        where = f"{path}({document.format})"
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            self.add(where, "yaml", f"does not parse as YAML: {exc}", document.source)
            return
        if doc is None:
            doc = {}
        self.check(document.schema, doc, where, document.source)
        if isinstance(doc, Mapping):
            for rid in document.rules:
                _RULES[rid](_RuleCtx(self, rid, doc, where))


# ----------------------------------------------------------------------------------------------------------------
# Cross-field rules


class _RuleCtx:
    def __init__(self, ctx: _Context, rule_id: str, inputs: Mapping[str, Any], prefix: str = "") -> None:
        self.ctx = ctx
        self.rule_id = rule_id
        self.inputs = inputs
        self.prefix = prefix

    def path(self, *parts: str | int) -> str:
        out = self.prefix
        for part in parts:
            out = f"{out}[{part}]" if isinstance(part, int) else _join(out, part)
        return out

    def fail(self, path: str, message: str) -> None:
        rule = self.ctx.facts.rules[self.rule_id]
        self.ctx.add(path, self.rule_id, message, rule.source)


_RULES: dict[str, Callable[[_RuleCtx], None]] = {}


def _rule(rule_id: str) -> Callable[[Callable[[_RuleCtx], None]], Callable[[_RuleCtx], None]]:
    def register(fn: Callable[[_RuleCtx], None]) -> Callable[[_RuleCtx], None]:
        _RULES[rule_id] = fn
        return fn

    return register


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _known(*values: Any) -> bool:
    return not any(isinstance(v, str) and v == UNKNOWN for v in values)


def _pools(r: _RuleCtx) -> Iterator[tuple[str, Mapping[str, Any], Any]]:
    """(path prefix, pool properties, pool name) of every agent pool in the resource, read by the policy pack's one
    reader of AKS pools (an AgentPool itself, each entry of a ManagedCluster's ``agentPoolProfiles``)."""
    pools, _unknown = agent_pools(r.ctx.type, r.inputs)
    for pool in pools:
        yield pool.prefix, pool.data, pool.name


def _cluster_facts(r: _RuleCtx) -> rules_aks.Cluster | None:
    tier = _get(r.inputs, "sku", "tier")
    if not _known(tier):
        return None
    return rules_aks.Cluster(
        tier=tier if isinstance(tier, str) else None,
        support_plan=r.inputs.get("supportPlan"),
        cost_analysis=_get(r.inputs, "metricsProfile", "costAnalysis", "enabled") is True,
    )


@_rule("aks.cost-analysis-needs-paid-tier")
def _aks_cost_analysis(r: _RuleCtx) -> None:
    facts = _cluster_facts(r)
    for finding in rules_aks.cost_analysis_tier(facts) if facts is not None else []:
        r.fail("metricsProfile.costAnalysis.enabled", finding.message)


@_rule("aks.lts-needs-premium")
def _aks_lts(r: _RuleCtx) -> None:
    facts = _cluster_facts(r)
    for finding in rules_aks.lts_needs_premium(facts) if facts is not None else []:
        r.fail("supportPlan", finding.message)


@_rule("aks.local-accounts-off-needs-aad")
def _aks_local_accounts(r: _RuleCtx) -> None:
    managed = _get(r.inputs, "aadProfile", "managed")
    if r.inputs.get("disableLocalAccounts") is True and _known(managed) and managed is not True:
        r.fail("disableLocalAccounts", "disableLocalAccounts true needs AAD: set aadProfile.managed true")


@_rule("aks.overlay-needs-azure-cni")
def _aks_overlay(r: _RuleCtx) -> None:
    mode = _get(r.inputs, "networkProfile", "networkPluginMode")
    plugin = _get(r.inputs, "networkProfile", "networkPlugin")
    if mode == "overlay" and plugin is not None and _known(plugin) and plugin != "azure":
        r.fail(
            "networkProfile.networkPlugin",
            f"networkPluginMode overlay is used with networkPlugin azure, not {_show(plugin)}",
        )


@_rule("aks.network-policy-matches-dataplane")
def _aks_network_policy(r: _RuleCtx) -> None:
    policy = _get(r.inputs, "networkProfile", "networkPolicy")
    dataplane = _get(r.inputs, "networkProfile", "networkDataplane")
    if policy is None or not _known(policy, dataplane):
        return
    for f in network_policy(str(dataplane or "azure"), str(policy)):
        r.fail(f"networkProfile.{'networkPolicy' if f.field == 'policy' else 'networkDataplane'}", f.message)


@_rule("aks.authorized-ranges-not-private")
def _aks_authorized_private(r: _RuleCtx) -> None:
    ranges = _get(r.inputs, "apiServerAccessProfile", "authorizedIPRanges")
    private = _get(r.inputs, "apiServerAccessProfile", "enablePrivateCluster")
    if ranges and private is True:
        r.fail("apiServerAccessProfile.authorizedIPRanges", "authorized IP ranges are not allowed on a private cluster")


@_rule("aks.needs-system-pool")
def _aks_system_pool(r: _RuleCtx) -> None:
    profiles = r.inputs.get("agentPoolProfiles")
    if not isinstance(profiles, list) or not profiles:
        return
    modes = [p.get("mode") if isinstance(p, Mapping) else None for p in profiles]
    if all(m is not None and _known(m) for m in modes) and "System" not in modes:
        r.fail("agentPoolProfiles", "a cluster needs at least one agent pool with mode System")


@_rule("aks.system-pool-linux")
def _aks_system_linux(r: _RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        if pool.get("mode") != "System":
            continue
        if pool.get("osType") == "Windows":
            r.fail(_join(prefix, "osType"), "System agent pools must be Linux")
        if pool.get("osSKU") in ("Windows2019", "Windows2022"):
            r.fail(_join(prefix, "osSKU"), f"{_show(pool.get('osSKU'))} is unsupported for System agent pools")


@_rule("aks.windows-pool-name-length")
def _aks_windows_name(r: _RuleCtx) -> None:
    for prefix, pool, name in _pools(r):
        if pool.get("osType") == "Windows" and isinstance(name, str) and _known(name):
            key = "agentPoolName" if not prefix else "name"
            for finding in rules_aks.windows_pool_name(name):
                r.fail(_join(prefix, key), finding.message)


@_rule("aks.zones-need-vmss")
def _aks_zones(r: _RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        pool_type = pool.get("type")
        if (
            pool.get("availabilityZones")
            and pool_type is not None
            and _known(pool_type)
            and pool_type != "VirtualMachineScaleSets"
        ):
            r.fail(
                _join(prefix, "availabilityZones"),
                f"availabilityZones need type VirtualMachineScaleSets, not {_show(pool_type)}",
            )


@_rule("aks.eviction-policy-needs-spot")
def _aks_eviction(r: _RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        priority = pool.get("scaleSetPriority")
        if not _known(priority) or priority == "Spot":
            continue
        for key in ("scaleSetEvictionPolicy", "spotMaxPrice"):
            if pool.get(key) is not None:
                r.fail(_join(prefix, key), f"{key} needs scaleSetPriority Spot; it is {_show(priority or 'Regular')}")


@_rule("aks.spot-max-price")
def _aks_spot_price(r: _RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        price = pool.get("spotMaxPrice")
        if isinstance(price, int | float) and not isinstance(price, bool) and not (price == -1 or price > 0):
            r.fail(
                _join(prefix, "spotMaxPrice"), f"spotMaxPrice is -1 or a decimal greater than zero, not {_show(price)}"
            )


@_rule("aks.pool-count-range")
def _aks_count(r: _RuleCtx) -> None:
    for prefix, pool, _ in _pools(r):
        count = pool.get("count")
        if not isinstance(count, int | float) or isinstance(count, bool):
            continue
        low = 1 if pool.get("mode") == "System" else 0
        if not low <= count <= 1000:
            kind = "System" if low else "User"
            r.fail(_join(prefix, "count"), f"count for a {kind} pool is {low}..1000, not {_show(count)}")


@_rule("databricks-ws.managed-rg-by-compute-mode")
def _databricks_ws_mode(r: _RuleCtx) -> None:
    mode = r.inputs.get("computeMode")
    managed = r.inputs.get("managedResourceGroupId")
    if mode == "Hybrid" and managed is None:
        r.fail("managedResourceGroupId", "a Hybrid workspace needs managedResourceGroupId")
    if mode == "Serverless":
        if managed is not None:
            r.fail("managedResourceGroupId", "managedResourceGroupId is not allowed in a Serverless workspace")
        if r.inputs.get("parameters") is not None:
            r.fail("parameters", "custom parameters are not allowed in a Serverless workspace")


def _chart_name(chart: Any) -> str:
    if not isinstance(chart, str):
        return ""
    return chart.rstrip("/").rsplit("/", 1)[-1].split(":", 1)[0]


@_rule("helm.chart-version-matches-facts")
def _helm_version(r: _RuleCtx) -> None:
    chart = r.ctx.chart
    if chart is None:
        return
    version = r.inputs.get("version")
    if version is None:
        r.fail("version", f"chart {chart.name} is not pinned; the facts were read at {chart.version}: pin that version")
    elif _known(version) and str(version).lstrip("v") != chart.version.lstrip("v"):
        r.fail(
            "version",
            f"chart {chart.name} is pinned to {_show(version)} but the facts (values.yaml and the device plugin it "
            f"ships) were read at {chart.version}: pin {chart.version} or re-read the facts at {_show(version)}",
        )


@_rule("helm.chart-repository")
def _helm_repository(r: _RuleCtx) -> None:
    chart = r.ctx.chart
    if chart is None or not chart.repositories:
        return
    repo = _get(r.inputs, "repositoryOpts", "repo")
    if repo is None:
        if "/" not in str(r.inputs.get("chart", "")):
            r.fail("repositoryOpts.repo", f"chart {chart.name} has no repository; use {_allowed(chart.repositories)}")
    elif _known(repo) and str(repo).rstrip("/") not in chart.repositories:
        r.fail(
            "repositoryOpts.repo",
            f"{_show(repo)} is not a repository of chart {chart.name}; use {_allowed(chart.repositories)}",
        )


def _gpu_operator_values(r: _RuleCtx) -> Mapping[str, Any] | None:
    if r.ctx.chart is None or r.ctx.chart.name != "gpu-operator":
        return None
    values = r.inputs.get("values")
    return values if isinstance(values, Mapping) else None


@_rule("gpu-operator.device-plugin-config-named")
def _dp_config_named(r: _RuleCtx) -> None:
    config = _get(_gpu_operator_values(r), "devicePlugin", "config")
    if not isinstance(config, Mapping):
        return
    if (config.get("create") is True or config.get("data")) and not config.get("name"):
        r.fail("values.devicePlugin.config.name", "devicePlugin.config with create/data needs a name (the ConfigMap's)")


@_rule("gpu-operator.device-plugin-default-in-data")
def _dp_default_in_data(r: _RuleCtx) -> None:
    config = _get(_gpu_operator_values(r), "devicePlugin", "config")
    if not isinstance(config, Mapping):
        return
    default, data = config.get("default"), config.get("data")
    if default and isinstance(data, Mapping) and data and _known(default) and default not in data:
        r.fail(
            "values.devicePlugin.config.default",
            f"{_show(default)} is not a key of devicePlugin.config.data; keys: {_allowed(sorted(data))}",
        )


@_rule("gpu-operator.mig-config-named")
def _mig_config_named(r: _RuleCtx) -> None:
    config = _get(_gpu_operator_values(r), "migManager", "config")
    if not isinstance(config, Mapping) or config.get("create") is not True or not config.get("data"):
        return
    if not config.get("name"):
        r.fail("values.migManager.config.name", "migManager.config with create and data needs a name (the ConfigMap's)")
    data = config.get("data")
    if isinstance(data, Mapping) and "config.yaml" not in data:
        r.fail("values.migManager.config.data", f"needs a key config.yaml; keys: {_allowed(sorted(data))}")


@_rule("device-plugin.no-mixed-mig-with-mps")
def _dp_mixed_mps(r: _RuleCtx) -> None:
    if _get(r.inputs, "flags", "migStrategy") == "mixed" and _get(r.inputs, "sharing", "mps") is not None:
        r.fail(
            r.path("sharing", "mps"),
            "MPS sharing is refused with flags.migStrategy mixed (use single, or time-slicing)",
        )


@_rule("device-plugin.one-sharing-strategy")
def _dp_one_strategy(r: _RuleCtx) -> None:
    sharing = r.inputs.get("sharing")
    if isinstance(sharing, Mapping) and sharing.get("timeSlicing") is not None and sharing.get("mps") is not None:
        r.fail(r.path("sharing"), "both timeSlicing and mps are set; the plugin would silently use MPS: keep one")


@_rule("kaito.inference-xor-tuning")
def _kaito_inference_xor_tuning(r: _RuleCtx) -> None:
    inference, tuning = r.inputs.get("inference"), r.inputs.get("tuning")
    if inference is None and tuning is None:
        r.fail("inference", "either inference or tuning must be specified, not neither")
    elif inference is not None and tuning is not None:
        r.fail("tuning", "either inference or tuning must be specified, but not both")


@_rule("kaito.preset-xor-template")
def _kaito_preset_xor_template(r: _RuleCtx) -> None:
    inference = r.inputs.get("inference")
    if not isinstance(inference, Mapping):
        return
    preset, template = inference.get("preset"), inference.get("template")
    if preset is None and template is None:
        r.fail("inference.preset", "inference needs preset or template")
    elif preset is not None and template is not None:
        r.fail("inference.template", "preset and template cannot be set at the same time")


@_rule("kaito.label-selector-as-map")
def _kaito_label_selector(r: _RuleCtx) -> None:
    expressions = _get(r.inputs, "resource", "labelSelector", "matchExpressions")
    if not isinstance(expressions, list):
        return
    for i, expr in enumerate(expressions):
        if not isinstance(expr, Mapping) or not _known(expr.get("operator")):
            continue
        op, values = expr.get("operator"), expr.get("values") or []
        where = f"resource.labelSelector.matchExpressions[{i}]"
        if op == "In" and len(values) != 1:
            r.fail(
                f"{where}.values", f"operator In needs exactly one value to convert to a label map; has {len(values)}"
            )
        elif op != "In":
            r.fail(
                f"{where}.operator", f"operator {_show(op)} cannot be converted to a label map: use matchLabels or In"
            )


_DEDICATED = (rules_databricks.SINGLE_USER, rules_databricks.DEDICATED)


@_rule("databricks.single-user-needs-name")
def _dbx_single_user(r: _RuleCtx) -> None:
    mode = r.inputs.get("dataSecurityMode")
    if mode in _DEDICATED and not r.inputs.get("singleUserName"):
        r.fail("singleUserName", f"dataSecurityMode {mode} needs singleUserName (the user or group the cluster is for)")


@_rule("databricks.kind-only-options")
def _dbx_kind_only(r: _RuleCtx) -> None:
    if r.inputs.get("kind") is not None:
        return
    for key in ("useMlRuntime", "isSingleNode"):
        if r.inputs.get(key) is not None:
            r.fail(key, f"{key} is only valid together with kind (CLASSIC_PREVIEW)")
    mode = r.inputs.get("dataSecurityMode")
    if isinstance(mode, str) and mode.startswith("DATA_SECURITY_MODE_"):
        r.fail(
            "dataSecurityMode", f"{mode} is only valid together with kind; without it use SINGLE_USER or USER_ISOLATION"
        )


@_rule("databricks.workers-or-autoscale")
def _dbx_workers(r: _RuleCtx) -> None:
    if r.inputs.get("numWorkers") is not None and r.inputs.get("autoscale") is not None:
        r.fail("numWorkers", "set numWorkers (fixed size) or autoscale, not both")


@_rule("databricks.autoscale-max-above-min")
def _dbx_autoscale(r: _RuleCtx) -> None:
    low, high = _get(r.inputs, "autoscale", "minWorkers"), _get(r.inputs, "autoscale", "maxWorkers")
    if isinstance(low, int | float) and isinstance(high, int | float) and not high > low:
        r.fail("autoscale.maxWorkers", f"maxWorkers ({_show(high)}) must be greater than minWorkers ({_show(low)})")


@_rule("databricks.autotermination-range")
def _dbx_autotermination(r: _RuleCtx) -> None:
    minutes = r.inputs.get("autoterminationMinutes")
    if (
        isinstance(minutes, int | float)
        and not isinstance(minutes, bool)
        and minutes != 0
        and not 10 <= minutes <= 10000
    ):
        r.fail("autoterminationMinutes", f"is 0 (never) or 10..10000 minutes, not {_show(minutes)}")


# ----------------------------------------------------------------------------------------------------------------
# Entry points


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
    ctx = _Context(facts, type_token, name, inputs)
    if type_facts is None:
        ctx.add("", "not-covered", f"no facts file covers {type_token}: not checked", "", INFO)
        return ctx.findings
    plain = _unwrap(inputs)
    if not isinstance(plain, Mapping):
        ctx.add("", "type", "inputs are not an object", type_facts.source)
        return ctx.findings
    ctx.inputs = plain
    if "chartValues" in json.dumps(type_facts.schema):
        ctx.chart_name = _chart_name(plain.get("chart"))
        ctx.chart = facts.charts.get(ctx.chart_name)
    ctx.check(type_facts.schema, plain, "", type_facts.source, top=True)
    for rid in type_facts.rules:
        _RULES[rid](_RuleCtx(ctx, rid, plain))
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
            child_path = _join(path, key)
            if not isinstance(data, Mapping) or key not in data:
                missing.append(child_path)
                continue
            resolved = facts.resolve(child)
            if "object" in _types_of(resolved):
                walk(resolved, data[key], child_path)

    walk(facts.charts[chart].values, defined, "")
    return missing
