"""One plain view per resource per request, shared by every policy: the pack answers exactly as when every policy
converts the resource itself (``Analyze`` and ``AnalyzeStack``, over bench's generated corpus with unknowns)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy.policy import _PolicyAnalyzerServicer

import policies._resources as resources
from gpu_catalog import clock
from preflight.analyzer.protocol import to_struct
from tests.policies._helpers import corpus_with_unknowns

N = 150
RESOURCE_DIAGNOSTICS = 489  # 284 before NCads_A10_v4 became whole GPUs (NC8, NC16 no longer below the floor); 282
# before the built-in AKS definitions (issue 40): + 207 from aks-run-command-disabled, aks-node-ssh-disabled and
# aks-image-cleaner-enabled on the corpus' clusters and pools, which set none of the three
STACK_DIAGNOSTICS = 151  # 91 + aks-node-os-supported (1 preview note) + gpu-pool-idle-minimum (27 warm pools, 1 note)
# + gpu-node-device-plugin-missing (the preview note its shared reading replays) + aks-control-plane-logs (30: the
# corpus' clusters have no diagnostic setting)
"""What the pack reports over the corpus (violations and "can't run during preview" notes): enough to compare."""


def _corpus() -> list[tuple[str, str, str, dict[str, Any]]]:
    return corpus_with_unknowns(N)


def _answers(servicer: _PolicyAnalyzerServicer) -> Iterator[bytes]:
    corpus = _corpus()
    stack: list[analyzer_pb2.AnalyzerResource] = []
    for typ, urn, name, inputs in corpus:
        props = to_struct(inputs, skip_internal_keys=True)
        request = analyzer_pb2.AnalyzeRequest(type=typ, properties=props, urn=urn, name=name)
        yield servicer.Analyze(request, None).SerializeToString(deterministic=True)
        stack.append(analyzer_pb2.AnalyzerResource(type=typ, properties=props, urn=urn, name=name))
    request = analyzer_pb2.AnalyzeStackRequest(resources=stack)
    yield servicer.AnalyzeStack(request, None).SerializeToString(deterministic=True)


class _Conversions:
    """Counts whole-resource conversions (outermost :func:`plain` calls)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self._depth = 0
        original = resources.plain

        def counting(value: Any) -> Any:
            self.count += self._depth == 0
            self._depth += 1
            try:
                return original(value)
            finally:
                self._depth -= 1

        monkeypatch.setattr(resources, "plain", counting)


def test_shared_view_answers_byte_for_byte_as_per_policy_conversion(
    servicer: _PolicyAnalyzerServicer, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = list(_answers(servicer))
    with monkeypatch.context() as m:
        m.setattr(resources, "_served_response", lambda _report: None)  # every policy converts the resource itself
        alone = list(_answers(servicer))
    assert len(shared) == N + 1
    assert shared == alone
    diagnostics = [len(analyzer_pb2.AnalyzeResponse.FromString(a).diagnostics) for a in shared]
    assert (sum(diagnostics[:-1]), diagnostics[-1]) == (RESOURCE_DIAGNOSTICS, STACK_DIAGNOSTICS)


def test_each_resource_is_converted_once_per_request(
    servicer: _PolicyAnalyzerServicer, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversions = _Conversions(monkeypatch)
    props = to_struct({"agentPoolName": "gpu", "vmSize": "Standard_NC24ads_A100_v4", "osType": "Linux"})
    typ, urn = (
        "azure-native:containerservice:AgentPool",
        "urn:pulumi:bench::p::azure-native:containerservice:AgentPool::a",
    )
    servicer.Analyze(analyzer_pb2.AnalyzeRequest(type=typ, properties=props, urn=urn, name="a"), None)
    assert conversions.count == 1  # twenty resource policies, one conversion
    databricks = "databricks:index/cluster:Cluster"
    servicer.Analyze(
        analyzer_pb2.AnalyzeRequest(type="kubernetes:core/v1:ConfigMap", properties=props, urn=urn + "cm", name="cm"),
        None,
    )
    assert conversions.count == 1  # no policy reads a ConfigMap: type checks come before any conversion
    stack = [
        analyzer_pb2.AnalyzerResource(type=t, properties=props, urn=f"{urn}-{i}", name=f"r{i}")
        for i, t in enumerate([typ, typ, databricks])
    ]
    conversions.count = 0
    servicer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=stack), None)
    assert conversions.count == 2  # the two AgentPools, once each for all the stack policies that read pools


def test_per_size_answers_once_per_size_and_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dated rule is given the day (``today=``, the clock read by the adapter) and answered once per day; an
    undated one is called without it, once."""
    calls: list[tuple[str, str, str]] = []

    def check_dated(size: str, floor: str, *, today: date) -> None:
        calls.append((size, floor, today.isoformat()))

    def check_undated(size: str, floor: str) -> None:
        calls.append((size, floor, "undated"))

    dated = resources.per_size(check_dated, dated=True)
    monkeypatch.setenv(clock.TODAY_ENV, "2026-01-01")
    dated("Standard_NC6", "f")
    dated("Standard_NC6", "f")
    dated("Standard_NC6", "g")
    monkeypatch.setenv(clock.TODAY_ENV, "2026-01-02")
    dated("Standard_NC6", "f")
    undated = resources.per_size(check_undated, dated=False)
    undated("Standard_NC12", "f")
    monkeypatch.setenv(clock.TODAY_ENV, "2026-01-03")
    undated("Standard_NC12", "f")
    assert calls == [
        ("Standard_NC6", "f", "2026-01-01"),
        ("Standard_NC6", "g", "2026-01-01"),
        ("Standard_NC6", "f", "2026-01-02"),
        ("Standard_NC12", "f", "undated"),
    ]
