"""The engine side of Pulumi's analyzer (policy pack) gRPC protocol.

A CrossGuard policy pack is checked offline exactly as ``pulumi preview --policy-pack <dir>`` checks it: the pack is
started the way the Python language host starts it (``python -u -m pulumi.policy <engine-address> <pack-dir>``, working
directory = pack dir, ``PULUMI_PROJECT``/``PULUMI_STACK``/``PULUMI_DRY_RUN``/``PULUMI_ORGANIZATION``/``PULUMI_CONFIG``
in the environment, the gRPC port on the first stdout line) and this module plays the engine:

1. ``Handshake`` (pulumi_policy answers UNIMPLEMENTED, which the engine tolerates too), ``ConfigureStack``;
2. ``GetAnalyzerInfo``;
3. ``Configure`` with an entry for EVERY policy: schema defaults, then the pack's ``initialConfig``, then the user's
   policy config (the ``all`` key sets every level), validated against each policy's config schema as the engine
   does. An enforcement level is always sent: pulumi_policy reads a missing level as ``advisory``;
4. per resource ``Remediate`` then ``Analyze`` (properties = the resource inputs as a protobuf ``Struct``, top-level
   ``__`` keys stripped for ``Analyze``, numbers as doubles, unknown preview values as the sentinel string);
5. ``AnalyzeStack`` once with every resource (parent, dependencies, property dependencies, properties = inputs,
   which is what the engine sends for resources being created in a preview).

Where this client is deliberately stricter than the engine: a policy name in the user's config that the pack does not
define, and a config property a policy's schema does not declare, are errors (the engine ignores both silently, so a
typo would disable nothing and configure nothing).

``Remediate`` is skipped when no policy runs at level ``remediate``: pulumi_policy's ``Remediate`` does nothing at all
unless a policy has that level, so the verdict is identical and each resource costs one round trip instead of two.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterable, Mapping, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import grpc
import jsonschema
import yaml
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc, engine_pb2, engine_pb2_grpc

from gpu_catalog.problems import show
from preflight.model import RecordedResource
from preflight.wire import UNKNOWN

__all__ = [
    "ENFORCEMENT_LEVELS",
    "UNKNOWN",
    "Analysis",
    "AnalyzerInfo",
    "LogMessage",
    "NotApplicable",
    "PackResult",
    "PolicyConfigError",
    "PolicyInfo",
    "PolicyPackError",
    "PolicyPackProcess",
    "PolicyPackStartError",
    "Remediation",
    "Violation",
    "engine_urn",
    "reconcile_policy_config",
    "run_policy_pack",
]

ENFORCEMENT_LEVELS: tuple[str, ...] = ("advisory", "mandatory", "remediate", "disabled")

_LEVEL_TO_PROTO: dict[str, int] = {
    "advisory": analyzer_pb2.ADVISORY,
    "mandatory": analyzer_pb2.MANDATORY,
    "remediate": analyzer_pb2.REMEDIATE,
    "disabled": analyzer_pb2.DISABLED,
}
_PROTO_TO_LEVEL: dict[int, str] = {v: k for k, v in _LEVEL_TO_PROTO.items()}
_POLICY_TYPES: dict[int, str] = {
    analyzer_pb2.POLICY_TYPE_UNKNOWN: "unknown",
    analyzer_pb2.POLICY_TYPE_RESOURCE: "resource",
    analyzer_pb2.POLICY_TYPE_STACK: "stack",
}
_SEVERITIES: dict[int, str] = {
    analyzer_pb2.POLICY_SEVERITY_UNSPECIFIED: "",
    analyzer_pb2.POLICY_SEVERITY_LOW: "low",
    analyzer_pb2.POLICY_SEVERITY_MEDIUM: "medium",
    analyzer_pb2.POLICY_SEVERITY_HIGH: "high",
    analyzer_pb2.POLICY_SEVERITY_CRITICAL: "critical",
}
_LOG_SEVERITIES: dict[int, str] = {
    engine_pb2.DEBUG: "debug",
    engine_pb2.INFO: "info",
    engine_pb2.WARNING: "warning",
    engine_pb2.ERROR: "error",
}

_MAX_MESSAGE = 400 * 1024 * 1024  # the same limit pulumi_policy sets on its server
_CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", _MAX_MESSAGE),
    ("grpc.max_send_message_length", _MAX_MESSAGE),
]
_STACK_QUALIFIER = "pulumi:pulumi:Stack$"
_STDERR_TAIL = 4000


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


def _struct_to_dict(s: struct_pb2.Struct) -> dict[str, Any]:
    return json_format.MessageToDict(s)


def _provider_urn(ref: str) -> str:
    """A provider reference is ``<urn>::<id>``; a URN alone has four ``::``-separated parts."""
    parts = ref.split("::")
    return "::".join(parts[:-1]) if len(parts) >= 5 else ref


def _urn_type_and_name(urn: str) -> tuple[str, str]:
    parts = urn.split("::")
    if len(parts) < 4:
        return "", urn
    return parts[2].split("$")[-1], "::".join(parts[3:])


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _STDERR_TAIL else "…" + text[-_STDERR_TAIL:]


# --------------------------------------------------------------------------------------------------------------------
# Policy config: what the engine's ReconcilePolicyPackConfig does, plus the stricter name checks described above.


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


# --------------------------------------------------------------------------------------------------------------------
# The engine's gRPC service (the pack may call Log)


class _EngineServicer(engine_pb2_grpc.EngineServicer):
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.logs: list[LogMessage] = []
        self.root_resource = ""

    def Log(self, request: Any, context: Any) -> empty_pb2.Empty:
        with self.lock:
            self.logs.append(LogMessage(_LOG_SEVERITIES.get(request.severity, "info"), request.message, request.urn))
        return empty_pb2.Empty()

    def GetRootResource(self, request: Any, context: Any) -> engine_pb2.GetRootResourceResponse:
        return engine_pb2.GetRootResourceResponse(urn=self.root_resource)

    def SetRootResource(self, request: Any, context: Any) -> engine_pb2.SetRootResourceResponse:
        self.root_resource = request.urn
        return engine_pb2.SetRootResourceResponse()


# --------------------------------------------------------------------------------------------------------------------
# The pack process


def _kill_process_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the pack (SIGTERM, then SIGKILL after 5 s) and everything it started in its session."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.kill()
        proc.wait(timeout=5)


def _pack_python(pack_dir: Path) -> str:
    """The interpreter the engine would use: the pack's own virtualenv (PulumiPolicy.yaml) if it exists."""
    meta = _read_pack_yaml(pack_dir)
    runtime = meta.get("runtime")
    options = runtime.get("options") if isinstance(runtime, Mapping) else None
    venv = options.get("virtualenv") if isinstance(options, Mapping) else None
    if isinstance(venv, str):
        candidate = (pack_dir / venv / "bin" / "python").resolve()
        if candidate.exists():
            return str(candidate)
    return sys.executable


