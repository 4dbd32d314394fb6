"""Start the component package's provider the way the Pulumi CLI does, and act as the engine around it.

What the Python language host does to run a plugin whose directory has a ``__main__.py`` (pulumi/pulumi
``sdk/python/cmd/pulumi-language-python/main.go``, ``RunPlugin``): ``<virtualenv python> <plugin directory> <args>``,
the arguments being the engine's address (and flags), in the working directory the engine gives (the consumer's
project), with the engine's environment. The provider prints its gRPC port as the first line on stdout
(``pulumi.provider.server.main``). The virtualenv is the plugin directory's ``venv`` in a real install; here it is
this project's interpreter, which has the same packages.

Around the process the tests run what the engine would: an engine service (``Log``, the root resource) and a resource
monitor for ``Construct`` (:class:`MonitorService`: the preflight's :class:`~preflight.monitor.RecordingMonitor`
behind a gRPC server, recording every registration as the engine would see it).
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import (
    engine_pb2,
    engine_pb2_grpc,
    provider_pb2,
    provider_pb2_grpc,
    resource_pb2,
    resource_pb2_grpc,
)

from preflight.mock_answers import PreflightMocks
from preflight.monitor import RecordingMonitor

REPO_ROOT = Path(__file__).resolve().parents[2]
PLUGIN_DIR = REPO_ROOT / "component_package"
PROJECT = "consumer"
STACK = "dev"
STACK_URN = f"urn:pulumi:{STACK}::{PROJECT}::pulumi:pulumi:Stack::{PROJECT}-{STACK}"
START_TIMEOUT = 120.0


class EngineService(engine_pb2_grpc.EngineServicer):
    """The engine's side the provider talks to outside resource registration: logs and the root resource."""

    def __init__(self) -> None:
        self.logs: list[tuple[int, str]] = []
        self.root = ""

    def Log(self, request: Any, context: Any) -> Any:  # gRPC method name
        self.logs.append((request.severity, request.message))
        return empty_pb2.Empty()

    def GetRootResource(self, request: Any, context: Any) -> Any:  # gRPC method name
        return engine_pb2.GetRootResourceResponse(urn=self.root)

    def SetRootResource(self, request: Any, context: Any) -> Any:  # gRPC method name
        self.root = request.urn
        return engine_pb2.SetRootResourceResponse()


class MonitorService(resource_pb2_grpc.ResourceMonitorServicer):
    """A resource monitor over gRPC: the preflight's recording monitor answers, with the preflight's mock answers."""

    def __init__(self) -> None:
        self.monitor = RecordingMonitor(PreflightMocks(), project=PROJECT, stack=STACK, default_providers=False)

    def SupportsFeature(self, request: Any, context: Any) -> Any:  # gRPC method name
        supported: bool = getattr(self.monitor.SupportsFeature(request), "hasSupport")  # noqa: B009
        return resource_pb2.SupportsFeatureResponse(hasSupport=supported)

    def GetDeploymentInfo(self, request: Any, context: Any) -> Any:  # gRPC method name
        return self.monitor.GetDeploymentInfo(request)

    def RegisterResource(self, request: Any, context: Any) -> Any:  # gRPC method name
        return self.monitor.RegisterResource(request)

    def RegisterResourceOutputs(self, request: Any, context: Any) -> Any:  # gRPC method name
        return self.monitor.RegisterResourceOutputs(request)

    def Invoke(self, request: Any, context: Any) -> Any:  # gRPC method name
        return self.monitor.Invoke(request)

    def ReadResource(self, request: Any, context: Any) -> Any:  # gRPC method name
        return self.monitor.ReadResource(request)

    def RegisterPackage(self, request: Any, context: Any) -> Any:  # gRPC method name
        return self.monitor.RegisterPackage(request)

    def SignalAndWaitForShutdown(self, request: Any, context: Any) -> Any:  # gRPC method name
        return empty_pb2.Empty()


@dataclass
class Engine:
    """The engine's services, each on its own loopback port."""

    engine: EngineService = field(default_factory=EngineService)
    monitor: MonitorService = field(default_factory=MonitorService)
    engine_address: str = ""
    monitor_address: str = ""


@dataclass
class Plugin:
    """The running provider process and a client for it."""

    process: subprocess.Popen[bytes]
    stub: provider_pb2_grpc.ResourceProviderStub
    stderr: list[str]


@contextmanager
def engine() -> Iterator[Engine]:
    """The engine and monitor services, served until the block ends."""
    out = Engine()
    engine_server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    engine_pb2_grpc.add_EngineServicer_to_server(out.engine, engine_server)
    monitor_server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    resource_pb2_grpc.add_ResourceMonitorServicer_to_server(out.monitor, monitor_server)
    servers = [engine_server, monitor_server]
    out.engine_address = f"127.0.0.1:{engine_server.add_insecure_port('127.0.0.1:0')}"
    out.monitor_address = f"127.0.0.1:{monitor_server.add_insecure_port('127.0.0.1:0')}"
    for server in servers:
        server.start()
    try:
        yield out
    finally:
        for server in servers:
            server.stop(grace=None)


def plugin_command(engine_address: str) -> list[str]:
    """What the language host runs: the interpreter, the plugin directory, then the engine's arguments."""
    return [sys.executable, str(PLUGIN_DIR), engine_address]


@contextmanager
def provider(engine_address: str, cwd: Path) -> Iterator[Plugin]:
    """Start the provider as the language host does and connect to the port it prints; stop it afterwards."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # only what the plugin itself sets up
    process = subprocess.Popen(
        plugin_command(engine_address), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    stderr: list[str] = []
    lines: queue.Queue[bytes] = queue.Queue()
    assert process.stdout is not None and process.stderr is not None
    stdout, errors = process.stdout, process.stderr
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    threading.Thread(target=lambda: stderr.extend(e.decode() for e in errors), daemon=True).start()
    try:
        try:
            first = lines.get(timeout=START_TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"the provider printed no port within {START_TIMEOUT}s: {''.join(stderr)}") from None
        if not first.strip().isdigit():
            process.wait(timeout=30)
            raise AssertionError(f"the provider printed {first!r} instead of a port; stderr: {''.join(stderr)}")
        channel = grpc.insecure_channel(f"127.0.0.1:{int(first)}")
        try:
            yield Plugin(process, provider_pb2_grpc.ResourceProviderStub(channel), stderr)
        finally:
            channel.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def construct_request(
    eng: Engine,
    type_: str,
    name: str,
    inputs: Mapping[str, Any],
    *,
    dry_run: bool = False,
    secret_config: Mapping[str, str] | None = None,
) -> provider_pb2.ConstructRequest:
    """A ``Construct`` as the engine sends it for a component the consumer's stack declares (numbers as doubles);
    ``secret_config``: the stack's secret config values (decrypted, as the engine sends them)."""
    struct = struct_pb2.Struct()
    struct.update(dict(inputs))
    return provider_pb2.ConstructRequest(
        project=PROJECT,
        stack=STACK,
        organization="organization",
        dryRun=dry_run,
        parallel=1,
        monitorEndpoint=eng.monitor_address,
        type=type_,
        name=name,
        parent=STACK_URN,
        inputs=struct,
        config=dict(secret_config or {}),
        configSecretKeys=sorted(secret_config or {}),
    )


def state_dict(response: provider_pb2.ConstructResponse) -> dict[str, Any]:
    """The component's outputs as the engine receives them."""
    return json_format.MessageToDict(response.state)
