"""Shared helpers for the benchmarks: measured subprocess runs and machine facts.

Every figure a benchmark prints comes from a subprocess started here, so each side of a ratio starts from a cold
Python interpreter and pays its own imports. Two memory figures are taken for each run:

- ``peak_rss_mb``: the command's ``ru_maxrss`` from ``wait4`` — the peak resident set of the largest process in its
  tree (for the preflight: the preflight process or one of the children it waited for, whichever peaked higher).
  Linux carries a process's pre-``exec`` peak over into ``ru_maxrss``, and a child forked from this (large) bench
  process starts out with this process's resident set; so the command is started through a tiny launcher
  (``python -S``, ~10 MB) that forks and execs it and reports its rusage. Without that, every figure would be at
  least the bench process's own size;
- ``tree_peak_mb``: the peak of the *sum* of the resident sets of the child and all its descendants, sampled from
  ``/proc`` every 20 ms (what the machine had to hold at once).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
PY = sys.executable
PYCACHE = ROOT / ".venv" / "pycache"
"""Where every bench child keeps compiled bytecode (``PYTHONPYCACHEPREFIX``; nothing is cached outside ``.venv``)."""
OWN_PACKAGES = ("bench", "components", "component_package", "composition", "exports", "gpu_catalog", "policies",
                "preflight", "rules", "stack_config")  # fmt: skip
"""The repository's packages, compiled by :func:`warm_bytecode`."""


