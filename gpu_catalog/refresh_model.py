"""The report model of ``python -m gpu_catalog.refresh``: one :class:`Change` per difference, grouped per upstream file
and facts file in a :class:`FileDiff`, and the readers' error. Standard library plus PyYAML. No Pulumi imports."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


class RefreshError(ValueError):
    """An upstream file could not be read as the format it should have; the message names the file."""


@dataclass
class Change:
    kind: str
    """``added`` (upstream has it, the facts do not), ``removed`` (the facts have it, upstream dropped it) or
    ``changed``."""
    key: str
    facts: Any = None
    upstream: Any = None
    note: str | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "key": self.key, "facts": self.facts, "upstream": self.upstream}
        if self.note:
            out["note"] = self.note
        return out

    def text(self) -> str:
        if self.kind == "added":
            body = f"+ {self.key}: {_show(self.upstream)}"
        elif self.kind == "removed":
            body = f"- {self.key}: {_show(self.facts)}"
        else:
            body = f"~ {self.key}: {_show(self.facts)} -> {_show(self.upstream)}"
        return body + (f"  ({self.note})" if self.note else "")


def _show(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


@dataclass
class FileDiff:
    """The differences one upstream file shows against one facts file."""

    facts_file: str
    source: tuple[str, str]
    changes: list[Change] = field(default_factory=list)
    apply: Callable[[dict[str, Any]], None] | None = None
    """Applies the writable changes to the facts document (``--write``)."""


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RefreshError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        raise RefreshError(f"{path}: not valid YAML: {exc}") from exc
