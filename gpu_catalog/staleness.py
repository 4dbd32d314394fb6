"""How old the facts are: every facts file records the day its sources were read (``sourcesRead``).

The preflight reports the files read longer ago than a number of days (default 90) — advisory, never a refusal — with
the command that refreshes them (``python -m gpu_catalog.refresh``, docs/refreshing-facts.md). No Pulumi imports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from .catalog import CATALOG_PATH

DEFAULT_MAX_AGE_DAYS = 90
MAX_AGE_ENV = "AGP_FACTS_MAX_AGE_DAYS"
REFRESH_COMMAND = "python -m gpu_catalog.refresh"


@dataclass(frozen=True, slots=True)
class StaleFacts:
    path: str
    """The facts file, relative to the repository (``gpu_catalog/facts/gpu_operator.json``)."""
    read: date | None
    """When its sources were read; ``None`` when the file does not say."""
    age_days: int | None

    def message(self, max_age_days: int) -> str:
        if self.read is None or self.age_days is None:
            return (
                f"{self.path} does not record when its sources were read (sourcesRead): treat its facts as stale; "
                f"refresh them with {REFRESH_COMMAND} (docs/refreshing-facts.md)."
            )
        return (
            f"{self.path}: its sources were read on {self.read.isoformat()}, {self.age_days} days ago (more than "
            f"{max_age_days}); upstream may have moved on. Refresh the facts with {REFRESH_COMMAND} and review the "
            "diff (docs/refreshing-facts.md). Advisory: nothing is refused for it."
        )


def facts_files(root: Path | None = None) -> list[Path]:
    """The catalog and every facts file."""
    base = root or CATALOG_PATH.parent
    return [base / CATALOG_PATH.name, *sorted((base / "facts").glob("*.json"))]


def stale_facts(today: date, max_age_days: int = DEFAULT_MAX_AGE_DAYS, root: Path | None = None) -> list[StaleFacts]:
    """The facts files whose sources were read more than ``max_age_days`` before ``today`` (or never recorded)."""
    base = root or CATALOG_PATH.parent
    out: list[StaleFacts] = []
    for path in facts_files(base):
        shown = f"gpu_catalog/{path.relative_to(base).as_posix()}"
        raw = json.loads(path.read_text(encoding="utf-8")).get("sourcesRead")
        try:
            read = date.fromisoformat(str(raw)) if raw else None
        except ValueError:
            read = None
        age = (today - read).days if read is not None else None
        if age is None or age > max_age_days:
            out.append(StaleFacts(shown, read, age))
    return out
