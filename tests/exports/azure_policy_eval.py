"""A small Azure Policy evaluator for exactly the policy-language subset exports/azure_policy.py generates.

Semantics, as documented by Microsoft (MicrosoftDocs/azure-docs; commits in conformance/facts/azure_policy.json):

- ``definition-structure.md``: ``allOf`` / ``anyOf`` / ``not``; conditions ``equals``, ``notEquals``, ``like``,
  ``notLike``, ``in``, ``notIn`` compare strings case-insensitively (only ``match``/``notMatch`` are case-sensitive);
  ``like`` takes one ``*`` wildcard; ``count`` over a ``[*]`` alias counts the members for which ``where`` is true and
  compares the count with a numeric condition (``greater``, ``equals``...); a missing array makes ``count`` false
  without evaluating ``where``; the effect comes from ``then.effect``, here ``[parameters('effect')]``.
- ``author-policies-for-arrays.md``: a ``field`` condition on a ``[*]`` alias is true only when *all* selected
  values meet it; inside ``where``, the counted ``[*]`` alias (and any alias under it, e.g. ``…manual[*].size``)
  selects the current member only (as if it were the only member of the array).
- Limits (``definition-structure.md``, "Policy rule limits", enforced when a definition is created): at most 5
  **field count** expressions per array; a rule over the limit is refused here too. Nested count expressions are
  allowed by Azure (``author-policies-for-arrays.md``) but not generated, so this evaluator refuses them rather than
  guess their semantics.

Aliases are mapped to request paths with the alias list recorded in conformance/facts/azure_policy.json; the
evaluator refuses any alias, condition or expression it does not know, so a change in the generated rule cannot be
"passed" by silently ignoring it. Property names are matched case-insensitively (ARM request bodies are JSON with
case-insensitive property names). What this cannot show: that Azure resolves the aliases in a given tenant, and the
real evaluation at the ARM layer (docs/guardrail-layers.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

ALIASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Microsoft.ContainerService/managedClusters/agentPools/vmSize": (
        "Microsoft.ContainerService/managedClusters/agentPools",
        ("properties", "vmSize"),
    ),
    "Microsoft.ContainerService/managedClusters/agentPoolProfiles[*]": (
        "Microsoft.ContainerService/managedClusters",
        ("properties", "agentPoolProfiles[*]"),
    ),
    "Microsoft.ContainerService/managedClusters/agentPoolProfiles[*].vmSize": (
        "Microsoft.ContainerService/managedClusters",
        ("properties", "agentPoolProfiles[*]", "vmSize"),
    ),
    "Microsoft.ContainerService/managedClusters/agentPools/virtualMachinesProfile.scale.manual[*]": (
        "Microsoft.ContainerService/managedClusters/agentPools",
        ("properties", "virtualMachinesProfile", "scale", "manual[*]"),
    ),
    "Microsoft.ContainerService/managedClusters/agentPools/virtualMachinesProfile.scale.manual[*].size": (
        "Microsoft.ContainerService/managedClusters/agentPools",
        ("properties", "virtualMachinesProfile", "scale", "manual[*]", "size"),
    ),
}
"""Alias → (the resource type it belongs to, its path in the request; ``x[*]`` selects every member of array x)."""

_MISSING = object()
_PARAM_RE = re.compile(r"^\[parameters\('([^']+)'\)\]$")
_NUMERIC = {"equals", "notEquals", "greater", "greaterOrEquals", "less", "lessOrEquals"}
FIELD_COUNTS_PER_ARRAY = 5
"""definition-structure.md, "Limits enforced during authoring": **Field count** expressions per array."""


class UnsupportedPolicy(ValueError):
    """The rule uses something outside the subset this evaluator implements."""


def _get(obj: Any, key: str) -> Any:
    if not isinstance(obj, Mapping):
        return _MISSING
    for k, v in obj.items():
        if isinstance(k, str) and k.lower() == key.lower():
            return v
    return _MISSING


def _walk(values: list[Any], path: tuple[str, ...]) -> list[Any]:
    """Follow ``path`` from each value; a ``x[*]`` step selects every member of array ``x`` (none when missing)."""
    for step in path:
        nxt: list[Any] = []
        for v in values:
            if step.endswith("[*]"):
                got = _get(v, step[:-3])
                nxt.extend(got if isinstance(got, list) else [])
            else:
                nxt.append(_get(v, step))
        values = nxt
    return values


class _Context:
    def __init__(self, request: Mapping[str, Any], parameters: Mapping[str, Any]) -> None:
        self.request = request
        self.parameters = parameters
        self.bound: dict[str, Any] = {}
        """A counted ``[*]`` alias → the member evaluated in the current ``where`` iteration."""

    def param(self, value: Any) -> Any:
        if isinstance(value, str) and (m := _PARAM_RE.match(value)):
            name = m.group(1)
            if name not in self.parameters:
                raise UnsupportedPolicy(f"parameter {name!r} has no value and no default")
            return self.parameters[name]
        if isinstance(value, str) and value.startswith("[") and not value.startswith("[["):
            raise UnsupportedPolicy(f"template expression {value!r} is not supported")
        return value

    def select(self, field: str) -> tuple[bool, list[Any]]:
        """``(is_array_alias, values)`` for a field: ``type``, or an alias of the request's resource type. Inside a
        ``count``, the counted alias (and any alias under it) selects from the current member only."""
        if field == "type":
            return False, [self.request.get("type", _MISSING)]
        if field not in ALIASES:
            raise UnsupportedPolicy(f"alias {field!r} is not in the evaluator's alias list")
        resource_type, path = ALIASES[field]
        is_array = "[*]" in field
        for alias, member in self.bound.items():
            if field == alias or field.startswith(alias + "."):
                return is_array, _walk([member], path[len(ALIASES[alias][1]) :])
        if str(self.request.get("type", "")).lower() != resource_type.lower():
            return is_array, [] if is_array else [_MISSING]
        return is_array, _walk([self.request], path)

    def array(self, alias: str) -> list[Any] | None:
        """The members of a ``[*]`` alias's array, or ``None`` when the array is missing."""
        resource_type, path = ALIASES[alias]
        if str(self.request.get("type", "")).lower() != resource_type.lower():
            return None
        obj: Any = self.request
        for step in path:
            obj = _get(obj, step[:-3] if step.endswith("[*]") else step)
        return obj if isinstance(obj, list) else None


