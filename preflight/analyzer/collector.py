"""The engine side's bulk calls run with the cyclic garbage collector paused, and resume it when they end.

``analyze_many`` and ``analyze_stack`` keep every request's properties (for ``AnalyzeStack``) and every diagnostic
the pack returns: a live set that grows with the stack. With the collector on, its full collections walk that whole
set again and again, and the client's cost per resource grows with the stack's size: in a 10,000-resource run the
client's collections put our pack at 0.72–0.81 of the no-op floor's resources/s over gRPC instead of 0.90–0.94, since
only our pack returns diagnostics (``bench/RESULTS.md``). The pause is scoped: the collector is back on when the
call returns or raises, so whatever the call leaves for it is collected as usual afterwards. (The pack process
itself runs with the collector paused for good: ``policies/_collector.py``.)
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause automatic cyclic collection for the ``with`` body; a no-op when it is already off (nested calls)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
