"""Today's date for every check that depends on it (retirements, Kubernetes versions, operator releases).

The real date, unless ``AGP_TODAY`` (an ISO date) pins it: the test suite pins it so that tests do not change
verdict with the calendar, and ``python -m preflight --today YYYY-MM-DD`` pins it to ask "what will fail on that
day?". Each entry point reads it once and passes the day down (``validate_stack_config``, the platform build, one
policy-pack request, one preflight run: docs/architecture.md); the program and the policy pack run in processes of
their own, so the preflight starts them with its day as ``AGP_TODAY``. No Pulumi imports.
"""

from __future__ import annotations

import os
from datetime import date
from functools import lru_cache

TODAY_ENV = "AGP_TODAY"


class ClockError(ValueError):
    """``AGP_TODAY`` is set but is not an ISO date."""


def parse_day(text: str, source: str = TODAY_ENV) -> date:
    """``YYYY-MM-DD`` → a date, or :class:`ClockError` naming where the text came from."""
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise ClockError(f"{source}={text!r} is not a date: use YYYY-MM-DD") from exc


def today() -> date:
    """``$AGP_TODAY`` when set (``YYYY-MM-DD``), else the real date."""
    pinned = os.environ.get(TODAY_ENV)
    return _pinned(pinned) if pinned else date.today()


@lru_cache(maxsize=16)
def _pinned(text: str) -> date:
    """:func:`parse_day` of ``$AGP_TODAY``, once per text (the policy pack asks once per request)."""
    return parse_day(text)
