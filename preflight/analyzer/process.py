"""The policy pack's process, started the way the Python language host starts it, and the engine's gRPC service the
pack calls back (``Log``, the root resource). Knows nothing of the analyzer calls themselves (:mod:`.client`)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping
from concurrent import futures
from datetime import date
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import grpc
import yaml
from google.protobuf import empty_pb2
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc

from gpu_catalog.clock import TODAY_ENV
from preflight.analyzer.protocol import LOG_SEVERITIES, LogMessage, PolicyPackError, PolicyPackStartError

_MAX_MESSAGE = 400 * 1024 * 1024  # the same limit pulumi_policy sets on its server
_CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", _MAX_MESSAGE),
    ("grpc.max_send_message_length", _MAX_MESSAGE),
]
_STDERR_TAIL = 4000


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _STDERR_TAIL else "…" + text[-_STDERR_TAIL:]


class _EngineServicer(engine_pb2_grpc.EngineServicer):
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.logs: list[LogMessage] = []
        self.root_resource = ""

    def Log(self, request: Any, context: Any) -> empty_pb2.Empty:
        with self.lock:
            self.logs.append(LogMessage(LOG_SEVERITIES.get(request.severity, "info"), request.message, request.urn))
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


def pack_python(pack_dir: Path) -> str:
    """The interpreter the engine would use: the pack's own virtualenv (PulumiPolicy.yaml) if it exists."""
    meta = read_pack_yaml(pack_dir)
    runtime = meta.get("runtime")
    options = runtime.get("options") if isinstance(runtime, Mapping) else None
    venv = options.get("virtualenv") if isinstance(options, Mapping) else None
    if isinstance(venv, str):
        candidate = (pack_dir / venv / "bin" / "python").resolve()
        if candidate.exists():
            return str(candidate)
    return sys.executable


def read_pack_yaml(pack_dir: Path) -> dict[str, Any]:
    path = pack_dir / "PulumiPolicy.yaml"
    if not path.is_file():
        return {}
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else {}


class PackProcess:
    """A running policy pack process, its stdout/stderr readers and the engine service it calls back.

    :meth:`start` leaves an open gRPC channel to the pack (:attr:`channel`); :meth:`close` stops everything and is safe
    to call more than once. The analyzer calls live in :class:`preflight.analyzer.client.PolicyPackProcess`.
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
        today: date | None = None,
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
        self.today = today
        """The day the pack checks on (its ``$AGP_TODAY``); ``None``: this process's environment decides."""
        self.engine_address = ""

        self._proc: subprocess.Popen[bytes] | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._engine_server: grpc.Server | None = None
        self._engine = _EngineServicer()
        self._channel: grpc.Channel | None = None
        self._stdout: list[str] = []
        self._stderr: list[str] = []
        self._readers: list[threading.Thread] = []
        self._port_queue: queue.Queue[str | None] = queue.Queue()

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

    @property
    def channel(self) -> grpc.Channel | None:
        """The open channel to the pack (None before :meth:`start` and after :meth:`close`)."""
        return self._channel

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
        self.engine_address = f"127.0.0.1:{engine_port}"

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
        if self.today is not None:
            env[TODAY_ENV] = self.today.isoformat()
        python = self.python or pack_python(self.pack_dir)
        cmd = [python, "-u", "-m", "pulumi.policy", self.engine_address, str(self.pack_dir)]
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

    def close(self) -> None:
        """Close the channel, stop the pack process and the engine service. Safe to call more than once."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
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
