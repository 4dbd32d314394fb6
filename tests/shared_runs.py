"""Expensive runs shared by the whole test session: the preflight of each shipped stack runs once, not once per
test module that reads it, and across pytest-xdist's workers.

``tests/conftest.py`` makes one directory per session (``$AGP_TEST_SHARED_RUNS``, removed at the end) before xdist
starts its workers, which inherit the variable. The first worker to ask for a run takes a lock on its file and runs
it; the others wait on the lock and read the recorded result. Without the variable (a test module imported outside
pytest) each process runs it once. Only runs that read nothing a test writes are shared (the shipped stack files).
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DIR_ENV = "AGP_TEST_SHARED_RUNS"
"""The session's directory of shared runs (set by ``tests/conftest.py``)."""

SHIPPED_STACKS = ("dev", "staging", "prod")


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


def _run_preflight(stack: str, fmt: str) -> Run:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AZURE_")}  # offline: no credential reaches it
    env["PYTHONPATH"] = str(REPO)
    # dev's JSON run also records its imports (-X importtime, on stderr): test_quota_stacks checks that the offline
    # preflight never imports the Azure SDK.
    flags = ["-X", "importtime"] if (stack, fmt) == ("dev", "json") else []
    proc = subprocess.run(
        [sys.executable, *flags, "-m", "preflight", "--stack", stack, "--format", fmt],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
        check=False,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


@cache
def shipped_stack_run(stack: str, fmt: str = "json") -> Run:
    """``python -m preflight --stack <stack> --format <fmt>`` of a shipped stack, run once per test session."""
    if stack not in SHIPPED_STACKS or fmt not in ("json", "text"):
        raise ValueError(f"not a shared run: stack {stack!r} (allowed: {', '.join(SHIPPED_STACKS)}), format {fmt!r}")
    shared = os.environ.get(SHARED_DIR_ENV)
    if not shared:
        return _run_preflight(stack, fmt)
    result = Path(shared) / f"preflight-{stack}-{fmt}.json"
    with (Path(shared) / f"preflight-{stack}-{fmt}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if the run raises
        if result.is_file():
            return Run(**json.loads(result.read_text(encoding="utf-8")))
        run = _run_preflight(stack, fmt)
        partial = result.with_suffix(".partial")
        partial.write_text(json.dumps(asdict(run)), encoding="utf-8")
        partial.replace(result)
        return run
