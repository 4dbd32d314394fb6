"""The schema walk: one resource's inputs against a type's schema node by node (types, enums, patterns, lengths,
ranges, items, required and unknown fields, embedded documents, Helm chart values), collecting findings. Cross-field
rules run through the ``run_rule`` the caller passes (:func:`conformance.cross_rules.run_rule`)."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from conformance.contracts import ChartFacts, DocumentFacts, Facts
from preflight.wire import SECRET_SIG, SIG_KEY, UNKNOWN

ERROR = "error"
INFO = "info"

RuleRunner = Callable[["Context", str, Mapping[str, Any], str], None]
"""Runs the cross-field rule with the given id on (context, inputs, path prefix)."""


@dataclass(frozen=True)
class Finding:
    """One problem (or, with severity ``info``, one thing that could not be checked) in one resource."""

    path: str
    """Field path in the inputs, e.g. ``agentPoolProfiles[0].osSKU`` or ``values.migManager.enabeld``."""
    rule: str
    """``unknown-field``, ``enum``, ``pattern``, ``arm-id``, ``required``, ``type``, ``length``, ``range``, ``items``,
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


def unwrap(value: Any) -> Any:
    """Engine-form secrets (``{sig: secret, value: ...}``) → their value, recursively."""
    if isinstance(value, Mapping):
        if value.get(SIG_KEY) == SECRET_SIG:
            return unwrap(value.get("value"))
        return {k: unwrap(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [unwrap(v) for v in value]
    return value


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


_ARM_ID = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/(?P<namespace>[^/]+)/(?P<rest>[^/]+(?:/[^/]+)*)$",
    re.IGNORECASE,
)


def arm_resource_type(value: str) -> str | None:
    """The resource type of a resource-group-scoped ARM resource id (``/subscriptions/…/resourceGroups/…/providers/
    Microsoft.Network/virtualNetworks/v/subnets/s`` → ``Microsoft.Network/virtualNetworks/subnets``); ``None``: not
    such an id (a type segment without its name, an empty segment)."""
    m = _ARM_ID.match(value)
    if m is None:
        return None
    parts = m["rest"].split("/")
    if len(parts) % 2:
        return None
    return "/".join([m["namespace"], *parts[0::2]])


def arm_id_of(value: str, types: Iterable[str]) -> bool:
    """``value`` is the id of a resource of one of ``types`` (the spec's ``format: arm-id`` with its
    ``x-ms-arm-id-details.allowedResources``); ARM compares resource types case-insensitively."""
    found = arm_resource_type(value)
    return found is not None and found.lower() in {t.lower() for t in types}


def join(path: str, key: str) -> str:
    if _IDENT.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


def types_of(node: Mapping[str, Any]) -> list[str]:
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


def show(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value) if isinstance(value, str) else repr(value)


def allowed(values: Iterable[Any]) -> str:
    return ", ".join(v if isinstance(v, str) else show(v) for v in values)


class Context:
    def __init__(
        self, facts: Facts, type_token: str, name: str, inputs: Mapping[str, Any], run_rule: RuleRunner
    ) -> None:
        self.facts = facts
        self.run_rule = run_rule
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
        types = types_of(node)
        if "any" in types:
            return
        if not any(_is_type(value, t) for t in types):
            self.add(path, "type", f"{show(value)} is not of type {' or '.join(types)}", source)
            return
        if "chartValues" in types and isinstance(value, Mapping):
            self.check_chart_values(value, path)
            return
        if "armId" in node and isinstance(value, str):
            self.check_arm_id(node, value, path, source)
        elif "enum" in node and value not in node["enum"]:
            hint = ""
            folded = [
                e for e in node["enum"] if isinstance(e, str) and isinstance(value, str) and e.lower() == value.lower()
            ]
            if folded:
                hint = f" (spelled {show(folded[0])} upstream; compared exactly)"
            self.add(
                path, "enum", f"{show(value)} is not an allowed value{hint}; allowed: {allowed(node['enum'])}", source
            )
        if isinstance(value, str):
            self.check_string(node, value, path, source)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if "minimum" in node and value < node["minimum"]:
                self.add(path, "range", f"{show(value)} is below the minimum {show(node['minimum'])}", source)
            if "maximum" in node and value > node["maximum"]:
                self.add(path, "range", f"{show(value)} is above the maximum {show(node['maximum'])}", source)
        elif isinstance(value, list | tuple):
            self.check_array(node, list(value), path, source)
        elif isinstance(value, Mapping):
            if "object" in types:
                self.check_object(node, value, path, source, top)
            else:
                self.check_map(node, value, path, source)

    def check_string(self, node: Mapping[str, Any], value: str, path: str, source: str) -> None:
        if "pattern" in node and not re.search(node["pattern"], value):
            self.add(path, "pattern", f"{show(value)} does not match the pattern {node['pattern']}", source)
        if "minLength" in node and len(value) < node["minLength"]:
            self.add(path, "length", f"{show(value)} is shorter than {node['minLength']} characters", source)
        if "maxLength" in node and len(value) > node["maxLength"]:
            self.add(path, "length", f"{show(value)} has {len(value)} characters; at most {node['maxLength']}", source)
        if "embedded" in node:
            self.check_document(self.facts.documents[node["embedded"]], value, path)

    def check_arm_id(self, node: Mapping[str, Any], value: str, path: str, source: str) -> None:
        """``armId``: the id of a resource of one of the listed types, or (with ``enum``) one of those values."""
        if value in node.get("enum", ()) or arm_id_of(value, node["armId"]):
            return
        kinds = " or ".join(node["armId"])
        values = f"{allowed(node['enum'])} or " if "enum" in node else ""
        self.add(
            path,
            "arm-id",
            f"{show(value)} is not {values}the resource id of a {kinds} "
            "(/subscriptions/<id>/resourceGroups/<group>/providers/<type>/<name>…)",
            source,
        )

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
            child = join(path, str(key))
            if "keyPattern" in node and not re.search(node["keyPattern"], str(key)):
                self.add(child, "pattern", f"key {show(key)} does not match the pattern {node['keyPattern']}", source)
            self.check(value_node, item, child, source)

    def check_object(
        self, node: Mapping[str, Any], value: Mapping[str, Any], path: str, source: str, top: bool = False
    ) -> None:
        fields: Mapping[str, Any] = node.get("fields", {})
        for key, item in value.items():
            if top and str(key).startswith("__"):
                continue  # engine-internal (e.g. __defaults), stripped before providers and policies see inputs
            child = join(path, str(key))
            if key in fields:
                self.check(fields[key], item, child, source)
            elif not node.get("open"):
                known = sorted(fields)
                close = difflib.get_close_matches(str(key), known, n=1)
                hint = f" (did you mean {show(close[0])}?)" if close else ""
                self.add(
                    child,
                    "unknown-field",
                    f"field {show(key)} is not in the facts{hint}; known here: {', '.join(known) or '(none)'}",
                    source,
                )
        for key, child_node in fields.items():
            resolved = self.facts.resolve(child_node)
            if resolved.get("required") and value.get(key) is None:
                self.add(
                    join(path, key),
                    "required",
                    f"required field {show(key)} is missing",
                    resolved.get("source") or source,
                )

    def check_chart_values(self, value: Mapping[str, Any], path: str) -> None:
        chart = self.chart
        if chart is None:
            self.add(
                path,
                "not-covered",
                f"values of chart {show(self.chart_name)} are not covered by the facts: not checked",
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
                self.run_rule(self, rid, doc, where)
