"""The pool chain (AKS: one agent-pool operation at a time per cluster) at any length: every pool depends on the one
before it as the engine sees it, and the SDK's dependency-cycle check no longer recurses once per link.

Plain custom resources stand in for the pools (an azure-native AgentPool costs ~150 ms to register); the 100-pool
program itself runs in ``bench/bench_scaling.py`` (the case at the limit)."""

from __future__ import annotations

import pulumi
import pytest
from pulumi.runtime import resource_cycle_breaker as breaker

from bench.walk_depth import depth_tracker
from components.aks_cluster import after
from tests.components.harness import run_program

LINKS = 1200
"""Longer than the SDK's walk survives when each link is a direct ``depends_on`` (Python's recursion limit: 1,000)."""
TYPE = "test:index:Pool"


def _chain(link: str) -> None:
    previous: pulumi.Resource = pulumi.CustomResource(TYPE, "p0", {})
    for i in range(1, LINKS):
        wait = after(previous) if link == "stand-in" else previous
        previous = pulumi.CustomResource(TYPE, f"p{i}", {}, opts=pulumi.ResourceOptions(depends_on=[wait]))


def test_a_chain_of_1200_registers_each_link_depending_on_the_previous() -> None:
    run = run_program(lambda: _chain("stand-in"), config={})
    assert run.error is None
    pools = {r.name: r for r in run.of_type(TYPE)}
    assert len(pools) == LINKS
    assert pools["p0"].dependencies == []
    assert all(pools[f"p{i}"].dependencies == [pools[f"p{i - 1}"].urn] for i in range(1, LINKS))


def test_the_sdks_cycle_check_walks_one_step_per_link_not_the_whole_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    tracked, depth = depth_tracker(breaker._with_transitive_deps)
    monkeypatch.setattr(breaker, "_with_transitive_deps", tracked)
    run = run_program(lambda: _chain("stand-in"), config={})
    assert run.error is None
    assert depth[1] == 1  # the stand-in depends on nothing: the walk stops there (a direct depends_on: 1,199 deep)
