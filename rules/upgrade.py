"""Auto-upgrade channel versus version pins: a channel must not move the cluster out of the Kubernetes range its
pinned GPU software is validated on, and a pin must not contradict what the channel changes. No Pulumi imports.

Channel semantics (``gpu_catalog/facts/aks_upgrade.json``, MicrosoftDocs/azure-aks-docs
``articles/aks/auto-upgrade-cluster.md``): ``none`` and ``node-image`` keep the Kubernetes version, ``patch`` moves to
the latest patch of the same minor, ``stable`` to the latest patch of minor N-1 and ``rapid`` to the latest patch of
minor N, where N is the latest minor AKS supports (GA, not past its end of life: ``aks_kubernetes.json``); the control
plane first, then every node pool. So:

- :func:`channel_target_minor`: the minor a channel moves a cluster pinned to a minor to **today** (never lower: a
  channel does not downgrade);
- :func:`upgrade_channel_range`: refuse a channel whose target is newer than the newest minor some pinned GPU
  software is validated on (:func:`validated_minors`: software name → newest validated minor; the GPU operator
  release from ``gpu_operator.json``, the KAITO add-on table from ``kaito_addon.json``; add a row there for other
  pinned software);
- :func:`channel_next_move` / :func:`upgrade_channel_next_move`: the next minor a moving channel (``stable``,
  ``rapid``) will reach — when AKS makes the minor after N generally available — and the date that is expected (the
  calendar's AKS GA month of that minor, or, while the calendar has no row for it yet, an estimate from the
  calendar's own GA cadence, said as such); a warning when that minor is past a pinned component's validated range
  (the move happens with no ``pulumi up``);
- :func:`channel_owns_version`: ``stable`` and ``rapid`` own the version (the program ignores drift on
  ``kubernetesVersion`` / ``orchestratorVersion``, so ``pulumi up`` never asks for a downgrade);
- :func:`version_pin_fits_channel`: a patch pin (``1.36.2``) with a channel that moves patches is refused: the
  channel moves the cluster off it and the next ``pulumi up`` sends the old patch again (a downgrade). A minor pin
  (``1.36``) stays true under ``patch``: AKS runs the minor's latest patch and reports it in
  ``currentKubernetesVersion`` (``supported-kubernetes-versions.md``, alias minor versions).
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from itertools import pairwise
from statistics import median
from typing import Literal

from gpu_catalog.kaito_presets import KAITO_ADDON_VERSION, kaito_table_minors
from gpu_catalog.lifecycle import KubernetesFacts, OperatorFacts, load_kubernetes_facts, load_operator_facts, minor_of
from gpu_catalog.lifecycle import minor_tuple as _minor_tuple
from gpu_catalog.upgrade import load_upgrade_channels

from . import Finding

AutoUpgradeChannel = Literal["rapid", "stable", "patch", "node-image", "none"]
"""``autoUpgradeProfile.upgradeChannel`` (pulumi-azure-native 3.29.0 ``UpgradeChannel``, API 2025-09-01)."""

AUTO_UPGRADE_CHANNELS: tuple[str, ...] = typing.get_args(AutoUpgradeChannel)

NodeOsUpgradeChannel = Literal["NodeImage", "SecurityPatch", "Unmanaged", "None"]
"""``autoUpgradeProfile.nodeOSUpgradeChannel``: the stack config's ``nodeOsUpgradeChannel`` and the package's
``NodeOsUpgradeChannel``."""


def latest_supported_minor(today: date, facts: KubernetesFacts | None = None) -> str | None:
    """N: the newest minor that is GA on AKS ``today`` and not past its end of life (auto-upgrade moves only to GA
    versions); ``None`` when the calendar knows none."""
    minors = [v.minor for v in (facts or load_kubernetes_facts()).creatable(today)]
    return max(minors, key=_minor_tuple) if minors else None


def channel_target_minor(
    channel: str, pinned_minor: str, today: date, facts: KubernetesFacts | None = None
) -> str | None:
    """The minor ``channel`` moves a cluster on ``pinned_minor`` to ``today``: the pinned one (``none``, ``patch``,
    ``node-image``), N (``rapid``) or N-1 (``stable``), never lower than the pinned one. ``None`` for an unknown
    channel or when the calendar knows no supported minor."""
    spec = load_upgrade_channels().get(channel)
    if spec is None:
        return None
    if not spec.moves_minor:
        return pinned_minor
    latest = latest_supported_minor(today, facts)
    if latest is None:
        return None
    major, rest = _minor_tuple(latest)
    target = latest if spec.target_minor == "N" else f"{major}.{rest - 1}"
    return max(target, pinned_minor, key=_minor_tuple)


@dataclass(frozen=True)
class NextMove:
    """The next minor a moving channel takes a cluster to, and when."""

    minor: str
    """The minor the cluster moves to."""
    trigger: str
    """The minor whose AKS GA makes it move (N+1)."""
    expected: date | None
    """The first day of the trigger's AKS GA month: from the calendar, or estimated (:attr:`estimated`)."""
    estimated: bool
    """``True`` when the calendar has no AKS GA date for the trigger yet and :attr:`expected` is the calendar's last
    GA month plus its median gap between GA months."""


