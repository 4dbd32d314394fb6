"""Run a Pulumi program (or a function that registers resources) under mocks, recording what the engine would see.

The preflight's machinery with the tests' fixed values: its SDK setup (:func:`preflight.runner.mocked_runtime`), its
recording monitor (:class:`preflight.monitor.RecordingMonitor`, without default providers, as under the SDK's mock
monitor) and its mock answers (:class:`preflight.mock_answers.PreflightMocks` with :data:`MOCK_VALUES`: IDs
``/mock/<type>/<name>``, the deployer's IDs, a fixed kubeconfig and OIDC issuer).

Every run starts from a clean slate (fresh event loop, no root resource, cleared RPC and output bookkeeping, new
config, new monitor), so runs in one pytest process do not leak into each other. Records carry engine-form URNs, the
inputs as the engine receives them (camelCase wire names, numbers as floats; secrets unwrapped, their top-level keys
in ``secret_inputs``), the parent, the dependencies (and per input), the provider reference, ``protect``,
``ignoreChanges``, ``replaceOnChanges`` and ``deleteBeforeReplace``.
"""

from __future__ import annotations

import asyncio
import copy
import runpy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pulumi
import yaml
from pulumi.runtime import settings
from pulumi.runtime.stack import run_pulumi_func

from preflight.mock_answers import MockValues, PreflightMocks
from preflight.model import RecordedResource
from preflight.monitor import RecordingMonitor
from preflight.runner import mocked_runtime
from preflight.stackfile import full_key
from preflight.wire import STACK_TYPE, config_string, is_secret, unwrap_secrets

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
    ignore_changes: list[str] = field(default_factory=list)
    """The ``ignoreChanges`` option as the engine receives it (wire names)."""
    replace_on_changes: list[str] = field(default_factory=list)
    """The ``replaceOnChanges`` option as the engine receives it (wire names)."""
    delete_before_replace: bool = False
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    """Per input (wire name), the resources its value came from."""


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


MOCK_VALUES = MockValues(
    subscription_id=SUBSCRIPTION_ID,
    tenant_id=TENANT_ID,
    client_id=DEPLOYER_CLIENT_ID,
    object_id=DEPLOYER_OBJECT_ID,
    resource_id="/mock/{type}/{name}",
    kubeconfig=FAKE_KUBECONFIG,
    issuer_url=ISSUER_URL,
    secret_stack_outputs=("kubeconfig",),
)
"""The preflight's mock answers with the fixed values the tests assert on (a run adds its stack-reference outputs)."""


def _record(resource: RecordedResource) -> Record:
    return Record(
        urn=resource.urn,
        type=resource.type,
        name=resource.name,
        inputs=unwrap_secrets(resource.inputs),
        parent=resource.parent or "",
        dependencies=list(resource.dependencies),
        protect=resource.protect,
        provider=resource.provider or "",
        custom=resource.custom,
        secret_inputs={key for key, value in resource.inputs.items() if is_secret(value)},
        ignore_changes=list(resource.ignore_changes),
        replace_on_changes=list(resource.replace_on_changes),
        delete_before_replace=resource.delete_before_replace,
        property_dependencies={k: list(v) for k, v in resource.property_dependencies.items()},
    )


def _config_strings(config: Mapping[str, Any]) -> dict[str, str]:
    """The config as the Pulumi CLI hands it to the program: keys with their namespace, values as strings."""
    return {(full_key(key, NAMESPACE) or key): config_string(value) for key, value in config.items()}


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
    mocks = PreflightMocks(replace(MOCK_VALUES, stack_outputs=dict(stack_outputs or {})), invokes=run.invokes)
    monitor = RecordingMonitor(mocks, project=PROJECT, stack=stack, default_providers=False)

    async def body() -> None:
        program()
        await asyncio.sleep(0)

    try:
        with mocked_runtime(
            mocks, monitor, project=PROJECT, stack=stack, config=_config_strings(config), preview=preview
        ) as loop:
            loop.run_until_complete(run_pulumi_func(body))
            loop.run_until_complete(_resolve_outputs(run))
    except BaseException as exc:  # handed to the test, which asserts on it
        run.error = exc
    run.records = [_record(r) for r in monitor.recorded if r.type != STACK_TYPE]
    run.reads = list(monitor.reads)
    return run


def stack_config(stack: str) -> dict[str, Any]:
    """The ``config:`` section of ``stacks/Pulumi.<stack>.yaml``."""
    doc = yaml.safe_load((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))
    return dict(doc["config"])


CI_DEPLOYER_PRINCIPAL_TYPE = "ServicePrincipal"
"""The tests' stacks are deployed as CI deploys them: by a service principal (``cluster.access.deployerPrincipalType``
is required while the deployer is granted access: :func:`rules.access.deployer_principal_type`)."""


def with_ci_deployer(config: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a stack config whose ``cluster.access.deployerPrincipalType`` is
    :data:`CI_DEPLOYER_PRINCIPAL_TYPE` unless the config sets it or ``grantDeployer: false`` (a test about the
    deployer's type builds its config without this helper)."""
    out = copy.deepcopy(dict(config))
    key = next((k for k in (f"{NAMESPACE}:cluster", "cluster") if k in out), "cluster")
    cluster = out.get(key, {})
    if isinstance(cluster, dict):
        access = cluster.setdefault("access", {})
        if isinstance(access, dict) and access.get("grantDeployer", True) is not False:
            access.setdefault("deployerPrincipalType", CI_DEPLOYER_PRINCIPAL_TYPE)
        out[key] = cluster
    return out


def merged(base: Mapping[str, Any], **top: Any) -> dict[str, Any]:
    """A deep copy of a stack config with some top-level keys replaced (the fixtures stay untouched), deployed by CI
    (:func:`with_ci_deployer`)."""
    out = copy.deepcopy(dict(base))
    out.update(copy.deepcopy(top))
    return with_ci_deployer(out)


def run_main(config: Mapping[str, Any], *, stack: str = "dev") -> Run:
    """Run the repository's ``__main__.py`` (the real program) under mocks."""
    return run_program(
        lambda: runpy.run_path(str(REPO_ROOT / "__main__.py"), run_name="__main__"), config=config, stack=stack
    )


def run_stack(stack: str) -> Run:
    return run_main(stack_config(stack), stack=stack)


def engine_urns(run: Run) -> dict[str, str]:
    """Record URN → the URN the engine would assign: the same, since the preflight's recording monitor builds URNs as
    the engine does (the parent's full qualified type, no ``pulumi:pulumi:Stack$``). The root stack is not a record:
    ``engine_urns(run).get(record.parent)`` is ``None`` for a top-level resource."""
    return {record.urn: record.urn for record in run.records}
