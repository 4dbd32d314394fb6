"""Facts that expire: AKS Kubernetes versions and the GPU operator releases validated on them.

The facts are data (``facts/aks_kubernetes.json``, ``facts/gpu_operator.json``, each with its sources); the checks
are pure functions of (facts, ``today``). Nothing here compares against a date written in code: a version that was
fine when a stack was written is refused on the day AKS stops creating it, and the preflight says so.

``today`` is always a parameter. Callers that run in a process (the program, the policy pack) take it from
:func:`gpu_catalog.clock.today`, which tests and ``python -m preflight --today`` can pin.

Kubernetes semantics (AKS release calendar and FAQ): a minor can be **created** (new clusters, new node pools) from
its AKS GA until its end of life. After that, "platform support" keeps running clusters supported until a later
minor's GA, but nothing can be created on it. Long-term support (LTS) keeps a minor creatable until its LTS end of
life, and only on the Premium tier with ``supportPlan: AKSLongTermSupport``. No Pulumi imports.
"""

from __future__ import annotations

import calendar
import json
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

FACTS_DIR = Path(__file__).with_name("facts")
KUBERNETES_FACTS = FACTS_DIR / "aks_kubernetes.json"
GPU_OPERATOR_FACTS = FACTS_DIR / "gpu_operator.json"


LTS_TIER = "Premium"
LTS_SUPPORT_PLAN = "AKSLongTermSupport"
DEFAULT_SUPPORT_PLAN = "KubernetesOfficial"

_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$")


class LifecycleFactsError(ValueError):
    """A facts file is malformed; the message names the file, the row and the field."""


def _month_start(text: str) -> date:
    year, month = text.split("-")[:2]
    return date(int(year), int(month), 1)


def _month_end_or_day(text: str) -> date:
    """``2026-03`` → 2026-03-31 (AKS: a month means its last day); ``2025-08-22`` stays exact."""
    parts = text.split("-")
    if len(parts) == 3:
        return date(int(parts[0]), int(parts[1]), int(parts[2]))
    year, month = int(parts[0]), int(parts[1])
    return date(year, month, calendar.monthrange(year, month)[1])


def minor_of(version: str) -> str | None:
    """``"1.36"``, ``"1.36.2"`` or ``"v1.36"`` → ``"1.36"``; ``None`` when it is not a Kubernetes version."""
    return _minor_of(version) if isinstance(version, str) else None


@lru_cache(maxsize=1024)
def _minor_of(version: str) -> str | None:
    match = _VERSION_RE.match(version.strip())
    if match is None:
        return None
    return f"{int(match.group(1))}.{int(match.group(2))}"


def minor_tuple(minor: str) -> tuple[int, int]:
    major, rest = minor.split(".")[:2]
    return int(major), int(rest)


@dataclass(frozen=True, slots=True)
class KubernetesMinor:
    """One AKS Kubernetes minor version and its dates."""

    minor: str
    aks_ga: date
    end_of_life: date
    lts_end_of_life: date | None
    platform_support: str | None
    karpenter: str | None = None
    """The Karpenter (node auto-provisioning) version AKS runs on this minor, as its calendar page names it."""

    def creatable(self, today: date, *, lts: bool) -> bool:
        """Whether new clusters and node pools can be created on this minor ``today``."""
        if today < self.aks_ga:
            return False
        if today <= self.end_of_life:
            return True
        return lts and self.lts_end_of_life is not None and today <= self.lts_end_of_life

    def last_day(self, *, lts: bool) -> date:
        """The last day this minor can be created with (``lts``) or without LTS."""
        if lts and self.lts_end_of_life is not None:
            return self.lts_end_of_life
        return self.end_of_life


@dataclass(frozen=True, slots=True)
class KubernetesFacts:
    as_of: date
    source: str
    versions: tuple[KubernetesMinor, ...]

    def get(self, minor: str) -> KubernetesMinor | None:
        return next((v for v in self.versions if v.minor == minor), None)

    def creatable(self, today: date, *, lts: bool = False) -> list[KubernetesMinor]:
        """The minors that can be created ``today`` (computed once per facts, day and ``lts``: the policy pack asks
        for every version field). The entry keeps its facts, so an id Python reuses is never answered from it."""
        key = (id(self), today, lts)
        cached = _CREATABLE.get(key)
        if cached is None or cached[0] is not self:
            if len(_CREATABLE) >= _CREATABLE_MAX:
                _CREATABLE.clear()
            cached = _CREATABLE[key] = (self, tuple(v for v in self.versions if v.creatable(today, lts=lts)))
        return list(cached[1])


_CREATABLE: dict[tuple[int, date, bool], tuple[KubernetesFacts, tuple[KubernetesMinor, ...]]] = {}
_CREATABLE_MAX = 256


def _require(row: dict[str, Any], key: str, where: str) -> Any:
    if key not in row:
        raise LifecycleFactsError(f"{where}: missing field {key!r}")
    return row[key]


