"""Kubernetes and GPU operator lifecycle guard rails, over the dated facts in ``gpu_catalog/lifecycle.py``
(``gpu_catalog/facts/aks_kubernetes.json``, ``gpu_operator.json``) and a ``today`` the caller passes: a version AKS
no longer creates, one about to expire, a GPU operator release NVIDIA has not validated for a pool's Kubernetes and
OS. The stack config, the components and the policies (``aks-kubernetes-version-*``,
``gpu-operator-platform-supported``) call them. No Pulumi imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from gpu_catalog.lifecycle import (
    DEFAULT_SUPPORT_PLAN,
    LTS_SUPPORT_PLAN,
    LTS_TIER,
    KubernetesFacts,
    OperatorFacts,
    is_lts,
    load_kubernetes_facts,
    load_operator_facts,
    minor_of,
    minor_tuple,
)

DEFAULT_EXPIRY_WARNING_DAYS = 60
"""How long before a version's end of life the advisory policy and the preflight start warning."""


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
        return check_operator_support(operator_version, facts)
    fits = [r.version for r in facts.releases if all(r.supports(image, minor) for image in images)]
    ranges = "; ".join(f"{image} {low}–{high}" for image, (low, high) in release.kubernetes.items())
    return (
        f"GPU operator {operator_version} is not validated on Kubernetes {minor} with {', '.join(missing)} "
        f"(NVIDIA's matrix for {operator_version}: {ranges}). Releases validated for it: "
        f"{', '.join(fits) or 'none known yet'}."
    )


def check_operator_support(operator_version: str, facts: OperatorFacts | None = None) -> str | None:
    """A GPU operator release NVIDIA's life-cycle page marks "End of Support" (refused: no fixes of any kind reach
    it); ``None`` for a Supported or Deprecated release, or one the facts do not know (reported by
    :func:`check_operator_platform`)."""
    facts = facts or load_operator_facts()
    release = facts.get(operator_version)
    if release is None or release.support != "end-of-support":
        return None
    current = [r.version for r in facts.releases if r.support == "supported"]
    return (
        f"GPU operator {operator_version} is past NVIDIA's end of support: the GPU operator life-cycle page lists its "
        f'major release as "End of Support" (no longer supported, no patch releases, not even for CVEs). Pin a '
        f'"Supported" release: {", ".join(current) or facts.default}.'
    )
