"""Child process for the benchmarks: run one Pulumi program under the preflight's mocks and report on it.

Prints one JSON line: resource counts, the time spent importing the runner vs. running the program, whether
``pulumi_databricks`` ended up imported, and this process's peak RSS. ``--record FILE`` also writes every
recorded resource (``preflight.model.RecordedResource`` as JSON), which ``bench_overhead`` turns into a raw program.

    python bench/_program.py --program DIR --config-file stacks/Pulumi.prod.yaml [--record out.json]
"""

from __future__ import annotations

import time

T_START = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from dataclasses import asdict  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from preflight.runner import run_program_in_process  # noqa: E402
from preflight.stackfile import load_stack_settings  # noqa: E402


def _track_walk_depth() -> list[int]:
    """Install :func:`bench.walk_depth.depth_tracker` on the SDK's cycle check for this process."""
    from pulumi.runtime import resource_cycle_breaker as breaker

    from bench.walk_depth import depth_tracker

    tracked, depth = depth_tracker(breaker._with_transitive_deps)
    breaker._with_transitive_deps = tracked  # type: ignore[assignment]
    return depth


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--program", type=Path, required=True)
    ap.add_argument("--config-file", type=Path, required=True)
    ap.add_argument("--stack", default=None)
    ap.add_argument("--record", type=Path, default=None)
    ap.add_argument("--profile", type=Path, default=None, help="write a cProfile (CPU-time clock) of the run here")
    ap.add_argument(
        "--count-calls", action="store_true", help="count the Python function calls of the run (deterministic work)"
    )
    ap.add_argument(
        "--walk-depth",
        action="store_true",
        help="record how deep the SDK's dependency-cycle check recursed (resource_cycle_breaker._with_transitive_deps)",
    )
    args = ap.parse_args(argv)
    depth = _track_walk_depth() if args.walk_depth else None

    t_ready = time.perf_counter()
    c_ready = time.process_time()
    calls: int | None = None
    settings = load_stack_settings(args.program, args.config_file.resolve(), args.stack)
    if args.profile is not None:
        import cProfile

        prof = cProfile.Profile(time.process_time)
        run = prof.runcall(run_program_in_process, settings)
        prof.dump_stats(str(args.profile))
    elif args.count_calls:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        run = prof.runcall(run_program_in_process, settings)
        calls = sum(v[1] for v in pstats.Stats(prof).stats.values())  # type: ignore[attr-defined]
    else:
        run = run_program_in_process(settings)
    t_done = time.perf_counter()
    c_done = time.process_time()
    resources = run.resources
    if args.record is not None:
        args.record.write_text(json.dumps([asdict(r) for r in resources]))
    by_type: dict[str, int] = {}
    for r in resources:
        by_type[r.type] = by_type.get(r.type, 0) + 1
    print(
        json.dumps(
            {
                "resources": len(resources),
                "custom": sum(1 for r in resources if r.custom),
                "components": sum(1 for r in resources if not r.custom),
                "by_type": by_type,
                "startup_s": t_ready - T_START,
                "run_s": t_done - t_ready,
                "total_s": t_done - T_START,
                "startup_cpu_s": c_ready,
                "run_cpu_s": c_done - c_ready,
                "databricks_imported": "pulumi_databricks" in sys.modules,
                "modules_loaded": len(sys.modules),
                "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "warnings": run.warnings,
                "calls": calls,
                "walk_depth": depth[1] if depth is not None else None,
            }
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