@lru_cache(maxsize=4)
def load_kubernetes_facts(path: Path = KUBERNETES_FACTS) -> KubernetesFacts:
    doc = json.loads(path.read_text(encoding="utf-8"))
    versions: list[KubernetesMinor] = []
    for i, row in enumerate(doc.get("versions") or []):
        where = f"{path.name}: versions[{i}]"
        try:
            lts = row.get("ltsEndOfLife")
            versions.append(
                KubernetesMinor(
                    minor=str(_require(row, "minor", where)),
                    aks_ga=_month_start(str(_require(row, "aksGa", where))),
                    end_of_life=_month_end_or_day(str(_require(row, "endOfLife", where))),
                    lts_end_of_life=_month_end_or_day(str(lts)) if lts else None,
                    platform_support=row.get("platformSupport"),
                    karpenter=row.get("karpenter"),
                )
            )
        except (TypeError, ValueError) as exc:
            if isinstance(exc, LifecycleFactsError):
                raise
            raise LifecycleFactsError(f"{where}: {exc}") from exc
    first = (doc.get("sources") or [{}])[0]
    source = f"{first.get('repository', '?')} {first.get('path', '?')} ({first.get('date', '?')})"
    return KubernetesFacts(as_of=date.fromisoformat(doc["asOf"]), source=source, versions=tuple(versions))


def is_lts(tier: str | None, support_plan: str | None) -> bool:
    """LTS needs the Premium tier and the AKSLongTermSupport plan (compared case-insensitively, as ARM does)."""
    return (tier or "").lower() == LTS_TIER.lower() and (support_plan or "").lower() == LTS_SUPPORT_PLAN.lower()


def supported_minors(today: date, *, lts: bool = False, facts: KubernetesFacts | None = None) -> list[str]:
    """The minors that can be created ``today`` (with LTS: also those in their LTS year)."""
    return [v.minor for v in (facts or load_kubernetes_facts()).creatable(today, lts=lts)]


# ----------------------------------------------------------------------------------------------- GPU operator


@dataclass(frozen=True, slots=True)
class OperatorRelease:
    version: str
    released: date
    kubernetes: dict[str, tuple[str, str]]
    """Operating system → (lowest, highest) validated Kubernetes minor."""
    support: str = "supported"
    """NVIDIA's life-cycle status: ``supported``, ``deprecated`` (critical fixes only) or ``end-of-support``."""

    def supports(self, os_image: str, minor: str) -> bool:
        bounds = self.kubernetes.get(os_image)
        if bounds is None:
            return False
        low, high = (minor_tuple(b) for b in bounds)
        return low <= minor_tuple(minor) <= high


@dataclass(frozen=True, slots=True)
class OperatorFacts:
    as_of: date
    default: str
    releases: tuple[OperatorRelease, ...]
    os_images: dict[str, tuple[str, ...]]
    """AKS ``osSKU`` → the Ubuntu releases it can mean."""

    def get(self, version: str) -> OperatorRelease | None:
        return next((r for r in self.releases if r.version == version), None)


@lru_cache(maxsize=4)
def load_operator_facts(path: Path = GPU_OPERATOR_FACTS) -> OperatorFacts:
    doc = json.loads(path.read_text(encoding="utf-8"))
    releases: list[OperatorRelease] = []
    for i, row in enumerate(doc.get("releases") or []):
        where = f"{path.name}: releases[{i}]"
        kube = _require(row, "kubernetes", where)
        if not isinstance(kube, dict) or not kube:
            raise LifecycleFactsError(f"{where}: 'kubernetes' must map an OS to [lowest, highest]")
        releases.append(
            OperatorRelease(
                version=str(_require(row, "version", where)),
                released=date.fromisoformat(str(_require(row, "released", where))),
                kubernetes={str(k): (str(v[0]), str(v[1])) for k, v in kube.items()},
                support=str(row.get("support", "supported")),
            )
        )
    images = {str(k): tuple(v) for k, v in (doc.get("aksNodeImages", {}).get("osSku") or {}).items()}
    default = str(doc["default"])
    if not any(r.version == default for r in releases):
        raise LifecycleFactsError(f"{path.name}: default {default!r} is not one of the releases")
    return OperatorFacts(
        as_of=date.fromisoformat(doc["asOf"]), default=default, releases=tuple(releases), os_images=images
    )


def default_gpu_operator_version() -> str:
    """The release new stacks pin (``facts/gpu_operator.json`` ``default``)."""
    return load_operator_facts().default


__all__ = [
    "DEFAULT_SUPPORT_PLAN",
    "LTS_SUPPORT_PLAN",
    "LTS_TIER",
    "KubernetesFacts",
    "KubernetesMinor",
    "LifecycleFactsError",
    "OperatorFacts",
    "OperatorRelease",
    "default_gpu_operator_version",
    "is_lts",
    "load_kubernetes_facts",
    "load_operator_facts",
    "minor_of",
    "minor_tuple",
    "supported_minors",
]
