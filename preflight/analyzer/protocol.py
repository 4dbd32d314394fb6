"""The analyzer protocol's shapes on the engine side: enforcement levels and their protobuf values, the errors, the
results (violations, not-applicable, remediations, logs, the pack's info) and the marshalling of resource properties
into a protobuf ``Struct`` as the engine does it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, engine_pb2

ENFORCEMENT_LEVELS: tuple[str, ...] = ("advisory", "mandatory", "remediate", "disabled")

LEVEL_TO_PROTO: dict[str, int] = {
    "advisory": analyzer_pb2.ADVISORY,
    "mandatory": analyzer_pb2.MANDATORY,
    "remediate": analyzer_pb2.REMEDIATE,
    "disabled": analyzer_pb2.DISABLED,
}
PROTO_TO_LEVEL: dict[int, str] = {v: k for k, v in LEVEL_TO_PROTO.items()}
POLICY_TYPES: dict[int, str] = {
    analyzer_pb2.POLICY_TYPE_UNKNOWN: "unknown",
    analyzer_pb2.POLICY_TYPE_RESOURCE: "resource",
    analyzer_pb2.POLICY_TYPE_STACK: "stack",
}
SEVERITIES: dict[int, str] = {
    analyzer_pb2.POLICY_SEVERITY_UNSPECIFIED: "",
    analyzer_pb2.POLICY_SEVERITY_LOW: "low",
    analyzer_pb2.POLICY_SEVERITY_MEDIUM: "medium",
    analyzer_pb2.POLICY_SEVERITY_HIGH: "high",
    analyzer_pb2.POLICY_SEVERITY_CRITICAL: "critical",
}
LOG_SEVERITIES: dict[int, str] = {
    engine_pb2.DEBUG: "debug",
    engine_pb2.INFO: "info",
    engine_pb2.WARNING: "warning",
    engine_pb2.ERROR: "error",
}

_STACK_QUALIFIER = "pulumi:pulumi:Stack$"


# --------------------------------------------------------------------------------------------------------------------
# Errors


class PolicyPackError(RuntimeError):
    """The policy pack could not be run (it failed to start, crashed, or an RPC failed)."""


class PolicyPackStartError(PolicyPackError):
    """The pack process exited, or printed no port, before serving gRPC. The message carries its stderr."""


class PolicyConfigError(PolicyPackError, ValueError):
    """The policy config does not fit the pack: unknown policy, bad enforcement level, or a value its schema rejects.

    ``errors`` lists every problem, each starting with the key path (``<policy>.<property>``).
    """

    def __init__(self, pack_name: str, errors: Sequence[str]) -> None:
        self.pack_name = pack_name
        self.errors = list(errors)
        lines = "\n".join(f"  - {e}" for e in self.errors)
        super().__init__(f"invalid policy config for policy pack '{pack_name}':\n{lines}")


# --------------------------------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Violation:
    """One diagnostic a policy reported, as the engine would show it."""

    policy_name: str
    policy_pack_name: str
    enforcement_level: str  # "advisory" | "mandatory" | "remediate" | "disabled"
    urn: str  # the analysed resource for Analyze; whatever the policy named (may be "") for AnalyzeStack
    message: str
    description: str
    policy_pack_version: str = ""
    severity: str = ""  # "" | "low" | "medium" | "high" | "critical"


@dataclass(frozen=True)
class NotApplicable:
    """A policy that declared itself not applicable to a resource (``urn`` is "" for stack policies)."""

    policy_name: str
    urn: str
    reason: str


@dataclass(frozen=True)
class Remediation:
    """A remediation a policy applied (``properties`` = the new inputs) or could not apply (``diagnostic``)."""

    policy_name: str
    urn: str
    description: str
    properties: dict[str, Any] | None
    diagnostic: str


@dataclass(frozen=True)
class LogMessage:
    """A message the pack sent to the engine's ``Log`` service."""

    severity: str  # "debug" | "info" | "warning" | "error"
    message: str
    urn: str


