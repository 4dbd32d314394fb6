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
  **field count** expressions per array and 10 **value count** expressions per rule; a value count iterates at most
  100 members. A rule over a limit is refused here too. A field count nested in another field count is allowed by
  Azure (``author-policies-for-arrays.md``) but not generated, so this evaluator refuses it rather than guess.
- ``definition-structure-policy-rule.md`` (the rule page split out of it; commit in the facts): the fields ``name``
  and ``fullName`` (a child resource's name prepended by its parents', ``myServer/myDatabase``: a request body here
  names a child ``<parent>/<child>``, as an ARM template does); ``value`` conditions on template expressions;
  ``value count`` over an array (``count.value``, ``count.name``, ``count.where``), also nested inside a field
  count's ``where`` (its Example 4); ``current('<index name>')`` with property access on an object member, and
  ``current('<alias of the counted array's member property>')``; the functions ``parameters``, ``concat`` and
  ``utcNow()`` (ISO 8601 UTC ``yyyy-MM-ddTHH:mm:ss.fffffffZ``, usable anywhere in a rule; the caller passes the
  time); ``greater``/``less`` compare strings case-insensitively (``InvariantCultureIgnoreCase``).

Aliases are mapped to request paths with the alias list recorded in conformance/facts/azure_policy.json; the
evaluator refuses any alias, condition or expression it does not know, so a change in the generated rule cannot be
"passed" by silently ignoring it. Property names are matched case-insensitively (ARM request bodies are JSON with
case-insensitive property names). What this cannot show: that Azure resolves the aliases in a given tenant, and the
real evaluation at the ARM layer (docs/guardrail-layers.md).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from datetime import UTC, datetime, time
from typing import Any

from gpu_catalog import clock

ALIASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Microsoft.ContainerService/managedClusters/agentPools/vmSize": (
        "Microsoft.ContainerService/managedClusters/agentPools",
        ("properties", "vmSize"),
    ),
    "Microsoft.ContainerService/managedClusters/agentPoolProfiles[*]": (
        "Microsoft.ContainerService/managedClusters",
        ("properties", "agentPoolProfiles[*]"),
    ),
    "Microsoft.ContainerService/managedClusters/agentPoolProfiles[*].name": (
        "Microsoft.ContainerService/managedClusters",
        ("properties", "agentPoolProfiles[*]", "name"),
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


_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<punct>[(),.]))")


class _Expression:
    """The template-expression subset the generated rule uses: ``fn(args)`` calls of ``parameters``, ``current``,
    ``concat`` and ``utcNow``, string literals, and ``.property`` access on a call's result."""

    def __init__(self, text: str, ctx: _Context) -> None:
        self.tokens = self._tokens(text)
        self.pos = 0
        self.ctx = ctx

    @staticmethod
    def _tokens(text: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text.rstrip()):
            m = _TOKEN.match(text, pos)
            if m is None:
                raise UnsupportedPolicy(f"cannot read template expression {text!r} at {pos}")
            kind = m.lastgroup or ""
            out.append((kind, m.group(kind)))
            pos = m.end()
        return out

    def _next(self) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise UnsupportedPolicy("template expression ends early")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def _expect(self, punct: str) -> None:
        if self._next() != ("punct", punct):
            raise UnsupportedPolicy(f"template expression: expected {punct!r}")

    def value(self) -> Any:
        result = self._value()
        if self.pos != len(self.tokens):
            raise UnsupportedPolicy("template expression: trailing tokens")
        return result

    def _value(self) -> Any:
        kind, text = self._next()
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind != "ident":
            raise UnsupportedPolicy(f"template expression: unexpected {text!r}")
        self._expect("(")
        args: list[Any] = []
        if self.tokens[self.pos] != ("punct", ")"):
            args.append(self._value())
            while self.tokens[self.pos] == ("punct", ","):
                self.pos += 1
                args.append(self._value())
        self._expect(")")
        result = self.ctx.call(text, args)
        while self.pos < len(self.tokens) and self.tokens[self.pos] == ("punct", "."):
            self.pos += 1
            kind, prop = self._next()
            got = _get(result, prop) if kind == "ident" else _MISSING
            if got is _MISSING:
                raise UnsupportedPolicy(f"template expression: no property {prop!r} (evaluation fails: implicit deny)")
            result = got
        return result


