"""Run any Pulumi Python program under ``pulumi.runtime.set_mocks`` and record every resource as the engine sees it.

The preflight needs the resources a ``pulumi preview`` would register, without the Pulumi CLI and without a cloud.
:func:`run_program` runs a program directory (``Pulumi.yaml`` + ``__main__.py``) under the preflight's mocks
(:mod:`preflight.mock_answers`) with a stack's config (:class:`~preflight.stackfile.StackSettings`) and returns one
:class:`~preflight.model.RecordedResource` per registration, in registration order, as the recording monitor
(:mod:`preflight.monitor`) saw it.

Isolation: by default the program runs in a child process (``python -m preflight.runner``). The Pulumi SDK keeps
process-global state (root resource, config, outstanding output tasks, the resource-module registry, modules the
program imported); a child process cannot leak any of it into the next run, and the program's own stdout cannot
corrupt the preflight's report. ``isolate=False`` runs in the calling process (one run per process).

:func:`mocked_runtime` is the in-process setup both use (and the component tests' harness): a fresh event loop and
SDK state, the mocks and the monitor installed, everything reset afterwards.
"""

from __future__ import annotations

import argparse
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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpu_catalog.clock import TODAY_ENV
from gpu_catalog.problems import Problem
from preflight.model import RecordedResource
from preflight.project import program_main, program_python
from preflight.stackfile import StackSettings, stack_file_label

if TYPE_CHECKING:
    import asyncio

    import pulumi
    from pulumi.runtime.mocks import MockMonitor

