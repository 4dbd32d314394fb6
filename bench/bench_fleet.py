"""The preflight of a fleet stack against one member: a 3-member fleet should cost at most ~3× a 1-member fleet.

Three stack files are generated from the shipped fleet example (``examples/fleet/Pulumi.fleet.yaml``) into a
temporary directory, each previewed by ``python -m preflight --config-file <file> --format json`` in a fresh process
(the program under the preflight's mocks, the policy pack over gRPC, cost, quota and the fleet report):

- ``fleet3``: the example as shipped (three members in three regions, the Fleet with its hub, the update strategy,
  the auto-upgrade profile, a placement);
- ``fleet1``: the same fleet with its first member only (its stage only; the placement kept: the member has the size);
- ``single``: the example's template without the ``fleet`` section (one platform cluster, no Fleet): what the fleet
  machinery adds to one cluster.

The sides run interleaved ``--repeat`` times; wall and CPU time (the preflight and its children) are the best of the
runs, peak memory the largest. The figure recorded is fleet3 / fleet1 in CPU and in wall time (target ≤ 3.0; recorded,
not gated: times on a shared machine), with the resources each registers.

    python bench/bench_fleet.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import PY, ROOT, Run, emit_result, header, measure, ratio, table, use_compiled_bytecode

EXAMPLE = ROOT / "examples" / "fleet" / "Pulumi.fleet.yaml"
FLEET_KEY = "azure-gpu-platform:fleet"
TODAY = "2026-12-03"
TARGET = 3.0


def stack_files(folder: Path) -> dict[str, Path]:
    """The three stack files (module docstring), written into ``folder``."""
    doc = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    one = copy.deepcopy(doc)
    fleet = one["config"][FLEET_KEY]
    first = fleet["members"][0]
    fleet["members"] = [first]
    fleet["updateStrategy"]["stages"] = [s for s in fleet["updateStrategy"]["stages"] if first["group"] in s["groups"]]
    single = copy.deepcopy(doc)
    del single["config"][FLEET_KEY]
    out: dict[str, Path] = {}
    for name, content in (("fleet3", doc), ("fleet1", one), ("single", single)):
        path = folder / f"Pulumi.{name}.yaml"
        path.write_text(yaml.safe_dump(content, sort_keys=False), encoding="utf-8")
        out[name] = path
    return out


def preflight(path: Path) -> Run:
    cmd = [PY, "-m", "preflight", "--config-file", str(path), "--format", "json", "--today", TODAY]
    return measure(cmd, timeout=600).check((0, 1))


def _summary(run: Run) -> dict[str, Any]:
    doc = json.loads(run.stdout)
    fleet = doc.get("fleet") or {}
    return {
        "resources": doc["summary"]["resources"],
        "violations": doc["summary"]["violations"],
        "exit": doc["summary"]["exitCode"],
        "members": len(fleet.get("members", [])),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    header("fleet: the preflight of a 3-member fleet against a 1-member fleet and a single cluster")
    runs: dict[str, list[Run]] = {"fleet1": [], "fleet3": [], "single": []}
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        files = stack_files(Path(tmp))
        for _ in range(max(args.repeat, 1)):
            for name in ("fleet1", "fleet3", "single"):  # interleaved: the load hits every side alike
                runs[name].append(preflight(files[name]))
    best = {name: {"wall_s": min(r.wall_s for r in rs), "cpu_s": min(r.cpu_s for r in rs),
                   "tree_peak_mb": max(r.tree_peak_mb for r in rs), **_summary(rs[0])}
            for name, rs in runs.items()}  # fmt: skip
    cpu_ratio = ratio(best["fleet3"]["cpu_s"], best["fleet1"]["cpu_s"])
    wall_ratio = ratio(best["fleet3"]["wall_s"], best["fleet1"]["wall_s"])
    rows = [
        [name, b["members"], b["resources"], f"{b['wall_s']:.2f} s", f"{b['cpu_s']:.2f} s", f"{b['tree_peak_mb']:.0f}"]
        for name, b in best.items()
    ]
    print(table(rows, ["stack", "members", "resources", "wall (best)", "CPU (best)", "tree RSS MB (max)"]))
    print(f"fleet3 / fleet1: CPU {cpu_ratio:.2f}×, wall {wall_ratio:.2f}× (target ≤ {TARGET:g}×, recorded)")
    emit_result(
        "fleet",
        {
            "stacks": best,
            "cpu_ratio": cpu_ratio,
            "wall_ratio": wall_ratio,
            "target": TARGET,
            "repeat": args.repeat,
            "ok": cpu_ratio <= TARGET,
        },
    )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    use_compiled_bytecode()  # the children read compiled bytecode, as a user's second run does
    sys.exit(main())