def _text(v: Any) -> str | None:
    return v.lower() if isinstance(v, str) else None


def _like(value: Any, pattern: str) -> bool:
    text = _text(value)
    if text is None:
        return False
    if pattern.count("*") > 1:
        raise UnsupportedPolicy("like takes at most one wildcard")
    head, star, tail = pattern.lower().partition("*")
    if not star:
        return text == head
    return len(text) >= len(head) + len(tail) and text.startswith(head) and text.endswith(tail)


def _condition(op: str, value: Any, target: Any) -> bool:
    if op == "equals":
        return _text(value) is not None and _text(value) == _text(target)
    if op == "notEquals":
        return not _condition("equals", value, target)
    if op == "like":
        return _like(value, target)
    if op == "notLike":
        return not _like(value, target)
    if op in ("in", "notIn"):
        if not isinstance(target, list):
            raise UnsupportedPolicy(f"{op} needs an array")
        found = _text(value) is not None and _text(value) in {_text(t) for t in target}
        return found if op == "in" else not found
    raise UnsupportedPolicy(f"condition {op!r} is not supported")


def _compare(op: str, count: int, target: Any) -> bool:
    if not isinstance(target, int) or isinstance(target, bool):
        raise UnsupportedPolicy(f"count compares with a number, got {target!r}")
    return {
        "equals": count == target,
        "notEquals": count != target,
        "greater": count > target,
        "greaterOrEquals": count >= target,
        "less": count < target,
        "lessOrEquals": count <= target,
    }[op]


