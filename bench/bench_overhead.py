"""Component overhead: our components vs. a flat program registering the same resources with the same inputs.

1. Record what the program registers for the stack (default ``prod``) with the preflight's mock runner.
2. Generate a raw program (``bench/rawgen.py``): every custom resource and explicit provider, same type token,
   name and inputs, through the real SDK class for its type token, flat, no components. A second raw program
   registers the same through ``pulumi.CustomResource`` (no SDK classes): the difference is the SDKs' own cost.
3. Check the raw program is faithful: record it too and compare (type, name, inputs) of every resource.
4. Measure, alternating the sides, each run a fresh subprocess:
   - preflight: ``python -m preflight`` for the stack vs. for the raw program with the same stack file
     (same pack, same cost estimate — the only difference is the program);
   - program only: the program under the preflight's mocks (``bench/_program.py``), no pack.
   Ratios = ours / raw for wall time and peak RSS (best of ``--repeat`` runs for time, max for memory).

    python bench/bench_overhead.py [--stack prod] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import rawgen
from bench._common import BENCH, PY, ROOT, Run, emit_result, header, measure, ratio, table, use_compiled_bytecode
from preflight.model import RecordedResource

TARGET_RATIO = 1.15
TARGET_RSS_MB = 400.0


def _record(program: Path, config_file: Path, out: Path) -> tuple[list[RecordedResource], dict[str, Any]]:
    run = measure(
        [
            PY,
            str(BENCH / "_program.py"),
            "--program",
            str(program),
            "--config-file",
            str(config_file),
            "--record",
            str(out),
        ]
    ).check()
    recs = [RecordedResource(**r) for r in json.loads(out.read_text())]
    return recs, run.last_json()


def _preflight_cmd(config_file: Path, program: Path, out: Path) -> list[str]:
    return [
        PY,
        "-m",
        "preflight",
        "--config-file",
        str(config_file),
        "--program",
        str(program),
        "--format",
        "json",
        "--output",
        str(out),
    ]


def _program_cmd(config_file: Path, program: Path) -> list[str]:
    return [PY, str(BENCH / "_program.py"), "--program", str(program), "--config-file", str(config_file)]


def _summ(runs: list[Run]) -> dict[str, Any]:
    return {
        "wall_s": min(r.wall_s for r in runs),
        "wall_median_s": statistics.median(r.wall_s for r in runs),
        "cpu_s": min(r.cpu_s for r in runs),
        "peak_rss_mb": max(r.peak_rss_mb for r in runs),
        "tree_peak_mb": max(r.tree_peak_mb for r in runs),
        "walls": [round(r.wall_s, 3) for r in runs],  # type: ignore[dict-item]
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stack", default="prod")
    ap.add_argument(
        "--name", default=None, help="result name (bench/out/<name>.json; default overhead or overhead_<stack>)"
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--work", type=Path, default=None, help="keep the generated raw programs here (default: a temp dir)"
    )
    args = ap.parse_args(argv)
    if args.work is None:
        with tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp:
            return run(args.stack, args.repeat, Path(tmp), args.name)
    args.work.mkdir(parents=True, exist_ok=True)
    return run(args.stack, args.repeat, args.work, args.name)


def run(stack: str, repeat: int, work: Path, name: str | None = None) -> int:
    """Generate the raw programs in ``work`` (outside the repo by default: they are not project code)."""
    stack_file = ROOT / "stacks" / f"Pulumi.{stack}.yaml"

    header(f"component overhead: stack {stack} vs. the same resources registered raw")
    recs, ours_info = _record(ROOT, stack_file, work / "ours.json")
    raw_sdk, raw_generic = work / "raw_sdk", work / "raw_generic"
    gen_sdk = rawgen.generate(recs, raw_sdk, mode="sdk")
    gen_generic = rawgen.generate(recs, raw_generic, mode="generic")
    print(
        f"  {stack}: {ours_info['resources']} registrations ({ours_info['custom']} custom incl. default "
        f"providers, {ours_info['components']} components); raw program: {gen_sdk['resources']} resources"
    )
    for tok, cls in sorted(gen_sdk["classes"].items()):
        print(f"    {tok} -> {cls}")
    if gen_sdk["fallbacks"]:
        print(f"  no SDK class (pulumi.CustomResource used): {', '.join(gen_sdk['fallbacks'])}")

    # Faithfulness: the raw programs must register exactly what ours registers.
    for mode, prog in (("sdk", raw_sdk), ("generic", raw_generic)):
        raw_recs, _ = _record(prog, stack_file, work / f"raw_{mode}.json")
        want, got = rawgen.comparable(recs), rawgen.comparable(raw_recs)
        if want != got:
            missing = [w for w in want if w not in got][:3]
            extra = [g for g in got if g not in want][:3]
            raise SystemExit(f"raw program ({mode}) differs from {stack}:\n  missing {missing}\n  extra {extra}")
    print(f"  check: both raw programs register the same {len(rawgen.comparable(recs))} (type, name, inputs) as ours")

    sides: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp:
        t = Path(tmp)
        sides = {
            "preflight: ours": _preflight_cmd(stack_file, ROOT, t / "ours.json"),
            "preflight: raw (SDK classes)": _preflight_cmd(stack_file, raw_sdk, t / "raw.json"),
            "program: ours": _program_cmd(stack_file, ROOT),
            "program: raw (SDK classes)": _program_cmd(stack_file, raw_sdk),
            "program: raw (pulumi.CustomResource)": _program_cmd(stack_file, raw_generic),
        }
        runs: dict[str, list[Run]] = {k: [] for k in sides}
        for _ in range(max(repeat, 1)):
            for key, cmd in sides.items():  # alternate the sides so drifting load hits both alike
                runs[key].append(measure(cmd).check(expect=(0, 1)))
        reports = {k: json.loads((t / f).read_text()) for k, f in (("ours", "ours.json"), ("raw", "raw.json"))}
    for key in ("ours", "raw"):
        print(
            f"  preflight {key}: {len(reports[key]['resources'])} resources, "
            f"{len(reports[key]['violations'])} violations"
        )
    if len(reports["ours"]["violations"]) != len(reports["raw"]["violations"]):
        print("  note: the raw program's violations differ in number (policies on components see no components)")

    s = {k: _summ(v) for k, v in runs.items()}
    rows = [
        [k, f"{v['wall_s']:.2f}", f"{v['cpu_s']:.2f}", f"{v['peak_rss_mb']:.0f}", f"{v['tree_peak_mb']:.0f}"]
        for k, v in s.items()
    ]
    print()
    print(table(rows, ["run", "wall s (best)", "CPU s", "peak RSS MB (largest process)", "peak RSS MB (tree sum)"]))

    # Work in Python function calls (cProfile counts; deterministic, unlike time on a shared VM).
    calls: dict[str, int] = {}
    for key, prog in (
        ("program: ours", ROOT),
        ("program: raw (SDK classes)", raw_sdk),
        ("program: raw (pulumi.CustomResource)", raw_generic),
    ):
        calls[key] = int(measure([*_program_cmd(stack_file, prog), "--count-calls"]).check().last_json()["calls"])
        s[key]["calls"] = calls[key]

    def ratios(a: str, b: str) -> dict[str, float]:
        return {
            "wall": ratio(s[a]["wall_s"], s[b]["wall_s"]),
            "wall_median": ratio(s[a]["wall_median_s"], s[b]["wall_median_s"]),
            "calls": ratio(s[a].get("calls", 0), s[b].get("calls", 0)) if "calls" in s[a] else float("nan"),
            "cpu": ratio(s[a]["cpu_s"], s[b]["cpu_s"]),
            "rss": ratio(s[a]["peak_rss_mb"], s[b]["peak_rss_mb"]),
            "tree_rss": ratio(s[a]["tree_peak_mb"], s[b]["tree_peak_mb"]),
        }

    pre = ratios("preflight: ours", "preflight: raw (SDK classes)")
    prog = ratios("program: ours", "program: raw (SDK classes)")
    sdk_cost = ratios("program: raw (SDK classes)", "program: raw (pulumi.CustomResource)")
    print()
    for label, r in (("preflight ours/raw", pre), ("program ours/raw", prog), ("SDK classes/CustomResource", sdk_cost)):
        print(
            f"  {label:<28} wall {r['wall']:.3f}x (median {r['wall_median']:.3f}x)  CPU {r['cpu']:.3f}x  "
            f"peak RSS {r['rss']:.3f}x  tree RSS {r['tree_rss']:.3f}x  function calls {r['calls']:.3f}x"
        )
    peak = s["preflight: ours"]["peak_rss_mb"]
    tree = s["preflight: ours"]["tree_peak_mb"]

    def verdict(x: float) -> str:
        return "MET" if x <= TARGET_RATIO else "MISSED"

    print(
        f"  target overhead ≤{TARGET_RATIO}x (preflight ours/raw): time {verdict(pre['wall'])}, "
        f"RSS {verdict(pre['rss'])}; stricter, the program alone: time {verdict(prog['wall'])}, "
        f"RSS {verdict(prog['rss'])}"
    )
    print(
        f"  target preflight peak RSS ≤{TARGET_RSS_MB:.0f} MB: {'MET' if peak <= TARGET_RSS_MB else 'MISSED'} "
        f"(largest process {peak:.0f} MB; all preflight processes together {tree:.0f} MB)"
    )
    emit_result(
        name or ("overhead" if stack == "prod" else f"overhead_{stack}"),
        {
            "stack": stack,
            "resources": ours_info,
            "raw": {"sdk": gen_sdk, "generic": gen_generic},
            "sides": s,
            "ratios": {"preflight": pre, "program": prog, "sdk_vs_generic": sdk_cost},
            "violations": {k: len(v["violations"]) for k, v in reports.items()},
        },
    )
    return 0


if __name__ == "__main__":
    use_compiled_bytecode()  # the children read compiled bytecode, as a user's second run does
    raise SystemExit(main())
