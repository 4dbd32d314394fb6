"""Databricks facts the rules read: runtime keys and their support dates (``gpu_catalog/facts/databricks.json``), and
the GPU node types Azure Databricks offers (the catalog's ``support.databricks``).

The guard rails over them are :mod:`rules.databricks`; the cluster policy's vocabulary is
:mod:`rules.databricks_policy`.
"""

from __future__ import annotations

import json
import re
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Final

from gpu_catalog import Catalog, GpuSize, default_catalog
from rules.sizes import DEFAULT_FLOOR, accepted_sizes

GPU_ML_RUNTIME_RE: Final = re.compile(r"^(\d+)(?:\.(\d+))?\.x-gpu-ml-scala(2\.1[23])$")
STANDARD_RUNTIME_RE: Final = re.compile(r"^(\d+)(?:\.(\d+))?\.x-scala(2\.1[23])$")


def offered_by_databricks(size: GpuSize) -> bool:
    """Azure Databricks offers the catalog size as a GPU node type, or no source says it does not
    (``support.databricks`` ``offered`` or ``unconfirmed``): a refusal needs a source, and the only copies of the
    Databricks GPU page read so far were cut off after its fifth family."""
    return not size.databricks_refused


def databricks_gpu_sizes(today: date) -> list[str]:
    """Catalog sizes a source lists as Azure Databricks GPU node types, those not retired on ``today`` only (for
    messages)."""
    catalog = default_catalog()
    cached = _DATABRICKS_GPU_SIZES.get(today)
    if cached is None or cached[0] is not catalog:  # read once per catalog and day (every message names them)
        names = tuple(sorted(s.name for s in catalog.sizes() if s.databricks_supported and not s.is_retired(today)))
        cached = _DATABRICKS_GPU_SIZES[today] = (catalog, names)
    return list(cached[1])


_DATABRICKS_GPU_SIZES: dict[date, tuple[Catalog, tuple[str, ...]]] = {}


def accepted_node_types(floor: str = DEFAULT_FLOOR, *, today: date, catalog: Catalog | None = None) -> list[str]:
    """Catalog sizes ``databricks-gpu-node-types`` with the size rules accepts
    (:func:`rules.databricks.gpu_node_types` with ``size_rules``): every size rule but AKS support
    (:func:`rules.sizes.accepted_sizes`), offered by Azure Databricks. Sorted by name. Raises ``ValueError`` for an
    unknown floor."""
    cat = catalog if catalog is not None else default_catalog()
    return [
        n for n in accepted_sizes(floor, today=today, require_aks=False, catalog=cat) if offered_by_databricks(cat[n])
    ]


def runtime_release(spark_version: str) -> tuple[int, int] | None:
    """``(major, minor)`` of a runtime key (``18.x-…`` is ``(18, 0)``), or ``None`` when it is not one."""
    m = GPU_ML_RUNTIME_RE.match(spark_version) or STANDARD_RUNTIME_RE.match(spark_version)
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2) or 0)


DATABRICKS_FACTS = Path(__file__).resolve().parent.parent / "gpu_catalog" / "facts" / "databricks.json"


@lru_cache(maxsize=1)
def runtime_support_ends() -> dict[tuple[int, int], date]:
    """``(major, minor)`` → the day Databricks ends support for that runtime release (``facts.runtimes``: the
    supported releases with an end date and those whose support already ended), from the facts file."""
    doc = json.loads(DATABRICKS_FACTS.read_text(encoding="utf-8"))
    runtimes = doc["facts"]["runtimes"]
    out: dict[tuple[int, int], date] = {}
    for row in [*runtimes["supported"], *runtimes["endedSupport"]]:
        if row.get("endOfSupport"):
            major, _, minor = str(row["version"]).partition(".")
            out[(int(major), int(minor or 0))] = date.fromisoformat(row["endOfSupport"])
    return out


def runtime_support_problem(spark_version: str, today: date) -> str | None:
    """Why ``spark_version`` is past its end of support on ``today`` (facts: ``gpu_catalog/facts/databricks.json``), or
    ``None``: a release whose end date has come, or one older than every release the facts list."""
    release = runtime_release(spark_version)
    if release is None:
        return None
    ends = runtime_support_ends()
    current = sorted(r for r, end in ends.items() if end > today)
    listed = ", ".join(f"{a}.{b}" if b else str(a) for a, b in sorted(current, reverse=True))
    end = ends.get(release)
    shown = f"{release[0]}.{release[1]}" if release[1] or release not in ends else str(release[0])
    if end is not None and end <= today:
        return (
            f"{spark_version}: Databricks Runtime {shown} reached its end of support on {end.isoformat()} (today is "
            f"{today.isoformat()}; gpu_catalog/facts/databricks.json). Use a supported LTS release: {listed}."
        )
    if end is None and current and release < current[0]:
        return (
            f"{spark_version}: Databricks Runtime {shown} is older than every release the facts list as supported "
            f"(gpu_catalog/facts/databricks.json): past its end of support. Use a supported LTS release: {listed}."
        )
    return None


@lru_cache(maxsize=1)
def supported_rows() -> tuple[tuple[tuple[int, int], date | None, str | None, bool], ...]:
    """``(release, end of support or None, GPU ML key or None, LTS)`` of each release ``facts.runtimes.supported``
    lists, newest first."""
    doc = json.loads(DATABRICKS_FACTS.read_text(encoding="utf-8"))
    rows = []
    for row in doc["facts"]["runtimes"]["supported"]:
        major, _, minor = str(row["version"]).partition(".")
        end = date.fromisoformat(row["endOfSupport"]) if row.get("endOfSupport") else None
        rows.append(((int(major), int(minor or 0)), end, row.get("gpuMlKey"), bool(row.get("lts"))))
    return tuple(sorted(rows, key=lambda r: r[0], reverse=True))


def supported_releases(today: date) -> tuple[tuple[int, int], ...]:
    """The runtime releases the facts list as supported on ``today`` (``facts.runtimes.supported`` with no end date or
    one after ``today``), newest first: what the generated cluster policy admits. Every one passes
    :func:`runtime_support_problem` on ``today``; a release the facts do not list (a non-LTS release between two
    LTS, or one newer than the facts) is not on it."""
    return tuple(release for release, end, _, _ in supported_rows() if end is None or end > today)


def release_label(release: tuple[int, int]) -> str:
    """How a runtime key spells a release: ``18`` for ``(18, 0)`` (``18.x-…``), ``17.3`` for ``(17, 3)``."""
    return f"{release[0]}.{release[1]}" if release[1] else str(release[0])
