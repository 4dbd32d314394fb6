"""The facts files (``conformance/facts/*.json``) as Python objects: sources, schema definitions, per-type schemas,
embedded documents, Helm chart values, cross-field rule declarations (with the limits a rule checks) and skipped
types, merged into one :class:`Facts`. The file format is described in :mod:`conformance.checker`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

FACTS_DIR = Path(__file__).resolve().parent / "facts"

SCHEMA_TYPES = {"string", "boolean", "integer", "number", "object", "map", "array", "any", "chartValues"}
SCHEMA_KEYS = {
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
    "armId",
}


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
    limits: dict[str, Any] = field(default_factory=dict)
    """The numbers and value lists the rule checks (``limits`` in its declaration), read there with the source."""


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
            rule = RuleFacts(
                rid, str(raw.get("description", "")), str(raw.get("source", "")), dict(raw.get("limits", {}))
            )
            put(facts.rules, rid, rule, "rule")
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