_CONDITIONS = ("equals", "notEquals", "like", "notLike", "in", "notIn")


def _evaluate(expr: Mapping[str, Any], ctx: _Context) -> bool:
    keys = set(expr)
    if keys == {"allOf"}:
        return all(_evaluate(e, ctx) for e in expr["allOf"])
    if keys == {"anyOf"}:
        return any(_evaluate(e, ctx) for e in expr["anyOf"])
    if keys == {"not"}:
        return not _evaluate(expr["not"], ctx)
    if "count" in keys:
        ops = keys - {"count"}
        if len(ops) != 1 or not ops <= _NUMERIC:
            raise UnsupportedPolicy(f"count needs one numeric condition, got {sorted(ops)}")
        op = ops.pop()
        spec = expr["count"]
        alias = spec["field"]
        if not alias.endswith("[*]") or alias not in ALIASES or set(spec) - {"field", "where"}:
            raise UnsupportedPolicy(f"unsupported count {spec!r}")
        if ctx.bound:
            raise UnsupportedPolicy(f"nested count over {alias!r} is not implemented (not generated)")
        members = ctx.array(alias)
        if members is None:
            return False  # a missing array: the count expression is false
        where = spec.get("where")
        hits = 0
        for member in members:
            ctx.bound[alias] = member
            try:
                hits += 1 if where is None or _evaluate(where, ctx) else 0
            finally:
                del ctx.bound[alias]
        return _compare(op, hits, ctx.param(expr[op]))
    if "field" in keys:
        ops = keys - {"field"}
        if len(ops) != 1 or not ops <= set(_CONDITIONS):
            raise UnsupportedPolicy(f"field condition needs one known condition, got {sorted(ops)}")
        op = ops.pop()
        is_array, values = ctx.select(expr["field"])
        target = ctx.param(expr[op])
        values = [None if v is _MISSING else v for v in values]
        if is_array:
            return all(_condition(op, v, target) for v in values)  # implicit all-of over [*] members
        return _condition(op, values[0], target)
    raise UnsupportedPolicy(f"unsupported expression {sorted(keys)}")


def _field_counts(expr: Any) -> list[str]:
    """The arrays of every field count expression in ``expr`` (nested in logical operators or ``where``)."""
    found: list[str] = []
    if isinstance(expr, Mapping):
        spec = expr.get("count")
        if isinstance(spec, Mapping) and "field" in spec:
            found.append(str(spec["field"]).lower())
        for value in expr.values():
            found += _field_counts(value)
    elif isinstance(expr, list):
        for value in expr:
            found += _field_counts(value)
    return found


def _check_limits(rule_if: Mapping[str, Any]) -> None:
    """Refuse a rule Azure would refuse at authoring time: more than 5 field count expressions over one array."""
    arrays = _field_counts(rule_if)
    for array in set(arrays):
        if arrays.count(array) > FIELD_COUNTS_PER_ARRAY:
            raise UnsupportedPolicy(
                f"{arrays.count(array)} field count expressions over {array!r}: Azure allows {FIELD_COUNTS_PER_ARRAY}"
            )


def evaluate(
    definition: Mapping[str, Any], request: Mapping[str, Any], parameters: Mapping[str, Any] | None = None
) -> str | None:
    """The effect the definition (``{name, properties}``) applies to an ARM request body with its ``type``, or
    ``None`` when the rule's ``if`` is false. ``parameters``: assignment values (defaults fill the rest)."""
    props = definition["properties"]
    _check_limits(props["policyRule"]["if"])
    values = {k: spec["defaultValue"] for k, spec in props.get("parameters", {}).items() if "defaultValue" in spec}
    values.update(parameters or {})
    ctx = _Context(request, values)
    rule = props["policyRule"]
    if not _evaluate(rule["if"], ctx):
        return None
    return str(ctx.param(rule["then"]["effect"]))
