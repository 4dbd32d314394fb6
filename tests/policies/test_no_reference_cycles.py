"""The pack process runs with the cyclic garbage collector paused (``policies/_collector.py``). That is sound
only while its requests make no reference cycles: this runs the pack over gRPC, server and client in one fresh
interpreter with the collector paused, on bench's generated corpus (every catalog size; unknown fields, pool lists
and node counts; a configured exemption), then asks the collector what it would have freed. A request that leaves a
cycle behind fails here, naming the types."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.shared_runs import shared_python_run

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

SCRIPT = textwrap.dedent(
    """
    import gc, json, os, sys
    from collections import Counter
    from concurrent import futures

    os.environ.update({"PULUMI_PROJECT": "azure-gpu-platform", "PULUMI_STACK": "bench", "PULUMI_DRY_RUN": "true",
                       "PULUMI_ORGANIZATION": "organization", "PULUMI_CONFIG": "{}"})
    import grpc
    from google.protobuf import struct_pb2
    from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc
    from pulumi_policy import EnforcementLevel
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    from policies._collector import pause_cyclic_collector, resume_cyclic_collector
    from policies.pack import ALL_POLICIES, PACK_NAME
    from preflight.analyzer.protocol import to_struct
    from tests.policies._helpers import corpus_with_unknowns

    servicer = _PolicyAnalyzerServicer(PACK_NAME, "0.0.0", list(ALL_POLICIES), EnforcementLevel.ADVISORY)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    analyzer_pb2_grpc.add_AnalyzerServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    stub = analyzer_pb2_grpc.AnalyzerStub(grpc.insecure_channel(f"127.0.0.1:{port}"))

    corpus = corpus_with_unknowns(int(sys.argv[1]))
    exempt = corpus[0][2]
    properties = struct_pb2.Struct()
    properties.update({"exemptions": [{"resource": exempt, "reason": "kept for the cycle test",
                                       "owner": "ml-platform@contoso.com", "expires": "2026-12-20"}]})
    configure = analyzer_pb2.ConfigureAnalyzerRequest()
    configure.policyConfig["gpu-size-minimum"].CopyFrom(analyzer_pb2.PolicyConfig(properties=properties))
    requests = [
        analyzer_pb2.AnalyzeRequest(type=typ, properties=to_struct(inputs, skip_internal_keys=True), urn=urn, name=name)
        for typ, urn, name, inputs in corpus
    ]
    stub.Configure(configure)
    stub.Analyze(requests[0])  # the catalog and the caches load before the collector is paused, as in the pack

    pause_cyclic_collector()
    gc.set_debug(gc.DEBUG_SAVEALL)
    diagnostics = sum(len(stub.Analyze(q).diagnostics) for q in requests)
    stack = analyzer_pb2.AnalyzeStackRequest(resources=[
        analyzer_pb2.AnalyzerResource(type=q.type, properties=q.properties, urn=q.urn, name=q.name) for q in requests
    ])
    diagnostics += len(stub.AnalyzeStack(stack).diagnostics)
    found = gc.collect()
    kinds = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage).most_common(10)
    paused = [gc.isenabled(), gc.get_freeze_count() > 0]
    gc.set_debug(0)
    resume_cyclic_collector()
    resumed = [gc.isenabled(), gc.get_freeze_count()]
    print(json.dumps({"diagnostics": diagnostics, "found": found, "kinds": kinds,
                      "paused": paused, "resumed": resumed}))
    """
)


def cycle_run() -> dict[str, Any]:
    """:data:`SCRIPT` on 300 requests in a fresh interpreter, once per session (tests/shared_runs.py)."""
    done = shared_python_run("reference-cycles", SCRIPT, "300")
    assert done.code == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    result["stderr"] = done.stderr
    return result


def test_the_packs_requests_leave_nothing_for_the_cyclic_collector() -> None:
    result = cycle_run()
    assert result["diagnostics"] > 300  # the corpus is full of violations: the policies did run
    assert result["paused"][0] is False
    assert result["found"] == 0, f"reference cycles left by the pack's requests: {result['kinds']}"
    assert "exempted from gpu-size-minimum" in result["stderr"]  # the exemption path ran too (logged to stderr)


def test_pausing_freezes_what_is_loaded_and_stops_automatic_collection() -> None:
    """The same interpreter: paused (collector off, what was loaded frozen), then resumed (on, nothing frozen)."""
    result = cycle_run()
    assert [*result["paused"], *result["resumed"]] == [False, True, True, 0]


def test_both_pack_entry_points_pause_the_collector_after_loading() -> None:
    """The real pack and the floor pack it is measured against run with the same collector setting."""
    for entry in (ROOT / "policies" / "__main__.py", ROOT / "bench" / "floor_pack" / "__main__.py"):
        lines = entry.read_text().splitlines()
        calls = [i for i, line in enumerate(lines) if line.startswith("pause_cyclic_collector()")]
        serve = next(i for i, line in enumerate(lines) if line.startswith("PolicyPack("))
        assert len(calls) == 1 and calls[0] < serve, entry
