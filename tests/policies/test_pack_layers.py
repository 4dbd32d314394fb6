"""The pack's readers form layers without a circle: ``_values`` (plain values, Review) under ``_karpenter`` under
``_resources``; no module of the pack imports another of its modules inside a function (a late import hides a
circle)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACK = Path(__file__).resolve().parents[2] / "policies"


def _late_pack_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    late: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if not isinstance(inner, ast.ImportFrom):
                    continue
                if inner.level > 0 or (inner.module or "").startswith("policies"):
                    late.append(f"{path.name}:{inner.lineno} {node.name}() imports {'.' * inner.level}{inner.module}")
    return late


def test_no_module_of_the_pack_imports_another_inside_a_function() -> None:
    late = [line for path in sorted(PACK.glob("*.py")) for line in _late_pack_imports(path)]
    assert late == []


def test_the_karpenter_reader_loads_without_the_resource_reader() -> None:
    code = "import sys, policies._karpenter; print('policies._resources' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=PACK.parent, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "False"
