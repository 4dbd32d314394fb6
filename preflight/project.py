"""A program's ``Pulumi.yaml``, read once into a :class:`Project`: the only place the preflight parses it.

What the preflight needs of it: the project name (the config namespace), that the runtime is Python, the entry point
(``main``), the interpreter (``runtime.options.virtualenv``), where the stack files are (``stackConfigDir``) and the
config defaults the project declares.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")


class PreflightInputError(Exception):
    """Bad input to the preflight itself (program directory, stack file): exit code 2, message names file and key."""


@dataclass(frozen=True)
class Project:
    """What the preflight reads from a program's ``Pulumi.yaml``."""

    program_dir: Path
    file: Path
    name: str
    runtime: str = "python"
    main: str | None = None
    """``main``: the entry point's folder or file, relative to the program dir (``None``: ``__main__.py`` there)."""
    virtualenv: str | None = None
    """``runtime.options.virtualenv``: the program's own virtualenv, relative to the program dir or absolute."""
    stack_config_dir: str | None = None
    """``stackConfigDir``: the folder of the stack files, relative to the program dir (``None``: the program dir)."""
    config: dict[str, Any] = field(default_factory=dict)
    """The config defaults the project declares (``config: {key: {default: ...}}``, ``{key: {value: ...}}`` or
    ``{key: value}``), keys as written."""

    @property
    def entry_point(self) -> Path:
        """``__main__.py`` in the program dir, or in/at ``main``."""
        target = self.program_dir / self.main if self.main else self.program_dir
        return target / "__main__.py" if target.is_dir() else target

    @property
    def python(self) -> str:
        """The interpreter the Pulumi CLI would use for the program: its virtualenv's if that exists, else this one.

        Another team's program brings its own dependencies in its own virtualenv; the preflight's runner only needs
        the ``pulumi`` SDK and PyYAML there (both dependencies of every Pulumi Python program).
        """
        if self.virtualenv:
            base = Path(self.virtualenv) if Path(self.virtualenv).is_absolute() else self.program_dir / self.virtualenv
            for candidate in (base / "bin" / "python", base / "Scripts" / "python.exe"):
                if candidate.is_file() and os.access(candidate, os.X_OK):
                    return str(candidate)
        return sys.executable

    def stack_file(self, stack: str) -> Path:
        """Where the stack file of ``stack`` is: ``<stackConfigDir>/Pulumi.<stack>.yaml``."""
        base = self.program_dir / self.stack_config_dir if self.stack_config_dir else self.program_dir
        return base / f"Pulumi.{stack}.yaml"


def read_project(program_dir: Path) -> Project:
    """Read ``<program_dir>/Pulumi.yaml``; raise :class:`PreflightInputError` unless it is a Python program's."""
    if not program_dir.is_dir():
        raise PreflightInputError(f"{program_dir}: program directory not found")
    project_file = next((program_dir / n for n in PROJECT_FILES if (program_dir / n).is_file()), None)
    if project_file is None:
        raise PreflightInputError(f"{program_dir}: no Pulumi.yaml (not a Pulumi program directory)")
    try:
        doc = yaml.safe_load(project_file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PreflightInputError(f"{project_file}: cannot read: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str) or not doc["name"]:
        raise PreflightInputError(f"{project_file}: key 'name' must be the project name (a string)")
    runtime = doc.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        raise PreflightInputError(
            f"{project_file}: key 'runtime' is {runtime_name!r}; the preflight runs Python programs"
        )
    main = doc.get("main")
    if main is not None and not isinstance(main, str):
        raise PreflightInputError(f"{project_file}: key 'main' must be a path")
    options = runtime.get("options") if isinstance(runtime, dict) else None
    venv = options.get("virtualenv") if isinstance(options, dict) else None
    config_dir = doc.get("stackConfigDir")
    project = Project(
        program_dir=program_dir,
        file=project_file,
        name=doc["name"],
        runtime=runtime_name,
        main=main,
        virtualenv=venv if isinstance(venv, str) and venv else None,
        stack_config_dir=config_dir if isinstance(config_dir, str) and config_dir else None,
        config=_config_defaults(doc.get("config")),
    )
    if not project.entry_point.is_file():
        raise PreflightInputError(f"{program_dir}: no __main__.py (the program's entry point)")
    return project


def _config_defaults(section: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not isinstance(section, dict):
        return out
    for key, spec in section.items():
        if isinstance(spec, dict):
            if "value" in spec:
                out[str(key)] = spec["value"]
            elif "default" in spec:
                out[str(key)] = spec["default"]
        else:
            out[str(key)] = spec
    return out


def program_main(program_dir: Path) -> Path:
    """The program's entry point; ``__main__.py`` in ``program_dir`` when ``Pulumi.yaml`` cannot tell."""
    try:
        return read_project(program_dir).entry_point
    except PreflightInputError:
        return program_dir / "__main__.py"


def program_python(program_dir: Path) -> str:
    """The interpreter for the program (:attr:`Project.python`); this one when ``Pulumi.yaml`` cannot tell."""
    try:
        return read_project(program_dir).python
    except PreflightInputError:
        return sys.executable
