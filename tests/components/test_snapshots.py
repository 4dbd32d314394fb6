"""URN snapshots: one file per stack in ``tests/components/snapshots/``.

A URN is a resource's identity in the Pulumi state. A refactor that renames a resource, changes its type, or moves
it under another component changes its URN (or its parent), and ``pulumi up`` would then delete and recreate it —
for an AKS cluster or a GPU pool that is an outage. These tests fail on any such change.

If the change is intended, add ``aliases`` to the moved resources first, then regenerate the snapshots::

    AGP_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest -q tests/components/test_snapshots.py

and commit the updated JSON files together with the change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import composition.platform
from tests.components.harness import Run, engine_urns, run_stack

SNAPSHOT_DIR = Path(__file__).with_name("snapshots")
UPDATE_ENV = "AGP_UPDATE_SNAPSHOTS"
STACKS = ["dev", "staging", "prod"]


def snapshot_of(run: Run) -> list[dict[str, Any]]:
    assert run.error is None, run.error
    urns = engine_urns(run)
    rows = [{"urn": urns[r.urn], "parent": urns.get(r.parent), "custom": r.custom} for r in run.records]
    return sorted(rows, key=lambda row: row["urn"])


def differences(expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> list[str]:
    want = {row["urn"]: row for row in expected}
    have = {row["urn"]: row for row in actual}
    out = [f"gone (renamed, re-typed or removed: would be DELETED): {urn}" for urn in sorted(set(want) - set(have))]
    out += [f"new (would be CREATED): {urn}" for urn in sorted(set(have) - set(want))]
    for urn in sorted(set(want) & set(have)):
        if want[urn]["parent"] != have[urn]["parent"]:
            out.append(f"re-parented: {urn}: {want[urn]['parent']} -> {have[urn]['parent']}")
    return out


def _path(stack: str) -> Path:
    return SNAPSHOT_DIR / f"{stack}.json"


@pytest.mark.parametrize("stack", STACKS)
def test_urns_match_the_snapshot(stack: str) -> None:
    actual = snapshot_of(run_stack(stack))
    if os.environ.get(UPDATE_ENV) == "1":
        _path(stack).write_text(json.dumps(actual, indent=2) + "\n", encoding="utf-8")
    assert _path(stack).exists(), f"no snapshot for {stack}: run with {UPDATE_ENV}=1 to create it"
    expected = json.loads(_path(stack).read_text(encoding="utf-8"))
    diff = differences(expected, actual)
    assert not diff, (
        f"URNs of stack {stack} changed; `pulumi up` would replace these resources:\n  "
        + "\n  ".join(diff)
        + f"\nAdd aliases, or if intended regenerate with {UPDATE_ENV}=1 (see this module's docstring)."
    )


def test_snapshot_catches_a_renamed_component(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = json.loads(_path("dev").read_text(encoding="utf-8"))
    monkeypatch.setattr(composition.platform, "CLUSTER_COMPONENT", "cluster")
    diff = differences(expected, snapshot_of(run_stack("dev")))
    gone = [d for d in diff if d.startswith("gone")]
    assert any("ManagedCluster::aks-cluster" in d for d in gone)
    assert any("AgentPool::aks-t4" in d for d in gone)


def test_snapshot_catches_re_parenting() -> None:
    expected = json.loads(_path("dev").read_text(encoding="utf-8"))
    moved = [dict(row) for row in expected]
    pool = next(row for row in moved if row["urn"].endswith("AgentPool::aks-t4"))
    pool["parent"] = "urn:pulumi:dev::azure-gpu-platform::azure-gpu-platform:components:GpuNodePool::other"
    assert differences(expected, moved) == [
        f"re-parented: {pool['urn']}: {next(r for r in expected if r['urn'] == pool['urn'])['parent']} -> "
        f"{pool['parent']}"
    ]
