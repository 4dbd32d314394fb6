"""The policy → rule → checklist table in docs/architecture.md names every policy of the pack, and every checklist
it names exists in rules/checklists.py: a newcomer goes from a policy's id to the checklist that runs its rule in one
hop."""

from __future__ import annotations

import re
from pathlib import Path

from policies.pack import ALL_POLICIES
from rules import checklists

TABLE_HEADER = "| policy | rule | checklist |"
DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def _rows() -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(TABLE_HEADER)
    rows: list[list[str]] = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _policies_named(cell: str) -> set[str]:
    names = set(re.findall(r"`([a-z0-9*-]+)`", cell))
    known = {p.name for p in ALL_POLICIES}
    out: set[str] = set()
    for name in names:
        out |= {k for k in known if k.startswith(name[:-1])} if name.endswith("*") else {name}
    return out


def test_every_policy_has_a_row() -> None:
    named = set().union(*(_policies_named(row[0]) for row in _rows()))
    assert named == {p.name for p in ALL_POLICIES}


CHECKLISTS = ("aks_gpu_pool", "nap_gpu_pool", "aks_cluster", "kaito_workspace", "kaito_cluster", "databricks_cluster")


def test_every_checklist_named_exists() -> None:
    for row in _rows():
        for name in re.findall(r"`([a-z_]+)`", row[2]):
            if name in CHECKLISTS:
                assert callable(getattr(checklists, name))
    assert set(CHECKLISTS) <= {n for row in _rows() for n in re.findall(r"`([a-z_]+)`", row[2])}


def test_the_kaito_and_databricks_policies_lead_to_their_checklist() -> None:
    rows = {name: row[2] for row in _rows() for name in _policies_named(row[0])}
    for policy in ("kaito-workspace-instance-type", "kaito-workspace-model-access", "aks-kaito-addon-version"):
        assert "`kaito_workspace`" in rows[policy]
    for policy in (p.name for p in ALL_POLICIES if p.name.startswith("databricks-gpu-")):
        assert "`databricks_cluster`" in rows[policy]
