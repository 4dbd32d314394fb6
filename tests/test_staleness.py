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
    assert len(names) == 17 and names[0] == "catalog.json"  # the catalog and 16 facts files
    for path in facts_files():
        read = json.loads(path.read_text(encoding="utf-8"))["sourcesRead"]
        assert date.fromisoformat(read) <= date(2026, 12, 3), path.name


def test_files_older_than_the_limit_are_named_with_the_refresh_command() -> None:
    assert DEFAULT_MAX_AGE_DAYS == 90
    assert stale_facts(date(2026, 12, 1)) == stale_facts(date(2026, 12, 1), 90)
    stale = stale_facts(date(2026, 12, 1), 90)
    assert [s.path for s in stale] == ["gpu_catalog/facts/aks_access.json"]  # read 2026-08-21, 102 days before
    assert stale[0].message(90) == (
        "gpu_catalog/facts/aks_access.json: its sources were read on 2026-08-21, 102 days ago (more than 90); "
        "upstream may have moved on. Refresh the facts with python -m gpu_catalog.refresh and review the diff "
        "(docs/refreshing-facts.md). Advisory: nothing is refused for it."
    )
    assert len(stale_facts(date(2027, 6, 1), 90)) == 17
    assert stale_facts(date(2027, 6, 1), 365) == []


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
    run = preflight("--stack", "dev", "--today", "2027-06-01", "--facts-max-age", "200", "--format", "json")
    assert run.code == 0, run.stderr  # advisory: the exit code is the stack's own
    warnings = [w for w in json.loads(run.stdout)["warnings"] if "sources were read" in w]
    assert [w.split(":")[0] for w in warnings] == ["gpu_catalog/facts/aks_access.json"]  # 284 days > 200
    bad = preflight("--stack", "dev", "--facts-max-age", "-1")
    assert bad.code == 2 and "--facts-max-age -1: expected 0 or more days" in bad.stderr
