"""Run a Pulumi program (or a function that registers resources) under mocks, recording what the engine would see.

Every run starts from a clean slate (fresh event loop, no root resource, cleared RPC and output bookkeeping, new
config, new monitor), so runs in one pytest process do not leak into each other. Records carry the inputs as the
engine receives them (camelCase wire names, numbers as floats), the parent, the dependencies and ``protect``.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import runpy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pulumi
import yaml
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc, settings
from pulumi.runtime.stack import run_pulumi_func

REPO_ROOT = Path(__file__).resolve().parents[2]
STACKS_DIR = REPO_ROOT / "stacks"
PROJECT = "azure-gpu-platform"
NAMESPACE = "azure-gpu-platform"

AGENT_POOL = "azure-native:containerservice:AgentPool"
MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
RESOURCE_GROUP = "azure-native:resources:ResourceGroup"
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
K8S_PROVIDER = "pulumi:providers:kubernetes"
DATABRICKS_WORKSPACE = "azure-native:databricks:Workspace"
DATABRICKS_CLUSTER = "databricks:index/cluster:Cluster"
KAITO_WORKSPACE = "kubernetes:kaito.sh/v1beta1:Workspace"
SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000001"
DATABRICKS_URL = "adb-1234567890123456.7.azuredatabricks.net"
CREDENTIALS_INVOKE = "azure-native:containerservice:listManagedClusterUserCredentials"
CLIENT_CONFIG_INVOKE = "azure-native:authorization:getClientConfig"
ROLE_ASSIGNMENT = "azure-native:authorization:RoleAssignment"
SLEEP = "time:index/sleep:Sleep"
DEPLOYER_OBJECT_ID = "00000000-0000-0000-0000-0000000000d1"
DEPLOYER_CLIENT_ID = "00000000-0000-0000-0000-0000000000c1"
TENANT_ID = "00000000-0000-0000-0000-0000000000e1"

FAKE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: aks, cluster: {server: "https://aks.hcp.westeurope.azmk8s.io:443"}}]
users: [{name: clusterUser, user: {exec: {command: kubelogin, args: [get-token]}}}]
contexts: [{name: aks, context: {cluster: aks, user: clusterUser}}]
current-context: aks
"""
ISSUER_URL = "https://westeurope.oic.prod-aks.azure.com/00000000-0000-0000-0000-000000000000/11111111/"


@dataclass
class Record:
    urn: str
    type: str
    name: str
    inputs: dict[str, Any]
    parent: str
    dependencies: list[str]
    protect: bool
    provider: str
    custom: bool
    secret_inputs: set[str] = field(default_factory=set)
    """Top-level input keys the program marked secret."""


@dataclass
class Run:
    records: list[Record] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    secret_outputs: set[str] = field(default_factory=set)
    invokes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    reads: list[tuple[str, str, str]] = field(default_factory=list)
    """(type, name, id) of every resource read (e.g. a StackReference)."""
    error: BaseException | None = None

    def of_type(self, type_: str) -> list[Record]:
        return [r for r in self.records if r.type == type_]

    def one(self, type_: str) -> Record:
        found = self.of_type(type_)
        assert len(found) == 1, f"expected one {type_}, got {[r.name for r in found]}"
        return found[0]

    def by_name(self, name: str, type_: str | None = None) -> Record:
        found = [r for r in self.records if r.name == name and (type_ is None or r.type == type_)]
        assert len(found) == 1, f"expected one resource named {name}, got {len(found)}"
        return found[0]

    def by_urn(self, urn: str) -> Record:
        return next(r for r in self.records if r.urn == urn)


class PlatformMocks(pulumi.runtime.Mocks):
    def __init__(self, run: Run, stack_outputs: Mapping[str, Any] | None = None) -> None:
        self.run = run
        self.stack_outputs = dict(stack_outputs or {})

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        state = dict(args.inputs)
        if args.typ == "pulumi:pulumi:StackReference":
            outputs = self.stack_outputs
            return args.name, {"name": args.name, "outputs": outputs, "secretOutputNames": ["kubeconfig"]}
        if args.typ == MANAGED_CLUSTER:
            state["oidcIssuerProfile"] = {**(state.get("oidcIssuerProfile") or {}), "issuerURL": ISSUER_URL}
        if args.typ == RESOURCE_GROUP:  # an ARM id: the Databricks workspace derives its managed group's id from it
            return f"/subscriptions/{SUBSCRIPTION_ID}/resourceGroups/{state.get('resourceGroupName')}", state
        if args.typ == DATABRICKS_WORKSPACE:
            state["workspaceUrl"] = DATABRICKS_URL
        return f"/mock/{args.typ}/{args.name}", state

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        self.run.invokes.append((args.token, dict(args.args)))
        if args.token == CREDENTIALS_INVOKE:
            value = base64.b64encode(FAKE_KUBECONFIG.encode()).decode()
            return {"kubeconfigs": [{"name": "clusterUser", "value": value}]}, []
        if args.token == CLIENT_CONFIG_INVOKE:
            return {
                "clientId": DEPLOYER_CLIENT_ID,
                "objectId": DEPLOYER_OBJECT_ID,
                "subscriptionId": SUBSCRIPTION_ID,
                "tenantId": TENANT_ID,
            }, []
        return {}, []


