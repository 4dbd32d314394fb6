"""bench/bench_fleet.py's stack files (without running the benchmark): the shipped fleet example, the same fleet with
its first member and that member's stage only, and the template without a fleet."""

from __future__ import annotations

from pathlib import Path

import yaml

from bench.bench_fleet import FLEET_KEY, stack_files


def test_the_three_stack_files(tmp_path: Path) -> None:
    files = stack_files(tmp_path)
    assert sorted(files) == ["fleet1", "fleet3", "single"]
    docs = {name: yaml.safe_load(path.read_text(encoding="utf-8"))["config"] for name, path in files.items()}
    three, one = docs["fleet3"][FLEET_KEY], docs["fleet1"][FLEET_KEY]
    assert [m["name"] for m in three["members"]] == ["weu", "sec", "scus"]
    assert [m["name"] for m in one["members"]] == ["weu"]
    assert [s["name"] for s in one["updateStrategy"]["stages"]] == ["canary"]
    assert one["placements"] == three["placements"]
    assert FLEET_KEY not in docs["single"]
    assert {k: v for k, v in docs["single"].items()} == {k: v for k, v in docs["fleet3"].items() if k != FLEET_KEY}