def _read_pack_yaml(pack_dir: Path) -> dict[str, Any]:
    path = pack_dir / "PulumiPolicy.yaml"
    if not path.is_file():
        return {}
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else {}


class PolicyPackProcess:
    """A running policy pack and the engine side of its gRPC connection.

    Use as a context manager; the process is stopped on exit, also when the body raises::

        with PolicyPackProcess(Path("policies")) as pack:
            info = pack.analyzer_info()
            pack.configure({"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}})
            result = pack.analyze(resource)            # Remediate (when needed) + Analyze
            result = pack.analyze_stack(resources)     # AnalyzeStack

    ``configure`` is called with no user config before the first analysis if it was not called explicitly.
    """

    def __init__(
        self,
        pack_dir: Path | str,
        *,
        project: str = "azure-gpu-platform",
        stack: str = "dev",
        dry_run: bool = True,
        organization: str = "organization",
        stack_config: Mapping[str, Any] | None = None,
        python: str | None = None,
        startup_timeout: float = 60.0,
        rpc_timeout: float = 120.0,
        always_remediate: bool = False,
    ) -> None:
        self.pack_dir = Path(pack_dir).resolve()
        self.project = project
        self.stack = stack
        self.dry_run = dry_run
        self.organization = organization
        # Stack config as the engine passes it to a pack: "<namespace>:<key>" -> string (structured values as JSON).
        self.stack_config: dict[str, str] = {
            k: v if isinstance(v, str) else json.dumps(v) for k, v in (stack_config or {}).items()
        }
        self.python = python
        self.startup_timeout = startup_timeout
        self.rpc_timeout = rpc_timeout
        # False: skip Remediate while no policy runs at level remediate (pulumi_policy's Remediate is then a no-op).
        self.always_remediate = always_remediate

        self._proc: subprocess.Popen[bytes] | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._engine_server: grpc.Server | None = None
        self._engine = _EngineServicer()
        self._channel: grpc.Channel | None = None
        self._stub: analyzer_pb2_grpc.AnalyzerStub | None = None
        self._stdout: list[str] = []
        self._stderr: list[str] = []
        self._readers: list[threading.Thread] = []
        self._port_queue: queue.Queue[str | None] = queue.Queue()
        self._info: AnalyzerInfo | None = None
        self._config: dict[str, dict[str, Any]] | None = None
        self._remediate = True
        self._provider_props: dict[str, dict[str, Any]] = {}
        self._provider_msgs: dict[str, analyzer_pb2.AnalyzerProviderResource] = {}  # by reference, built once
        self._analyzed: dict[str, tuple[Mapping[str, Any], struct_pb2.Struct]] = {}  # urn -> (inputs, Analyze props)

    # -- lifecycle ---------------------------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def stderr(self) -> str:
        return "".join(self._stderr)

    @property
    def logs(self) -> list[LogMessage]:
        with self._engine.lock:
            return list(self._engine.logs)

    def start(self) -> None:
        if self._proc is not None:
            raise PolicyPackError("policy pack process already started")
        if not (self.pack_dir / "PulumiPolicy.yaml").is_file():
            raise PolicyPackStartError(f"{self.pack_dir} is not a policy pack: it has no PulumiPolicy.yaml")
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), options=_CHANNEL_OPTIONS)
        engine_pb2_grpc.add_EngineServicer_to_server(self._engine, server)
        engine_port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        self._engine_server = server
        engine_address = f"127.0.0.1:{engine_port}"

        env = dict(os.environ)
        env.update(
            {
                "PULUMI_PROJECT": self.project,
                "PULUMI_STACK": self.stack,
                "PULUMI_DRY_RUN": "true" if self.dry_run else "false",
                "PULUMI_ORGANIZATION": self.organization,
                "PULUMI_CONFIG": json.dumps(self.stack_config),
                "PYTHONUNBUFFERED": "1",
            }
        )
        python = self.python or _pack_python(self.pack_dir)
        cmd = [python, "-u", "-m", "pulumi.policy", engine_address, str(self.pack_dir)]
        self._proc = subprocess.Popen(
            cmd,
            cwd=self.pack_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self._finalizer = weakref.finalize(self, _kill_process_group, self._proc)
        self._readers = [
            threading.Thread(target=self._read_stdout, name="policy-pack-stdout", daemon=True),
            threading.Thread(target=self._read_stderr, name="policy-pack-stderr", daemon=True),
        ]
        for t in self._readers:
            t.start()

        port = self._wait_for_port()
        self._channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=_CHANNEL_OPTIONS)
        try:
            grpc.channel_ready_future(self._channel).result(timeout=self.startup_timeout)
        except grpc.FutureTimeoutError as e:
            raise PolicyPackStartError(
                self._describe(f"policy pack printed port {port} but did not serve on it")
            ) from e
        self._stub = analyzer_pb2_grpc.AnalyzerStub(self._channel)

        try:
            self._stub.Handshake(
                analyzer_pb2.AnalyzerHandshakeRequest(
                    engine_address=engine_address,
                    root_directory=str(self.pack_dir),
                    program_directory=str(self.pack_dir),
                ),
                timeout=self.rpc_timeout,
            )
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
                raise self._rpc_error("Handshake", e) from e
        try:
            self._stub.ConfigureStack(
                analyzer_pb2.AnalyzerStackConfigureRequest(
                    stack=self.stack,
                    project=self.project,
                    organization=self.organization,
                    dry_run=self.dry_run,
                    config=self.stack_config,
                ),
                timeout=self.rpc_timeout,
            )
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
                raise self._rpc_error("ConfigureStack", e) from e

    def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        first = True
        for raw in self._proc.stdout:
            line = raw.decode("utf-8", "replace")
            if first:
                first = False
                self._port_queue.put(line)
            else:
                self._stdout.append(line)
        if first:
            self._port_queue.put(None)

    def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        for raw in self._proc.stderr:
            self._stderr.append(raw.decode("utf-8", "replace"))

    def _wait_for_port(self) -> int:
        assert self._proc is not None
        deadline = time.monotonic() + self.startup_timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise PolicyPackStartError(
                    self._describe(f"policy pack did not print its port within {self.startup_timeout:g} s")
                )
            try:
                line = self._port_queue.get(timeout=min(remaining, 0.2))
            except queue.Empty:
                continue
            if line is None:  # stdout closed: the process is exiting or has exited
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._proc.wait(timeout=5)
                self._join_readers()
                raise PolicyPackStartError(
                    self._describe(f"policy pack exited with code {self._proc.returncode} before serving gRPC")
                )
            try:
                return int(line.strip())
            except ValueError:
                self._stdout.insert(0, line)
                raise PolicyPackStartError(
                    self._describe(f"policy pack printed {line.strip()!r} instead of its gRPC port on stdout")
                ) from None

    def _join_readers(self) -> None:
        for t in self._readers:
            t.join(timeout=2)

    def _describe(self, what: str) -> str:
        cmd = f"python -u -m pulumi.policy <engine> {self.pack_dir}"
        parts = [f"{what} ({cmd}, cwd {self.pack_dir})"]
        stderr = _tail(self.stderr)
        stdout = _tail("".join(self._stdout))
        if stderr:
            parts.append(f"stderr:\n{stderr}")
        if stdout:
            parts.append(f"stdout:\n{stdout}")
        return "\n".join(parts)

    def _rpc_error(self, method: str, e: grpc.RpcError, subject: str = "") -> PolicyPackError:
        code = e.code() if hasattr(e, "code") else None  # type: ignore[attr-defined]
        details = e.details() if hasattr(e, "details") else str(e)  # type: ignore[attr-defined]
        name = self._info.name if self._info else str(self.pack_dir)
        about = f" for {subject}" if subject else ""
        time.sleep(0.05)  # give the stderr reader a moment to capture the pack's traceback
        return PolicyPackError(self._describe(f"policy pack '{name}' failed in {method}{about}: {code}: {details}"))

    def close(self) -> None:
        """Close the channel, stop the pack process and the engine service. Safe to call more than once."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
            self._stub = None
        if self._proc is not None:
            _kill_process_group(self._proc)
            if self._finalizer is not None:
                self._finalizer.detach()
            self._join_readers()
            for pipe in (self._proc.stdout, self._proc.stderr):
                if pipe is not None:
                    pipe.close()
        if self._engine_server is not None:
            self._engine_server.stop(grace=None)
            self._engine_server = None

    # -- protocol ----------------------------------------------------------------------------------------------------

    def _require_stub(self) -> analyzer_pb2_grpc.AnalyzerStub:
        if self._stub is None:
            raise PolicyPackError("policy pack process is not running (use it as a context manager or call start())")
        return self._stub

    def analyzer_info(self) -> AnalyzerInfo:
        """GetAnalyzerInfo (cached): the pack's name, version, policies and initial config."""
        if self._info is not None:
            return self._info
        stub = self._require_stub()
        try:
            resp = stub.GetAnalyzerInfo(empty_pb2.Empty(), timeout=self.rpc_timeout)
        except grpc.RpcError as e:
            raise self._rpc_error("GetAnalyzerInfo", e) from e
        policies = [
            PolicyInfo(
                name=p.name,
                description=p.description,
                enforcement_level=_PROTO_TO_LEVEL.get(p.enforcementLevel, "advisory"),
                policy_type=_POLICY_TYPES.get(p.policy_type, "unknown"),
                display_name=p.displayName,
                config_schema=_struct_to_dict(p.configSchema.properties) if p.HasField("configSchema") else {},
                required=tuple(p.configSchema.required),
                severity=_SEVERITIES.get(p.severity, ""),
                remediation_steps=p.remediation_steps,
                url=p.url,
                tags=tuple(p.tags),
            )
            for p in resp.policies
        ]
        policies.sort(key=lambda p: p.name)
        initial: dict[str, dict[str, Any]] = {}
        for key, cfg in resp.initialConfig.items():
            entry = _struct_to_dict(cfg.properties)
            entry["enforcementLevel"] = _PROTO_TO_LEVEL.get(cfg.enforcementLevel, "advisory")
            initial[key] = entry
        version = _read_pack_yaml(self.pack_dir).get("version") or resp.version
        self._info = AnalyzerInfo(
            name=resp.name,
            version=str(version),
            policies=policies,
            initial_config=initial,
            supports_config=resp.supportsConfig,
            description=resp.description,
            display_name=resp.displayName,
        )
        return self._info

    def configure(self, policy_config: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
        """Reconcile and validate the config, then Configure with an entry (and a level) for every policy.

        Returns what was sent: ``{policy: {"enforcementLevel": level, <prop>: value}}``. Raises
        :class:`PolicyConfigError` (nothing is sent) when the config does not fit the pack.
        """
        info = self.analyzer_info()
        config = reconcile_policy_config(info, policy_config)
        request = analyzer_pb2.ConfigureAnalyzerRequest()
        for name, cfg in config.items():
            entry = request.policyConfig[name]
            entry.enforcementLevel = _LEVEL_TO_PROTO[cfg["enforcementLevel"]]  # type: ignore[assignment]
            entry.properties.CopyFrom(to_struct({k: v for k, v in cfg.items() if k != "enforcementLevel"}))
        try:
            self._require_stub().Configure(request, timeout=self.rpc_timeout)
        except grpc.RpcError as e:
            raise self._rpc_error("Configure", e) from e
        self._config = config
        self._remediate = any(cfg["enforcementLevel"] == "remediate" for cfg in config.values())
        return config

    @property
    def config(self) -> dict[str, dict[str, Any]] | None:
        """The config last sent with Configure (None before configure())."""
        return self._config

    def _ensure_configured(self) -> None:
        if self._config is None:
            self.configure(None)

    def _options(self, r: RecordedResource) -> analyzer_pb2.AnalyzerResourceOptions:
        return analyzer_pb2.AnalyzerResourceOptions(protect=r.protect, parent=engine_urn(r.parent or ""))

    def _provider(self, r: RecordedResource) -> analyzer_pb2.AnalyzerProviderResource | None:
        if not r.provider:
            return None
        msg = self._provider_msgs.get(r.provider)
        if msg is None:
            urn = engine_urn(_provider_urn(r.provider))
            typ, name = _urn_type_and_name(urn)
            props = to_struct(self._provider_props.get(urn, {}), skip_internal_keys=True)
            msg = analyzer_pb2.AnalyzerProviderResource(urn=urn, type=typ, name=name, properties=props)
            self._provider_msgs[r.provider] = msg
        return msg

    def _request(self, r: RecordedResource, inputs: Mapping[str, Any], *, analyze: bool) -> analyzer_pb2.AnalyzeRequest:
        return analyzer_pb2.AnalyzeRequest(
            type=r.type,
            properties=to_struct(inputs, skip_internal_keys=analyze),
            urn=engine_urn(r.urn),
            name=r.name,
            options=self._options(r),
            provider=self._provider(r),
        )

    def _remediate_one(self, r: RecordedResource, out: Analysis) -> dict[str, Any]:
        """Remediate; returns the inputs Analyze must see (the last remediation's properties, if any)."""
        inputs: dict[str, Any] = dict(r.inputs)
        urn = engine_urn(r.urn)
        try:
            resp = self._require_stub().Remediate(self._request(r, inputs, analyze=False), timeout=self.rpc_timeout)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
                return inputs
            raise self._rpc_error("Remediate", e, urn) from e
        for rem in resp.remediations:
            props = _struct_to_dict(rem.properties) if rem.HasField("properties") else None
            if props is not None:
                inputs = props
            out.remediations.append(Remediation(rem.policyName, urn, rem.description, props, rem.diagnostic))
        out.not_applicable.extend(NotApplicable(n.policy_name, urn, n.reason) for n in resp.not_applicable)
        return inputs

    def _collect(self, resp: analyzer_pb2.AnalyzeResponse, urn: str | None, out: Analysis) -> None:
        for d in resp.diagnostics:
            out.violations.append(
                Violation(
                    policy_name=d.policyName,
                    policy_pack_name=d.policyPackName,
                    enforcement_level=_PROTO_TO_LEVEL.get(d.enforcementLevel, "advisory"),
                    # Analyze: the engine always reports against the analysed resource. AnalyzeStack: the policy's.
                    urn=urn if urn is not None else d.urn,
                    message=d.message,
                    description=d.description,
                    policy_pack_version=self._info.version if self._info else d.policyPackVersion,
                    severity=_SEVERITIES.get(d.severity, ""),
                )
            )
        out.not_applicable.extend(NotApplicable(n.policy_name, urn or "", n.reason) for n in resp.not_applicable)

    def analyze(self, resource: RecordedResource) -> Analysis:
        """Remediate (when a policy runs at level remediate) then Analyze one resource."""
        return self.analyze_many([resource])

    def analyze_many(self, resources: Iterable[RecordedResource], *, in_flight: int = 4) -> Analysis:
        """Remediate + Analyze each resource, in order, with up to ``in_flight`` Analyze calls outstanding.

        Results come back in resource order. Pipelining hides the round trip: the pack's server handles calls on its
        own threads while this side serialises the next resources.
        """
        self._ensure_configured()
        stub = self._require_stub()
        out = Analysis()
        pending: list[tuple[str, grpc.Future]] = []

        def drain(limit: int) -> None:
            while len(pending) > limit:
                urn, fut = pending.pop(0)
                try:
                    resp = fut.result()
                except grpc.RpcError as e:
                    for _, other in pending:
                        other.cancel()
                    raise self._rpc_error("Analyze", e, urn) from e
                self._collect(resp, urn, out)

        for r in resources:
            inputs = self._remediate_one(r, out) if self._remediate or self.always_remediate else r.inputs
            req = self._request(r, inputs, analyze=True)
            # AnalyzeStack sends the same (possibly remediated) properties: keep the Struct, don't rebuild it.
            self._analyzed[r.urn] = (r.inputs, req.properties)
            pending.append((req.urn, stub.Analyze.future(req, timeout=self.rpc_timeout)))
            drain(max(in_flight - 1, 0))
        drain(0)
        return out

    def analyze_stack(self, resources: Sequence[RecordedResource]) -> Analysis:
        """AnalyzeStack once with every resource (properties = inputs, as in a preview of new resources)."""
        self._ensure_configured()
        request = analyzer_pb2.AnalyzeStackRequest()
        for r in resources:
            ar = request.resources.add(
                type=r.type,
                urn=engine_urn(r.urn),
                name=r.name,
                options=self._options(r),
                parent=engine_urn(r.parent or ""),
                dependencies=[engine_urn(d) for d in r.dependencies],
            )
            seen = self._analyzed.get(r.urn)
            if seen is not None and seen[0] is r.inputs:
                ar.properties.CopyFrom(seen[1])
            else:
                ar.properties.CopyFrom(to_struct(r.inputs, skip_internal_keys=True))
            provider = self._provider(r)
            if provider is not None:
                ar.provider.CopyFrom(provider)
            for key, urns in r.property_dependencies.items():
                if urns:
                    ar.propertyDependencies[key].urns.extend(engine_urn(u) for u in urns)
        out = Analysis()
        try:
            resp = self._require_stub().AnalyzeStack(request, timeout=self.rpc_timeout)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
                return out
            raise self._rpc_error("AnalyzeStack", e) from e
        self._collect(resp, None, out)
        return out

    def know_providers(self, resources: Iterable[RecordedResource]) -> None:
        """Remember provider resources' inputs so Analyze can send them with the resources they serve."""
        for r in resources:
            if r.type.startswith("pulumi:providers:"):
                self._provider_props[engine_urn(r.urn)] = dict(r.inputs)
        self._provider_msgs.clear()


def run_policy_pack(
    pack_dir: Path,
    resources: list[RecordedResource],
    *,
    policy_config: dict[str, Any] | None = None,
    project: str = "azure-gpu-platform",
    stack: str = "dev",
    dry_run: bool = True,
    python: str | None = None,
    organization: str = "organization",
    stack_config: Mapping[str, Any] | None = None,
    startup_timeout: float = 60.0,
) -> PackResult:
    """Start the pack, configure it, Analyze every resource, AnalyzeStack once, stop it; return the verdict.

    Raises :class:`PolicyConfigError` for config that does not fit the pack, :class:`PolicyPackStartError` when the
    pack does not start, :class:`PolicyPackError` when it fails during analysis.
    """
    with PolicyPackProcess(
        pack_dir,
        project=project,
        stack=stack,
        dry_run=dry_run,
        organization=organization,
        stack_config=stack_config,
        python=python,
        startup_timeout=startup_timeout,
    ) as pack:
        info = pack.analyzer_info()
        config = pack.configure(policy_config)
        pack.know_providers(resources)
        analysis = pack.analyze_many(resources)
        analysis.extend(pack.analyze_stack(resources))
        logs = pack.logs
    return PackResult(
        violations=analysis.violations,
        not_applicable=analysis.not_applicable,
        policies=info.policies,
        pack_name=info.name,
        version=info.version,
        config=config,
        remediations=analysis.remediations,
        logs=logs,
        stderr=pack.stderr,
    )
