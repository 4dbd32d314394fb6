"""Quota demand: what it adds to the offline preflight, that the offline run never imports the Azure SDK, and what
``--live`` costs with recorded responses.

- offline share: one measured ``python -m preflight --stack prod --format json`` (wall time W), then the quota demand
  and its text/JSON rendering for the same resources, in process, averaged over many runs (q); the old target
  q / W < 5 % (the offline preflight not slower by more than 5 %) is recorded, not gated;
- imports: ``python -X importtime -m preflight --stack dev`` must import neither ``azure.mgmt.compute`` nor
  ``azure.identity`` (a hard check: exit 1 when it does); the bare import time of those two (what ``--live`` adds);
- live: ``run_live_check`` for prod through the real azure-mgmt-compute client over the recorded responses of
  ``tests/fixtures/azure_quota`` (old target < 5 s; recorded, not gated: a wall time on a shared machine).

    python bench/bench_quota.py [--repeat 50]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import PY, ROOT, emit_result, header, measure, table, use_compiled_bytecode

AZURE_SDK = ("azure.mgmt.compute", "azure.identity")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args(argv)

    from preflight.live_quota import run_live_check
    from preflight.model import RecordedResource
    from preflight.quota import quota_demand
    from preflight.quota_report import quota_json, quota_text
    from tests.preflight.azure_recorded import RecordedAdapter, StaticToken, body, recorded_transport

    header("quota: offline share of the prod preflight")
    run = measure([PY, "-m", "preflight", "--stack", "prod", "--format", "json"]).check()
    doc = json.loads(run.stdout)
    resources = [
        RecordedResource(urn=r["urn"], type=r["type"], name=r["name"], inputs=r["inputs"], parent=r["parent"])
        for r in doc["resources"]
    ]
    demand = quota_demand(resources, default_region="westeurope")
    start = time.perf_counter()
    for _ in range(max(args.repeat, 1)):
        demand = quota_demand(resources, default_region="westeurope")
        quota_text(demand, None)
        json.dumps(quota_json(demand, None))
    quota_s = (time.perf_counter() - start) / max(args.repeat, 1)
    share = quota_s / run.wall_s

    header("quota: imports of an offline run")
    imports = measure([PY, "-X", "importtime", "-m", "preflight", "--stack", "dev", "--format", "json"]).check()
    imported = {ln.rsplit("|", 1)[-1].strip() for ln in imports.stderr.splitlines() if "import time:" in ln}
    leaked = sorted(m for m in imported if m.startswith(AZURE_SDK))
    sdk = measure([PY, "-c", "import azure.mgmt.compute, azure.identity"]).check()

    header("quota: --live with recorded responses")
    adapter = RecordedAdapter(usages={"*": body("usage_westeurope.json")}, skus=body("skus_westeurope.json"))
    start = time.perf_counter()
    live = run_live_check(
        demand, subscription="0" * 8, credential=StaticToken(), transport=recorded_transport(adapter)
    )  # fmt: skip
    live_s = time.perf_counter() - start
    assert live.ran, live.line

    rows = [
        ["prod preflight (wall)", f"{run.wall_s:.2f} s", ""],
        ["quota demand + rendering", f"{quota_s * 1000:.2f} ms", f"{share:.3%} of the preflight (target < 5 %)"],
        ["Azure SDK imported offline", ", ".join(leaked) or "none", "hard check"],
        ["import azure.mgmt.compute + azure.identity", f"{sdk.wall_s:.2f} s", "paid only with --live"],
        ["live check, recorded responses (in process, SDK imported)", f"{live_s:.2f} s", "target < 5 s"],
    ]
    print(table(rows, ["measure", "value", "note"]))
    emit_result(
        "quota",
        {
            "preflight_wall_s": run.wall_s,
            "quota_ms": quota_s * 1000,
            "share": share,
            "sdk_leaked": leaked,
            "sdk_import_s": sdk.wall_s,
            "live_recorded_s": live_s,
            "ok": not leaked and share < 0.05 and live_s < 5.0,
        },
    )
    return 1 if leaked else 0  # the times are recorded, not gated ("ok" says whether their old targets held)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    use_compiled_bytecode()  # the children read compiled bytecode, as a user's second run does
    sys.exit(main())