STACK_FILE_ENV = "AGP_STACK_FILE"
"""Our program names this file in its config errors (see ``stack_config/errors.py``)."""


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
        warnings: list[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail
        self.exc_type = exc_type
        self.problems = problems
        """The stack-file problems the program listed (an exception with ``problems`` of ``path`` and ``message``,
        like ``StackConfigError``), so the preflight can report them with its own in one list."""
        self.warnings: list[str] = list(warnings or [])
        """What the program warned about before it failed (unknown keys of other namespaces, ...): printed on exit 2
        too."""


@dataclass
class ProgramRun:
    """What running a program under mocks produced."""

    resources: list[RecordedResource]
    warnings: list[str] = field(default_factory=list)
    scheduling: dict[str, dict[str, Any]] = field(default_factory=dict)
    """What a pod requests per pool, as the program's output contract exports it (``gpuPools`` / ``gpuNodePools``
    entries' ``scheduling``; empty for a program that exports no such contract)."""


SCHEDULING_OUTPUTS = ("gpuPools", "gpuNodePools")
"""The contract outputs whose entries carry a ``scheduling`` block (components/contract.py)."""


async def _scheduling_outputs() -> dict[str, dict[str, Any]]:
    """The root stack's ``gpuPools`` / ``gpuNodePools`` outputs reduced to each pool's ``scheduling`` (never a secret:
    the kubeconfig output is not read)."""
    import pulumi
    from pulumi.runtime import settings as rt_settings

    root = rt_settings.get_root_resource()
    exported = dict(getattr(root, "outputs", {}) or {})
    out: dict[str, dict[str, Any]] = {}
    for key in SCHEDULING_OUTPUTS:
        if key not in exported:
            continue
        value = await pulumi.Output.from_input(exported[key]).future()
        if not isinstance(value, Mapping):
            continue
        for pool, entry in value.items():
            if isinstance(entry, Mapping) and isinstance(entry.get("scheduling"), Mapping):
                out[f"{key}.{pool}"] = dict(entry["scheduling"])
    return out


# --------------------------------------------------------------------------------------------------------------------
# The SDK under mocks, in this process


def _clear_outputs() -> None:
    """Drop output tasks left by an earlier run in this process (they can hang the next run's wait for RPCs)."""
    from pulumi.runtime import settings as rt_settings

    state: Any = rt_settings.SETTINGS  # context properties; pyright sees the descriptors, not the values
    state.outputs.clear()
    state.rpc_manager.clear()


def _cancel_pending(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel tasks a failed program left behind (e.g. component outputs never registered) before closing the loop."""
    import asyncio

    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        with contextlib.suppress(Exception):
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


@contextlib.contextmanager
def mocked_runtime(
    mocks: pulumi.runtime.Mocks,
    monitor: MockMonitor,
    *,
    project: str,
    stack: str,
    config: Mapping[str, str],
    secret_keys: Sequence[str] = (),
    preview: bool = True,
    logger: logging.Logger | None = None,
) -> Iterator[asyncio.AbstractEventLoop]:
    """The Pulumi SDK set up for one run under ``mocks`` and ``monitor``: a fresh event loop (yielded; run the program
    with ``loop.run_until_complete(run_pulumi_func(...))``), no root resource, no output or RPC left from an earlier
    run, the config and secret keys replaced. Everything is reset and the loop closed afterwards, whatever happened.
    """
    import asyncio

    import pulumi
    from pulumi.runtime import settings as rt_settings

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    rt_settings.ROOT.set(None)
    pulumi.runtime.set_all_config(dict(config), list(secret_keys))
    try:
        _clear_outputs()  # before set_mocks, which registers the new root stack
        pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=preview, monitor=monitor, logger=logger)
        yield loop
    finally:
        rt_settings.ROOT.set(None)
        _clear_outputs()
        _cancel_pending(loop)
        loop.close()
        asyncio.set_event_loop(None)


# --------------------------------------------------------------------------------------------------------------------
# Running a program directory


@contextlib.contextmanager
def _program_context(settings: StackSettings, main: Path, today: date | None = None) -> Iterator[None]:
    """cwd = program dir, program dir first on sys.path, AGP_STACK_FILE set (and AGP_TODAY to ``today`` when given:
    the day the program's entry point reads); all restored afterwards."""
    old_cwd = Path.cwd()
    old_path = list(sys.path)
    old_env = {name: os.environ.get(name) for name in (STACK_FILE_ENV, TODAY_ENV)}
    program = str(settings.program_dir)
    entry_dir = str(main.parent)
    sys.path.insert(0, program)
    if entry_dir != program:
        sys.path.insert(0, entry_dir)  # Pulumi.yaml `main: src/`: the entry point's folder is importable
    if settings.stack_file is not None:
        os.environ[STACK_FILE_ENV] = stack_file_label(settings)
    if today is not None:
        os.environ[TODAY_ENV] = today.isoformat()
    os.chdir(program)
    try:
        yield
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path
        for name, value in old_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


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


def run_program_in_process(settings: StackSettings, today: date | None = None) -> ProgramRun:
    """Run the program in this process (on ``today``, given to it as ``$AGP_TODAY``, when set). Resets the SDK state it
    uses; still, prefer :func:`run_program` (isolated)."""
    import pulumi
    from pulumi.runtime.stack import run_pulumi_func

    from preflight.mock_answers import PreflightMocks
    from preflight.monitor import RecordingMonitor

    warnings: list[str] = []
    mocks = PreflightMocks(warnings=warnings)
    monitor = RecordingMonitor(mocks, project=settings.project, stack=settings.stack, config=settings.config)
    main = program_main(settings.program_dir)

    def program() -> None:
        runpy.run_path(str(main), run_name="__main__")

    with _program_context(settings, main, today):
        try:
            with mocked_runtime(
                mocks,
                monitor,
                project=settings.project,
                stack=settings.stack,
                config=settings.config,
                secret_keys=settings.secret_keys,
                logger=_warning_logger(warnings),
            ) as loop:
                loop.run_until_complete(run_pulumi_func(program))
                scheduling = loop.run_until_complete(_scheduling_outputs())
        except pulumi.RunError as exc:
            raise ProgramError(
                str(exc), exc_type=type(exc).__name__, problems=_listed_problems(exc), warnings=warnings
            ) from exc
        except Exception as exc:
            detail = _program_traceback(exc, settings.program_dir)
            raise ProgramError(
                f"{type(exc).__name__}: {exc}", detail=detail, exc_type=type(exc).__name__, warnings=warnings
            ) from exc
    return ProgramRun(resources=list(monitor.recorded), warnings=warnings, scheduling=scheduling)


# --------------------------------------------------------------------------------------------------------------------
# The child process


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
    today: date | None = None,
) -> ProgramRun:
    """Run the program under mocks and return what it registered; raise :class:`ProgramError` if it failed.

    With ``isolate`` (the default) the program runs in a child process (``python -m preflight.runner``) of ``python``
    (default: the program's own interpreter, :attr:`~preflight.project.Project.python`); its stdout goes to this
    process's stderr so it cannot corrupt a report on stdout. Setting ``cancel`` stops the child (the caller no
    longer needs the result, e.g. the policy config was already found invalid). ``today``: the day the program runs
    on (``$AGP_TODAY`` of its process; default: this process's clock).
    """
    if not isolate:
        return run_program_in_process(settings, today)
    python = python or program_python(settings.program_dir)
    repo_root = str(Path(__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory(prefix="preflight-") as tmp:
        request = Path(tmp) / "request.json"
        result = Path(tmp) / "result.json"
        errors = Path(tmp) / "stderr.txt"
        request.write_text(json.dumps(_settings_to_json(settings)), encoding="utf-8")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (repo_root, env.get("PYTHONPATH", "")) if p)
        if today is not None:
            env[TODAY_ENV] = today.isoformat()
        with errors.open("wb") as err_out:
            proc = subprocess.Popen(
                [python, "-m", "preflight.runner", str(request), str(result)],
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
        raise ProgramError(
            err["message"],
            detail=err.get("detail"),
            exc_type=err.get("type"),
            problems=problems,
            warnings=list(doc.get("warnings") or []),
        )
    resources = [RecordedResource(**r) for r in doc["resources"]]
    return ProgramRun(
        resources=resources, warnings=list(doc.get("warnings", [])), scheduling=dict(doc.get("scheduling") or {})
    )


def _has_fileno(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


def child_main(argv: list[str]) -> int:
    """The child process: run one program (request JSON) in this process, write the result JSON."""
    parser = argparse.ArgumentParser(prog="python -m preflight.runner", description="run one program under mocks")
    parser.add_argument("request", type=Path, help="JSON file: programDir, project, stack, config, secretKeys")
    parser.add_argument("result", type=Path, help="where to write the JSON result")
    args = parser.parse_args(argv)
    settings = _settings_from_json(json.loads(args.request.read_text(encoding="utf-8")))
    out: dict[str, Any]
    try:
        run = run_program_in_process(settings)
        out = {
            "resources": [asdict(r) for r in run.resources],
            "warnings": run.warnings,
            "scheduling": run.scheduling,
            "error": None,
        }
    except ProgramError as exc:
        out = {
            "resources": [],
            "warnings": exc.warnings,
            "error": {
                "message": exc.message,
                "detail": exc.detail,
                "type": exc.exc_type,
                "problems": [asdict(p) for p in exc.problems] if exc.problems is not None else None,
            },
        }
    args.result.write_text(json.dumps(out), encoding="utf-8")
    _close_stray_loop()
    return 0


def _close_stray_loop() -> None:
    """Close an event loop the SDK left set on this thread after the run (``pulumi.runtime.sync_await`` creates and
    sets one when none is current). Left open, it is garbage-collected at interpreter shutdown, after the socket
    module has closed its self-pipe, and asyncio prints "Exception ignored ... Invalid file descriptor: -1" with a
    traceback on stderr — which the preflight copies to its own stderr."""
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        policy = asyncio.get_event_loop_policy()
        local = getattr(policy, "_local", None)
        loop = getattr(local, "_loop", None)
    if isinstance(loop, asyncio.AbstractEventLoop) and not loop.is_running() and not loop.is_closed():
        loop.close()
    asyncio.set_event_loop(None)


if __name__ == "__main__":
    code = child_main(sys.argv[1:])
    # Leave without interpreter finalization: the result file is written and closed, and event loops the SDK created
    # and dropped would otherwise be garbage-collected after their self-pipe sockets are gone, printing "Exception
    # ignored in BaseEventLoop.__del__ ... Invalid file descriptor: -1" to the stderr the preflight relays.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
