"""Program scaling: register 1, 10 and 50 GPU pools under the preflight's mocks — time per pool.

Each N is a stack file derived from ``stacks/Pulumi.dev.yaml`` with N A100 pools (``gpuPools``), run in a fresh
subprocess (``bench/_program.py``). Reported: the time the program spends registering (interpreter start-up and
imports excluded), per pool and marginal ((t(50) - t(1)) / 49), and the marginal Python function calls per pool
(cProfile call counts of the run at the smallest and the largest N: deterministic work, unlike time). For comparison
the same resources are registered flat through the SDK classes (``bench/rawgen.py``): the per-pool ratio ours / raw
is the components' overhead per pool; the rest is the SDK's own cost per ``AgentPool`` (its ~110 version aliases).

``--limit-case`` also runs the stack at AKS's limit (99 GPU pools + the system pool = 100 node pools) and records how
deep the SDK's dependency-cycle check recursed (``bench/_program.py --walk-depth``): it passes when every pool is
registered, without ``RecursionError``, and the depth stays constant.

    python bench/bench_scaling.py [--pools 1,10,50] [--repeat 1] [--limit-case]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import rawgen
from bench._common import BENCH, PY, ROOT, emit_result, header, measure, ratio, table, use_compiled_bytecode
from preflight.model import RecordedResource
from rules.limits import MAX_NODE_POOLS_PER_CLUSTER

NS = "azure-gpu-platform"
POOL_SIZE = "Standard_NC24ads_A100_v4"
LIMIT_GPU_POOLS = MAX_NODE_POOLS_PER_CLUSTER - 1
"""The most GPU pools a stack may have: AKS's node pools per cluster, less the system pool (rules.limits)."""
MAX_WALK_DEPTH = 8
"""How deep the SDK's cycle check may recurse at the limit: a constant (4 measured), not one level per pool (101
before the pool chain waited on URN stand-ins, components.aks_cluster.after)."""


def stack_with_pools(n: int, directory: Path) -> Path:
    """A stack file like dev's with ``n`` GPU pools; returns its path (``Pulumi.pools<n>.yaml``)."""
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    cfg = doc["config"]
    cfg[f"{NS}:environment"] = "bench"
    cfg[f"{NS}:gpuPools"] = [{"name": f"gpu{i}", "vmSize": POOL_SIZE, "minCount": 1, "maxCount": 2} for i in range(n)]
    cfg.pop(f"{NS}:budget", None)
    path = directory / f"Pulumi.pools{n}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _run(
    program: Path, stack_file: Path, record: Path | None = None, *, walk_depth: bool = False, calls: bool = False
) -> dict[str, Any]:
    cmd = [PY, str(BENCH / "_program.py"), "--program", str(program), "--config-file", str(stack_file)]
    if walk_depth:
        cmd.append("--walk-depth")
    if calls:
        cmd.append("--count-calls")
    if record is not None:
        cmd += ["--record", str(record)]
    run = measure(cmd).check()
    info = run.last_json()
    info["wall_s"] = run.wall_s
    info["peak_rss_mb"] = run.peak_rss_mb
    return info