class _Context:
    def __init__(self, request: Mapping[str, Any], parameters: Mapping[str, Any], now: str) -> None:
        self.request = request
        self.parameters = parameters
        self.now = now
        self.bound: dict[str, Any] = {}
        """A counted ``[*]`` alias → the member evaluated in the current ``where`` iteration."""
        self.named: dict[str, Any] = {}
        """A value count's ``count.name`` → the member evaluated in the current ``where`` iteration."""

    def call(self, name: str, args: list[Any]) -> Any:
        if name == "parameters" and len(args) == 1:
            if args[0] not in self.parameters:
                raise UnsupportedPolicy(f"parameter {args[0]!r} has no value and no default")
            return self.parameters[args[0]]
        if name == "current" and len(args) == 1:
            return self.current(str(args[0]))
        if name == "concat" and args and all(isinstance(a, str) for a in args):
            return "".join(args)
        if name == "utcNow" and not args:
            return self.now
        raise UnsupportedPolicy(f"template function {name}({', '.join(map(repr, args))}) is not supported")

    def current(self, name: str) -> Any:
        """A value count's member by its ``count.name``, or the counted ``[*]`` member (or a property under it)."""
        if name in self.named:
            return self.named[name]
        for alias, member in self.bound.items():
            if name == alias:
                return member
            if name.startswith(alias + ".") and name in ALIASES:
                values = _walk([member], ALIASES[name][1][len(ALIASES[alias][1]) :])
                if len(values) == 1:
                    return None if values[0] is _MISSING else values[0]
        raise UnsupportedPolicy(f"current({name!r}) outside a count over it")

    def param(self, value: Any) -> Any:
        """A literal, or the value of a template expression ``[...]`` (``[[`` escapes a literal ``[``)."""
        if isinstance(value, str) and value.startswith("[") and not value.startswith("[["):
            if not value.endswith("]"):
                raise UnsupportedPolicy(f"template expression {value!r} is not closed")
            return _Expression(value[1:-1], self).value()
        return value

    def select(self, field: str) -> tuple[bool, list[Any]]:
        """``(is_array_alias, values)`` for a field: ``type``, ``name``, ``fullName``, or an alias of the request's
        resource type. Inside a ``count``, the counted alias (and any alias under it) selects from the current member
        only."""
        if field == "type":
            return False, [self.request.get("type", _MISSING)]
        if field in ("name", "fullName"):
            full = self.request.get("name", _MISSING)
            return False, [full.rsplit("/", 1)[-1] if field == "name" and isinstance(full, str) else full]
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


def _ordered(op: str, value: Any, target: Any) -> bool:
    """``greater`` / ``less`` (and ``…OrEquals``): numbers, or strings compared case-insensitively; another mix is an
    evaluation error in Azure (an implicit deny), refused here."""
    if isinstance(value, str) and isinstance(target, str):
        a, b = value.lower(), target.lower()
    elif all(isinstance(x, int | float) and not isinstance(x, bool) for x in (value, target)):
        a, b = value, target
    else:
        raise UnsupportedPolicy(f"{op} compares {value!r} with {target!r}: not the same type")
    return {"greater": a > b, "greaterOrEquals": a >= b, "less": a < b, "lessOrEquals": a <= b}[op]


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
    if op in _ORDERED:
        return _ordered(op, value, target)
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


_ORDERED = ("greater", "greaterOrEquals", "less", "lessOrEquals")
_CONDITIONS = ("equals", "notEquals", "like", "notLike", "in", "notIn")
VALUE_COUNT_ITERATIONS = 100
"""definition-structure-policy-rule.md, "Policy rule limits": a value count iterates at most 100 members."""
VALUE_COUNTS_PER_RULE = 10
"""The same table: at most 10 value count expressions per policy rule."""


def _one_op(expr: Mapping[str, Any], subject: str, allowed: Collection[str]) -> str:
    ops = set(expr) - {subject}
    if len(ops) != 1 or not ops <= set(allowed):
        raise UnsupportedPolicy(f"{subject} needs one known condition, got {sorted(ops)}")
    return ops.pop()


def _hits(members: list[Any], where: Any, ctx: _Context, binding: dict[str, Any], key: str) -> int:
    """How many members make ``where`` true (all of them without one), each bound to ``key`` while evaluated."""
    hits = 0
    for member in members:
        binding[key] = member
        try:
            hits += 1 if where is None or _evaluate(where, ctx) else 0
        finally:
            del binding[key]
    return hits


def _field_count(expr: Mapping[str, Any], spec: Mapping[str, Any], ctx: _Context) -> bool:
    op = _one_op(expr, "count", _NUMERIC)
    alias = spec["field"]
    if not alias.endswith("[*]") or alias not in ALIASES or set(spec) - {"field", "where"}:
        raise UnsupportedPolicy(f"unsupported count {spec!r}")
    if ctx.bound:
        raise UnsupportedPolicy(f"nested count over {alias!r} is not implemented (not generated)")
    members = ctx.array(alias)
    if members is None:
        return False  # a missing array: the count expression is false
    return _compare(op, _hits(members, spec.get("where"), ctx, ctx.bound, alias), ctx.param(expr[op]))


