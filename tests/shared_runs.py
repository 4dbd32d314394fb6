"""How the tests run ``python -m preflight``, and the expensive runs shared by the whole test session.

Two ways to run the CLI:

- :func:`preflight_process`: the real thing, ``python -m preflight ...`` in a child process. The suite keeps one such
  run per exit code and per output format (the list is in ``docs/ci.md``, "End-to-end runs"); each costs an
  interpreter start and the imports of the program's SDKs (seconds of CPU).
- :func:`preflight_in_process`: the CLI's ``main(argv)`` in this process, stdout, stderr and the exit code captured,
  the program run by the preflight's own in-process runner (:func:`preflight.runner.run_program_in_process`: a fresh
  event loop, no root resource, no leftover outputs, the stack's config, all in the preflight's program thread whose
  context variables die with it), the policy pack a pooled process (:class:`PooledPackProcess`). Same argument
  parsing, same reading of the stack file, same program, same pack, same report; what it does not exercise (the
  ``__main__`` module, the child process's JSON hand-over, a pack started with the stack's config) the process runs
  above do.

Shared runs: ``tests/conftest.py`` makes one directory per session (``$AGP_TEST_SHARED_RUNS``, removed at the end)
before xdist starts its workers, which inherit the variable. The first worker to ask for a run takes a lock on its
file and runs it; the others wait on the lock and read the recorded result. Without the variable (a test module
imported outside pytest) each process runs it once. Only runs that read nothing a test writes are shared.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpu_catalog.clock import TODAY_ENV

if TYPE_CHECKING:
    from preflight.analyzer.client import PolicyPackProcess
    from preflight.analyzer.protocol import PackResult
    from preflight.model import RecordedResource
    from preflight.runner import ProgramRun
    from preflight.stackfile import StackSettings

REPO = Path(__file__).resolve().parents[1]
SHARED_DIR_ENV = "AGP_TEST_SHARED_RUNS"
"""The session's directory of shared runs (set by ``tests/conftest.py``)."""

SHIPPED_STACKS = ("dev", "staging", "prod")

HANG_GUARD_S = 900.0
"""A run that has not ended after this long hangs. Not a speed limit: a preflight takes seconds, also on a loaded
machine; this only keeps a hung run from holding the suite forever."""


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