def marginal_calls(calls: dict[int, dict[str, int]], first: int, last: int) -> dict[str, float]:
    """Python function calls per GPU pool from ``first`` to ``last`` pools, ours and raw, and their ratio."""
    span = last - first
    ours = (calls[last]["ours"] - calls[first]["ours"]) / span if span else float("nan")
    raw = (calls[last]["raw"] - calls[first]["raw"]) / span if span else float("nan")
    return {"ours": ours, "raw": raw, "ratio": ratio(ours, raw)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pools", default="1,10,50")
    ap.add_argument("--repeat", type=int, default=1, help="runs per N (best registration time kept)")
    ap.add_argument(
        "--limit-case",
        action="store_true",
        help=f"also run the stack at AKS's limit: {LIMIT_GPU_POOLS} GPU pools + the system pool = "
        f"{MAX_NODE_POOLS_PER_CLUSTER} node pools, with the depth of the SDK's dependency walk",
    )
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.pools.split(",")]

    header("program scaling: N GPU pools under mocks (registration time, imports excluded)")
    rows: list[dict[str, Any]] = []
    calls: dict[int, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp:
        t = Path(tmp)
        for n in counts:
            stack_file = stack_with_pools(n, t)
            rec_file = t / f"pools{n}.json"
            ours = min((_run(ROOT, stack_file, rec_file) for _ in range(args.repeat)), key=lambda r: r["run_s"])
            recs = [RecordedResource(**r) for r in json.loads(rec_file.read_text())]
            pools = sum(1 for r in recs if r.type == "azure-native:containerservice:AgentPool")
            raw_dir = t / f"raw{n}"
            rawgen.generate(recs, raw_dir, mode="sdk")
            raw = min((_run(raw_dir, stack_file) for _ in range(args.repeat)), key=lambda r: r["run_s"])
            if n in (counts[0], counts[-1]):  # Python function calls of the run: deterministic work
                calls[n] = {
                    "ours": _run(ROOT, stack_file, calls=True)["calls"],
                    "raw": _run(raw_dir, stack_file, calls=True)["calls"],
                }
            rows.append(
                {
                    "n": n,
                    "agent_pools": pools,
                    "resources": ours["resources"],
                    "ours_run_s": ours["run_s"],
                    "ours_wall_s": ours["wall_s"],
                    "ours_rss_mb": ours["peak_rss_mb"],
                    "raw_run_s": raw["run_s"],
                    "ours_run_cpu_s": ours["run_cpu_s"],
                    "raw_run_cpu_s": raw["run_cpu_s"],
                    "raw_wall_s": raw["wall_s"],
                    "ours_per_pool_ms": ours["run_s"] / n * 1000,
                    "raw_per_pool_ms": raw["run_s"] / n * 1000,
                }
            )
            print(
                f"  N={n:>3}: ours {ours['run_s']:.2f} s ({ours['run_s'] / n * 1000:.0f} ms/pool, "
                f"{ours['resources']} registrations), raw {raw['run_s']:.2f} s",
                flush=True,
            )
    first, last = rows[0], rows[-1]
    span = last["n"] - first["n"]
    marg_ours = (last["ours_run_s"] - first["ours_run_s"]) / span * 1000 if span else float("nan")
    marg_raw = (last["raw_run_s"] - first["raw_run_s"]) / span * 1000 if span else float("nan")
    marg_ours_cpu = (last["ours_run_cpu_s"] - first["ours_run_cpu_s"]) / span * 1000 if span else float("nan")
    marg_raw_cpu = (last["raw_run_cpu_s"] - first["raw_run_cpu_s"]) / span * 1000 if span else float("nan")
    print()
    print(
        table(
            [
                [
                    r["n"],
                    r["resources"],
                    f"{r['ours_run_s']:.2f}",
                    f"{r['ours_per_pool_ms']:.0f}",
                    f"{r['raw_run_s']:.2f}",
                    f"{r['raw_per_pool_ms']:.0f}",
                    f"{ratio(r['ours_run_s'], r['raw_run_s']):.2f}",
                    f"{r['ours_wall_s']:.2f}",
                    f"{r['ours_rss_mb']:.0f}",
                ]
                for r in rows
            ],
            [
                "GPU pools",
                "registrations",
                "ours: register s",
                "ours: ms/pool",
                "raw: register s",
                "raw: ms/pool",
                "ours/raw",
                "ours: wall s (process)",
                "ours: peak RSS MB",
            ],
        )
    )
    print(
        f"\n  marginal cost per GPU pool ({first['n']}→{last['n']}): ours {marg_ours:.0f} ms, "
        f"raw SDK {marg_raw:.0f} ms "
        f"(ratio {ratio(marg_ours, marg_raw):.2f}); per-pool ratio at N={last['n']}: "
        f"{ratio(last['ours_run_s'], last['raw_run_s']):.2f}"
    )
    print(
        f"  in CPU time (robust to other load): ours {marg_ours_cpu:.0f} ms, raw {marg_raw_cpu:.0f} ms per pool "
        f"(ratio {ratio(marg_ours_cpu, marg_raw_cpu):.2f})"
    )
    marg_calls = marginal_calls(calls, first["n"], last["n"])
    print(
        f"  in Python function calls (deterministic): ours {marg_calls['ours']:,.0f}, raw {marg_calls['raw']:,.0f} per "
        f"pool (ratio {marg_calls['ratio']:.3f}, {marg_calls['ratio'] - 1:+.0%})"
    )
    limit: dict[str, Any] | None = None
    if args.limit_case:
        with tempfile.TemporaryDirectory(prefix="bench-limit-") as tmp:
            info = _run(ROOT, stack_with_pools(LIMIT_GPU_POOLS, Path(tmp)), walk_depth=True)
        pools = info["by_type"].get("azure-native:containerservice:AgentPool", 0)
        limit = {
            "gpu_pools": LIMIT_GPU_POOLS,
            "node_pools": LIMIT_GPU_POOLS + 1,
            "agent_pools": pools,
            "resources": info["resources"],
            "run_s": info["run_s"],
            "walk_depth": info["walk_depth"],
            "passed": pools == LIMIT_GPU_POOLS and info["walk_depth"] <= MAX_WALK_DEPTH,
        }
        print(
            f"\n  at the limit: {LIMIT_GPU_POOLS} GPU pools + 1 system pool = {LIMIT_GPU_POOLS + 1} node pools: "
            f"{pools} AgentPools registered in {info['run_s']:.1f} s, no RecursionError; the SDK's dependency walk "
            f"went {info['walk_depth']} deep (≤ {MAX_WALK_DEPTH}: constant, not one level per pool) — "
            f"{'passed' if limit['passed'] else 'FAILED'}"
        )
    emit_result(
        "scaling",
        {
            "limit": limit,
            "rows": rows,
            "marginal_ms": {"ours": marg_ours, "raw": marg_raw, "ratio": ratio(marg_ours, marg_raw)},
            "marginal_calls": marg_calls,
            "marginal_cpu_ms": {
                "ours": marg_ours_cpu,
                "raw": marg_raw_cpu,
                "ratio": ratio(marg_ours_cpu, marg_raw_cpu),
            },
        },
    )
    return 0


if __name__ == "__main__":
    use_compiled_bytecode()  # the children read compiled bytecode, as a user's second run does
    raise SystemExit(main())