def _month_plus(day: date, months: int) -> date:
    total = day.year * 12 + day.month - 1 + months
    return date(total // 12, total % 12 + 1, 1)


def _expected_ga(trigger: str, today: date, facts: KubernetesFacts) -> tuple[date | None, bool]:
    row = facts.get(trigger)
    if row is not None:
        return row.aks_ga, False
    gas = sorted(v.aks_ga for v in facts.versions)
    gaps = [(b.year - a.year) * 12 + b.month - a.month for a, b in pairwise(gas)]
    gaps = [g for g in gaps if g > 0][-4:]  # the recent cadence
    if not gaps:
        return None, True
    expected = _month_plus(gas[-1], round(median(gaps)))
    return (expected if expected > today else _month_plus(today, 1)), True


def channel_next_move(
    channel: str, pinned_minor: str, today: date, facts: KubernetesFacts | None = None
) -> NextMove | None:
    """Where ``channel`` takes a cluster on ``pinned_minor`` next, after ``today``: when AKS makes N+1 generally
    available, ``rapid`` moves to N+1 and ``stable`` to N. ``None`` for a channel that does not move the minor, when
    the calendar knows no supported minor, or when that event does not move the cluster (pinned at or above it)."""
    spec = load_upgrade_channels().get(channel)
    calendar = facts or load_kubernetes_facts()
    latest = latest_supported_minor(today, calendar)
    if spec is None or not spec.moves_minor or latest is None:
        return None
    major, rest = _minor_tuple(latest)
    trigger = f"{major}.{rest + 1}"
    target = trigger if spec.target_minor == "N" else latest
    now = channel_target_minor(channel, pinned_minor, today, calendar) or pinned_minor
    if _minor_tuple(target) <= _minor_tuple(now):
        return None
    expected, estimated = _expected_ga(trigger, today, calendar)
    return NextMove(target, trigger, expected, estimated)


def validated_beyond(validated: Mapping[str, str], target: str) -> dict[str, str]:
    """The pinned GPU software of ``validated`` (:func:`validated_minors`) whose newest validated Kubernetes minor is
    below ``target``, with that minor: the one range check of every upgrade rule (a cluster's channel, its next move,
    a fleet's channel and update runs)."""
    return {name: newest for name, newest in validated.items() if _minor_tuple(target) > _minor_tuple(newest)}


def validated_software(beyond: Mapping[str, str]) -> str:
    """How the upgrade rules name the software :func:`validated_beyond` found."""
    return "; ".join(f"{name} is validated up to {newest}" for name, newest in beyond.items())


def upgrade_channel_next_move(
    channel: str,
    kubernetes_version: str,
    validated: Mapping[str, str],
    *,
    today: date,
    facts: KubernetesFacts | None = None,
) -> list[Finding]:
    """A warning: the channel's next move (:func:`channel_next_move`) takes the cluster past the newest minor a pinned
    GPU component is validated on. Nothing while today's move already does (:func:`upgrade_channel_range` refuses
    that)."""
    pinned = minor_of(kubernetes_version)
    if (
        pinned is None
        or not validated
        or upgrade_channel_range(channel, kubernetes_version, validated, today=today, facts=facts)
    ):
        return []
    move = channel_next_move(channel, pinned, today, facts)
    if move is None:
        return []
    beyond = validated_beyond(validated, move.minor)
    if not beyond:
        return []
    if move.expected is None:
        when = f"{move.trigger} is not on AKS's release calendar yet"
    elif move.estimated:
        when = (
            f"expected around {move.expected:%b %Y}, estimated from the calendar's GA cadence: {move.trigger} is not "
            "on AKS's release calendar yet"
        )
    else:
        when = f"AKS GA {move.expected:%b %Y} on AKS's release calendar"
    software = validated_software(beyond)
    keeps = [c for c, spec in load_upgrade_channels().items() if not spec.moves_minor]
    return [
        Finding(
            "autoUpgradeChannel",
            f"'{channel}' will move this cluster from {channel_target_minor(channel, pinned, today, facts)} to "
            f"Kubernetes {move.minor} when AKS makes {move.trigger} generally available ({when}; "
            "gpu_catalog/facts/aks_kubernetes.json), with no pulumi up: the control plane, then every node pool. "
            f"But {software}. Before then, pin software validated on {move.minor}, or use autoUpgradeChannel "
            f"{' or '.join(keeps)} and move the minor yourself.",
        )
    ]


def channel_owns_version(channel: str) -> bool:
    """``stable`` and ``rapid`` move the minor: the channel, not the program, owns the Kubernetes version."""
    spec = load_upgrade_channels().get(channel)
    return spec is not None and spec.moves_minor


def validated_minors(
    *, gpu_operator_version: str | None = None, kaito_addon: bool = False, operator_facts: OperatorFacts | None = None
) -> dict[str, str]:
    """Pinned GPU software on the cluster → the newest Kubernetes minor it is validated on (the input of
    :func:`upgrade_channel_range`). The GPU operator: the lowest upper bound over the OS images of NVIDIA's matrix for
    the release (a release the facts do not know is refused by ``gpu-operator-platform-supported``, not here); the
    KAITO add-on: the newest minor whose add-on runs the KAITO version of the preset table."""
    found: dict[str, str] = {}
    if gpu_operator_version is not None:
        release = (operator_facts or load_operator_facts()).get(gpu_operator_version)
        if release is not None and release.kubernetes:
            newest = min((high for _, high in release.kubernetes.values()), key=_minor_tuple)
            found[f"GPU operator {gpu_operator_version} (NVIDIA's platform-support matrix)"] = newest
    if kaito_addon:
        minors = kaito_table_minors()
        if minors:
            found[f"the KAITO add-on {KAITO_ADDON_VERSION} (AKS add-on table, gpu_catalog/facts/kaito_addon.json)"] = (
                minors[-1]
            )
    return found


def upgrade_channel_range(
    channel: str,
    kubernetes_version: str,
    validated: Mapping[str, str],
    *,
    today: date,
    facts: KubernetesFacts | None = None,
) -> list[Finding]:
    """The channel cannot move the cluster past the newest minor any pinned GPU software is validated on."""
    pinned = minor_of(kubernetes_version)
    if pinned is None or not validated:
        return []  # the version itself is refused by check_kubernetes_version
    target = channel_target_minor(channel, pinned, today, facts)
    if target is None or target == pinned:
        return []  # a pinned minor outside the range is gpu-operator-platform-supported's (and KAITO's) refusal
    beyond = validated_beyond(validated, target)
    if not beyond:
        return []
    spec = load_upgrade_channels()[channel]
    latest = latest_supported_minor(today, facts)
    rule = (
        f"follows the latest minor AKS supports (N = {latest})"
        if spec.target_minor == "N"
        else f"follows N-1 of the latest minor AKS supports (N = {latest})"
    )
    software = validated_software(beyond)
    fits = [
        c
        for c in load_upgrade_channels()
        if all(
            _minor_tuple(channel_target_minor(c, pinned, today, facts) or pinned) <= _minor_tuple(newest)
            for newest in validated.values()
        )
    ]
    return [
        Finding(
            "autoUpgradeChannel",
            f"'{channel}' moves this cluster to Kubernetes {target} today ({today.isoformat()}): it {rule}, and AKS "
            f"upgrades the control plane and then every node pool. But {software}: the cluster would run it "
            f"unvalidated on {target}, and a program still pinning {kubernetes_version} would ask AKS for a "
            f"downgrade. Allowed today: {', '.join(fits)}; or pin software validated on {target}.",
        )
    ]


def version_pin_fits_channel(version: str, channel: str, field: str = "kubernetesVersion") -> list[Finding]:
    """A patch pin (``1.36.2``) contradicts a channel that moves patches (``patch``, ``stable``, ``rapid``)."""
    minor = minor_of(version)
    spec = load_upgrade_channels().get(channel)
    if minor is None or spec is None or not spec.moves_patch or version.strip().lstrip("v") == minor:
        return []
    keeps = [c for c, s in load_upgrade_channels().items() if not s.moves_patch]
    return [
        Finding(
            field,
            f"'{version}' pins a patch, but autoUpgradeChannel '{channel}' moves the cluster to newer patches: once "
            f"AKS has, the next pulumi up sends {version} again, a downgrade AKS refuses. Pin the minor ('{minor}': "
            f"AKS runs its latest patch and reports it in currentKubernetesVersion), or use autoUpgradeChannel "
            f"{' or '.join(keeps)}.",
        )
    ]


__all__ = [
    "AUTO_UPGRADE_CHANNELS",
    "AutoUpgradeChannel",
    "NextMove",
    "channel_next_move",
    "channel_owns_version",
    "channel_target_minor",
    "latest_supported_minor",
    "upgrade_channel_next_move",
    "upgrade_channel_range",
    "validated_minors",
    "version_pin_fits_channel",
]
