"""``components/__init__.py`` names every module of the package (its docstring is the package's map)."""

from __future__ import annotations

from pathlib import Path

import components


def test_the_package_docstring_names_every_module() -> None:
    folder = Path(components.__file__).parent
    modules = sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
    doc = components.__doc__ or ""
    assert [m for m in modules if f"``{m}``" not in doc] == []