def use_compiled_bytecode() -> None:
    """Every child of this process reads and writes compiled bytecode, as a user's second run does: without
    ``PYTHONDONTWRITEBYTECODE`` (these machines set it, and a child would then compile every one of our modules from
    source on every run, while the SDKs' bytecode, compiled by pip, is read) and with the bytecode in :data:`PYCACHE`.
    Call it first in a benchmark's entry point; no child runs with ``-B``."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(PYCACHE)


WARM_UP = (
    [PY, "-m", "compileall", "-q", *(str(ROOT / p) for p in OWN_PACKAGES), str(ROOT / "__main__.py")],
    # The SDK modules the programs, the pack and the quota check import (prod has every section; staging a NAP pool).
    [PY, str(BENCH / "_program.py"), "--program", str(ROOT), "--config-file", str(ROOT / "stacks/Pulumi.prod.yaml")],
    [PY, str(BENCH / "_program.py"), "--program", str(ROOT), "--config-file", str(ROOT / "stacks/Pulumi.staging.yaml")],
    [PY, "-c", "import pulumi_policy, policies.pack, preflight.cli, azure.mgmt.compute, azure.identity"],
)
"""The children that compile the bytecode every benchmark reads (:func:`warm_bytecode`)."""


def warm_bytecode() -> None:
    """Compile, before anything is measured, the bytecode the measured children read: our packages, and the SDK
    modules they import (imported once). Bytecode already in :data:`PYCACHE` is reused."""
    use_compiled_bytecode()
    for cmd in WARM_UP:
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)


@dataclass
class Run:
    """One measured subprocess run."""

    cmd: list[str]
    returncode: int
    wall_s: float
    user_s: float
    sys_s: float
    peak_rss_mb: float
    tree_peak_mb: float
    stdout: str
    stderr: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def cpu_s(self) -> float:
        return self.user_s + self.sys_s

    def check(self, expect: Sequence[int] = (0,)) -> Run:
        if self.returncode not in expect:
            raise RuntimeError(
                f"{' '.join(self.cmd)} exited {self.returncode} (expected {list(expect)})\n"
                f"--- stdout (tail) ---\n{self.stdout[-3000:]}\n--- stderr (tail) ---\n{self.stderr[-3000:]}"
            )
        return self

    def last_json(self) -> dict[str, Any]:
        """The last stdout line that parses as a JSON object (the bench child scripts print one)."""
        for raw in reversed(self.stdout.splitlines()):
            line = raw.strip()
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"no JSON line in the output of {' '.join(self.cmd)}:\n{self.stdout[-2000:]}")


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(p) for p in fh.read().split())
        except OSError:
            continue
    return out


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree_rss_mb(root: int) -> float:
    total = 0
    stack = [root]
    seen: set[int] = set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _rss_kb(pid)
        stack.extend(_children(pid))
    return total / 1024


# Forks and execs argv[2:], waits for it, writes its rusage (JSON) to argv[1], exits with its exit code.
_LAUNCHER = """
import json, os, sys
out, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
with open(out, "w") as fh:
    json.dump({"maxrss_kb": ru.ru_maxrss, "utime": ru.ru_utime, "stime": ru.ru_stime}, fh)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def measure(
    cmd: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    timeout: float = 300.0,
    stdin_text: str | None = None,
) -> Run:
    """Run ``cmd`` and measure wall time, CPU time and peak memory (see the module docstring)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env.setdefault("PYTHONHASHSEED", "0")
    fd, usage_file = tempfile.mkstemp(prefix="bench-rusage-", suffix=".json")
    os.close(fd)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [PY, "-S", "-c", _LAUNCHER, usage_file, *cmd],
        cwd=str(cwd or ROOT),
        env=full_env,
        stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    bufs: dict[str, list[str]] = {"out": [], "err": []}

    def _pump(stream: Any, key: str) -> None:
        for chunk in iter(lambda: stream.read(65536), ""):
            bufs[key].append(chunk)

    threads = [
        threading.Thread(target=_pump, args=(proc.stdout, "out"), daemon=True),
        threading.Thread(target=_pump, args=(proc.stderr, "err"), daemon=True),
    ]
    for t in threads:
        t.start()
    if stdin_text is not None and proc.stdin is not None:
        proc.stdin.write(stdin_text)
        proc.stdin.close()

    tree_peak = 0.0
    done = threading.Event()

    def _sample() -> None:
        nonlocal tree_peak
        while not done.is_set():
            # The launcher's children: the command and everything it starts (the launcher itself not counted).
            tree_peak = max(tree_peak, sum(_tree_rss_mb(c) for c in _children(proc.pid)))
            done.wait(0.02)

    def _kill() -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    sampler = threading.Thread(target=_sample, daemon=True)
    sampler.start()
    timer = threading.Timer(timeout, _kill)
    timer.start()
    try:
        proc.wait()
    finally:
        timer.cancel()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    for t in threads:
        t.join()
    try:
        usage = json.loads(Path(usage_file).read_text() or "{}")
    finally:
        os.unlink(usage_file)
    return Run(
        cmd=list(cmd),
        returncode=proc.returncode,
        wall_s=wall,
        user_s=float(usage.get("utime", 0.0)),
        sys_s=float(usage.get("stime", 0.0)),
        peak_rss_mb=float(usage.get("maxrss_kb", 0)) / 1024,
        tree_peak_mb=tree_peak,
        stdout="".join(bufs["out"]),
        stderr="".join(bufs["err"]),
    )


def best_of(runs: Sequence[Run]) -> Run:
    """The run with the lowest wall time (least disturbed by other load on a shared machine)."""
    return min(runs, key=lambda r: r.wall_s)


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")


def machine_info() -> dict[str, str]:
    free = shutil.which("free")
    mem = subprocess.run([free, "-h"], check=False, capture_output=True, text=True).stdout.strip() if free else "n/a"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": str(os.cpu_count()),
        "cpu": _cpu_model(),
        "free -h": mem,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "loadavg (1/5/15 min) at start": load,
        "packages": _versions(),
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for dist in ("pulumi", "pulumi-azure-native", "pulumi-kubernetes", "pulumi-databricks", "pulumi-policy", "grpcio"):
        try:
            parts.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist} (missing)")
    return ", ".join(parts)


_I_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def i_refs(stderr: str, what: str = "") -> int:
    """The instruction count (``I refs``) valgrind prints on stderr; an error naming ``what`` was counted without it."""
    found = _I_REFS.search(stderr)
    if found is None:
        where = f" for {what}" if what else ""
        raise RuntimeError(f"no 'I refs' in valgrind's output{where}:\n{stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def executed_instructions(
    valgrind: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None, what: str = ""
) -> int:
    """Instructions the process ``argv`` executes, start-up included: valgrind cachegrind without cache simulation,
    the same count on every run whatever the machine's load (``bench/bench_instructions.py``,
    ``bench/bench_platform_imports.py``)."""
    cmd = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *argv]
    done = subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, check=True, env=None if env is None else dict(env)
    )
    return i_refs(done.stderr, what)


def header(title: str) -> None:
    print(f"\n=== {title} ===", flush=True)


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    """A Markdown table (readable on a terminal too)."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(cells[0], widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in cells[1:]:
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |")
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    return str(value)


def emit_result(name: str, data: Mapping[str, Any]) -> None:
    """Write a benchmark's figures to ``bench/out/<name>.json`` (read by ``bench/run_all.py`` for RESULTS.md)."""
    out = BENCH / "out"
    out.mkdir(exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
