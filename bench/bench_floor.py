"""The policy pack against its floor: the same pulumi_policy SDK serving as many no-op policies, in the same run.

Absolute figures swing between runs on these shared machines; ratios against a floor measured in the same run, with
the sides interleaved, hold. The floor (``bench/floor_pack``, ``bench/floor.py``) serves as many resource and stack
policies as ``policies/`` does, each doing nothing: what the SDK costs before any of our code runs.

- **in process** (no gRPC): CPU µs per resource of ``Analyze`` over N requests plus one ``AnalyzeStack``, through
  pulumi_policy's own servicer; ``--repeat`` interleaved repetitions (floor, ours, ours, floor, …), median and spread.
- **over gRPC**: resources/s of a fresh pack process (``preflight.analyzer.client.PolicyPackProcess``, as the preflight
  starts it) for 100, 1,000 and 10,000 resources (``bench_policy.synth_resources``), Analyze per resource then one
  AnalyzeStack; our pack and the floor pack alternate, ``--repeat`` times per N.
- **linear**: our per-resource CPU cost in process (as above, the collector paused on both sides as in the pack
  process: ``policies/_collector.py``) at the largest N / at the smallest, with the floor's own beside it. The
  per-resource wall time over gRPC at those sizes is printed too (reported, not gated): at 100 resources a run lasts
  a third of a second and the client and the pack share the two cores, so its ratio swings by ±0.2 between runs.
- **our share**: a cProfile of our pack's ``Analyze`` (``bench/profile_pack.py``): own time in ``policies/``,
  ``rules/`` and ``gpu_catalog/`` over the total.

    python bench/bench_floor.py [--sizes 100,1000,10000] [--repeat 3] [--inprocess-n 1000]

Prints every time target with ours, the floor and the ratio (of the medians; the spread of the per-round ratios and the
1-minute load average before and after each phase beside it). They are recorded, not gated: the same code met and
missed them from run to run on these machines. ``make bench`` gates the pack on executed instructions instead
(``bench/bench_instructions.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import BENCH, PY, ROOT, emit_result, header, table, use_compiled_bytecode
from bench.bench_policy import PROJECT, STACK, synth_resources
from preflight.analyzer.client import PolicyPackProcess
from preflight.model import RecordedResource

OURS = ROOT / "policies"
FLOOR = BENCH / "floor_pack"
INPROCESS_MAX = 1.15
GRPC_MIN = 0.90
LINEAR_MAX = 1.15
OUR_BUCKETS = ("our policies (policies/)", "our rules (rules/)", "our catalog (gpu_catalog/)")


def spread(values: Sequence[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def _interleave(reps: int, sides: dict[str, Callable[[], float]]) -> dict[str, list[float]]:
    """``reps`` rounds; the order of the sides alternates each round so neither always runs first."""
    out: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for rep in range(reps):
        for name in names if rep % 2 == 0 else reversed(names):
            out[name].append(sides[name]())
    return out


def paired(ours: Sequence[float], floor: Sequence[float]) -> dict[str, float]:
    """Spread of the per-round ratios ours/floor (the two sides of one round ran back to back, under the same load)."""
    return spread([o / f for o, f in zip(ours, floor, strict=True)])


def load_average() -> float:
    """The 1-minute load average now (2 cores shared with other work: above ~2 the figures are noisy)."""
    return os.getloadavg()[0]


# ------------------------------------------------------------------------------------------------------ in process


def inprocess(n: int, reps: int) -> dict[str, Any]:
    os.environ.update(
        {
            "PULUMI_PROJECT": PROJECT,
            "PULUMI_STACK": STACK,
            "PULUMI_DRY_RUN": "true",
            "PULUMI_ORGANIZATION": "organization",
            "PULUMI_CONFIG": "{}",
        }
    )
    from pulumi.runtime.proto import analyzer_pb2
    from pulumi_policy import EnforcementLevel
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    from bench.floor import floor_policies, policy_counts
    from policies._collector import pause_cyclic_collector, resume_cyclic_collector
    from policies.pack import ALL_POLICIES, PACK_NAME
    from preflight.analyzer.protocol import engine_urn, to_struct

    requests = []
    stack = []
    for r in synth_resources(n):
        props = to_struct(r.inputs, skip_internal_keys=True)
        urn = engine_urn(r.urn)
        requests.append(analyzer_pb2.AnalyzeRequest(type=r.type, properties=props, urn=urn, name=r.name))
        stack.append(analyzer_pb2.AnalyzerResource(type=r.type, properties=props, urn=urn, name=r.name))
    stack_request = analyzer_pb2.AnalyzeStackRequest(resources=stack)
    servicers = {
        "floor": _PolicyAnalyzerServicer("floor", "0.0.0", floor_policies(), EnforcementLevel.ADVISORY),
        "ours": _PolicyAnalyzerServicer(PACK_NAME, "0.0.0", list(ALL_POLICIES), EnforcementLevel.ADVISORY),
    }
    for s in servicers.values():  # warm-up: catalog load, caches
        s.Analyze(requests[0], None)
    analyze: dict[str, list[float]] = {k: [] for k in servicers}

    def side(name: str) -> Callable[[], float]:
        servicer = servicers[name]

        def run() -> float:
            c0 = time.process_time()
            for req in requests:
                servicer.Analyze(req, None)
            c1 = time.process_time()
            servicer.AnalyzeStack(stack_request, None)
            c2 = time.process_time()
            analyze[name].append((c1 - c0) / n * 1e6)
            return (c2 - c0) / n * 1e6

        return run

    load = [load_average()]
    pause_cyclic_collector()  # as both pack processes run (policies/_collector.py)
    try:
        total = _interleave(reps, {k: side(k) for k in servicers})
    finally:
        resume_cyclic_collector()
    load.append(load_average())
    resource_policies, stack_policies = policy_counts()
    return {
        "n": n,
        "resource_policies": resource_policies,
        "stack_policies": stack_policies,
        "total_us": {k: spread(v) for k, v in total.items()},
        "analyze_us": {k: spread(v) for k, v in analyze.items()},
        "paired_ratio": paired(total["ours"], total["floor"]),
        "load": load,
    }


def our_share(n: int) -> dict[str, Any]:
    from bench.profile_pack import breakdown, profile_pack

    stats, _wall = profile_pack(n)
    owners = breakdown(stats)
    total = sum(owners.values())
    ours = sum(owners.get(b, 0.0) for b in OUR_BUCKETS)
    return {"n": n, "share": ours / total, "owners": {k: v / total for k, v in owners.items()}}


# ------------------------------------------------------------------------------------------------------ over gRPC


def grpc_once(pack_dir: Path, resources: list[RecordedResource]) -> dict[str, float]:
    with PolicyPackProcess(pack_dir, project=PROJECT, stack=STACK, dry_run=True, python=PY) as pack:
        pack.analyzer_info()
        pack.configure(None)
        t1 = time.perf_counter()
        pack.analyze_many(resources)
        t2 = time.perf_counter()
        pack.analyze_stack(resources)
        t3 = time.perf_counter()
    n = len(resources)
    return {"rps": n / (t3 - t1), "us_per_resource": (t3 - t1) / n * 1e6, "analyze_s": t2 - t1, "stack_s": t3 - t2}


def _grpc_side(pack: Path, resources: list[RecordedResource], runs: list[dict[str, float]]) -> Callable[[], float]:
    def run() -> float:
        r = grpc_once(pack, resources)
        runs.append(r)
        return r["rps"]

    return run


def grpc(sizes: Sequence[int], reps: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n in sizes:
        resources = synth_resources(n)
        runs: dict[str, list[dict[str, float]]] = {"floor": [], "ours": []}

        load = [load_average()]
        rps = _interleave(reps, {"floor": _grpc_side(FLOOR, resources, runs["floor"]),
                                 "ours": _grpc_side(OURS, resources, runs["ours"])})  # fmt: skip
        load.append(load_average())
        row = {
            "n": n,
            "rps": {k: spread(v) for k, v in rps.items()},
            "us_per_resource": {k: spread([r["us_per_resource"] for r in v]) for k, v in runs.items()},
            "paired_ratio": paired(rps["ours"], rps["floor"]),
            "load": load,
        }
        row["ratio"] = row["rps"]["ours"]["median"] / row["rps"]["floor"]["median"]
        rows.append(row)
        pr = row["paired_ratio"]
        print(
            f"  N={n:>6}: ours {row['rps']['ours']['median']:,.0f} res/s (min {row['rps']['ours']['min']:,.0f}, max "
            f"{row['rps']['ours']['max']:,.0f}), floor {row['rps']['floor']['median']:,.0f} res/s (min "
            f"{row['rps']['floor']['min']:,.0f}, max {row['rps']['floor']['max']:,.0f}); ours/floor "
            f"{row['ratio']:.2f} (per round {pr['min']:.2f}–{pr['max']:.2f}); load {load[0]:.1f} → {load[1]:.1f}",
            flush=True,
        )
    return rows


# ------------------------------------------------------------------------------------------------------ targets


def targets(
    inproc: dict[str, Any], rows: list[dict[str, Any]], linear_runs: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every time target with ours, the floor (or anchor), the ratio and whether it is met (recorded, not gated)."""
    out: list[dict[str, Any]] = []
    t = inproc["total_us"]
    ratio = t["ours"]["median"] / t["floor"]["median"]
    out.append(
        {
            "target": f"pack CPU per resource, in process (N={inproc['n']:,}) ≤ {INPROCESS_MAX:.2f}× floor",
            "ours": f"{t['ours']['median']:,.0f} µs",
            "floor": f"{t['floor']['median']:,.0f} µs",
            "ratio": ratio,
            "met": ratio <= INPROCESS_MAX,
        }
    )
    for row in rows:
        if row["n"] < 1000:
            continue
        out.append(
            {
                "target": f"pack over gRPC, {row['n']:,} resources ≥ {GRPC_MIN:.2f}× floor res/s",
                "ours": f"{row['rps']['ours']['median']:,.0f} res/s",
                "floor": f"{row['rps']['floor']['median']:,.0f} res/s",
                "ratio": row["ratio"],
                "met": row["ratio"] >= GRPC_MIN,
            }
        )
    small, large = (x["total_us"] for x in linear_runs)
    linear = large["ours"]["median"] / small["ours"]["median"]
    floor_linear = large["floor"]["median"] / small["floor"]["median"]
    out.append(
        {
            "target": f"linear: CPU µs/resource in process at {linear_runs[-1]['n']:,} / at {linear_runs[0]['n']:,} "
            f"≤ {LINEAR_MAX:.2f}",
            "ours": f"{large['ours']['median']:,.0f} / {small['ours']['median']:,.0f} µs",
            "floor": f"floor's own: {floor_linear:.2f}",
            "ratio": linear,
            "met": linear <= LINEAR_MAX,
        }
    )
    return out


