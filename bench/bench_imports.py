"""Imports: the program for an AKS-only stack vs. the same stack with Databricks — time, RSS, modules.

Each run is a fresh subprocess running the program under the preflight's mocks (``bench/_program.py``):
- AKS-only: ``stacks/Pulumi.dev.yaml`` as it is;
- with Databricks: the same file plus a ``databricks`` section (one workspace, one A100 training cluster).
It also measures the bare imports (``import pulumi`` vs. ``import pulumi_databricks``) and checks that neither the
AKS-only program nor the policy pack (``policies.pack``) imports ``pulumi_databricks``.

    python bench/bench_imports.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import BENCH, PY, ROOT, Run, emit_result, header, measure, ratio, table, use_compiled_bytecode

NS = "azure-gpu-platform"
DATABRICKS_SECTION: dict[str, Any] = {
    "workspace": {"name": "dbw-agp-bench"},
    "clusters": [
        {
            "name": "train",
            "nodeTypeId": "Standard_NC24ads_A100_v4",
            "numWorkers": 2,
            "singleUserName": "alice@contoso.com",
        }
    ],
}
CHECK_IMPORT = "import sys, {mod}; print('pulumi_databricks' in sys.modules)"


def stack_with_databricks(directory: Path) -> Path:
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    doc["config"][f"{NS}:databricks"] = DATABRICKS_SECTION
    path = directory / "Pulumi.devdbx.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _best(cmd: list[str], repeat: int) -> Run:
    runs = [measure(cmd).check() for _ in range(max(repeat, 1))]
    best = min(runs, key=lambda r: r.wall_s)
    best.peak_rss_mb = max(r.peak_rss_mb for r in runs)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    header("imports: AKS-only stack vs. stack with Databricks (program under mocks, fresh process each)")
    with tempfile.TemporaryDirectory(prefix="bench-imports-") as tmp:
        dbx_stack = stack_with_databricks(Path(tmp))
        prog = [PY, str(BENCH / "_program.py"), "--program", str(ROOT), "--config-file"]
        aks = _best([*prog, str(ROOT / "stacks" / "Pulumi.dev.yaml")], args.repeat)
        dbx = _best([*prog, str(dbx_stack)], args.repeat)
    bare_pulumi = _best([PY, "-c", CHECK_IMPORT.format(mod="pulumi")], args.repeat)
    bare_dbx = _best([PY, "-c", CHECK_IMPORT.format(mod="pulumi_databricks")], args.repeat)
    pack = measure([PY, "-c", "import sys; import policies.pack; print('pulumi_databricks' in sys.modules)"]).check()
    aks_info, dbx_info = aks.last_json(), dbx.last_json()

    rows = [
        ["program, AKS-only (dev)", aks.wall_s, aks.peak_rss_mb, aks_info["modules_loaded"],
         aks_info["databricks_imported"], aks_info["resources"]],
        ["program, dev + Databricks", dbx.wall_s, dbx.peak_rss_mb, dbx_info["modules_loaded"],
         dbx_info["databricks_imported"], dbx_info["resources"]],
        ["python -c 'import pulumi'", bare_pulumi.wall_s, bare_pulumi.peak_rss_mb, "", False, ""],
        ["python -c 'import pulumi_databricks'", bare_dbx.wall_s, bare_dbx.peak_rss_mb, "", True, ""],
    ]  # fmt: skip
    print(table(rows, ["run", "wall s (best)", "peak RSS MB", "modules", "pulumi_databricks imported", "resources"]))
    t_ratio = ratio(dbx.wall_s, aks.wall_s)
    m_ratio = ratio(dbx.peak_rss_mb, aks.peak_rss_mb)
    print(
        f"\n  with Databricks / AKS-only: wall {t_ratio:.2f}x (+{dbx.wall_s - aks.wall_s:.2f} s), "
        f"peak RSS {m_ratio:.2f}x (+{dbx.peak_rss_mb - aks.peak_rss_mb:.0f} MB)"
    )
    print(
        f"  bare import pulumi_databricks vs. pulumi: +{bare_dbx.wall_s - bare_pulumi.wall_s:.2f} s, "
        f"+{bare_dbx.peak_rss_mb - bare_pulumi.peak_rss_mb:.0f} MB"
    )
    aks_clean = not aks_info["databricks_imported"]
    pack_clean = pack.stdout.strip() == "False"
    print(
        f"  target: AKS-only program never imports pulumi_databricks: {'MET' if aks_clean else 'MISSED'}; "
        f"policy pack imports it: {'no' if pack_clean else 'YES'}"
    )
    emit_result(
        "imports",
        {
            "aks": {"wall_s": aks.wall_s, "peak_rss_mb": aks.peak_rss_mb, **aks_info},
            "databricks": {"wall_s": dbx.wall_s, "peak_rss_mb": dbx.peak_rss_mb, **dbx_info},
            "bare": {
                "pulumi": {"wall_s": bare_pulumi.wall_s, "peak_rss_mb": bare_pulumi.peak_rss_mb},
                "pulumi_databricks": {"wall_s": bare_dbx.wall_s, "peak_rss_mb": bare_dbx.peak_rss_mb},
            },
            "ratios": {"wall": t_ratio, "rss": m_ratio},
            "aks_only_imports_databricks": not aks_clean,
            "pack_imports_databricks": not pack_clean,
        },
    )
    return 0 if aks_clean and pack_clean else 1


if __name__ == "__main__":
    use_compiled_bytecode()  # the children read compiled bytecode, as a user's second run does
    raise SystemExit(main())
