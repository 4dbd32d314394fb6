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


DEFAULT_EXPIRY_WARNING_DAYS = 60
"""How long before a version's end of life the advisory policy and the preflight start warning."""

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
    match = _VERSION_RE.match(version.strip()) if isinstance(version, str) else None
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
        return [v for v in self.versions if v.creatable(today, lts=lts)]


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


@dataclass(frozen=True, slots=True)
class VersionFinding:
    """A version that cannot be used (:func:`check_kubernetes_version`) or expires soon
    (:func:`check_kubernetes_expiry`)."""

    version: str
    message: str


def _choices(facts: KubernetesFacts, today: date) -> str:
    rows = facts.creatable(today)
    if not rows:
        return "none known to this project (update gpu_catalog/facts/aks_kubernetes.json)"
    return ", ".join(f"{v.minor} (until {v.end_of_life.isoformat()})" for v in rows)


def supported_minors(today: date, *, lts: bool = False, facts: KubernetesFacts | None = None) -> list[str]:
    """The minors that can be created ``today`` (with LTS: also those in their LTS year)."""
    return [v.minor for v in (facts or load_kubernetes_facts()).creatable(today, lts=lts)]


def check_kubernetes_version(
    version: str,
    *,
    today: date,
    tier: str | None = None,
    support_plan: str | None = None,
    facts: KubernetesFacts | None = None,
) -> VersionFinding | None:
    """aks-kubernetes-version-supported.

    ``None`` when ``version`` can be created on AKS ``today``; otherwise why not and what to use instead."""
    facts = facts or load_kubernetes_facts()
    minor = minor_of(version)
    lts = is_lts(tier, support_plan)
    choices = _choices(facts, today)
    if minor is None:
        return VersionFinding(
            version,
            f"{version!r} is not a Kubernetes version: use 'major.minor' (AKS picks the latest patch) or "
            f"'major.minor.patch'. Versions AKS creates today ({today.isoformat()}): {choices}.",
        )
    row = facts.get(minor)
    if row is None:
        newest = max((v.minor for v in facts.versions), key=minor_tuple)
        newer = minor_tuple(minor) > minor_tuple(newest)
        why = (
            f"newer than every version in AKS's release calendar as of {facts.as_of.isoformat()} (newest {newest})"
            if newer
            else "older than every version this project tracks; AKS removed it long ago"
        )
        return VersionFinding(
            version,
            f"Kubernetes {version} is {why}, so its availability cannot be confirmed. "
            f"Versions AKS creates today ({today.isoformat()}): {choices}.",
        )
    if row.creatable(today, lts=lts):
        return None
    if today < row.aks_ga:
        return VersionFinding(
            version,
            f"Kubernetes {minor} is not generally available on AKS yet (GA planned {row.aks_ga:%b %Y}); "
            f"preview versions are not for these stacks. Use one of: {choices}.",
        )
    lts_text = ""
    if row.lts_end_of_life is not None and today <= row.lts_end_of_life:
        lts_text = (
            f" Long-term support keeps {minor} creatable until {row.lts_end_of_life.isoformat()}, but only with "
            f"sku.tier {LTS_TIER} and supportPlan {LTS_SUPPORT_PLAN}"
            f" (this cluster has tier {tier or 'unset'}, supportPlan {support_plan or DEFAULT_SUPPORT_PLAN})."
        )
    elif row.lts_end_of_life is not None:
        lts_text = f" Its long-term support ended on {row.lts_end_of_life.isoformat()} too."
    platform = (
        f" (platform support, {row.platform_support.replace('Until', 'until')}, only keeps existing clusters running)"
        if row.platform_support
        else ""
    )
    return VersionFinding(
        version,
        f"Kubernetes {minor} can no longer be created on AKS: its end of life was {row.end_of_life.isoformat()} "
        f"(today is {today.isoformat()}); after that AKS creates no new clusters or node pools on it{platform}."
        f"{lts_text} Move to a supported version: {choices}.",
    )


