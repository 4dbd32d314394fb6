"""Profile the policy pack's per-resource cost in one process (no gRPC), and say whose code the time is spent in.

Builds pulumi_policy's own analyzer servicer with the pack's policies (what ``PolicyPack(...)`` serves), hands it the
same ``AnalyzeRequest`` messages the preflight sends for ``bench_policy``'s synthetic resources, and runs
``Analyze`` on each under cProfile. The report groups own time by where the code lives: the pulumi_policy SDK
(including the protobuf→dict conversion it repeats for every policy), protobuf, our policies, our catalog.

    python bench/profile_pack.py [-n 2000] [--top 25] [--client]

``--client`` profiles the engine side instead (``preflight.analyzer``: building the request messages).

``--what-if`` measures (no profiler) what an upstream pulumi_policy change would give: converting and wrapping a
request's properties once per ``Analyze`` instead of once per policy, and configuring the runtime settings once
instead of on every call. It patches the SDK *in this process only*, to size the opportunity; the pack itself runs
the SDK unmodified.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import ROOT

BUCKETS: list[tuple[str, str]] = [
    (str(ROOT / "policies"), "our policies (policies/)"),
    (str(ROOT / "gpu_catalog"), "our catalog (gpu_catalog/)"),
    (str(ROOT / "rules"), "our rules (rules/)"),
    (str(ROOT / "preflight"), "our analyzer client (preflight/)"),
    ("pulumi_policy", "pulumi_policy SDK"),
    ("google/protobuf", "protobuf (json_format, messages)"),
    ("/pulumi/", "pulumi SDK (runtime settings, config)"),
    ("inspect.py", "inspect (signature())"),
    ("grpc", "grpc"),
]


def bucket_of(filename: str) -> str:
    for needle, label in BUCKETS:
        if needle in filename:
            return label
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins (C functions)"
    return "other stdlib / site-packages"


def breakdown(stats: pstats.Stats) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for (filename, _line, _func), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        out[bucket_of(filename)] += tottime
    return dict(out)


def _requests(n: int) -> list[Any]:
    from pulumi.runtime.proto import analyzer_pb2

    from bench.bench_policy import synth_resources
    from preflight.analyzer.protocol import engine_urn, to_struct

    return [
        analyzer_pb2.AnalyzeRequest(
            type=r.type,
            properties=to_struct(r.inputs, skip_internal_keys=True),
            urn=engine_urn(r.urn),
            name=r.name,
            options=analyzer_pb2.AnalyzerResourceOptions(parent=""),
        )
        for r in synth_resources(n)
    ]


def profile_pack(n: int) -> tuple[pstats.Stats, float]:
    os.environ.update(
        {
            "PULUMI_PROJECT": "azure-gpu-platform",
            "PULUMI_STACK": "bench",
            "PULUMI_DRY_RUN": "true",
            "PULUMI_ORGANIZATION": "organization",
            "PULUMI_CONFIG": json.dumps({}),
        }
    )
    from pulumi_policy import EnforcementLevel
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    from policies._collector import pause_cyclic_collector, resume_cyclic_collector
    from policies.pack import ALL_POLICIES, PACK_NAME

    servicer = _PolicyAnalyzerServicer(PACK_NAME, "0.0.0", list(ALL_POLICIES), EnforcementLevel.ADVISORY)
    reqs = _requests(n)
    servicer.Analyze(reqs[0], None)  # warm caches (catalog load) outside the profile
    prof = cProfile.Profile()
    pause_cyclic_collector()  # as the pack process runs (policies/_collector.py)
    t0 = time.perf_counter()
    prof.enable()
    for req in reqs:
        servicer.Analyze(req, None)
    prof.disable()
    resume_cyclic_collector()
    return pstats.Stats(prof), time.perf_counter() - t0


def profile_client(n: int) -> tuple[pstats.Stats, float]:
    from bench.bench_policy import synth_resources
    from preflight.analyzer.client import PolicyPackProcess

    resources = synth_resources(n)
    pack = PolicyPackProcess(ROOT / "policies")
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for r in resources:
        pack._request(r, r.inputs, analyze=True)  # what analyze_many builds per resource
    prof.disable()
    return pstats.Stats(prof), time.perf_counter() - t0


def _last_call_cache(fn: Any) -> Any:
    """``fn`` memoised on the identity of its single argument (the last call only)."""
    last: list[Any] = [None, None]

    def wrapper(arg: Any) -> Any:
        if last[0] is not arg:
            last[0], last[1] = arg, fn(arg)
        return last[1]

    return wrapper


def what_if(n: int) -> dict[str, float]:
    """CPU µs per resource: the pack as it is vs. with per-request (not per-policy) deserialisation."""
    import types

    import pulumi_policy.policy as sdk_module
    from google.protobuf import json_format
    from pulumi_policy import EnforcementLevel

    from policies.pack import ALL_POLICIES, PACK_NAME

    os.environ.update(
        {"PULUMI_PROJECT": "azure-gpu-platform", "PULUMI_STACK": "bench", "PULUMI_DRY_RUN": "true",
         "PULUMI_CONFIG": json.dumps({})}
    )  # fmt: skip
    reqs = _requests(n)
    sdk: Any = sdk_module  # its module-level names (json_format, ...) are what Analyze looks up
    answers: list[list[bytes]] = []

    def cost() -> float:
        servicer = sdk._PolicyAnalyzerServicer(PACK_NAME, "0.0.0", list(ALL_POLICIES), EnforcementLevel.ADVISORY)
        servicer.Analyze(reqs[0], None)
        out: list[bytes] = []
        c0 = time.process_time()
        for req in reqs:
            out.append(servicer.Analyze(req, None).SerializeToString(deterministic=True))
        spent = time.process_time() - c0
        answers.append(out)
        return spent / n * 1e6

    as_is = cost()
    saved = (sdk.json_format, sdk.deserialize_properties, sdk.unknown_checking_proxy)
    configure = sdk._PolicyAnalyzerServicer._configure_runtime_settings
    try:
        sdk.json_format = types.SimpleNamespace(MessageToDict=_last_call_cache(json_format.MessageToDict))
        sdk.deserialize_properties = _last_call_cache(sdk.deserialize_properties)
        sdk.unknown_checking_proxy = _last_call_cache(sdk.unknown_checking_proxy)
        once = cost()
        done: list[bool] = []

        def configure_once(self: Any) -> None:
            if not done:
                configure(self)
                done.append(True)

        sdk._PolicyAnalyzerServicer._configure_runtime_settings = configure_once
        both = cost()
    finally:
        sdk.json_format, sdk.deserialize_properties, sdk.unknown_checking_proxy = saved
        sdk._PolicyAnalyzerServicer._configure_runtime_settings = configure
    if not all(a == answers[0] for a in answers[1:]):
        raise SystemExit("what-if: the patched SDK answered differently from the released one")
    return {"as_is_us": as_is, "deserialize_once_us": once, "deserialize_and_configure_once_us": both}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--client", action="store_true")
    ap.add_argument("--what-if", action="store_true")
    args = ap.parse_args(argv)
    if args.what_if:
        w = what_if(args.n)
        print(f"pack Analyze, CPU µs per resource (N={args.n}, in-process, no profiler):")
        print(f"  pulumi_policy as released:                              {w['as_is_us']:7.0f}")
        print(f"  + properties converted/wrapped once per request:        {w['deserialize_once_us']:7.0f}")
        print(
            f"  + runtime settings configured once, not per call:       {w['deserialize_and_configure_once_us']:7.0f}"
        )
        print(
            f"  => {1e6 / w['deserialize_and_configure_once_us']:,.0f} resources/s of pack CPU (vs. "
            f"{1e6 / w['as_is_us']:,.0f} as released)"
        )
        return 0
    stats, wall = profile_client(args.n) if args.client else profile_pack(args.n)
    total = sum(breakdown(stats).values())
    what = "client request building" if args.client else "pack Analyze"
    print(f"{what}: {args.n} resources in {wall:.3f} s under cProfile ({wall / args.n * 1e6:,.0f} µs each)")
    print("own time by owner:")
    for label, t in sorted(breakdown(stats).items(), key=lambda kv: -kv[1]):
        print(f"  {label:<40} {t:7.3f} s  {t / total:6.1%}")
    buf = io.StringIO()
    stats.stream = buf  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(args.top)
    print(buf.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
