"""The pack against its floor in executed CPU instructions: a figure the machine's load does not move.

CPU time on these shared machines swings with the load (other processes evict caches and share the cores), so the
time ratio of ``bench/bench_floor.py`` moves by ±0.2 between runs at a load of 10. Valgrind's cachegrind (no cache
simulation) counts the instructions a process executes (``I refs``) exactly. Each count is one child process that
builds the requests and both servicers (ours and the no-op floor with as many policies, warmed up), then serves N
``Analyze`` requests or one ``AnalyzeStack`` on one side; a child that stops after the set-up gives the baseline,
subtracted from the others. Instructions are not time (a cache miss costs more than an add), but they are the same on
every run whatever the load: ``make bench`` gates the pack on this ratio (``bench/run_all.py``: Analyze and
AnalyzeStack together ≤ 1.15× the floor) and records the time ratios of ``bench/bench_floor.py`` beside it, ungated.
Every child reads compiled bytecode (``bench._common.use_compiled_bytecode``; compiled by an uncounted setup child
first).

    python bench/bench_instructions.py [-n 200]

Needs ``valgrind`` on PATH (exits 2 without it; ``make bench`` installs Debian's when it runs as root); each child runs
~50× slower under it (~30 s each at N=200).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import PY, emit_result, executed_instructions, header, use_compiled_bytecode

MODES = ("setup", "floor", "ours", "floor-stack", "ours-stack")


def child(mode: str, n: int) -> None:
    """Build the requests and both servicers; then serve them on one side (``mode``), or nothing (``setup``)."""
    from bench.bench_floor import PROJECT, STACK

    os.environ.update(
        {"PULUMI_PROJECT": PROJECT, "PULUMI_STACK": STACK, "PULUMI_DRY_RUN": "true",
         "PULUMI_ORGANIZATION": "organization", "PULUMI_CONFIG": "{}"}
    )  # fmt: skip
    from pulumi.runtime.proto import analyzer_pb2
    from pulumi_policy import EnforcementLevel
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    from bench.bench_policy import synth_resources
    from bench.floor import floor_policies
    from policies._collector import pause_cyclic_collector
    from policies.pack import ALL_POLICIES, PACK_NAME
    from preflight.analyzer.protocol import engine_urn, to_struct

    requests, stack = [], []
    for r in synth_resources(n):
        props, urn = to_struct(r.inputs, skip_internal_keys=True), engine_urn(r.urn)
        requests.append(analyzer_pb2.AnalyzeRequest(type=r.type, properties=props, urn=urn, name=r.name))
        stack.append(analyzer_pb2.AnalyzerResource(type=r.type, properties=props, urn=urn, name=r.name))
    servicers = {
        "floor": _PolicyAnalyzerServicer("floor", "0.0.0", floor_policies(), EnforcementLevel.ADVISORY),
        "ours": _PolicyAnalyzerServicer(PACK_NAME, "0.0.0", list(ALL_POLICIES), EnforcementLevel.ADVISORY),
    }
    for servicer in servicers.values():  # warm-up: catalog load, caches; one request of each resource kind
        for request in requests[:5]:
            servicer.Analyze(request, None)
    pause_cyclic_collector()  # as the pack process runs (policies/_collector.py), in every mode
    if mode != "setup":
        servicer = servicers[mode.removesuffix("-stack")]
        if mode.endswith("-stack"):
            servicer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=stack), None)
        else:
            for request in requests:
                servicer.Analyze(request, None)
    sys.stdout.flush()
    os._exit(0)  # no interpreter finalization: the same teardown (none) in every mode


def count(valgrind: str, mode: str, n: int) -> int:
    return executed_instructions(valgrind, [PY, __file__, "--child", mode, "-n", str(n)], what=mode)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.n)
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("bench_instructions: valgrind is not on PATH", file=sys.stderr)
        return 2
    header(f"policy pack vs. the no-op floor in executed instructions (valgrind cachegrind, N={args.n:,})")
    # Compile the bytecode every counted child reads (outside valgrind), so no count includes compiling.
    subprocess.run([PY, __file__, "--child", "setup", "-n", str(args.n)], check=True)
    total = {mode: count(valgrind, mode, args.n) for mode in MODES}
    per = {mode: (total[mode] - total["setup"]) / args.n for mode in MODES if mode != "setup"}
    result: dict[str, Any] = {
        "n": args.n,
        "per_resource": per,
        "analyze_ratio": per["ours"] / per["floor"],
        "stack_ratio": per["ours-stack"] / per["floor-stack"],
        "total_ratio": (per["ours"] + per["ours-stack"]) / (per["floor"] + per["floor-stack"]),
    }
    print(
        f"  instructions per resource: Analyze ours {per['ours']:,.0f}, floor {per['floor']:,.0f} "
        f"({result['analyze_ratio']:.3f}); AnalyzeStack ours {per['ours-stack']:,.0f}, floor "
        f"{per['floor-stack']:,.0f} ({result['stack_ratio']:.3f}); both {result['total_ratio']:.3f}"
    )
    emit_result("instructions", result)
    return 0


if __name__ == "__main__":
    use_compiled_bytecode()  # the children read compiled bytecode, as a user's second run does
    raise SystemExit(main())
