"""Facts about NVIDIA device plugins on AKS GPU nodes (``facts/device_plugins.json``, each with its source).

The nvidia-device-plugin Helm chart the platform pins, the KAITO add-on's own device-plugin DaemonSet (its
tolerations and node selection), and the extended resources device plugins advertise. Read by
:mod:`rules.node_stack` (the node software-stack model) and the device-plugin component. No Pulumi imports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

DEVICE_PLUGIN_FACTS = Path(__file__).with_name("facts") / "device_plugins.json"


class DevicePluginFactsError(ValueError):
    """The facts file is malformed; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class ChartFacts:
    name: str
    repository: str
    version: str
    kube_version: str
    namespace: str


@dataclass(frozen=True, slots=True)
class DevicePluginFacts:
    gpu_resource: str
    mig_resource_prefix: str
    config_label: str
    windows_resource: str
    chart: ChartFacts
    kaito_version: str
    kaito_tolerations: tuple[dict[str, str], ...]
    """As the DaemonSet's manifest writes them (``key``, ``operator``, ``value``, ``effect``)."""
    kaito_node_selector: dict[str, tuple[str, ...]] | None
    kaito_node_taints: tuple[str, ...]
    kaito_safe_taint: str
    sources: dict[str, Any]


def _req(doc: dict[str, Any], key: str, where: str) -> Any:
    if key not in doc:
        raise DevicePluginFactsError(f"{DEVICE_PLUGIN_FACTS.name}: {where} has no {key!r}")
    return doc[key]


@lru_cache(maxsize=1)
def load_device_plugin_facts() -> DevicePluginFacts:
    """The facts, read once."""
    doc = json.loads(DEVICE_PLUGIN_FACTS.read_text(encoding="utf-8"))
    chart = _req(doc, "chart", "the file")
    kaito = _req(doc, "kaitoAddon", "the file")
    sources = _req(doc, "sources", "the file")
    for where, block in (("chart", chart), ("kaitoAddon", kaito)):
        if _req(block, "source", where) not in sources:
            raise DevicePluginFactsError(f"{DEVICE_PLUGIN_FACTS.name}: {where}.source names no recorded source")
    for key in ("napSharingSources", "operatorOsSources", "kaitoNapSources"):
        missing = [sid for sid in doc.get(key, []) if sid not in sources]
        if missing:
            raise DevicePluginFactsError(f"{DEVICE_PLUGIN_FACTS.name}: {key} names unrecorded sources {missing}")
    selector = kaito.get("nodeSelector")
    return DevicePluginFacts(
        gpu_resource=_req(doc, "gpuResource", "the file"),
        mig_resource_prefix=_req(doc, "migResourcePrefix", "the file"),
        config_label=_req(doc, "configLabel", "the file"),
        windows_resource=_req(doc, "windowsResource", "the file"),
        chart=ChartFacts(
            name=_req(chart, "name", "chart"),
            repository=_req(chart, "repository", "chart"),
            version=_req(chart, "version", "chart"),
            kube_version=_req(chart, "kubeVersion", "chart"),
            namespace=_req(chart, "namespace", "chart"),
        ),
        kaito_version=_req(kaito, "version", "kaitoAddon"),
        kaito_tolerations=tuple(dict(t) for t in _req(kaito, "tolerations", "kaitoAddon")),
        kaito_node_selector={k: tuple(v) for k, v in selector.items()} if selector else None,
        kaito_node_taints=tuple(_req(kaito, "nodeTaints", "kaitoAddon")),
        kaito_safe_taint=_req(kaito, "safeTaint", "kaitoAddon"),
        sources=sources,
    )
