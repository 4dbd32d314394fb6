"""The policy config ``Configure`` must send: what the engine's ``ReconcilePolicyPackConfig`` does (schema defaults,
the pack's ``initialConfig``, the user's config, the ``all`` key), plus stricter name checks: a policy the pack does not
define and a property a policy's schema does not declare are errors (the engine ignores both silently)."""

from __future__ import annotations

import copy
import difflib
from collections.abc import Mapping
from typing import Any

import jsonschema

from gpu_catalog.problems import show
from preflight.analyzer.protocol import ENFORCEMENT_LEVELS, AnalyzerInfo, PolicyConfigError


def _parse_config_entry(
    where: str, value: Any, errors: list[str], *, allow_properties: bool = True
) -> tuple[str | None, dict[str, Any]]:
    if isinstance(value, str):
        if value not in ENFORCEMENT_LEVELS:
            errors.append(f"{where}: {value!r} is not a valid enforcement level; use one of {list(ENFORCEMENT_LEVELS)}")
            return None, {}
        return value, {}
    if isinstance(value, Mapping):
        props = {str(k): v for k, v in value.items()}
        level = props.pop("enforcementLevel", None)
        if level is not None and (not isinstance(level, str) or level not in ENFORCEMENT_LEVELS):
            errors.append(
                f"{where}.enforcementLevel: {level!r} is not a valid enforcement level; "
                f"use one of {list(ENFORCEMENT_LEVELS)}"
            )
            level = None
        if props and not allow_properties:
            errors.append(f"{where}: only 'enforcementLevel' may be set here, got {sorted(props)}")
            props = {}
        return level, props
    errors.append(
        f"{where}: {value!r} is not a valid policy config; use an enforcement level "
        f"({' | '.join(ENFORCEMENT_LEVELS)}) or a mapping of enforcementLevel and the policy's properties"
    )
    return None, {}


def _apply(result: dict[str, dict[str, Any]], entries: Mapping[str, tuple[str | None, dict[str, Any]]]) -> None:
    if "all" in entries and entries["all"][0] is not None:
        for cfg in result.values():
            cfg["enforcementLevel"] = entries["all"][0]
    for name, (level, props) in entries.items():
        if name == "all" or name not in result:
            continue
        if level is not None:
            result[name]["enforcementLevel"] = level
        result[name].update(props)


def reconcile_policy_config(info: AnalyzerInfo, policy_config: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The config ``Configure`` must send: ``{policy: {"enforcementLevel": level, <prop>: value}}`` for every policy.

    Order as in the engine: each policy's default level and its schema's ``default`` values, then the pack's
    ``initialConfig``, then ``policy_config`` (both may use ``all`` for every level). The result is validated against
    each policy's config schema; every problem is collected into one :class:`PolicyConfigError`.
    """
    names = [p.name for p in info.policies]
    errors: list[str] = []

    result: dict[str, dict[str, Any]] = {}
    for p in info.policies:
        cfg: dict[str, Any] = {"enforcementLevel": p.enforcement_level}
        for prop, schema in p.config_schema.items():
            if isinstance(schema, Mapping) and "default" in schema:
                cfg[prop] = copy.deepcopy(schema["default"])
        result[p.name] = cfg

    initial: dict[str, tuple[str | None, dict[str, Any]]] = {}
    for key, value in info.initial_config.items():
        props = {k: copy.deepcopy(v) for k, v in value.items() if k != "enforcementLevel"}
        initial[key] = (value.get("enforcementLevel"), props)
    _apply(result, initial)

    user: dict[str, tuple[str | None, dict[str, Any]]] = {}
    if policy_config is not None:
        if not isinstance(policy_config, Mapping):
            raise PolicyConfigError(info.name, [f"policy config must be a mapping, got {type(policy_config).__name__}"])
        for key, value in policy_config.items():
            if key != "all" and key not in result:
                close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.8)
                hint = f"did you mean '{close[0]}'?" if close else f"its policies are {names}"
                errors.append(f"{key}: no such policy in policy pack '{info.name}'; {hint}")
                continue
            user[key] = _parse_config_entry(key, value, errors, allow_properties=key != "all")
    _apply(result, user)

    for p in info.policies:
        props = {k: v for k, v in result[p.name].items() if k != "enforcementLevel"}
        undeclared = sorted(set(props) - set(p.config_schema))
        if undeclared:
            allowed = sorted(p.config_schema) or "none (only enforcementLevel)"
            for k in undeclared:
                errors.append(f"{p.name}.{k}: policy '{p.name}' has no config property '{k}'; allowed: {allowed}")
        if not p.config_schema and not p.required:
            continue
        schema: dict[str, Any] = {"type": "object", "properties": p.config_schema}
        if p.required:
            schema["required"] = list(p.required)
        validator = jsonschema.Draft7Validator(schema)
        for err in sorted(validator.iter_errors(props), key=lambda e: [str(x) for x in e.absolute_path]):
            path = ".".join(str(x) for x in err.absolute_path)
            errors.append(f"{p.name}{'.' + path if path else ''}: {_schema_message(err)}")

    if errors:
        raise PolicyConfigError(info.name, errors)
    return result


ENUM_LISTED_IN_FULL = 8
"""An enum of at most this many values is listed in full when a value is not one of them; a longer one (the GPU
catalog's sizes) is shortened to the closest values."""


def _schema_message(err: jsonschema.ValidationError) -> str:
    """jsonschema's message, except for a long enum: the value, the closest allowed values and how many there are."""
    if err.validator != "enum" or not isinstance(err.validator_value, list):
        return err.message
    allowed = [str(v) for v in err.validator_value]
    if len(allowed) <= ENUM_LISTED_IN_FULL:
        return f"{show(err.instance)} is not allowed. Allowed: {', '.join(allowed)}."
    closest = difflib.get_close_matches(str(err.instance), allowed, n=3, cutoff=0.5)
    hint = f"closest: {', '.join(closest)}" if closest else f"e.g. {', '.join(allowed[:3])}"
    return f"{show(err.instance)} is not one of the {len(allowed)} allowed values; {hint}."
