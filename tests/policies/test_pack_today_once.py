"""``today`` enters the policy pack once per request (issue 39): one ``Analyze`` or ``AnalyzeStack`` call reads the
clock once (:func:`policies._resources.request_today`), however many policies, pools, sizes and exemptions ask for
the day, and every policy of that request is given the same day.

The count is of :func:`gpu_catalog.clock.today` calls (the pack reads it through the module), over bench's corpus:
clusters with Kubernetes versions, pools of every catalog size, Databricks clusters — the dated policies all run."""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any

import pytest
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy.policy import _PolicyAnalyzerServicer

from gpu_catalog import clock
from preflight.analyzer.protocol import to_struct
from tests.policies._helpers import corpus_with_unknowns

EXEMPTED = "gpu-size-minimum"


@pytest.fixture
def configured(servicer: _PolicyAnalyzerServicer) -> _PolicyAnalyzerServicer:
    """The in-process servicer (``tests/policies/conftest.py``) with an exemption configured."""
    properties = struct_pb2.Struct()  # the exemption wrapper reads the day too
    properties.update({"exemptions": [{"resource": "nobody", "reason": "kept for the clock test",
                                       "owner": "ml-platform@contoso.com", "expires": "2026-12-20"}]})  # fmt: skip
    request = analyzer_pb2.ConfigureAnalyzerRequest()
    request.policyConfig[EXEMPTED].CopyFrom(analyzer_pb2.PolicyConfig(properties=properties))
    servicer.Configure(request, None)
    return servicer


def _counting(monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], list[date]]:
    reads: Counter[str] = Counter()
    days: list[date] = []
    real = clock.today

    def today() -> date:
        reads["today"] += 1
        day = real()
        days.append(day)
        return day

    monkeypatch.setattr(clock, "today", today)
    return reads, days


def _requests() -> tuple[list[analyzer_pb2.AnalyzeRequest], analyzer_pb2.AnalyzeStackRequest]:
    corpus: list[tuple[str, str, str, dict[str, Any]]] = corpus_with_unknowns(40)
    one = [
        analyzer_pb2.AnalyzeRequest(type=t, properties=to_struct(i, skip_internal_keys=True), urn=u, name=n)
        for t, u, n, i in corpus
    ]
    stack = [analyzer_pb2.AnalyzerResource(type=r.type, properties=r.properties, urn=r.urn, name=r.name) for r in one]
    return one, analyzer_pb2.AnalyzeStackRequest(resources=stack)


def test_one_analyze_request_reads_the_clock_once(
    configured: _PolicyAnalyzerServicer, monkeypatch: pytest.MonkeyPatch
) -> None:
    requests, _ = _requests()
    reads, _ = _counting(monkeypatch)
    for i, request in enumerate(requests, start=1):
        configured.Analyze(request, None)
        assert reads["today"] == i, (request.type, request.name)


def test_one_analyze_stack_request_reads_the_clock_once(
    configured: _PolicyAnalyzerServicer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, stack = _requests()
    reads, days = _counting(monkeypatch)
    response = configured.AnalyzeStack(stack, None)
    assert len(response.diagnostics) > 0
    assert reads["today"] == 1
    configured.AnalyzeStack(stack, None)
    assert reads["today"] == 2
    assert days == [date(2026, 11, 30)] * 2  # the suite's pinned day (tests/conftest.py)


def test_the_requests_day_is_the_day_its_policies_judge_by(
    configured: _PolicyAnalyzerServicer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The day read when the request starts is the one every policy uses: a clock that moves on during the request
    changes nothing of its answer."""
    _, stack = _requests()
    pinned = configured.AnalyzeStack(stack, None).SerializeToString(deterministic=True)
    real = clock.today
    later = iter([real(), *[date(2031, 1, 1)] * 10_000])
    monkeypatch.setattr(clock, "today", lambda: next(later))
    assert configured.AnalyzeStack(stack, None).SerializeToString(deterministic=True) == pinned
