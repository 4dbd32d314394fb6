"""Fuzz the preflight with seeded mutations of the shipped stacks: every case ends with exit 0, 1 or 2 (a pass, a
mandatory violation or a refusal naming the file), never a traceback or a hang.

The cases (``fuzz_cases.py``) swap types, delete or duplicate keys, put numbers at extremes, write unicode and break
the encoding. Two layers:

- in process (fast, ~320 cases): the pure pipeline the CLI runs before it starts any process: read the file
  (``read_stack_file``, ``load_stack_settings``), validate the project's keys as the program does (from the YAML
  values and from the strings the language host hands the program), check the budget. Only the documented refusals
  (``StackFileError``, ``PreflightInputError``, ``StackConfigError``) may be raised; their text must read like YAML
  (no ``True``/``None``) with one line per problem naming the file, and each problem's key path must be one the
  file has (``refusal_keys.unwritten``: a required key missing, or a path worded as a default, aside).
- end to end (slow, the 30 hand-picked cases): ``python -m preflight --config-file <mutated file> --format json``
  through the CLI's ``main(argv)`` in this process (tests/shared_runs.py: the program under mocks, the real pack).
"""

from __future__ import annotations

import signal
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from gpu_catalog.problems import render_problems
from preflight.cost import budget_problems
from preflight.project import PreflightInputError
from preflight.stackfile import StackFileError, load_stack_settings, read_stack_file
from stack_config import (
    StackConfig,
    StackConfigError,
    config_from_stack_yaml,
    decode_config_value,
    validate_stack_config,
)
from stack_config.keys import foreign_key_findings, referenced_keys
from tests.preflight.fuzz_cases import (
    PROJECT,
    SECTIONS,
    FuzzCase,
    fixed_cases,
    random_cases,
    section_cases,
    section_fixed_cases,
)
from tests.preflight.refusal_keys import unwritten
from tests.shared_runs import preflight_in_process

REPO = Path(__file__).resolve().parents[2]
FIXED = [*fixed_cases(), *section_fixed_cases()]
CASES = [*random_cases(), *section_cases(), *FIXED]

CASE_TIMEOUT_S = 20
"""One in-process case takes milliseconds; more than this is a hang."""

PYTHON_REPRS = (" True", " False", "(got True", "got None")
"""Python's spelling of YAML's true/false/null in a message: a value must be shown as the file wrote it."""


class CaseHang(BaseException):
    """Raised by the alarm in a case that runs too long (a BaseException: no ``except Exception`` swallows it)."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise CaseHang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def write_case(case: FuzzCase, directory: Path) -> Path:
    path = directory / f"Pulumi.{case.stack}.yaml"
    path.write_bytes(case.data)
    return path


def refusal_problems(text: str, label: str) -> list[str]:
    """What is wrong with the text of a refusal (empty when it reads right)."""
    found = [f"Python repr {r.strip()!r} in the message" for r in PYTHON_REPRS if r in text]
    lines = text.split("\n")
    if not lines[0].startswith(f"invalid stack configuration in {label} ("):
        found.append(f"header does not name the file: {lines[0][:200]!r}")
    found.extend(
        f"problem line does not start with the file label: {line[:200]!r}"
        for line in lines[1:]
        if not line.startswith(f"  {label}: ")
    )
    return found


def program_values(config: dict[str, str]) -> dict[str, Any]:
    """The project's keys as the program reads them from the strings the language host passes."""
    prefix = f"{PROJECT}:"
    return {k[len(prefix) :]: decode_config_value(v) for k, v in sorted(config.items()) if k.startswith(prefix)}


def run_pipeline(path: Path) -> tuple[str, list[str]]:
    """The outcome (``read-refused``, ``settings-refused``, ``input-refused``, ``config-refused``, ``valid``) and
    what is wrong with the text of every refusal met on the way. Any other exception propagates."""
    label = str(path)
    wrong: list[str] = []
    try:
        parsed = read_stack_file(path, label=label, project=PROJECT)
    except StackFileError as exc:
        return "read-refused", refusal_problems(str(exc), label)
    if parsed.problems:  # duplicate keys: the CLI lists them with every other problem of the file
        wrong += refusal_problems(render_problems(label, parsed.problems, PROJECT), label)
    try:
        settings = load_stack_settings(REPO, path)
    except StackFileError as exc:
        return "settings-refused", [*wrong, *refusal_problems(str(exc), label)]
    except PreflightInputError as exc:
        reprs = [f"Python repr {r.strip()!r} in the message: {str(exc)[:300]!r}" for r in PYTHON_REPRS if r in str(exc)]
        return "input-refused", [*wrong, *reprs]

    outcome = "valid"
    # 1. The YAML values of the project's keys (what the tests and the issue's pipeline feed the model).
    doc = parsed.doc if isinstance(parsed.doc, dict) else {}
    section = doc.get("config") or {}
    try:
        model = validate_stack_config(config_from_stack_yaml(section), stack_file=label)
        assert isinstance(model, StackConfig)
    except StackConfigError as exc:
        outcome = "config-refused"
        wrong += refusal_problems(str(exc), label)
        wrong += [w for p in exc.problems if (w := unwritten(p, config_from_stack_yaml(section), set())) is not None]
    # 2. What the program reads: the language host's strings, with the keys outside the namespace checked too.
    raw = program_values(settings.config)
    foreign, _warnings = foreign_key_findings(
        settings.config, project=PROJECT, project_keys=StackConfig.model_fields, referenced=referenced_keys(raw)
    )
    try:
        validate_stack_config(raw, stack_file=label, extra=foreign)
    except StackConfigError as exc:
        outcome = "config-refused"
        wrong += [f"(program view) {w}" for w in refusal_problems(str(exc), label)]
        wrong += [f"(program view) {w}" for p in exc.problems if (w := unwritten(p, raw, set(settings.config)))]
    # 3. The preflight's own key.
    budget = budget_problems(settings.values.get(f"{PROJECT}:budget"))
    if budget:
        outcome = "config-refused"
        wrong += [f"(budget) {w}" for w in refusal_problems(render_problems(label, budget, PROJECT), label)]
    return outcome, wrong


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_pipeline_refuses_or_accepts_without_crashing(case: FuzzCase, tmp_path: Path) -> None:
    path = write_case(case, tmp_path)
    try:
        with deadline(CASE_TIMEOUT_S):
            _outcome, wrong = run_pipeline(path)
    except CaseHang as exc:
        pytest.fail(f"{case.id}: hang ({exc})\n{traceback.format_exc()}", pytrace=False)
    except Exception as exc:
        pytest.fail(f"{case.id}: {type(exc).__name__}: {exc}\n{traceback.format_exc()}", pytrace=False)
    if wrong:
        pytest.fail(f"{case.id}: the refusal does not read right:\n" + "\n".join(wrong), pytrace=False)