class RecordingMonitor(pulumi_mocks.MockMonitor):
    """A mock monitor that also records parent, dependencies, provider and protect of every registration."""

    def __init__(self, mocks: PlatformMocks, run: Run) -> None:
        super().__init__(mocks)
        self.run = run

    def ReadResource(self, request: Any) -> Any:
        response = super().ReadResource(request)
        self.run.reads.append((request.type, request.name, request.id))
        return response

    def RegisterResource(self, request: Any) -> Any:
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            self.run.records.append(
                Record(
                    urn=response.urn,
                    type=request.type,
                    name=request.name,
                    inputs=_unwrap_secrets(rpc.deserialize_properties(request.object)),
                    parent=request.parent,
                    dependencies=list(request.dependencies),
                    protect=bool(request.protect),
                    provider=request.provider,
                    custom=bool(request.custom),
                    secret_inputs=_secret_keys(request.object),
                )
            )
        return response


def _unwrap_secrets(value: Any) -> Any:
    if isinstance(value, dict):
        if value.get(rpc._special_sig_key) == rpc._special_secret_sig:
            return _unwrap_secrets(value.get("value"))
        return {k: _unwrap_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unwrap_secrets(v) for v in value]
    return value


def _secret_keys(struct: Any) -> set[str]:
    out: set[str] = set()
    for key, value in struct.fields.items():
        inner = value.struct_value.fields if value.HasField("struct_value") else {}
        if inner.get(rpc._special_sig_key, None) is not None and inner[rpc._special_sig_key].string_value == (
            rpc._special_secret_sig
        ):
            out.add(key)
    return out


def _settings() -> Any:
    return cast(Any, settings.SETTINGS)


def _config_strings(config: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in config.items():
        full = key if ":" in key else f"{NAMESPACE}:{key}"
        out[full] = value if isinstance(value, str) else json.dumps(value)
    return out


async def _resolve_outputs(run: Run) -> None:
    root = settings.get_root_resource()
    exported: dict[str, Any] = dict(getattr(root, "outputs", {}) or {})
    for key, value in exported.items():
        out = pulumi.Output.from_input(value)
        run.outputs[key] = await out.future()
        if await out.is_secret():
            run.secret_outputs.add(key)


def run_program(
    program: Callable[[], Any],
    *,
    config: Mapping[str, Any],
    stack: str = "dev",
    preview: bool = False,
    stack_outputs: Mapping[str, Any] | None = None,
) -> Run:
    """Run ``program`` under fresh mocks with ``config`` (keys with or without the namespace). Never raises:
    an exception from the program is in ``Run.error``."""
    run = Run()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    settings.ROOT.set(None)
    pulumi.runtime.set_all_config(_config_strings(config))
    mocks = PlatformMocks(run, stack_outputs)
    pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=preview, monitor=RecordingMonitor(mocks, run))
    _settings().rpc_manager.clear()
    _settings().outputs.clear()

    async def body() -> None:
        program()
        await asyncio.sleep(0)

    try:
        loop.run_until_complete(run_pulumi_func(body))
        loop.run_until_complete(_resolve_outputs(run))
    except BaseException as exc:  # handed to the test, which asserts on it
        run.error = exc
    finally:
        # Leftover tasks (e.g. after a program raised) must not leak into the next run.
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        _settings().rpc_manager.clear()
        _settings().outputs.clear()
        loop.close()
        asyncio.set_event_loop(None)
    return run


def stack_config(stack: str) -> dict[str, Any]:
    """The ``config:`` section of ``stacks/Pulumi.<stack>.yaml``."""
    doc = yaml.safe_load((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))
    return dict(doc["config"])


def merged(base: Mapping[str, Any], **top: Any) -> dict[str, Any]:
    """A deep copy of a stack config with some top-level keys replaced (the fixtures stay untouched)."""
    out = copy.deepcopy(dict(base))
    out.update(copy.deepcopy(top))
    return out


def run_main(config: Mapping[str, Any], *, stack: str = "dev") -> Run:
    """Run the repository's ``__main__.py`` (the real program) under mocks."""
    return run_program(
        lambda: runpy.run_path(str(REPO_ROOT / "__main__.py"), run_name="__main__"), config=config, stack=stack
    )


def run_stack(stack: str) -> Run:
    return run_main(stack_config(stack), stack=stack)


def engine_urns(run: Run) -> dict[str, str]:
    """Mock URN → the URN the engine would assign.

    The engine qualifies a resource's type with its parent's *full* qualified type (minus the root stack):
    ``AksGpuCluster$GpuNodePool$AgentPool``. The mock monitor keeps only the parent's last type and keeps the stack
    (``pulumi:pulumi:Stack$...``), so its URNs differ from the engine's below the first level.
    """
    by_urn = {r.urn: r for r in run.records}
    qualified: dict[str, str] = {}

    def qualify(urn: str) -> str:
        if urn in qualified:
            return qualified[urn]
        record = by_urn[urn]
        parent = by_urn.get(record.parent)
        qt = f"{qualify(parent.urn)}${record.type}" if parent is not None else record.type
        qualified[urn] = qt
        return qt

    out: dict[str, str] = {}
    for record in run.records:
        head = record.urn.split("::")[:2]
        out[record.urn] = "::".join([*head, qualify(record.urn), record.name])
    return out
