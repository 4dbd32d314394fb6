"""``today`` enters one preflight run once (issue 39): ``preflight.cli.main`` reads the clock at its entry point
(:func:`preflight.cli.run_day`; not at all when ``--today`` gives the day) and passes the day down — exemptions,
facts' age, the report's date — and to the program and the policy pack as their ``$AGP_TODAY``.

The run is in-process (:func:`tests.shared_runs.preflight_in_process`): the program runs in the preflight's program
thread, and its own entry point (the stack file's validation) reads the day the preflight gave it — one read there,
counted apart. The pack is a process of its own (its requests: ``tests/policies/test_pack_today_once.py``)."""

from __future__ import annotations

import json
import threading
from collections import Counter
from datetime import date

import pytest

from gpu_catalog import clock
from tests.conftest import TODAY
from tests.shared_runs import preflight_in_process

PROGRAM_THREAD = "preflight-program"


def _counting(monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], list[date]]:
    """Reads of the clock by thread: the preflight's own (``preflight``) and the program's (``program``)."""
    reads: Counter[str] = Counter()
    days: list[date] = []
    real = clock.today

    def today() -> date:
        reads["program" if threading.current_thread().name == PROGRAM_THREAD else "preflight"] += 1
        day = real()
        days.append(day)
        return day

    monkeypatch.setattr(clock, "today", today)
    return reads, days


def test_one_preflight_run_reads_the_clock_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads, days = _counting(monkeypatch)
    run = preflight_in_process("--stack", "prod", "--format", "json")
    assert run.code == 0, run.stderr  # prod passes (no mandatory violation)
    assert dict(reads) == {"preflight": 1, "program": 1}
    assert days == [TODAY, TODAY]
    assert json.loads(run.stdout)["checkedOn"] == TODAY.isoformat()


def test_a_given_day_is_the_runs_only_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--today``: the preflight reads no clock; the program reads the day it was given (not the suite's)."""
    reads, days = _counting(monkeypatch)
    run = preflight_in_process("--stack", "dev", "--format", "json", "--today", "2027-01-15")
    assert run.code in (0, 1), run.stderr
    assert dict(reads) == {"program": 1}
    assert days == [date(2027, 1, 15)]
    assert json.loads(run.stdout)["checkedOn"] == "2027-01-15"
