"""Azure region names as data (``facts/azure_regions.json``, with its sources) and a check for a stack's location.

A stack names its region in ``azure-gpu-platform:location`` (``westeurope``). ARM takes the lowercase programmatic
name; a misspelling (``westeurpoe``) is only refused by Azure in the middle of a deployment. :func:`check_region` says
so before anything is deployed, with the closest known names. The list is data with its upstream sources, not code:
a region missing from it is reported as unknown until someone adds it there (the file's ``note`` says how).

Pure: no Pulumi imports. Messages start lowercase and do not repeat the value; the caller prefixes the key path and
the value (see :mod:`gpu_catalog.problems`).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

REGION_FACTS = Path(__file__).with_name("facts") / "azure_regions.json"
REGION_FACTS_NAME = "gpu_catalog/facts/azure_regions.json"
"""How messages name the file (relative to the repository root, wherever the package is installed)."""

SUGGESTION_CUTOFF = 0.7
"""difflib similarity a known name needs to be suggested: ``westeurpoe`` → westeurope only, ``mars`` → nothing."""

_NAME_RE = re.compile(r"^[a-z][a-z0-9]*$")
_SEPARATORS_RE = re.compile(r"[\s_-]+")
_WHERE = "region names are lowercase, no spaces: az account list-locations -o table lists them; " + REGION_FACTS_NAME


class RegionFactsError(ValueError):
    """``facts/azure_regions.json`` is malformed; the message names the file and the field."""


@dataclass(frozen=True, slots=True)
class RegionFacts:
    as_of: date
    public: frozenset[str]
    """Azure public cloud regions (``westeurope``), access-restricted ones included."""
    sovereign: frozenset[str]
    """Azure Government and Azure operated by 21Vianet (``usgovvirginia``, ``chinanorth3``)."""
    restricted: frozenset[str]
    """Public regions deployable only after an access request (``francesouth``); a subset of :attr:`public`."""
    not_deployable: dict[str, str]
    """Names ARM or older SDKs know that are no region to deploy to (canary, stage, closed) → what they are."""

    @property
    def known(self) -> frozenset[str]:
        return self.public | self.sovereign


def _names(path: Path, doc: dict[str, Any], field: str) -> frozenset[str]:
    rows = doc.get(field)
    if not isinstance(rows, list) or not rows:
        raise RegionFactsError(f"{path}: expected a non-empty '{field}' list")
    for i, name in enumerate(rows):
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise RegionFactsError(f"{path}: {field}[{i}] {name!r} is not a lowercase region name like 'westeurope'")
    if rows != sorted(rows) or len(set(rows)) != len(rows):
        raise RegionFactsError(f"{path}: '{field}' must be sorted and without duplicates")
    return frozenset(rows)


@lru_cache(maxsize=2)
def load_region_facts(path: Path = REGION_FACTS) -> RegionFacts:
    try:
        doc: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RegionFactsError(f"{path}: cannot read: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("schemaVersion") != 1 or not doc.get("sources"):
        raise RegionFactsError(f"{path}: expected an object with schemaVersion 1 and its 'sources'")
    public = _names(path, doc, "regions")
    sovereign = _names(path, doc, "sovereign")
    restricted = _names(path, doc, "restricted")
    if public & sovereign:
        raise RegionFactsError(f"{path}: in both 'regions' and 'sovereign': {', '.join(sorted(public & sovereign))}")
    if restricted - public:
        raise RegionFactsError(f"{path}: 'restricted' names that are not in 'regions': {sorted(restricted - public)}")
    not_deployable = doc.get("notDeployable", {})
    if not isinstance(not_deployable, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in not_deployable.items()
    ):
        raise RegionFactsError(f"{path}: 'notDeployable' must map a name to what it is")
    if overlap := set(not_deployable) & (public | sovereign):
        raise RegionFactsError(f"{path}: 'notDeployable' names a known region: {', '.join(sorted(overlap))}")
    return RegionFacts(
        as_of=date.fromisoformat(str(doc["asOf"])),
        public=public,
        sovereign=sovereign,
        restricted=restricted,
        not_deployable=dict(not_deployable),
    )


def azure_regions() -> frozenset[str]:
    """Every region name a stack may set as its location: the public cloud and the sovereign clouds."""
    return load_region_facts().known


def normalize_region(name: str) -> str:
    """The programmatic form of what someone wrote: ``"West Europe"`` / ``"West-Europe"`` → ``"westeurope"``."""
    return _SEPARATORS_RE.sub("", name).lower()


def closest_regions(name: str, n: int = 3) -> list[str]:
    """Up to ``n`` known region names closest to ``name`` (case, spaces, ``-`` and ``_`` ignored), best first.

    A name that normalizes to a known region gives just that region (``"West Europe"`` → ``["westeurope"]``).
    Otherwise difflib's close matches, then regions that start with it (``"sweden"`` → swedencentral, swedensouth).
    """
    key = normalize_region(name)
    if not key or n <= 0:
        return []
    known = azure_regions()
    if key in known:
        return [key]
    ordered = sorted(known)
    matches = difflib.get_close_matches(key, ordered, n=n, cutoff=SUGGESTION_CUTOFF)
    if len(key) >= 3:
        matches += [r for r in ordered if r.startswith(key) and r not in matches]
    return matches[:n]


def _one_of(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def check_region(name: str) -> str | None:
    """``None`` when ``name`` is a known Azure region name; else one sentence saying what to write instead.

    The sentence does not repeat ``name`` (the caller prefixes the key path and the value).
    """
    facts = load_region_facts()
    known = facts.known
    if name in known:
        return None
    key = normalize_region(name)
    if not key:
        return f"empty: name an Azure region such as westeurope ({_WHERE})"
    if key in known:
        written_as = "a display name" if re.search(r"\s", name) else "not the region's programmatic name"
        return f"{written_as}; write {key} ({_WHERE})"
    suggestions = closest_regions(key)
    did_you_mean = f"; did you mean {_one_of(suggestions)}?" if suggestions else ""
    if key in facts.not_deployable:
        return f"{facts.not_deployable[key]}, not a region to deploy to{did_you_mean} ({_WHERE})"
    if suggestions:
        return f"not an Azure region{did_you_mean} ({_WHERE})"
    return f"not an Azure region, and no region name is close to it ({_WHERE})"
