"""RULES.md lists, per size rule, every resource type and field path it inspects — from the size table itself."""

from __future__ import annotations

from policies.rules_md import render
from rules.size_fields import size_table


def test_every_type_and_size_field_of_the_table_is_in_rules_md() -> None:
    text = render()
    rows = [line for line in text.splitlines() if line.startswith("| `azure") or line.startswith("| `kubernetes")]
    rows += [line for line in text.splitlines() if line.startswith("| `databricks:")]
    [header] = [line for line in text.splitlines() if line.startswith("| resource type | family | size field |")]
    rules = [h.strip() for h in header.split("|")[-6:-1]]
    assert sorted(rules) == [f"`gpu-size-{r}`" for r in ("aks-supported", "known", "minimum", "no-nvv4", "not-retired")]
    for entry in size_table().resources:
        for spec in entry.sizes:
            [row] = [r for r in rows if r.startswith(f"| `{entry.type}` | {entry.family} | `{spec.path}` |")]
            marks = dict(zip(rules, (m.strip() for m in row.split("|")[-6:-1]), strict=True))
            aks_mark = "✓" if entry.family == "aks" else ""
            assert marks == {rule: aks_mark if rule == "`gpu-size-aks-supported`" else "✓" for rule in rules}, row


def test_aks_pool_rules_list_both_pool_size_fields() -> None:
    text = render()
    section = text.split("## Where the AKS pool rules look")[1]
    line = next(x for x in section.splitlines() if x.startswith("| `gpu-pool-tainted` |"))
    assert line == "| `gpu-pool-tainted` | `nodeTaints`, `vmSize`, `virtualMachinesProfile.scale.manual[].size` |"
