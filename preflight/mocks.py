"""Run any Pulumi Python program under ``pulumi.runtime.set_mocks`` and record every resource as the engine sees it.

The preflight needs the resources a ``pulumi preview`` would register, without the Pulumi CLI and without a cloud.
:func:`run_program` runs a program directory (``Pulumi.yaml`` + ``__main__.py``) under mocks with a stack's config and
returns one :class:`~preflight.model.RecordedResource` per registration, in registration order:

- URNs in the engine's form: the mock monitor qualifies every child of the root stack with ``pulumi:pulumi:Stack$``
  and keeps only the last parent type; :class:`RecordingMonitor` builds URNs exactly as the engine does (the full
  parent type chain, the root stack type left out), so parent URNs, dependencies and the URNs the program sees agree.
- inputs as the engine receives them over gRPC: camelCase wire names, numbers as floats, values unknown during the
  preview as the sentinel :data:`UNKNOWN`, secrets in their wire form (``{SIG_KEY: SECRET_SIG, "value": ...}``,
  the form a policy pack unwraps), resource references downgraded to the ID (custom) or URN (component).
- parent, dependencies, property dependencies, provider reference and ``protect`` from the registration request.
- default providers (``pulumi:providers:<pkg>::default_<version>``) are recorded like the engine registers them.

Isolation: by default the program runs in a child process (``python -m preflight.mocks``). The Pulumi SDK keeps
process-global state (root resource, config, outstanding output tasks, the resource-module registry, modules the
program imported); a child process cannot leak any of it into the next run, and the program's own stdout cannot
corrupt the preflight's report. ``isolate=False`` runs in the calling process (one run per process).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import logging
import os
import runpy
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpu_catalog.problems import Problem, show
from preflight.model import RecordedResource
from preflight.stackfile import StackFileError, read_stack_file

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
"""How the engine (and so a policy pack) sees a value that is not known during a preview."""

SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7"

STACK_TYPE = "pulumi:pulumi:Stack"
STACK_FILE_ENV = "AGP_STACK_FILE"
"""Our program names this file in its config errors (see ``components/config.py``)."""

MOCK_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000"
MOCK_TENANT_ID = "11111111-1111-1111-1111-111111111111"
MOCK_CLIENT_ID = "22222222-2222-2222-2222-222222222222"
MOCK_OBJECT_ID = "33333333-3333-3333-3333-333333333333"


class PreflightInputError(Exception):
    """Bad input to the preflight itself (program directory, stack file): exit code 2, message names file and key."""


class ProgramError(Exception):
    """The program raised (e.g. ``StackConfigError`` for an invalid stack file): exit code 2.

    ``message`` is what the program said; ``detail`` carries the traceback for unexpected exception types.
    """

    def __init__(
        self,
        message: str,
        detail: str | None = None,
        exc_type: str | None = None,
        problems: list[Problem] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail
        self.exc_type = exc_type
        self.problems = problems
        """The stack-file problems the program listed (an exception with ``problems`` of ``path`` and ``message``,
        like ``StackConfigError``), so the preflight can report them with its own in one list."""


# --------------------------------------------------------------------------------------------------------------------
# Program and stack files


@dataclass
class StackSettings:
    """Everything needed to run one program for one stack."""

    program_dir: Path
    project: str
    stack: str
    config: dict[str, str] = field(default_factory=dict)
    """Pulumi config as the language host passes it: ``ns:key`` → string (objects and lists JSON-encoded)."""
    secret_keys: list[str] = field(default_factory=list)
    stack_file: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)
    """The same config with its YAML values (not stringified), for the preflight's own keys (policy, budget)."""
    problems: list[Problem] = field(default_factory=list)
    """Problems of the stack file that did not stop reading it (duplicate keys), reported with all the others."""