def _value_count(expr: Mapping[str, Any], spec: Mapping[str, Any], ctx: _Context) -> bool:
    op = _one_op(expr, "count", _NUMERIC)
    if set(spec) - {"value", "name", "where"}:
        raise UnsupportedPolicy(f"unsupported count {spec!r}")
    members = ctx.param(spec["value"])
    if not isinstance(members, list):
        raise UnsupportedPolicy(f"value count over {members!r}: not an array (evaluation fails)")
    if len(members) > VALUE_COUNT_ITERATIONS:
        raise UnsupportedPolicy(f"value count over {len(members)} members: Azure iterates at most 100")
    name = spec.get("name", "default")
    if (ctx.bound or ctx.named) and "name" not in spec:
        raise UnsupportedPolicy("a value count inside another count needs count.name")
    return _compare(op, _hits(members, spec.get("where"), ctx, ctx.named, name), ctx.param(expr[op]))


def _evaluate(expr: Mapping[str, Any], ctx: _Context) -> bool:
    keys = set(expr)
    if keys == {"allOf"}:
        return all(_evaluate(e, ctx) for e in expr["allOf"])
    if keys == {"anyOf"}:
        return any(_evaluate(e, ctx) for e in expr["anyOf"])
    if keys == {"not"}:
        return not _evaluate(expr["not"], ctx)
    if "count" in keys:
        spec = expr["count"]
        return _field_count(expr, spec, ctx) if "field" in spec else _value_count(expr, spec, ctx)
    if "field" in keys:
        op = _one_op(expr, "field", _CONDITIONS)
        is_array, values = ctx.select(expr["field"])
        target = ctx.param(expr[op])
        values = [None if v is _MISSING else v for v in values]
        if is_array:
            return all(_condition(op, v, target) for v in values)  # implicit all-of over [*] members
        return _condition(op, values[0], target)
    if "value" in keys:
        op = _one_op(expr, "value", (*_CONDITIONS, *_ORDERED))
        return _condition(op, ctx.param(expr["value"]), ctx.param(expr[op]))
    raise UnsupportedPolicy(f"unsupported expression {sorted(keys)}")


def _counts(expr: Any, kind: str) -> list[str]:
    """The arrays (``field``) or values (``value``) of every count expression of ``kind`` in ``expr`` (nested in
    logical operators or ``where``)."""
    found: list[str] = []
    if isinstance(expr, Mapping):
        spec = expr.get("count")
        if isinstance(spec, Mapping) and kind in spec:
            found.append(str(spec[kind]).lower())
        for value in expr.values():
            found += _counts(value, kind)
    elif isinstance(expr, list):
        for value in expr:
            found += _counts(value, kind)
    return found


def _check_limits(rule_if: Mapping[str, Any]) -> None:
    """Refuse a rule Azure would refuse at authoring time: more than 5 field count expressions over one array, more
    than 10 value count expressions."""
    arrays = _counts(rule_if, "field")
    for array in set(arrays):
        if arrays.count(array) > FIELD_COUNTS_PER_ARRAY:
            raise UnsupportedPolicy(
                f"{arrays.count(array)} field count expressions over {array!r}: Azure allows {FIELD_COUNTS_PER_ARRAY}"
            )
    values = _counts(rule_if, "value")
    if len(values) > VALUE_COUNTS_PER_RULE:
        raise UnsupportedPolicy(f"{len(values)} value count expressions: Azure allows {VALUE_COUNTS_PER_RULE}")


def evaluate(
    definition: Mapping[str, Any],
    request: Mapping[str, Any],
    parameters: Mapping[str, Any] | None = None,
    *,
    now: datetime | None = None,
) -> str | None:
    """The effect the definition (``{name, properties}``) applies to an ARM request body with its ``type``, or
    ``None`` when the rule's ``if`` is false. ``parameters``: assignment values (defaults fill the rest). ``now``:
    what ``utcNow()`` returns (UTC; default the suite's day at 12:00)."""
    props = definition["properties"]
    _check_limits(props["policyRule"]["if"])
    values = {k: spec["defaultValue"] for k, spec in props.get("parameters", {}).items() if "defaultValue" in spec}
    values.update(parameters or {})
    moment = now or datetime.combine(clock.today(), time(12, 0), tzinfo=UTC)
    ctx = _Context(request, values, moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f0Z"))
    rule = props["policyRule"]
    if not _evaluate(rule["if"], ctx):
        return None
    return str(ctx.param(rule["then"]["effect"]))