def grpc_linear(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Per-resource wall time over gRPC, largest N / smallest, ours and the floor (reported, not gated)."""
    small, large = rows[0]["us_per_resource"], rows[-1]["us_per_resource"]
    return {side: large[side]["median"] / small[side]["median"] for side in ("ours", "floor")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved repetitions per side and size")
    ap.add_argument("--inprocess-n", type=int, default=1000)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]

    header("policy pack vs. the no-op floor (same SDK, same policy count, same run, interleaved)")
    inproc = inprocess(args.inprocess_n, max(args.repeat, 1) + 2)
    t, a, pr = inproc["total_us"], inproc["analyze_us"], inproc["paired_ratio"]
    print(
        f"  in process, N={inproc['n']:,}, {inproc['resource_policies']} resource + {inproc['stack_policies']} stack "
        f"policies: ours {t['ours']['median']:,.0f} µs/resource (min {t['ours']['min']:,.0f}, max "
        f"{t['ours']['max']:,.0f}), floor {t['floor']['median']:,.0f} (min {t['floor']['min']:,.0f}, max "
        f"{t['floor']['max']:,.0f}); ratio {t['ours']['median'] / t['floor']['median']:.2f} (per round "
        f"{pr['min']:.2f}–{pr['max']:.2f}; Analyze alone {a['ours']['median'] / a['floor']['median']:.2f}); load "
        f"{inproc['load'][0]:.1f} → {inproc['load'][1]:.1f}",
        flush=True,
    )
    linear_runs = [inprocess(n, max(args.repeat, 1)) for n in (sizes[0], sizes[-1])]
    for run in linear_runs:
        t = run["total_us"]
        print(
            f"  in process, N={run['n']:,}: ours {t['ours']['median']:,.0f} µs/resource (min {t['ours']['min']:,.0f}, "
            f"max {t['ours']['max']:,.0f}), floor {t['floor']['median']:,.0f} (min {t['floor']['min']:,.0f}, max "
            f"{t['floor']['max']:,.0f}); load {run['load'][0]:.1f} → {run['load'][1]:.1f}",
            flush=True,
        )
    rows = grpc(sizes, max(args.repeat, 1))
    wall = grpc_linear(rows)
    print(
        f"  over gRPC, wall µs/resource at {sizes[-1]:,} / at {sizes[0]:,} (reported, not gated): ours "
        f"{wall['ours']:.2f}, floor {wall['floor']:.2f}"
    )
    share = our_share(args.inprocess_n)
    print(
        f"  our code's share of the pack's Analyze (cProfile own time, N={share['n']:,}; "
        f"python bench/profile_pack.py -n {share['n']}): {share['share']:.1%}"
    )
    found = targets(inproc, rows, linear_runs)
    print()
    print(
        table(
            [[x["target"], x["ours"], x["floor"], f"{x['ratio']:.2f}", "met" if x["met"] else "missed"] for x in found],
            ["target (recorded, not gated)", "ours", "floor", "ratio", "verdict"],
        )
    )
    emit_result(
        "floor",
        {
            "inprocess": inproc,
            "linear": linear_runs,
            "grpc": rows,
            "grpc_linear": wall,
            "share": share,
            "targets": found,
        },
    )
    return 0


if __name__ == "__main__":
    use_compiled_bytecode()  # the children read compiled bytecode, as a user's second run does
    raise SystemExit(main())
