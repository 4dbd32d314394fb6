"""How deep the Pulumi SDK's dependency-cycle check recurses: shared by the 100-pool bench case and its test."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

Walk = Callable[[Any, Any], Iterable[Any]]


def depth_tracker(walk: Walk) -> tuple[Walk, list[int]]:
    """``walk`` (``resource_cycle_breaker._with_transitive_deps``, which calls itself through its module global, so
    every level passes the wrapper) wrapped to keep ``[current, deepest]`` nesting; install the wrapper in its place."""
    depth = [0, 0]

    def tracked(r: Any, visited: Any) -> Iterator[Any]:
        depth[0] += 1
        depth[1] = max(depth[1], depth[0])
        try:
            yield from walk(r, visited)
        finally:
            depth[0] -= 1

    return tracked, depth
