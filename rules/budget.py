"""The budget a stack declares (``budget: {monthlyUsd, enforcementLevel}``): one shape rule for the stack config
and the preflight, which checks the indicative GPU cost against it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from gpu_catalog.problems import show

from . import Finding

BUDGET_LEVELS: tuple[str, ...] = ("advisory", "mandatory")
BUDGET_KEYS: tuple[str, ...] = ("monthlyUsd", "enforcementLevel")


def budget_shape(value: Any) -> list[Finding]:
    """Every problem of a ``budget`` value; field ``""`` is the budget itself, else its sub-key."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return [
            Finding(
                "",
                f"must be a mapping {{monthlyUsd: <number>, enforcementLevel: {'|'.join(BUDGET_LEVELS)}}}, "
                f"got {show(value)}",
            )
        ]
    found = [
        Finding(name, f"unknown key (allowed: {', '.join(BUDGET_KEYS)})")
        for name in sorted(str(k) for k in set(value) - set(BUDGET_KEYS))
    ]
    monthly = value.get("monthlyUsd")
    if "monthlyUsd" not in value:
        found.append(Finding("monthlyUsd", "required (the monthly GPU budget in USD)"))
    elif isinstance(monthly, bool) or not isinstance(monthly, int | float) or not 0 < monthly < math.inf:
        found.append(Finding("monthlyUsd", f"must be a number greater than 0, got {show(monthly)}"))
    level = value.get("enforcementLevel", "advisory")
    if not isinstance(level, str) or level not in BUDGET_LEVELS:
        found.append(Finding("enforcementLevel", f"must be one of {', '.join(BUDGET_LEVELS)}, got {show(level)}"))
    return found