def _offline_env() -> dict[str, str]:
    """This process's environment without Azure credentials (the preflight is offline: none may reach it)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("AZURE_")}


def preflight_process(*args: str, cwd: Path = REPO, flags: Sequence[str] = ()) -> Run:
    """``python [flags] -m preflight <args>`` in a child process, as a user runs it (``flags``: interpreter options)."""
    env = _offline_env()
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run(
        [sys.executable, *flags, "-m", "preflight", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        cwd=cwd,
        env=env,
        timeout=HANG_GUARD_S,
        check=False,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


@contextlib.contextmanager
def programs_in_process() -> Iterator[None]:
    """While open, the preflight runs the program under mocks in this process (its runner's in-process path) instead
    of a ``python -m preflight.runner`` child, and takes its policy pack from this process's pool
    (:class:`PooledPackProcess`) instead of starting one per run."""
    from preflight import cli
    from preflight.runner import run_program_in_process

    def in_process(
        settings: StackSettings,
        *,
        isolate: bool = True,
        python: str | None = None,
        cancel: threading.Event | None = None,
        today: date | None = None,
    ) -> ProgramRun:
        return run_program_in_process(settings, today)

    original, original_pack = cli.run_program, cli.PolicyPackProcess
    cli.run_program = in_process
    setattr(cli, "PolicyPackProcess", PooledPackProcess)  # noqa: B010 (a stand-in of another class)
    try:
        yield
    finally:
        cli.run_program = original
        setattr(cli, "PolicyPackProcess", original_pack)  # noqa: B010


def _exit_code(exc: SystemExit, stderr: io.StringIO) -> int:
    """The exit status ``sys.exit(code)`` gives a process (argparse exits 2 on bad usage)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    stderr.write(f"{exc.code}\n")
    return 1


def _guarded(call: Callable[[], int], stderr: io.StringIO) -> int:
    """``call()`` in a thread of its own, as the interpreter would end it: its return value, a ``SystemExit``'s code, or
    exit 1 with the traceback on stderr for any other exception. Fails the test when it has not ended after
    :data:`HANG_GUARD_S`."""
    outcome: dict[str, int] = {}

    def body() -> None:
        try:
            outcome["code"] = call()
        except SystemExit as exc:
            outcome["code"] = _exit_code(exc, stderr)
        except BaseException:
            stderr.write(traceback.format_exc())
            outcome["code"] = 1

    worker = threading.Thread(target=body, name="preflight-main", daemon=True)
    worker.start()
    worker.join(HANG_GUARD_S)
    if worker.is_alive():
        raise AssertionError(f"the preflight did not end within {HANG_GUARD_S:.0f} s: a hang")
    return outcome["code"]


def preflight_in_process(*args: str, cwd: Path = REPO) -> Run:
    """``preflight.cli.main(args)`` in this process, the program too (:func:`programs_in_process`); returns what a
    ``python -m preflight`` process would have printed and exited with. The environment, the working directory and
    ``sys.path`` are restored afterwards (the run's day reaches the program as ``$AGP_TODAY`` while it runs, and picks
    the pooled pack started on that day)."""
    from preflight.cli import main

    saved_env, saved_cwd, saved_path = dict(os.environ), Path.cwd(), list(sys.path)
    offline = _offline_env()
    os.environ.clear()
    os.environ.update(offline)
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        os.chdir(cwd)
        with programs_in_process(), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = _guarded(lambda: main(list(args)), stderr)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.path[:] = saved_path
    return Run(code, stdout.getvalue(), stderr.getvalue())


def shared_run(key: str, produce: Callable[[], Run]) -> Run:
    """``produce()`` once per test session under ``key`` (a file name): the first process to ask runs it and records
    the result, the others read it."""
    shared = os.environ.get(SHARED_DIR_ENV)
    if not shared:
        return produce()
    result = Path(shared) / f"{key}.json"
    with (Path(shared) / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if the run raises
        if result.is_file():
            return Run(**json.loads(result.read_text(encoding="utf-8")))
        run = produce()
        partial = result.with_suffix(".partial")
        partial.write_text(json.dumps(asdict(run)), encoding="utf-8")
        partial.replace(result)
        return run


END_TO_END_STACK_RUNS: dict[tuple[str, str], tuple[str, ...]] = {
    ("dev", "json"): ("-X", "importtime"),
    ("dev", "text"): (),
}
"""The shipped-stack runs that are real ``python -m preflight`` processes (exit 0; JSON and text), with their
interpreter options: dev's JSON also records its imports (``-X importtime``, on stderr): test_quota_stacks checks that
the offline preflight never imports the Azure SDK."""


@cache
def shipped_stack_run(stack: str, fmt: str = "json") -> Run:
    """``python -m preflight --stack <stack> --format <fmt>`` of a shipped stack, run once per test session: the
    :data:`END_TO_END_STACK_RUNS` in real processes, the others in-process."""
    if stack not in SHIPPED_STACKS or fmt not in ("json", "text"):
        raise ValueError(f"not a shared run: stack {stack!r} (allowed: {', '.join(SHIPPED_STACKS)}), format {fmt!r}")
    args = ("--stack", stack, "--format", fmt)

    def produce() -> Run:
        flags = END_TO_END_STACK_RUNS.get((stack, fmt))
        return preflight_in_process(*args) if flags is None else preflight_process(*args, flags=flags)

    return shared_run(f"preflight-{stack}-{fmt}", produce)


def shared_process_run(key: str, *args: str) -> Run:
    """A real ``python -m preflight <args>`` process, once per test session under ``key`` (for end-to-end runs several
    tests read: the arguments must name only files no test writes)."""
    return _shared_process_run(key, args)


@cache
def _shared_process_run(key: str, args: tuple[str, ...]) -> Run:
    return shared_run(f"process-{key}", lambda: preflight_process(*args))


def python_process(code: str, *args: str, cwd: Path = REPO) -> Run:
    """``python -c <code> <args>`` in a fresh interpreter (for what only a fresh interpreter shows: what an import
    loads)."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=HANG_GUARD_S,
        check=False,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def shared_python_run(key: str, code: str, *args: str) -> Run:
    """:func:`python_process` once per test session under ``key``."""
    return _shared_python_run(key, code, args)


@cache
def _shared_python_run(key: str, code: str, args: tuple[str, ...]) -> Run:
    return shared_run(f"python-{key}", lambda: python_process(code, *args))


# --------------------------------------------------------------------------------------------------------------------
# One policy-pack process per test process for the tests that only need a running pack


PACK_DIR = REPO / "policies"
_SESSION_PACK: list[PolicyPackProcess] = []
_SUITE_DAY = os.environ.get(TODAY_ENV, "")
"""The suite's day (``tests/conftest.py`` pins ``$AGP_TODAY`` before importing this module), read once: an in-process
program run sets ``$AGP_TODAY`` to its own day while it runs, in another thread."""


def _pack_day(today: date | None) -> str:
    """The day a pack process started with ``today`` checks on: ``today``, else the suite's."""
    return today.isoformat() if today is not None else _SUITE_DAY


def _pack_key(pack_dir: Path, dry_run: bool, organization: str, today: date | None) -> tuple[str, ...]:
    """What tells pack processes apart for the tests: the pack, preview or not, the organization, and the day. Not the
    project, the stack or its config: each user sends its own ``Configure`` first (an entry and a level for every
    policy), and the pack reads nothing else of what it was started for (no policy reads ``PULUMI_CONFIG``,
    ``ConfigureStack``'s config, the project or the stack name)."""
    return (str(pack_dir.resolve()), str(dry_run), organization, _pack_day(today))


def session_pack() -> PolicyPackProcess:
    """The repository's pack, started once per test process (xdist worker) as the engine starts it for a preview
    (``PULUMI_DRY_RUN=true``) on the suite's day and stopped when the session ends (``tests/conftest.py``). Its users
    (``run_session_pack``, the policy tests' ``preview_pack``, the in-process preflight runs on the suite's day:
    :class:`PooledPackProcess`) configure it first."""
    if not _SESSION_PACK:
        from preflight.analyzer.client import PolicyPackProcess

        if not (PACK_DIR / "__main__.py").is_file():
            raise AssertionError(f"{PACK_DIR}/__main__.py is missing: the policy pack is not in the tree")
        day = date.fromisoformat(_SUITE_DAY) if _SUITE_DAY else None
        pack = PolicyPackProcess(PACK_DIR, project="azure-gpu-platform", stack="dev", dry_run=True, today=day)
        pack.start()
        _SESSION_PACK.append(pack)
    return _SESSION_PACK[0]


def _is_session_pack(key: tuple[str, ...]) -> bool:
    return key == _pack_key(PACK_DIR, True, "organization", None)


def stop_session_pack() -> None:
    """Stop the session's pack and the pooled packs of the in-process preflight runs, if any were started."""
    while _SESSION_PACK:
        _SESSION_PACK.pop().close()
    while _POOL:
        _POOL.popitem()[1].close()


_POOL: dict[tuple[str, ...], PolicyPackProcess] = {}
POOL_SIZE = 4
"""Pooled pack processes kept per test process besides the session's (the least recently used one is stopped
beyond that)."""


class _LeasedPack:
    """A pooled pack as one preflight run sees it: the pack's calls, and only this run's log messages."""

    def __init__(self, pack: PolicyPackProcess) -> None:
        self._pack = pack
        self._seen = len(pack.logs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pack, name)

    @property
    def logs(self) -> list[Any]:
        return self._pack.logs[self._seen :]


class PooledPackProcess:
    """Stands in for ``PolicyPackProcess`` in the preflight's in-process runs (:func:`programs_in_process`): a pack
    process started as the preflight starts it, kept per :func:`_pack_key` (pack directory, dry run, organization,
    the run's day) and reused by the next run with the same key — the repository's pack on the suite's day is
    :func:`session_pack`. A run that fails in the pack stops it (the session's pack only when it died). The real
    ``python -m preflight`` runs (:func:`preflight_process`) start their own, with the stack's config."""

    def __init__(
        self,
        pack_dir: Path | str,
        *,
        project: str = "azure-gpu-platform",
        stack: str = "dev",
        dry_run: bool = True,
        organization: str = "organization",
        stack_config: Any = None,
        today: date | None = None,
    ) -> None:
        self.pack_dir = Path(pack_dir).resolve()
        self.options: dict[str, Any] = {
            "project": project, "stack": stack, "dry_run": dry_run, "organization": organization,
            "stack_config": stack_config, "today": today,
        }  # fmt: skip
        self.key = _pack_key(self.pack_dir, dry_run, organization, today)

    def __enter__(self) -> _LeasedPack:
        from preflight.analyzer.client import PolicyPackProcess

        if _is_session_pack(self.key):
            return _LeasedPack(session_pack())
        pack = _POOL.pop(self.key, None)
        if pack is None:
            while len(_POOL) >= POOL_SIZE:
                _POOL.pop(next(iter(_POOL))).close()
            pack = PolicyPackProcess(self.pack_dir, **self.options)
            pack.start()
        _POOL[self.key] = pack  # the most recently used last
        return _LeasedPack(pack)

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        from preflight.analyzer.protocol import PolicyPackError

        if not isinstance(exc, PolicyPackError):
            return
        if _is_session_pack(self.key):
            if _SESSION_PACK and _SESSION_PACK[0].pid is not None and not _alive(_SESSION_PACK[0]):
                _SESSION_PACK.pop().close()
            return
        pack = _POOL.pop(self.key, None)
        if pack is not None:
            pack.close()


def _alive(pack: PolicyPackProcess) -> bool:
    proc = getattr(pack, "_proc", None)
    return proc is not None and proc.poll() is None


def run_session_pack(resources: list[RecordedResource], *, policy_config: dict[str, Any] | None = None) -> PackResult:
    """What ``run_policy_pack(policies/, resources, policy_config=...)`` returns, from :func:`session_pack`: Configure
    with this config first (an entry and a level for every policy, so nothing of an earlier user's config is left),
    know the providers, Analyze each resource, AnalyzeStack once. ``logs`` are this run's."""
    from preflight.analyzer.client import analyze_run

    return analyze_run(session_pack(), resources, policy_config=policy_config, logs_since_configure=True)


def program_run_in_process(settings: StackSettings) -> ProgramRun:
    """The program under the preflight's mocks, recorded in this process
    (:func:`preflight.runner.run_program_in_process`) in a thread of its own, as the preflight runs it: the SDK's
    context variables (config, root resource) stay with that thread. Raises what the runner raises."""
    from preflight.runner import run_program_in_process

    outcome: dict[str, Any] = {}

    def body() -> None:
        try:
            outcome["run"] = run_program_in_process(settings)
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=body, name="program-under-mocks", daemon=True)
    worker.start()
    worker.join(HANG_GUARD_S)
    if worker.is_alive():
        raise AssertionError(f"the program did not end within {HANG_GUARD_S:.0f} s: a hang")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["run"]
