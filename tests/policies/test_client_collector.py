"""The engine side's bulk calls (``analyze_many``, ``analyze_stack``) run with the cyclic collector paused and turn
it back on when they end, also when they raise (``preflight/analyzer/collector.py``)."""

from __future__ import annotations

import gc

import pytest

from preflight.analyzer.client import PolicyPackProcess
from preflight.analyzer.collector import collector_paused
from preflight.model import RecordedResource

POOL = "azure-native:containerservice:AgentPool"


def test_the_collector_is_paused_in_the_body_and_back_on_after_it_returns_or_raises() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError, match="boom"), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_nested_pause_leaves_the_outer_one_in_charge() -> None:
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause did not turn it back on
    assert gc.isenabled()


def test_analyze_many_and_analyze_stack_collect_results_with_the_collector_paused(
    preview_pack: PolicyPackProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    preview_pack.configure(None)
    seen: list[bool] = []
    collect = PolicyPackProcess._collect

    def recording(self: PolicyPackProcess, *args: object) -> None:
        seen.append(gc.isenabled())
        collect(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(PolicyPackProcess, "_collect", recording)
    pool = RecordedResource(
        urn=f"urn:pulumi:dev::raw::{POOL}::p100", type=POOL, name="p100", inputs={"vmSize": "Standard_NC6s_v2"}
    )
    analysis = preview_pack.analyze_many([pool])
    preview_pack.analyze_stack([pool])
    assert seen == [False, False]  # one Analyze response, one AnalyzeStack response
    assert gc.isenabled()
    assert {v.policy_name for v in analysis.violations} >= {"gpu-size-not-retired", "gpu-size-minimum"}
