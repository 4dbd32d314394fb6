"""No import circles between the project's modules, late imports included.

A circle held open by an import inside a function still ties two modules into one: neither can be read, tested or
moved alone. Every ``import`` / ``from ... import`` anywhere in a module counts (function bodies too), except those
under ``if TYPE_CHECKING:``, which never run. An edge goes to the submodule when the name imported is one
(``from gpu_catalog import clock``), else to the package (``from rules import Finding`` → ``rules/__init__.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "gpu_catalog",
    "rules",
    "exports",
    "policies",
    "components",
    "stack_config",
    "composition",
    "component_package",
    "preflight",
    "conformance",
)


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "venv" in path.parts or "__pycache__" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(sub) for sub in ast.walk(node))
    return skipped


def _targets(name: str, node: ast.ImportFrom, is_package: bool, modules: dict[str, Path]) -> set[str]:
    if node.level:
        parts = name.split(".") if is_package else name.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, node.module] if node.module else parts)
    else:
        base = node.module or ""
    out: set[str] = set()
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if sub in modules:
            out.add(sub)
        elif base in modules:
            out.add(base)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module → the project modules it imports (anywhere in it, except under ``TYPE_CHECKING``)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_nodes(tree)
        edges: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = alias.name
                    while target and target not in modules:
                        target = target.rpartition(".")[0]
                    if target:
                        edges.add(target)
            elif isinstance(node, ast.ImportFrom):
                edges |= _targets(name, node, path.name == "__init__.py", modules)
        edges.discard(name)
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start, targets in graph.items():
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(targets))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_itself_back_through_others() -> None:
    graph = import_graph()
    assert len(graph) > 150, "the walk found the project's modules"
    assert circles(graph) == []


def test_a_late_import_that_closes_a_circle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def _package_arrows(graph: dict[str, set[str]]) -> set[tuple[str, str, str]]:
    """(importing module, its package, the imported package) for every import that crosses packages."""
    return {
        (module, module.split(".")[0], target.split(".")[0])
        for module, targets in graph.items()
        for target in targets
        if module.split(".")[0] != target.split(".")[0]
    }


def test_nothing_imports_the_exports_and_the_rules_import_only_the_catalog() -> None:
    """The exports are an adapter at the top (``python -m exports``): the components, the stack config and the
    composition build the same documents from the rules (``rules/azure_policy.py``,
    ``rules/databricks_policy_document.py``), never from ``exports``. The rules import only the catalog below them."""
    arrows = _package_arrows(import_graph())
    assert sorted(m for m, _, target in arrows if target == "exports") == []
    assert sorted((m, target) for m, package, target in arrows if package == "rules" and target != "gpu_catalog") == []
    assert sorted(m for m, package, _ in arrows if package == "gpu_catalog") == []
