"""A small evaluator of Databricks cluster policy definitions for exactly the subset exports/databricks_policy.py
generates, on cluster specs in the Clusters API's shape (snake_case attributes, ``custom_tags`` a map).

Semantics (Databricks "Compute policy reference"; sources in conformance/facts/azure_policy.json): a definition maps
an attribute path (nested attributes joined with dots; ``custom_tags.<tag>`` names one tag) to one limitation:

- ``fixed``: the value must be ``value`` (an absent attribute takes it: :func:`applied`, after the Clusters API's
  ``apply_policy_default_values``, "only fixed values from the policy will be applied" when false);
- ``forbidden``: the attribute must be absent;
- ``allowlist``: the value must be one of ``values``;
- ``regex``: the value must match ``pattern``;
- ``range``: a number from ``minValue`` to ``maxValue`` (either may be absent);
- ``unlimited``: any value.

An absent attribute passes when the limitation is ``fixed``, has a ``defaultValue`` (Databricks applies it, and the
default must satisfy the limitation) or has ``isOptional: true``; otherwise it is refused as required. Anything else
raises, so a new limitation type cannot pass unnoticed. What this cannot show: Databricks' own evaluation in a
workspace (docs/guardrail-layers.md).

:func:`api_spec` turns a ``databricks:index/cluster:Cluster``'s inputs as the engine sees them (camelCase) into that
shape: pulumi-databricks names each input after the bridged Terraform attribute in camelCase, and the Terraform
attribute is the Clusters API field (databricks/terraform-provider-databricks ``clusters/clusters_api.go``, JSON tags
such as ``data_security_mode``, ``custom_tags``; ``internal/service/compute_tf/legacy_model.go`` ``kind``,
``use_ml_runtime``, ``is_single_node``); map values (``customTags``, ``sparkConf``, ``sparkEnvVars``) keep their keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_MISSING = object()
_MAP_INPUTS = ("customTags", "sparkConf", "sparkEnvVars")
_MAPS = ("custom_tags.", "spark_conf.", "spark_env_vars.")
_KEYS = {
    "fixed": {"type", "value", "hidden"},
    "forbidden": {"type", "hidden"},
    "allowlist": {"type", "values", "defaultValue", "isOptional", "hidden"},
    "regex": {"type", "pattern", "defaultValue", "isOptional", "hidden"},
    "range": {"type", "minValue", "maxValue", "defaultValue", "isOptional", "hidden"},
    "unlimited": {"type", "defaultValue", "isOptional", "hidden"},
}


class UnsupportedLimitation(ValueError):
    """The definition uses a limitation or key this evaluator does not implement."""


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def api_spec(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A cluster's engine inputs (camelCase, numbers as floats) as a Clusters API spec (snake_case)."""
    out: dict[str, Any] = {}
    for key, value in inputs.items():
        if key in _MAP_INPUTS:
            out[_snake(key)] = dict(value)
        elif isinstance(value, Mapping):
            out[_snake(key)] = api_spec(value)
        else:
            out[_snake(key)] = value
    return out


def _lookup(spec: Mapping[str, Any], path: str) -> Any:
    for prefix in _MAPS:
        if path.startswith(prefix):
            table = spec.get(prefix[:-1]) or {}
            return table.get(path[len(prefix) :], _MISSING) if isinstance(table, Mapping) else _MISSING
    value: Any = spec
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _satisfies(rule: Mapping[str, Any], value: Any) -> str | None:
    kind = rule["type"]
    if kind == "fixed":
        return None if value == rule["value"] else f"must be {rule['value']!r}"
    if kind == "allowlist":
        return None if value in rule["values"] else f"must be one of {rule['values']}"
    if kind == "regex":
        ok = isinstance(value, str) and re.fullmatch(rule["pattern"], value) is not None
        return None if ok else f"must match {rule['pattern']}"
    if kind == "range":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number"
        if "minValue" in rule and value < rule["minValue"]:
            return f"must be at least {rule['minValue']}"
        if "maxValue" in rule and value > rule["maxValue"]:
            return f"must be at most {rule['maxValue']}"
        return None
    return None  # unlimited


def violations(definition: Mapping[str, Mapping[str, Any]], spec: Mapping[str, Any]) -> dict[str, str]:
    """Attribute path → why the cluster spec breaks the policy (empty: the policy accepts it)."""
    out: dict[str, str] = {}
    for path, rule in definition.items():
        kind = rule.get("type")
        if kind not in _KEYS or set(rule) - _KEYS[kind]:
            raise UnsupportedLimitation(f"{path}: {dict(rule)}")
        value = _lookup(spec, path)
        if kind == "forbidden":
            if value is not _MISSING:
                out[path] = f"{value!r} is forbidden by the policy"
            continue
        if value is _MISSING:
            if kind == "fixed" or rule.get("isOptional") is True:
                continue
            if "defaultValue" in rule:
                value = rule["defaultValue"]
            else:
                out[path] = "is required by the policy"
                continue
        problem = _satisfies(rule, value)
        if problem is not None:
            out[path] = f"{value!r} {problem}"
    return out


def applied(definition: Mapping[str, Mapping[str, Any]], spec: Mapping[str, Any]) -> dict[str, Any]:
    """The cluster spec as Databricks creates it under the policy: every ``fixed`` value set (top-level attributes
    only, the ones the generated policies fix), whatever the request said or left out."""
    out = dict(spec)
    for path, rule in definition.items():
        if rule.get("type") == "fixed" and "." not in path:
            out[path] = rule["value"]
    return out
