"""No module of the product is longer than 700 lines (issue 39: a module that grows past it does several jobs; split it
by job, as rules/databricks.py and preflight/report.py were).

The modules are those tests/test_function_length.py checks (pyright's include list without tests/ and bench/): a test
module or a benchmark is not a module of the product. A module's length is its line count, as ``wc -l`` counts it.
"""

from __future__ import annotations

from pathlib import Path

from tests.test_function_length import ROOT, _sources  # pyright: ignore[reportPrivateUsage]

MAX_LINES = 700


def _long_modules(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``file (n lines)`` of every module in ``paths`` longer than :data:`MAX_LINES`."""
    out: list[str] = []
    for path in paths:
        lines = path.read_bytes().count(b"\n")
        if lines > MAX_LINES:
            out.append(f"{path.relative_to(root).as_posix()} ({lines} lines)")
    return out


def test_no_module_over_700_lines() -> None:
    long = _long_modules(_sources())
    assert not long, f"modules over {MAX_LINES} lines (split them by job): " + "; ".join(long)


def test_the_check_sees_the_split_modules() -> None:
    files = {f.relative_to(ROOT).as_posix() for f in _sources()}
    assert {"rules/databricks.py", "rules/databricks_policy.py", "preflight/report.py", "preflight/render.py"} <= files


def test_a_module_one_line_too_long_is_named(tmp_path: Path) -> None:
    at_limit = tmp_path / "at_limit.py"
    at_limit.write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    over = tmp_path / "over.py"
    over.write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    assert _long_modules([at_limit, over], root=tmp_path) == ["over.py (701 lines)"]