def read_project(program_dir: Path) -> str:
    """The project name from ``<program_dir>/Pulumi.yaml``; the program must be a Python program."""
    if not program_dir.is_dir():
        raise PreflightInputError(f"{program_dir}: program directory not found")
    project_file = next((program_dir / n for n in ("Pulumi.yaml", "Pulumi.yml") if (program_dir / n).is_file()), None)
    if project_file is None:
        raise PreflightInputError(f"{program_dir}: no Pulumi.yaml (not a Pulumi program directory)")
    try:
        doc = yaml.safe_load(project_file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PreflightInputError(f"{project_file}: cannot read: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str) or not doc["name"]:
        raise PreflightInputError(f"{project_file}: key 'name' must be the project name (a string)")
    runtime = doc.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        raise PreflightInputError(
            f"{project_file}: key 'runtime' is {runtime_name!r}; the preflight runs Python programs"
        )
    main = doc.get("main")
    if main is not None and not isinstance(main, str):
        raise PreflightInputError(f"{project_file}: key 'main' must be a path")
    if not program_main(program_dir, main).is_file():
        raise PreflightInputError(f"{program_dir}: no __main__.py (the program's entry point)")
    return doc["name"]


def program_main(program_dir: Path, main: str | None = None) -> Path:
    """The entry point: ``__main__.py`` in the program dir, or in/at ``main`` from ``Pulumi.yaml``."""
    if main is None:
        doc = (
            yaml.safe_load((program_dir / "Pulumi.yaml").read_text(encoding="utf-8"))
            if (program_dir / "Pulumi.yaml").is_file()
            else None
        )
        main = doc.get("main") if isinstance(doc, dict) and isinstance(doc.get("main"), str) else None
    target = program_dir / main if main else program_dir
    return target / "__main__.py" if target.is_dir() else target


def _config_string(value: Any) -> str:
    """The string the Pulumi CLI hands the program for one config value (objects and lists JSON-encoded)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def _full_key(key: str, project: str, problems: list[Problem] | None = None) -> str | None:
    """``ns:key`` as written, or ``<project>:key`` for a key without a namespace; ``None`` (and a problem) when
    ``:`` leaves either side empty."""
    if ":" in key:
        ns, _, name = key.partition(":")
        if not ns or not name:
            message = "a config key looks like 'namespace:key' (or 'key' for this project's namespace)."
            if problems is None:
                raise PreflightInputError(f"config key {key!r}: {message}")
            problems.append(Problem(key, message))
            return None
        return key
    return f"{project}:{key}"


def _project_defaults(program_dir: Path, project: str) -> dict[str, Any]:
    """Config defaults declared in ``Pulumi.yaml`` (``config: {key: {default: ...}}`` or ``{key: value}``)."""
    doc = yaml.safe_load((program_dir / "Pulumi.yaml").read_text(encoding="utf-8")) or {}
    section = doc.get("config") or {}
    out: dict[str, Any] = {}
    if not isinstance(section, dict):
        return out
    for key, spec in section.items():
        full = _full_key(str(key), project)
        if full is None:
            continue
        if isinstance(spec, dict):
            if "value" in spec:
                out[full] = spec["value"]
            elif "default" in spec:
                out[full] = spec["default"]
        else:
            out[full] = spec
    return out


def load_stack_settings(program_dir: Path, stack_file: Path | None, stack: str | None = None) -> StackSettings:
    """Read a Pulumi stack file (``config:`` section) for a program as the Pulumi CLI reads it.

    Raise :class:`~preflight.stackfile.StackFileError` when the file cannot be read at all (encoding, YAML syntax,
    not a mapping); problems that leave it readable (duplicate keys) are kept in ``problems`` so the caller reports
    them with every other problem of the file. The stack name is ``stack`` or, from the file name
    ``Pulumi.<stack>.yaml``, the part between the dots. ``secure:`` values cannot be decrypted offline: they reach
    the program as a placeholder and are marked secret.
    """
    program_dir = program_dir.resolve()
    project = read_project(program_dir)
    values: dict[str, Any] = _project_defaults(program_dir, project)
    secret_keys: list[str] = []
    problems: list[Problem] = []
    if stack_file is not None:
        if not stack_file.is_file():
            raise PreflightInputError(f"{stack_file}: stack file not found")
        label = _file_label(program_dir, stack_file)
        parsed = read_stack_file(stack_file, label=label, project=project)
        problems.extend(parsed.problems)
        doc = {} if parsed.doc is None else parsed.doc
        if not isinstance(doc, dict):
            raise StackFileError(
                label, [Problem("(root)", f"must be a mapping with a 'config' key; got {show(doc)}.")], project
            )
        section = doc.get("config") or {}
        if not isinstance(section, dict):
            raise StackFileError(
                label,
                [Problem("config", f"must be a mapping of 'namespace:key' to values; got {show(section)}.")],
                project,
            )
        bad_keys: list[Problem] = []
        for key, value in section.items():
            full = _full_key(str(key), project, bad_keys)
            if full is None:
                continue
            if isinstance(value, dict) and set(value) == {"secure"}:
                values[full] = "[secret: encrypted in the stack file, not available offline]"
                secret_keys.append(full)
            else:
                values[full] = value
        if bad_keys:
            raise StackFileError(label, [*problems, *bad_keys], project)
        if stack is None:
            name = stack_file.name
            for suffix in (".yaml", ".yml"):
                if name.startswith("Pulumi.") and name.endswith(suffix) and len(name) > len("Pulumi.") + len(suffix):
                    stack = name[len("Pulumi.") : -len(suffix)]
            if stack is None:
                raise PreflightInputError(f"{stack_file}: cannot tell the stack name; name it Pulumi.<stack>.yaml")
    return StackSettings(
        program_dir=program_dir,
        project=project,
        stack=stack or "dev",
        config={k: _config_string(v) for k, v in values.items()},
        secret_keys=secret_keys,
        stack_file=stack_file.resolve() if stack_file is not None else None,
        values=values,
        problems=problems,
    )


def _file_label(program_dir: Path, stack_file: Path) -> str:
    """How messages name a stack file: relative to the program dir when inside it (``stacks/Pulumi.dev.yaml``)."""
    try:
        return stack_file.resolve().relative_to(program_dir).as_posix()
    except ValueError:
        return str(stack_file)


# --------------------------------------------------------------------------------------------------------------------
# Converting wire values to the engine's view


def engine_value(value: Any, components: Mapping[str, bool] | None = None) -> Any:
    """A value decoded from a gRPC ``Struct`` as the engine hands it to an analyzer.

    Secrets stay in their wire form (a policy pack unwraps them); resource references become the resource's ID
    (custom resources; unknown when the ID is not known) or URN (components), as the engine does for a client that
    does not accept resource references.
    """
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig == RESOURCE_SIG:
            rid = value.get("id")
            if rid is not None:
                return rid if rid != "" else UNKNOWN
            return value.get("urn", UNKNOWN)
        if sig == SECRET_SIG:
            return {SIG_KEY: SECRET_SIG, "value": engine_value(value.get("value"), components)}
        return {k: engine_value(v, components) for k, v in value.items()}
    if isinstance(value, list):
        return [engine_value(v, components) for v in value]
    return value


def unwrap_secrets(value: Any) -> Any:
    """The plain value with every wire-form secret replaced by its content (for the cost estimate)."""
    if isinstance(value, dict):
        if value.get(SIG_KEY) == SECRET_SIG:
            return unwrap_secrets(value.get("value"))
        return {k: unwrap_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwrap_secrets(v) for v in value]
    return value


def mask_secrets(value: Any) -> Any:
    """The value with every secret shown as ``"[secret]"`` (for reports)."""
    if isinstance(value, dict):
        if value.get(SIG_KEY) == SECRET_SIG:
            return "[secret]"
        return {k: mask_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    return value


# --------------------------------------------------------------------------------------------------------------------
# Mocks: plausible answers for resources and invokes


_MOCK_CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nmock\n-----END CERTIFICATE-----\n").decode()


def _kubeconfig(cluster: str) -> str:
    return (
        "apiVersion: v1\n"
        "kind: Config\n"
        "clusters:\n"
        f"- name: {cluster}\n"
        "  cluster:\n"
        f"    server: https://{cluster}-dns-00000000.hcp.westeurope.azmk8s.io:443\n"
        f"    certificate-authority-data: {_MOCK_CA}\n"
        "contexts:\n"
        f"- name: {cluster}\n"
        "  context:\n"
        f"    cluster: {cluster}\n"
        f"    user: clusterUser_{cluster}\n"
        f"current-context: {cluster}\n"
        "users:\n"
        f"- name: clusterUser_{cluster}\n"
        "  user:\n"
        "    exec:\n"
        "      apiVersion: client.authentication.k8s.io/v1beta1\n"
        "      command: kubelogin\n"
        "      args: [get-token, --login, azurecli, --server-id, 6dae42f8-4368-4678-94ff-3960e28e3630]\n"
    )


_AZURE_NAME_KEYS: dict[str, str] = {
    "azure-native:resources:ResourceGroup": "resourceGroupName",
    "azure-native:containerservice:ManagedCluster": "resourceName",
    "azure-native:containerservice:AgentPool": "agentPoolName",
    "azure-native:databricks:Workspace": "workspaceName",
    "azure-native:managedidentity:UserAssignedIdentity": "resourceName",
    "azure-native:network:VirtualNetwork": "virtualNetworkName",
    "azure-native:network:Subnet": "subnetName",
}


def _azure_outputs(typ: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    outputs = dict(inputs)
    _, module, kind = [*typ.split(":"), "", ""][:3]
    key = _AZURE_NAME_KEYS.get(typ)
    az_name = inputs.get(key) if key else None
    if not isinstance(az_name, str):
        az_name = inputs.get("name") if isinstance(inputs.get("name"), str) else name
    rg = inputs.get("resourceGroupName") if isinstance(inputs.get("resourceGroupName"), str) else "mock-rg"
    sub = f"/subscriptions/{MOCK_SUBSCRIPTION_ID}"
    if typ == "azure-native:resources:ResourceGroup":
        rid = f"{sub}/resourceGroups/{az_name}"
    else:
        collection = f"{kind[:1].lower()}{kind[1:]}s"
        rid = f"{sub}/resourceGroups/{rg}/providers/Microsoft.{module.capitalize()}/{collection}/{az_name}"
    outputs.setdefault("name", az_name)
    outputs["id"] = rid
    outputs.setdefault("type", f"Microsoft.{module.capitalize()}/{kind}")
    if typ == "azure-native:containerservice:ManagedCluster":
        location = inputs.get("location", "westeurope")
        outputs.setdefault("fqdn", f"{az_name}-dns-00000000.hcp.{location}.azmk8s.io")
        outputs.setdefault("nodeResourceGroup", f"MC_{rg}_{az_name}_{location}")
        outputs.setdefault("provisioningState", "Succeeded")
        oidc = dict(outputs.get("oidcIssuerProfile") or {})
        oidc.setdefault("issuerURL", f"https://{location}.oic.prod-aks.azure.com/{MOCK_TENANT_ID}/{MOCK_OBJECT_ID}/")
        outputs["oidcIssuerProfile"] = oidc
        outputs.setdefault(
            "identityProfile",
            {
                "kubeletidentity": {
                    "clientId": MOCK_CLIENT_ID,
                    "objectId": MOCK_OBJECT_ID,
                    "resourceId": f"{sub}/resourceGroups/MC_{rg}/providers/Microsoft.ManagedIdentity/"
                    f"userAssignedIdentities/{az_name}-agentpool",
                }
            },
        )
        identity = dict(outputs.get("identity") or {"type": "SystemAssigned"})
        identity.setdefault("principalId", MOCK_OBJECT_ID)
        identity.setdefault("tenantId", MOCK_TENANT_ID)
        outputs["identity"] = identity
    elif typ == "azure-native:databricks:Workspace":
        outputs.setdefault("workspaceId", "1234567890123456")
        outputs.setdefault("workspaceUrl", "adb-1234567890123456.7.azuredatabricks.net")
    elif typ == "azure-native:managedidentity:UserAssignedIdentity":
        outputs.setdefault("clientId", MOCK_CLIENT_ID)
        outputs.setdefault("principalId", MOCK_OBJECT_ID)
        outputs.setdefault("tenantId", MOCK_TENANT_ID)
    return rid, outputs


def _mock_call(token: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """Plausible results for the invokes our components (and common programs) make; ``None`` when unknown."""
    if token in (
        "azure-native:containerservice:listManagedClusterUserCredentials",
        "azure-native:containerservice:listManagedClusterAdminCredentials",
        "azure-native:containerservice:listManagedClusterMonitoringUserCredentials",
    ):
        cluster = str(args.get("resourceName") or "aks")
        value = base64.b64encode(_kubeconfig(cluster).encode()).decode()
        kind = "clusterAdmin" if "Admin" in token else "clusterUser"
        return {"kubeconfigs": [{"name": kind, "value": value}]}
    if token in ("azure-native:authorization:getClientConfig", "azure-native:authorization:getClientConfigOutput"):
        return {
            "clientId": MOCK_CLIENT_ID,
            "objectId": MOCK_OBJECT_ID,
            "subscriptionId": MOCK_SUBSCRIPTION_ID,
            "tenantId": MOCK_TENANT_ID,
        }
    if token == "azure-native:resources:getResourceGroup":
        name = str(args.get("resourceGroupName") or "mock-rg")
        return {
            "id": f"/subscriptions/{MOCK_SUBSCRIPTION_ID}/resourceGroups/{name}",
            "name": name,
            "location": "westeurope",
            "type": "Microsoft.Resources/resourceGroups",
            "properties": {"provisioningState": "Succeeded"},
        }
    if token == "azure-native:containerservice:getManagedCluster":
        name = str(args.get("resourceName") or "aks")
        return {"name": name, "kubernetesVersion": "1.36", "fqdn": f"{name}-dns-00000000.hcp.westeurope.azmk8s.io"}
    if token == "databricks:index/getSparkVersion:getSparkVersion":
        gpu, ml = bool(args.get("gpu")), bool(args.get("ml"))
        suffix = "-gpu-ml" if gpu else ("-ml" if ml else "")
        return {**args, "id": f"15.4.x{suffix}-scala2.12"}
    if token == "databricks:index/getNodeType:getNodeType":
        return {**args, "id": "Standard_NC4as_T4_v3" if args.get("minGpus") else "Standard_D4ds_v5"}
    if token == "databricks:index/getCurrentUser:getCurrentUser":
        return {"id": "1000", "userName": "preflight@example.com", "home": "/Users/preflight@example.com"}
    if token == "kubernetes:yaml:decode":
        docs = [d for d in yaml.safe_load_all(str(args.get("text", ""))) if d]
        return {"result": docs}
    if token == "pulumi:pulumi:getStackOutputs":  # pragma: no cover - served by ReadResource in the SDK
        return {}
    return None


def _make_mocks(warnings: list[str]) -> Any:
    import pulumi

    class PreflightMocks(pulumi.runtime.Mocks):
        """Resources: outputs = inputs plus plausible cloud-assigned values. Invokes: see :func:`_mock_call`."""

        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[Any, Any]]:
            inputs = dict(args.inputs)
            if args.typ.startswith("azure-native:"):
                return _azure_outputs(args.typ, args.name, inputs)
            if args.typ == "pulumi:pulumi:StackReference":
                return args.name, {"name": inputs.get("name", args.name), "outputs": {}, "secretOutputNames": []}
            if args.typ.startswith("databricks:"):
                inputs.setdefault("clusterId" if args.typ.endswith("Cluster") else "id", f"{args.name}-0000")
                return f"{args.name}-0000", inputs
            if args.typ.startswith("pulumi:providers:"):
                return "", inputs  # a new provider has no ID in a preview: references carry UNKNOWN
            if args.typ.startswith("kubernetes:"):
                meta = dict(inputs.get("metadata") or {})
                meta.setdefault("name", args.name)
                inputs["metadata"] = meta
                ns = meta.get("namespace")
                return (f"{ns}/{meta['name']}" if ns else str(meta["name"])), inputs
            return f"{args.name}-id", inputs

        def call(self, args: pulumi.runtime.MockCallArgs) -> Any:
            # A bare dict: MockMonitor.Invoke reads a tuple's second item as a list of check failures.
            result = _mock_call(args.token, dict(args.args))
            if result is None:
                warnings.append(f"invoke {args.token} has no preflight mock; it returned an empty result")
                return {}
            return result

    return PreflightMocks()


# --------------------------------------------------------------------------------------------------------------------
# The recording monitor


def _make_monitor(mocks: Any, project: str, stack: str, config: Mapping[str, str]) -> Any:
    from google.protobuf import json_format
    from pulumi.runtime.mocks import MockMonitor

    class RecordingMonitor(MockMonitor):
        """A MockMonitor that builds engine-form URNs and records each registration as the engine would see it."""

        def __init__(self) -> None:
            super().__init__(mocks)
            self.recorded: list[RecordedResource] = []
            self._lock = threading.Lock()
            self._default_providers: dict[str, str] = {}
            self._components: dict[str, bool] = {}

        def make_urn(self, parent: str, type_: str, name: str) -> str:
            # The engine qualifies a type with the parent's full qualified type, except for the root stack.
            if parent:
                parent_type = parent.split("::")[2]
                if parent_type != STACK_TYPE:
                    type_ = f"{parent_type}${type_}"
            return f"urn:pulumi:{stack}::{project}::{type_}::{name}"

        def _default_provider(self, type_: str, version: str) -> str:
            pkg = type_.split(":", maxsplit=1)[0]
            key = f"{pkg}@{version}"
            with self._lock:
                ref = self._default_providers.get(key)
                if ref is not None:
                    return ref
                name = "default" + (f"_{version.replace('.', '_').replace('-', '_')}" if version else "")
                urn = f"urn:pulumi:{stack}::{project}::pulumi:providers:{pkg}::{name}"
                inputs: dict[str, Any] = {
                    k.split(":", 1)[1]: v for k, v in config.items() if k.split(":", 1)[0] == pkg and ":" in k
                }
                if version:
                    inputs["version"] = version
                ref = f"{urn}::{UNKNOWN}"
                self._default_providers[key] = ref
                self.recorded.append(
                    RecordedResource(urn=urn, type=f"pulumi:providers:{pkg}", name=name, inputs=inputs, custom=True)
                )
                return ref

        def RegisterResource(self, request: Any) -> Any:  # gRPC method name
            response = super().RegisterResource(request)
            urn = self.make_urn(request.parent, request.type, request.name)
            raw = json_format.MessageToDict(request.object) if request.HasField("object") else {}
            inputs = engine_value(raw)
            provider = request.provider or None
            if (
                provider is None
                and request.custom
                and not request.type.startswith("pulumi:providers:")
                and request.type != STACK_TYPE
            ):
                provider = self._default_provider(request.type, request.version)
            record = RecordedResource(
                urn=urn,
                type=request.type,
                name=request.name,
                inputs=inputs,
                parent=request.parent or None,
                custom=bool(request.custom),
                provider=provider,
                dependencies=list(request.dependencies),
                property_dependencies={k: list(v.urns) for k, v in request.propertyDependencies.items()},
                protect=bool(request.protect) if request.HasField("protect") else False,
            )
            with self._lock:
                self._components[urn] = not request.custom
                self.recorded.append(record)
            return response

    return RecordingMonitor()


# --------------------------------------------------------------------------------------------------------------------
# Running a program


@dataclass
class ProgramRun:
    """What running a program under mocks produced."""

    resources: list[RecordedResource]
    warnings: list[str] = field(default_factory=list)


def stack_file_label(settings: StackSettings) -> str:
    """How errors name the stack file: relative to the program dir when inside it (``stacks/Pulumi.dev.yaml``)."""
    assert settings.stack_file is not None
    return _file_label(settings.program_dir, settings.stack_file)


@contextlib.contextmanager
def _program_context(settings: StackSettings) -> Iterator[None]:
    """cwd = program dir, program dir first on sys.path, AGP_STACK_FILE set; all restored afterwards."""
    old_cwd = Path.cwd()
    old_path = list(sys.path)
    old_env = os.environ.get(STACK_FILE_ENV)
    program = str(settings.program_dir)
    entry_dir = str(program_main(settings.program_dir).parent)
    sys.path.insert(0, program)
    if entry_dir != program:
        sys.path.insert(0, entry_dir)  # Pulumi.yaml `main: src/`: the entry point's folder is importable
    if settings.stack_file is not None:
        os.environ[STACK_FILE_ENV] = stack_file_label(settings)
    os.chdir(program)
    try:
        yield
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path
        if old_env is None:
            os.environ.pop(STACK_FILE_ENV, None)
        else:
            os.environ[STACK_FILE_ENV] = old_env


def _clear_outputs() -> None:
    """Drop output tasks left by an earlier run in this process (they can hang the next run's wait for RPCs)."""
    from pulumi.runtime import settings as rt_settings

    state: Any = rt_settings.SETTINGS  # context properties; pyright sees the descriptors, not the values
    state.outputs.clear()
    state.rpc_manager.clear()


def _cancel_pending(loop: Any) -> None:
    """Cancel tasks a failed program left behind (e.g. component outputs never registered) before closing the loop."""
    import asyncio

    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        with contextlib.suppress(Exception):
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def _program_traceback(exc: BaseException, program_dir: Path) -> str:
    """The traceback frames in the program's own files (the SDK's and the runner's frames are noise to its author)."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [
        f for f in frames if not f.filename.startswith("<") and Path(f.filename).resolve().is_relative_to(program_dir)
    ]
    shown = own or frames[-3:]
    head = "Traceback (frames in the program):\n" if own else "Traceback (last frames):\n"
    return head + "".join(traceback.format_list(shown)) + "".join(traceback.format_exception_only(exc))


class _WarningSink(logging.Handler):
    """Collects what the program logs at warning level (``pulumi.log.warn``) for the report."""

    def __init__(self, sink: list[str]) -> None:
        super().__init__(level=logging.WARNING)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno == logging.WARNING:
            self.sink.append(record.getMessage())


def _warning_logger(sink: list[str]) -> logging.Logger:
    logger = logging.getLogger(f"preflight.program.{id(sink)}")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    logger.handlers = [_WarningSink(sink)]
    return logger


def _listed_problems(exc: BaseException) -> list[Problem] | None:
    """``exc.problems`` as :class:`Problem` when the program's exception lists stack-file problems (duck-typed: any
    program may raise one with ``path`` and ``message`` attributes)."""
    listed = getattr(exc, "problems", None)
    if not isinstance(listed, list) or not listed:
        return None
    out: list[Problem] = []
    for item in listed:
        path, message = getattr(item, "path", None), getattr(item, "message", None)
        if not isinstance(path, str) or not isinstance(message, str):
            return None
        out.append(Problem(path, message))
    return out


def run_program_in_process(settings: StackSettings) -> ProgramRun:
    """Run the program in this process. Resets the SDK state it uses; still, prefer :func:`run_program` (isolated)."""
    import asyncio

    import pulumi
    from pulumi.runtime import settings as rt_settings
    from pulumi.runtime.stack import run_pulumi_func

    warnings: list[str] = []
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    rt_settings.ROOT.set(None)
    pulumi.runtime.set_all_config(dict(settings.config), list(settings.secret_keys))
    mocks = _make_mocks(warnings)
    monitor = _make_monitor(mocks, settings.project, settings.stack, settings.config)
    main = program_main(settings.program_dir)
    with _program_context(settings):
        try:
            _clear_outputs()  # before set_mocks, which registers the new root stack
            pulumi.runtime.set_mocks(
                mocks,
                project=settings.project,
                stack=settings.stack,
                preview=True,
                monitor=monitor,
                logger=_warning_logger(warnings),
            )

            def program() -> None:
                runpy.run_path(str(main), run_name="__main__")

            loop.run_until_complete(run_pulumi_func(program))
        except pulumi.RunError as exc:
            raise ProgramError(str(exc), exc_type=type(exc).__name__, problems=_listed_problems(exc)) from exc
        except Exception as exc:
            detail = _program_traceback(exc, settings.program_dir)
            raise ProgramError(f"{type(exc).__name__}: {exc}", detail=detail, exc_type=type(exc).__name__) from exc
        finally:
            rt_settings.ROOT.set(None)
            _clear_outputs()
            _cancel_pending(loop)
            loop.close()
            asyncio.set_event_loop(None)
    return ProgramRun(resources=list(monitor.recorded), warnings=warnings)


def _settings_to_json(settings: StackSettings) -> dict[str, Any]:
    return {
        "programDir": str(settings.program_dir),
        "project": settings.project,
        "stack": settings.stack,
        "config": settings.config,
        "secretKeys": settings.secret_keys,
        "stackFile": str(settings.stack_file) if settings.stack_file else None,
    }


def _settings_from_json(doc: dict[str, Any]) -> StackSettings:
    return StackSettings(
        program_dir=Path(doc["programDir"]),
        project=doc["project"],
        stack=doc["stack"],
        config=dict(doc["config"]),
        secret_keys=list(doc["secretKeys"]),
        stack_file=Path(doc["stackFile"]) if doc.get("stackFile") else None,
    )


def run_program(
    settings: StackSettings,
    *,
    isolate: bool = True,
    python: str | None = None,
    cancel: threading.Event | None = None,
) -> ProgramRun:
    """Run the program under mocks and return what it registered; raise :class:`ProgramError` if it failed.

    With ``isolate`` (the default) the program runs in a child process (``python -m preflight.mocks``); its stdout
    goes to this process's stderr so it cannot corrupt a report on stdout. Setting ``cancel`` stops the child (the
    caller no longer needs the result, e.g. the policy config was already found invalid).
    """
    if not isolate:
        return run_program_in_process(settings)
    python = python or program_python(settings.program_dir)
    repo_root = str(Path(__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory(prefix="preflight-") as tmp:
        request = Path(tmp) / "request.json"
        result = Path(tmp) / "result.json"
        errors = Path(tmp) / "stderr.txt"
        request.write_text(json.dumps(_settings_to_json(settings)), encoding="utf-8")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (repo_root, env.get("PYTHONPATH", "")) if p)
        with errors.open("wb") as err_out:
            proc = subprocess.Popen(
                [python, "-m", "preflight.mocks", str(request), str(result)],
                stdin=subprocess.DEVNULL,
                stdout=sys.stderr.fileno() if _has_fileno(sys.stderr) else subprocess.DEVNULL,
                stderr=err_out,
                env=env,
                cwd=repo_root,
            )
            try:
                while True:
                    try:
                        proc.wait(timeout=0.1)
                        break
                    except subprocess.TimeoutExpired:
                        if cancel is not None and cancel.is_set():
                            proc.kill()
                            proc.wait()
                            raise ProgramError("the program run was cancelled") from None
            finally:
                if proc.poll() is None:  # interrupted (e.g. KeyboardInterrupt): never leave the child behind
                    proc.kill()
                    proc.wait()
        child_stderr = errors.read_text(encoding="utf-8", errors="replace")
        if not result.is_file():
            raise ProgramError(
                f"the program runner exited with code {proc.returncode} before reporting a result",
                detail=child_stderr or None,
            )
        doc = json.loads(result.read_text(encoding="utf-8"))
    if child_stderr.strip():
        sys.stderr.write(child_stderr)
    if doc.get("error"):
        err = doc["error"]
        listed = err.get("problems")
        problems = [Problem(p["path"], p["message"]) for p in listed] if isinstance(listed, list) else None
        raise ProgramError(err["message"], detail=err.get("detail"), exc_type=err.get("type"), problems=problems)
    resources = [RecordedResource(**r) for r in doc["resources"]]
    return ProgramRun(resources=resources, warnings=list(doc.get("warnings", [])))


def program_python(program_dir: Path) -> str:
    """The interpreter the Pulumi CLI would use for the program: its ``runtime.options.virtualenv`` if that exists.

    Another team's program brings its own dependencies in its own virtualenv; ``preflight.mocks`` only needs the
    ``pulumi`` SDK and PyYAML there (both dependencies of every Pulumi Python program). Else: this interpreter.
    """
    try:
        doc = yaml.safe_load((program_dir / "Pulumi.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return sys.executable
    runtime = doc.get("runtime") if isinstance(doc, dict) else None
    options = runtime.get("options") if isinstance(runtime, dict) else None
    venv = options.get("virtualenv") if isinstance(options, dict) else None
    if isinstance(venv, str) and venv:
        base = Path(venv) if Path(venv).is_absolute() else program_dir / venv
        for candidate in (base / "bin" / "python", base / "Scripts" / "python.exe"):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return sys.executable


def _has_fileno(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


def _child_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m preflight.mocks", description="run one program under mocks")
    parser.add_argument("request", type=Path, help="JSON file: programDir, project, stack, config, secretKeys")
    parser.add_argument("result", type=Path, help="where to write the JSON result")
    args = parser.parse_args(argv)
    settings = _settings_from_json(json.loads(args.request.read_text(encoding="utf-8")))
    out: dict[str, Any]
    try:
        run = run_program_in_process(settings)
        out = {"resources": [asdict(r) for r in run.resources], "warnings": run.warnings, "error": None}
    except ProgramError as exc:
        out = {
            "resources": [],
            "warnings": [],
            "error": {
                "message": exc.message,
                "detail": exc.detail,
                "type": exc.exc_type,
                "problems": [asdict(p) for p in exc.problems] if exc.problems is not None else None,
            },
        }
    args.result.write_text(json.dumps(out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))
