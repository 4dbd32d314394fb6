"""``today`` enters once per entry point and is passed down (issue 39): one validation of the prod stack reads the
clock once (:func:`stack_config.validate_stack_config` hands the day to every model and check through
:attr:`StackConfig.today`), and so does one run of the program (the stack file's validation; the platform build and
every component's Args take the stack's day).

The count is of :func:`gpu_catalog.clock.today` calls; the adapters call it through the module
(``clock.today()``), so replacing the module's function sees every read."""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any

import pytest

from gpu_catalog import clock
from stack_config import validate_stack_config
from tests.components.harness import NAMESPACE, run_stack, stack_config
from tests.conftest import TODAY


def _counting(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    reads: Counter[str] = Counter()
    real = clock.today

    def today() -> date:
        reads["today"] += 1
        return real()

    monkeypatch.setattr(clock, "today", today)
    return reads


def _prod() -> dict[str, Any]:
    return {k.removeprefix(f"{NAMESPACE}:"): v for k, v in stack_config("prod").items() if k.startswith(NAMESPACE)}


def test_one_validation_of_the_prod_stack_reads_the_clock_once(monkeypatch: pytest.MonkeyPatch) -> None:
    config = _prod()
    reads = _counting(monkeypatch)
    cfg = validate_stack_config(config, stack_file="stacks/Pulumi.prod.yaml")
    assert reads["today"] == 1
    assert cfg.today == TODAY


def test_a_given_day_is_the_only_day(monkeypatch: pytest.MonkeyPatch) -> None:
    config = _prod()
    reads = _counting(monkeypatch)
    cfg = validate_stack_config(config, stack_file="stacks/Pulumi.prod.yaml", today=TODAY)
    assert (reads["today"], cfg.today) == (0, TODAY)


def test_one_program_run_of_the_prod_stack_reads_the_clock_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = _counting(monkeypatch)
    run = run_stack("prod")
    assert run.error is None, run.error
    assert reads["today"] == 1
