"""No function outside tests/ and bench/ is longer than 80 lines (issue 23: long functions are split by job).

The packages are the ones pyright checks (``[tool.pyright] include`` in pyproject.toml); a function's length runs from
its ``def`` line to its last line (decorators not counted), nested functions counted in their enclosing one too.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 80
EXCLUDED = {"tests", "bench"}


def _sources() -> list[Path]:
    """The ``.py`` files of pyright's include list, without tests/, bench/ and pyright's excluded directories."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pyright"]
    excluded = [Path(pattern) for pattern in config.get("exclude", []) if "*" not in pattern]
    files: list[Path] = []
    for entry in config["include"]:
        if entry in EXCLUDED:
            continue
        path = ROOT / entry
        for f in [path] if path.is_file() else sorted(path.rglob("*.py")):
            relative = f.relative_to(ROOT)
            if not any(relative.is_relative_to(skip) for skip in excluded):
                files.append(f)
    return files


def _long_functions(path: Path, root: Path = ROOT) -> list[str]:
    """``file:line name (n lines)`` of every function in ``path`` longer than :data:`MAX_LINES`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_LINES:
                out.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines} lines)")
    return out


def test_sources_are_found() -> None:
    files = {f.relative_to(ROOT).as_posix() for f in _sources()}
    assert "preflight/report.py" in files
    assert "__main__.py" in files
    assert not any(f.startswith(("tests/", "bench/")) for f in files)


def test_no_function_over_80_lines() -> None:
    long = [entry for path in _sources() for entry in _long_functions(path)]
    assert not long, f"functions over {MAX_LINES} lines (split them by job): " + "; ".join(long)


def test_the_check_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_LINES - 1))
    sample = tmp_path / "sample.py"
    sample.write_text(
        f"class C:\n    def long(self) -> None:\n{body}\n        return None\n\n    def short(self) -> None:\n"
        "        pass\n",
        encoding="utf-8",
    )
    assert _long_functions(sample, tmp_path) == [f"sample.py:2 long ({MAX_LINES + 1} lines)"]


def test_eighty_lines_pass(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES - 1))
    sample = tmp_path / "sample.py"
    sample.write_text(f"def f() -> None:\n{body}\n", encoding="utf-8")
    assert _long_functions(sample, tmp_path) == []
