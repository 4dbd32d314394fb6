"""The pack process runs without the cyclic garbage collector: its requests make no reference cycles.

Everything ``Analyze`` and ``AnalyzeStack`` build (pulumi_policy's resource proxies, our plain views, the shared stack
readings, the responses) is freed by reference counting as the request ends:
``tests/policies/test_no_reference_cycles.py`` runs the whole pack over gRPC on the generated corpus with the collector
off and finds nothing for it to collect. So the collector does no useful work here; it only re-scans what the request
holds. In ``AnalyzeStack`` pulumi_policy builds every resource once per stack policy and holds them all, and once the
request is large enough for full collections to start, each one walks the whole live set. That is why the SDK's own
cost per resource grows from 100 to 10,000 resources (``bench/RESULTS.md``).

``pause_cyclic_collector`` is called once, after the pack has loaded and before it serves: one full collection, then
everything loaded is frozen (never scanned again) and automatic collection stops. The process lives for one engine
operation (``pulumi preview`` or ``up`` starts it and stops it). The floor pack (``bench/floor_pack``) and the
in-process benchmark call the same function, so the benchmarks compare our code with the SDK under the same settings.
"""

from __future__ import annotations

import gc


def pause_cyclic_collector() -> None:
    """Collect once, freeze what is loaded, and stop automatic cyclic collection for the life of the process."""
    gc.collect()
    gc.freeze()
    gc.disable()


def resume_cyclic_collector() -> None:
    """Undo :func:`pause_cyclic_collector` (the in-process benchmark measures both sides, then carries on)."""
    gc.unfreeze()
    gc.enable()
