"""What decides the platform's other pins, watched by ``python -m gpu_catalog.refresh`` (report only: a pin is a
decision, never written by the refresh).

- ``--aks-versions`` also yields the KAITO add-on version AKS runs per Kubernetes minor: the
  ``ai-toolchain-operator <version>`` line of each minor's "AKS components breaking changes" add-on list
  (MicrosoftDocs/azure-aks-docs ``articles/aks/supported-kubernetes-versions.md``), against ``facts/kaito_addon.json``
  ``versions[]``. A minor whose list does not name the add-on says nothing (the page's lists are sometimes partial).
  The add-on version decides the KAITO tag the presets and the Workspace CRD are read at.
- ``--gpu-operator-tags``, ``--device-plugin-tags``, ``--dcgm-exporter-tags``: the repositories' tag names (one per
  line, or ``git ls-remote --tags --refs <url>`` output), against the pinned GPU operator release
  (``facts/gpu_operator.json`` ``default``), the nvidia-device-plugin chart (``facts/device_plugins.json``
  ``chart.version``) and the dcgm-exporter chart (``facts/gpu_monitoring.json`` ``dcgmExporterChart.version``;
  NVIDIA/dcgm-exporter tags are ``<DCGM>-<exporter>``, the chart follows the exporter). A release newer than the pin
  is reported; release candidates and other pre-releases are not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .refresh_model import Change, FileDiff, RefreshError, read_text

AKS_VERSIONS: Final = ("MicrosoftDocs/azure-aks-docs", "articles/aks/supported-kubernetes-versions.md")
_ADDON = re.compile(r"ai-toolchain-operator v?(\d+\.\d+\.\d+)")
_RELEASE = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")


def read_addon_versions(path: Path) -> dict[str, str]:
    """Kubernetes minor → the ``ai-toolchain-operator`` version its add-on list names (minors that name none are
    left out)."""
    out: dict[str, str] = {}
    for section in re.split(r"^### Kubernetes ", read_text(path), flags=re.MULTILINE)[1:]:
        found = _ADDON.search(section)
        if found:
            out[section.split()[0]] = found.group(1)
    return out


def diff_kaito_addon(upstream: dict[str, str], facts: dict[str, Any]) -> FileDiff:
    known = {str(v["kubernetesMinor"]): str(v["addonVersion"]) for v in facts["versions"]}
    diff = FileDiff("gpu_catalog/facts/kaito_addon.json", AKS_VERSIONS)
    note = (
        "the add-on version decides the KAITO tag the presets and the Workspace CRD are read at "
        "(kaito.json, kaito_presets.py): review and update by hand"
    )
    for minor in sorted(upstream, key=lambda m: tuple(int(p) for p in m.split("."))):
        if minor not in known:
            diff.changes.append(Change("added", f"versions[{minor}].addonVersion", None, upstream[minor], note))
        elif known[minor] != upstream[minor]:
            diff.changes.append(
                Change("changed", f"versions[{minor}].addonVersion", known[minor], upstream[minor], note)
            )
    return diff


@dataclass(frozen=True)
class TagWatch:
    option: str
    repository: str
    facts_file: str
    pin: Callable[[dict[str, Any]], str]
    what: str


TAG_WATCHES: Final = (
    TagWatch("gpu_operator_tags", "NVIDIA/gpu-operator", "gpu_operator.json", lambda d: str(d["default"]), "default"),
    TagWatch(
        "device_plugin_tags",
        "NVIDIA/k8s-device-plugin",
        "device_plugins.json",
        lambda d: str(d["chart"]["version"]),
        "chart.version",
    ),
    TagWatch(
        "dcgm_exporter_tags",
        "NVIDIA/dcgm-exporter",
        "gpu_monitoring.json",
        lambda d: str(d["dcgmExporterChart"]["version"]),
        "dcgmExporterChart.version",
    ),
)
"""Each watched repository: the refresh option, the facts file and the pin read from it."""


def release(tag: str) -> tuple[int, int, int] | None:
    """``v26.7.0`` → ``(26, 7, 0)``; a dcgm-exporter tag ``4.5.3-4.8.2`` → its exporter part ``(4, 8, 2)``; a
    pre-release (``v26.7.0-rc.1``) or another name → ``None``."""
    found = _RELEASE.match(tag.rsplit("-", 1)[-1] if re.match(r"^\d+\.\d+\.\d+-\d", tag) else tag)
    return (int(found.group(1)), int(found.group(2)), int(found.group(3))) if found else None


def read_tags(path: Path) -> list[str]:
    """Tag names, one per line: a bare name, ``refs/tags/<name>`` or ``git ls-remote`` output (``<sha>\\t<ref>``);
    blank lines and ``#`` comments are skipped."""
    tags = []
    for line in read_text(path).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        tags.append(line.split()[-1].removeprefix("refs/tags/").removesuffix("^{}"))
    if not tags:
        raise RefreshError(f"{path}: no tag names (one per line, or git ls-remote --tags output)")
    return tags


def diff_tags(watch: TagWatch, tags: list[str], facts: dict[str, Any]) -> FileDiff:
    pinned = watch.pin(facts)
    diff = FileDiff(f"gpu_catalog/facts/{watch.facts_file}", (watch.repository, "git tags"))
    floor = release(pinned)
    if floor is None:
        raise RefreshError(f"gpu_catalog/facts/{watch.facts_file}: {watch.what} {pinned!r} is not a release version")
    newer = sorted({t for t in tags if (r := release(t)) is not None and r > floor}, key=lambda t: release(t) or ())
    for tag in newer:
        note = f"newer than the pinned {pinned}: read its release notes and pin it by hand (never written)"
        diff.changes.append(Change("added", f"{watch.what}[{tag}]", None, tag, note))
    return diff