def check_kubernetes_expiry(
    version: str,
    *,
    today: date,
    tier: str | None = None,
    support_plan: str | None = None,
    warn_days: int = DEFAULT_EXPIRY_WARNING_DAYS,
    facts: KubernetesFacts | None = None,
) -> VersionFinding | None:
    """aks-kubernetes-version-expiring.

    An advisory finding when a creatable ``version`` reaches its (LTS) end of life within ``warn_days``."""
    facts = facts or load_kubernetes_facts()
    minor = minor_of(version)
    row = facts.get(minor) if minor is not None else None
    lts = is_lts(tier, support_plan)
    if row is None or not row.creatable(today, lts=lts):
        return None  # refused outright by check_kubernetes_version
    last = row.last_day(lts=lts)
    left = (last - today).days
    if left > warn_days:
        return None
    kind = "LTS end of life" if lts and last == row.lts_end_of_life else "end of life"
    later = [v.minor for v in facts.creatable(today) if minor_tuple(v.minor) > minor_tuple(row.minor)]
    return VersionFinding(
        version,
        f"Kubernetes {minor} reaches its AKS {kind} on {last.isoformat()}, in {left} day{'s' if left != 1 else ''}: "
        f"from the day after, new clusters and node pools (including replacements and scale-out of new pools) on "
        f"{minor} are refused. Upgrade one minor at a time to "
        f"{', '.join(later) or 'a newer version'} before then.",
    )


# ----------------------------------------------------------------------------------------------- GPU operator


@dataclass(frozen=True, slots=True)
class OperatorRelease:
    version: str
    released: date
    kubernetes: dict[str, tuple[str, str]]
    """Operating system → (lowest, highest) validated Kubernetes minor."""

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


def check_operator_platform(
    operator_version: str,
    kubernetes_version: str,
    os_sku: str,
    facts: OperatorFacts | None = None,
) -> str | None:
    """gpu-operator-platform-supported.

    Why the GPU operator ``operator_version`` is not validated for nodes of ``os_sku`` on ``kubernetes_version``.

    ``None`` when NVIDIA's platform-support matrix covers every Ubuntu release that ``os_sku`` can mean on AKS.
    """
    facts = facts or load_operator_facts()
    release = facts.get(operator_version)
    known = ", ".join(r.version for r in facts.releases)
    if release is None:
        return (
            f"GPU operator {operator_version} is not a release this project has checked against NVIDIA's platform "
            f"support matrix (known: {known}; default {facts.default}). Pin one of them, or add the release with its "
            "validated Kubernetes range to gpu_catalog/facts/gpu_operator.json."
        )
    minor = minor_of(kubernetes_version)
    if minor is None:
        return None  # the version itself is reported by check_kubernetes_version
    images = facts.os_images.get(os_sku)
    if images is None:
        return (
            f"osSku {os_sku} is not an OS NVIDIA validates the GPU operator on (its matrix lists Ubuntu, RHEL, RHCOS "
            f"and Rocky; no Azure Linux): GPU pools the operator manages need osSku "
            f"{' or '.join(sorted(facts.os_images))}."
        )
    missing = [image for image in images if not release.supports(image, minor)]
    if not missing:
        return None
    fits = [r.version for r in facts.releases if all(r.supports(image, minor) for image in images)]
    ranges = "; ".join(f"{image} {low}–{high}" for image, (low, high) in release.kubernetes.items())
    return (
        f"GPU operator {operator_version} is not validated on Kubernetes {minor} with {', '.join(missing)} "
        f"(NVIDIA's matrix for {operator_version}: {ranges}). Releases validated for it: "
        f"{', '.join(fits) or 'none known yet'}."
    )


__all__ = [
    "DEFAULT_EXPIRY_WARNING_DAYS",
    "DEFAULT_SUPPORT_PLAN",
    "LTS_SUPPORT_PLAN",
    "LTS_TIER",
    "KubernetesFacts",
    "KubernetesMinor",
    "LifecycleFactsError",
    "OperatorFacts",
    "OperatorRelease",
    "VersionFinding",
    "check_kubernetes_expiry",
    "check_kubernetes_version",
    "check_operator_platform",
    "default_gpu_operator_version",
    "is_lts",
    "load_kubernetes_facts",
    "load_operator_facts",
    "minor_of",
    "minor_tuple",
    "supported_minors",
]