@dataclass(frozen=True)
class PolicyInfo:
    """A policy as ``GetAnalyzerInfo`` describes it; ``enforcement_level`` is the pack's default for it."""

    name: str
    description: str
    enforcement_level: str
    policy_type: str  # "resource" | "stack" | "unknown"
    display_name: str = ""
    config_schema: dict[str, Any] = field(default_factory=dict)  # property name -> JSON schema
    required: tuple[str, ...] = ()
    severity: str = ""
    remediation_steps: str = ""
    url: str = ""
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class AnalyzerInfo:
    """What ``GetAnalyzerInfo`` returned (version taken from PulumiPolicy.yaml when it sets one, as the engine does)."""

    name: str
    version: str
    policies: list[PolicyInfo]
    initial_config: dict[str, dict[str, Any]]  # policy -> {"enforcementLevel"?: level, <prop>: value}
    supports_config: bool
    description: str = ""
    display_name: str = ""

    def policy(self, name: str) -> PolicyInfo:
        for p in self.policies:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass
class Analysis:
    """What one or more Analyze / AnalyzeStack calls reported."""

    violations: list[Violation] = field(default_factory=list)
    not_applicable: list[NotApplicable] = field(default_factory=list)
    remediations: list[Remediation] = field(default_factory=list)

    def extend(self, other: Analysis) -> None:
        self.violations.extend(other.violations)
        self.not_applicable.extend(other.not_applicable)
        self.remediations.extend(other.remediations)


@dataclass
class PackResult:
    """The verdict of a whole run: every resource's Analyze plus the one AnalyzeStack."""

    violations: list[Violation]
    not_applicable: list[NotApplicable]
    policies: list[PolicyInfo]
    pack_name: str
    version: str
    config: dict[str, dict[str, Any]] = field(default_factory=dict)  # what Configure sent, per policy
    remediations: list[Remediation] = field(default_factory=list)
    logs: list[LogMessage] = field(default_factory=list)
    stderr: str = ""

    @property
    def mandatory(self) -> list[Violation]:
        return [v for v in self.violations if v.enforcement_level == "mandatory"]


# --------------------------------------------------------------------------------------------------------------------
# Wire helpers


def engine_urn(urn: str) -> str:
    """The engine's form of a URN: drop the ``pulumi:pulumi:Stack$`` parent qualifier a mock monitor adds."""
    parts = urn.split("::")
    if len(parts) >= 4 and parts[2].startswith(_STACK_QUALIFIER):
        parts[2] = parts[2][len(_STACK_QUALIFIER) :]
        return "::".join(parts)
    return urn


def _set_value(target: struct_pb2.Value, value: Any, path: str) -> None:
    if value is None:
        target.null_value = struct_pb2.NULL_VALUE
    elif isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, str):
        target.string_value = value
    elif isinstance(value, int | float):
        target.number_value = float(value)
    elif isinstance(value, Mapping):
        _fill_struct(target.struct_value, value, path)
    elif isinstance(value, list | tuple):
        values = target.list_value.values
        for i, item in enumerate(value):
            _set_value(values.add(), item, f"{path}[{i}]")
        if not value:
            target.list_value.SetInParent()
    else:
        raise TypeError(f"{path}: {type(value).__name__} value {value!r} cannot be sent to a policy pack")


def _fill_struct(target: struct_pb2.Struct, props: Mapping[str, Any], path: str) -> None:
    fields = target.fields
    for key, value in props.items():
        _set_value(fields[key], value, f"{path}.{key}" if path else key)
    if not props:
        target.SetInParent()


def to_struct(props: Mapping[str, Any], *, skip_internal_keys: bool = False) -> struct_pb2.Struct:
    """Resource properties as the engine marshals them (numbers as doubles; top-level ``__`` keys optionally gone)."""
    if skip_internal_keys and any(k.startswith("__") for k in props):
        props = {k: v for k, v in props.items() if not k.startswith("__")}
    result = struct_pb2.Struct()
    _fill_struct(result, props, "")
    return result


def struct_to_dict(s: struct_pb2.Struct) -> dict[str, Any]:
    return json_format.MessageToDict(s)


def provider_urn(ref: str) -> str:
    """A provider reference is ``<urn>::<id>``; a URN alone has four ``::``-separated parts."""
    parts = ref.split("::")
    return "::".join(parts[:-1]) if len(parts) >= 5 else ref


def urn_type_and_name(urn: str) -> tuple[str, str]:
    parts = urn.split("::")
    if len(parts) < 4:
        return "", urn
    return parts[2].split("$")[-1], "::".join(parts[3:])