def test_generator_is_deterministic_and_diverse() -> None:
    again = [*random_cases(), *section_cases(), *fixed_cases(), *section_fixed_cases()]
    assert [(c.id, c.data) for c in again] == [(c.id, c.data) for c in CASES]
    assert len({c.id for c in CASES}) == len(CASES)
    kinds = {m.split(":", 1)[0] for c in CASES for m in c.mutations}
    assert kinds >= {"swap", "del", "dup", "num", "uni", "ukey", "enc"}
    encodings = {m for c in CASES for m in c.mutations if m.startswith("enc:")}
    assert len(encodings) >= 10


def test_fixed_subset_covers_the_issue() -> None:
    ids = [c.id for c in FIXED]
    assert len(FIXED) == 30
    assert sum("-enc:" in i for i in ids) >= 3
    assert sum("-dup:" in i for i in ids) >= 2
    assert sum("-swap:" in i for i in ids) >= 3
    assert sum("-num:" in i for i in ids) >= 3
    assert "fixed-prod-num:databricks.clusters[1].tasksPerGpu=100000" in ids
    assert sum("-uni:" in i or "-ukey:" in i for i in ids) >= 2
    assert "fixed-dev-del:gpuPools[0].vmSize" in ids
    assert "fixed-dev-enc:empty" in ids
    assert "fixed-dev-alias-bomb" in ids
    assert "fixed-prod-set:databricks.clusters[0].sparkVersion=13.3" in ids


def test_every_section_is_mutated_inside() -> None:
    for section in SECTIONS:
        cases = [c for c in CASES if c.id.startswith(f"sec-{section}-")]
        assert len(cases) == 12, section
        inside = [m for c in cases for m in c.mutations if m.split(":", 1)[1].startswith(section)]
        assert len(inside) >= 12, (section, [c.id for c in cases])


def run_preflight(case: FuzzCase, directory: Path) -> tuple[FuzzCase, str | None, float]:
    """Run one case end to end (the CLI's ``main(argv)`` with the program and the pack, tests/shared_runs.py);
    ``None`` when it ended as it should, else what went wrong. An exception out of ``main`` is a traceback on stderr
    and exit 1, as the interpreter would end a ``python -m preflight`` process."""
    case_dir = directory / case.id.replace("/", "_")[:80]
    case_dir.mkdir(parents=True)
    path = write_case(case, case_dir)
    start = time.monotonic()
    run = preflight_in_process("--config-file", str(path), "--format", "json")
    elapsed = time.monotonic() - start
    output = run.stdout + run.stderr
    wrong: list[str] = []
    if run.code not in (0, 1, 2):
        wrong.append(f"exit code {run.code}")
    if "Traceback" in output:
        wrong.append("a traceback in the output")
    if run.code == 2 and not run.stderr.startswith("preflight: error:"):
        wrong.append("exit 2 without 'preflight: error:' first on stderr")
    if not wrong:
        return case, None, elapsed
    tail = "\n".join(f"      | {line}" for line in output.strip().splitlines()[-25:])
    return case, f"exit {run.code}: {'; '.join(wrong)}\n{tail}", elapsed


@pytest.mark.slow
@pytest.mark.parametrize("case", FIXED, ids=[c.id for c in FIXED])
def test_preflight_end_to_end_exits_0_1_or_2(case: FuzzCase, tmp_path: Path) -> None:
    """One case per test, so pytest-xdist spreads the runs over its workers."""
    _case, wrong, elapsed = run_preflight(case, tmp_path)
    assert wrong is None, f"{case.id} ({elapsed:.1f} s) did not end with exit 0, 1 or 2: {wrong}"
