"""Issue 23, item 5: time is an input. The rules (``rules/``) and the catalog (``gpu_catalog/catalog.py``) take
``today`` from their caller and never read the clock themselves; the adapters (stack config, components, policy pack,
preflight, exports) pass :func:`gpu_catalog.clock.today`. The size rules' caches key on the day they are given."""

from __future__ import annotations

import ast
import json
from datetime import date
from pathlib import Path

import pytest

from gpu_catalog.catalog import CATALOG_PATH, Catalog, load_catalog
from rules.sizes import _at_or_above, accepted_sizes, check_gpu_size, floor_size

REPO = Path(__file__).resolve().parents[2]
PURE = sorted([*(REPO / "rules").rglob("*.py"), REPO / "gpu_catalog" / "catalog.py"])
WALL_CLOCK = {("date", "today"), ("datetime", "now"), ("datetime", "today"), ("datetime", "utcnow")}

NV12S = "Standard_NV12s_v3"
RETIRES = date(2027, 3, 31)  # the day the test catalog's NV12s_v3 retires
EVE = date(2027, 3, 30)


def _is_main_guard(node: ast.stmt) -> bool:
    """``if __name__ == "__main__":``: a module's script entry point, an adapter of its own."""
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in node.test.comparators)
    )


def clock_uses(source: str, where: str, package: str) -> list[str]:
    """Where the module ``where`` (of ``package``, for its relative imports) imports ``gpu_catalog.clock`` or calls
    ``clock.today``, and, outside a ``__main__`` guard, where it reads the wall clock (``date.today()``,
    ``datetime.now()``, …): ``where:line: what``."""
    tree = ast.parse(source, filename=where)
    main_guarded = {id(n) for stmt in tree.body if _is_main_guard(stmt) for n in ast.walk(stmt)}
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{where}:{node.lineno}: import {a.name}" for a in node.names if a.name == "gpu_catalog.clock"]
        elif isinstance(node, ast.ImportFrom):
            base = package if node.level == 1 else "" if node.level == 0 else None
            if base is None:
                continue
            module = ".".join(part for part in (base, node.module) if part)
            names = {a.name for a in node.names}
            if module == "gpu_catalog.clock" or (module == "gpu_catalog" and "clock" in names):
                found.append(f"{where}:{node.lineno}: from {'.' * node.level}{node.module or ''} import clock")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
            if name == "clock" and node.func.attr == "today":
                found.append(f"{where}:{node.lineno}: clock.today()")
            elif (name, node.func.attr) in WALL_CLOCK and id(node) not in main_guarded:
                found.append(f"{where}:{node.lineno}: {name}.{node.func.attr}()")
    return found


def test_the_rules_and_the_catalog_never_read_the_clock() -> None:
    assert len(PURE) > 20  # rules/*.py and gpu_catalog/catalog.py were found
    uses = [
        use
        for path in PURE
        for use in clock_uses(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)), path.parent.name)
    ]
    assert uses == []


@pytest.mark.parametrize(
    ("source", "package"),
    [
        ("from gpu_catalog import clock\n", "rules"),
        ("from gpu_catalog import Catalog, clock\n", "rules"),
        ("import gpu_catalog.clock\n", "rules"),
        ("from gpu_catalog.clock import today\n", "rules"),
        ("from . import clock\n", "gpu_catalog"),
        ("from .clock import today\n", "gpu_catalog"),
        ("def f(today=None):\n    return today or clock.today()\n", "rules"),
        ("from datetime import date\nDAY = date.today()\n", "rules"),
        ("import datetime\nNOW = datetime.datetime.now()\n", "rules"),
    ],
)
def test_the_check_sees_each_way_of_reading_the_clock(source: str, package: str) -> None:
    assert clock_uses(source, "probe.py", package)


def test_a_script_entry_point_may_read_the_real_date() -> None:
    source = (
        'import sys\nfrom datetime import date\nif __name__ == "__main__":\n    sys.stdout.write(str(date.today()))\n'
    )
    assert clock_uses(source, "probe.py", "rules") == []
    assert clock_uses("from . import clock\n", "probe.py", "rules") == []  # rules.clock is not the clock


# --------------------------------------------------------------------------------------------- the day is the key


def _retiring_catalog(tmp_path: Path) -> Catalog:
    """The catalog with the NVv3 M60 sizes ``retiring`` on :data:`RETIRES` (the catalog as it read before they
    retired, moved past the suite's day so that the test does not depend on it)."""
    doc = json.loads(CATALOG_PATH.read_text(encoding="utf-8"))
    for row in doc["sizes"]:
        if row.get("series") == "NVv3 M60":
            row["lifecycle"]["status"] = "retiring"
            row["lifecycle"]["retirementDate"] = RETIRES.isoformat()
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load_catalog(path)


def test_accepted_sizes_and_check_gpu_size_answer_for_the_day_they_are_given(tmp_path: Path) -> None:
    cat = _retiring_catalog(tmp_path)
    assert cat[NV12S].status == "retiring"
    for _ in range(2):  # the second round is answered from the caches: still per day
        assert NV12S in accepted_sizes(NV12S, today=EVE, require_aks=True, catalog=cat)
        assert NV12S not in accepted_sizes(NV12S, today=RETIRES, require_aks=True, catalog=cat)
        assert check_gpu_size(NV12S, floor=NV12S, today=EVE, catalog=cat) == []
        [retired] = check_gpu_size(NV12S, floor=NV12S, today=RETIRES, catalog=cat)
        assert retired.message.startswith(f"{NV12S} (NVIDIA Tesla M60 (8 GiB per GPU)) was retired by Microsoft on ")
    # the sizes a below-the-floor message suggests: cached per catalog, floor and day
    assert NV12S in _at_or_above(cat, floor_size(NV12S, cat), EVE)
    assert NV12S not in _at_or_above(cat, floor_size(NV12S, cat), RETIRES)
    assert NV12S in _at_or_above(cat, floor_size(NV12S, cat), EVE)
