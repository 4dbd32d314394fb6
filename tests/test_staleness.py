"""Every facts file records when its sources were read; the preflight warns (advisory) when that is too long ago."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

from gpu_catalog.catalog import CATALOG_PATH
from gpu_catalog.staleness import DEFAULT_MAX_AGE_DAYS, facts_files, stale_facts
from tests.preflight.test_cli import preflight


def test_every_facts_file_records_when_its_sources_were_read() -> None:
    names = [p.name for p in facts_files()]
    assert len(names) == 19 and names[0] == "catalog.json"  # the catalog and 18 facts files
    for path in facts_files():
        read = json.loads(path.read_text(encoding="utf-8"))["sourcesRead"]
        assert date.fromisoformat(read) <= date(2026, 12, 4), path.name  # fleet.json, gpu_regions.json: 2026-12-04


def test_the_shipped_facts_are_fresh_on_the_day_and_age_by_their_read_dates() -> None:
    """On 2026-12-03 no facts file is past the 90-day rule (aks_access.json was re-read that day); on 2027-03-01 the
    four read on 2026-11-30 are (91 days), the ones read on 2026-12-01 not yet (90)."""
    assert DEFAULT_MAX_AGE_DAYS == 90
    assert stale_facts(date(2026, 12, 3)) == stale_facts(date(2026, 12, 3), 90) == []
    stale = stale_facts(date(2027, 3, 1), 90)
    assert [s.path for s in stale] == [
        "gpu_catalog/facts/azure_regions.json",
        "gpu_catalog/facts/databricks.json",
        "gpu_catalog/facts/karpenter.json",
        "gpu_catalog/facts/vm_size_fields.json",
    ]
    assert stale[1].message(90) == (
        "gpu_catalog/facts/databricks.json: its sources were read on 2026-11-30, 91 days ago (more than 90); "
        "upstream may have moved on. Refresh the facts with python -m gpu_catalog.refresh and review the diff "
        "(docs/refreshing-facts.md). Advisory: nothing is refused for it."
    )
    assert len(stale_facts(date(2027, 6, 1), 90)) == 19
    assert stale_facts(date(2027, 6, 1), 365) == []


def test_aks_access_records_what_was_re_read() -> None:
    doc = json.loads((CATALOG_PATH.parent / "facts" / "aks_access.json").read_text(encoding="utf-8"))
    reads = {(s["repository"], s["path"].split(" ")[0]): s["read"] for s in doc["sources"]}
    assert reads[("MicrosoftDocs/azure-aks-docs", "articles/aks/entra-id-authorization.md")] == "2026-12-03"
    assert reads[("MicrosoftDocs/azure-docs", "articles/role-based-access-control/built-in-roles/containers.md")] == (
        "2026-12-03"
    )
    assert reads[("Azure/azure-dev", "issue")] == "2026-08-21"  # not re-read: its own date stays
    assert {r["id"] for r in doc["roles"].values()} == {
        "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b",
        "3498e952-d568-435e-9b2c-8d77e338d7f7",
        "a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb",
        "18ab4d3d-a1bf-4477-8ad9-8359bc988f69",  # Fleet Manager RBAC Cluster Admin (the fleet's hub; read 2026-12-04)
    }


def test_a_file_without_a_read_date_counts_as_stale(tmp_path: Path) -> None:
    shutil.copy(CATALOG_PATH, tmp_path / "catalog.json")
    shutil.copytree(CATALOG_PATH.parent / "facts", tmp_path / "facts")
    doc = json.loads((tmp_path / "facts/karpenter.json").read_text())
    del doc["sourcesRead"]
    (tmp_path / "facts/karpenter.json").write_text(json.dumps(doc))
    stale = stale_facts(date(2026, 12, 1), 365, root=tmp_path)
    assert [(s.path, s.read) for s in stale] == [("gpu_catalog/facts/karpenter.json", None)]
    assert (
        stale[0]
        .message(365)
        .startswith("gpu_catalog/facts/karpenter.json does not record when its sources were read (sourcesRead)")
    )


def test_preflight_warns_and_still_passes() -> None:
    run = preflight("--stack", "dev", "--today", "2027-06-01", "--facts-max-age", "182", "--format", "json")
    assert run.code == 0, run.stderr  # advisory: the exit code is the stack's own
    warnings = [w for w in json.loads(run.stdout)["warnings"] if "sources were read" in w]
    assert [w.split(":")[0] for w in warnings] == [  # read 2026-11-30: 183 days > 182 (2026-12-01: 182, not more)
        "gpu_catalog/facts/azure_regions.json",
        "gpu_catalog/facts/databricks.json",
        "gpu_catalog/facts/karpenter.json",
        "gpu_catalog/facts/vm_size_fields.json",
    ]
    bad = preflight("--stack", "dev", "--facts-max-age", "-1")
    assert bad.code == 2 and "--facts-max-age -1: expected 0 or more days" in bad.stderr
