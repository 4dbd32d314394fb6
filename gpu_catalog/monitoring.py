"""GPU monitoring facts (``facts/gpu_monitoring.json``, each with its source): the DCGM exporter chart the platform
pins, the exporter the GPU operator deploys, the metric names each exposes by default and their labels, and Azure
Monitor managed service for Prometheus (workspace regions, the resources and names the metrics add-on needs). Read
by :mod:`rules.monitoring`, the monitoring component and the dashboard export. No Pulumi imports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

MONITORING_FACTS = Path(__file__).with_name("facts") / "gpu_monitoring.json"


class MonitoringFactsError(ValueError):
    """The facts file is malformed; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class ExporterFacts:
    """One DCGM exporter deployment: its Service (what a ServiceMonitor selects) and the metrics it exposes."""

    name: str
    service_port_name: str
    service_port: int
    service_selector: dict[str, str]
    metrics: frozenset[str]
    version: str = ""
    """The exporter image's version (``<DCGM>-<exporter>``, e.g. ``4.6.0-4.8.3``): the label names depend on it."""


@dataclass(frozen=True, slots=True)
class StoredLabels:
    """The label names a DCGM series carries **as the managed agent stores it**: node and GPU labels as the exporter
    version spells them, workload labels (pod, namespace, container) under the name the scrape leaves them
    (``exported_<name>`` when they collide with the agent's own target labels, ``honorLabels`` off)."""

    exporter_version: str
    node: str
    gpu: str
    uuid: str
    model: str
    mig_profile: str
    mig_instance: str
    pod: str
    namespace: str
    container: str


@dataclass(frozen=True, slots=True)
class ContainerInsightsFacts:
    """Container Insights with managed-identity authentication, as Microsoft's onboarding template sends it."""

    addon: str
    addon_config: dict[str, str]
    workspace_config_key: str
    dcr_name_prefix: str
    dcr_name_max_length: int
    dcr_kind: str
    data_source_name: str
    extension_name: str
    streams: tuple[str, ...]
    data_collection_settings: dict[str, Any]
    destination_name: str
    association_name: str
    association_description: str


@dataclass(frozen=True, slots=True)
class DcgmChartFacts:
    name: str
    repository: str
    version: str
    namespace: str
    exporter: ExporterFacts


@dataclass(frozen=True, slots=True)
class MonitoringFacts:
    chart: DcgmChartFacts
    operator: ExporterFacts
    operator_version: str
    """The GPU operator release whose exporter the facts describe."""
    labels_by_version: dict[str, dict[str, str]]
    """Exporter version → role (``node``, ``uuid``, ``pod`` …) → the label name that version writes."""
    honor_labels: bool
    target_labels: tuple[str, ...]
    collision_prefix: str
    node_labels_metric: str
    node_label_prefix: str
    workspace_regions: tuple[str, ...]
    scrape_crd_group: str
    service_monitor_limits: dict[str, int]
    stream: str
    name_prefix: str
    api_versions: dict[str, str]
    container_insights: ContainerInsightsFacts
    sources: dict[str, Any]

    def stored_labels(self, exporter: ExporterFacts) -> StoredLabels:
        """The labels of ``exporter``'s series as the agent stores them (see :class:`StoredLabels`)."""
        written = self.labels_by_version[exporter.version]

        def stored(role: str) -> str:
            name = written[role]
            collides = not self.honor_labels and name in self.target_labels
            return self.collision_prefix + name if collides else name

        return StoredLabels(
            exporter_version=exporter.version,
            node=stored("node"),
            gpu=stored("gpu"),
            uuid=stored("uuid"),
            model=stored("model"),
            mig_profile=stored("migProfile"),
            mig_instance=stored("migInstance"),
            pod=stored("pod"),
            namespace=stored("namespace"),
            container=stored("container"),
        )

    @property
    def common_metrics(self) -> frozenset[str]:
        """Metrics both exporters expose by default: what alerts and the dashboard may name."""
        return self.chart.exporter.metrics & self.operator.metrics


def _req(doc: dict[str, Any], key: str, where: str) -> Any:
    if key not in doc:
        raise MonitoringFactsError(f"{MONITORING_FACTS.name}: {where} has no {key!r}")
    return doc[key]


def _container_insights(ci: dict[str, Any]) -> ContainerInsightsFacts:
    where = "containerInsights"
    return ContainerInsightsFacts(
        addon=_req(ci, "addon", where),
        addon_config=dict(_req(ci, "addonConfig", where)),
        workspace_config_key=_req(ci, "workspaceConfigKey", where),
        dcr_name_prefix=_req(ci, "dcrNamePrefix", where),
        dcr_name_max_length=int(_req(ci, "dcrNameMaxLength", where)),
        dcr_kind=_req(ci, "dcrKind", where),
        data_source_name=_req(ci, "dataSourceName", where),
        extension_name=_req(ci, "extensionName", where),
        streams=tuple(_req(ci, "streams", where)),
        data_collection_settings=dict(_req(ci, "dataCollectionSettings", where)),
        destination_name=_req(ci, "destinationName", where),
        association_name=_req(ci, "associationName", where),
        association_description=_req(ci, "associationDescription", where),
    )


@lru_cache(maxsize=1)
def load_monitoring_facts() -> MonitoringFacts:
    """The facts, read once."""
    return monitoring_facts_from(json.loads(MONITORING_FACTS.read_text(encoding="utf-8")))


def monitoring_facts_from(doc: dict[str, Any]) -> MonitoringFacts:
    """The facts of a parsed ``gpu_monitoring.json``; :class:`MonitoringFactsError` names what is missing, and refuses
    an exporter whose image version has no label names read (``metrics.labelsByExporterVersion``)."""
    chart = _req(doc, "dcgmExporterChart", "the file")
    operator = _req(doc, "operatorExporter", "the file")
    metrics = _req(doc, "metrics", "the file")
    ksm = _req(doc, "kubeStateMetrics", "the file")
    azure = _req(doc, "azureMonitor", "the file")
    sources = _req(doc, "sources", "the file")
    scrape = _req(doc, "scrape", "the file")
    ci = _req(doc, "containerInsights", "the file")
    labels = {v: dict(names) for v, names in _req(metrics, "labelsByExporterVersion", "metrics").items()}
    sections = [
        ("dcgmExporterChart", chart),
        ("operatorExporter", operator),
        ("azureMonitor", azure),
        ("scrape", scrape),
    ]
    sections += [(f"metrics.labelsByExporterVersion.{v}", names) for v, names in labels.items()]
    for where, section in sections:
        if section.get("source") not in sources:
            raise MonitoringFactsError(f"{MONITORING_FACTS.name}: {where}.source names no entry of 'sources'")
    for where, section in (("dcgmExporterChart", chart), ("operatorExporter", operator)):
        version = _req(section, "exporterVersion", where)
        if version not in labels or not str(section.get("image", "")).split(":")[-1].startswith(version + "-"):
            raise MonitoringFactsError(
                f"{MONITORING_FACTS.name}: {where}.exporterVersion {version!r} must be the version of its image "
                f"and have its label names read (metrics.labelsByExporterVersion has {sorted(labels)})"
            )
    return MonitoringFacts(
        chart=DcgmChartFacts(
            name=_req(chart, "name", "dcgmExporterChart"),
            repository=_req(chart, "repository", "dcgmExporterChart"),
            version=_req(chart, "version", "dcgmExporterChart"),
            namespace=_req(chart, "namespace", "dcgmExporterChart"),
            exporter=ExporterFacts(
                name=_req(chart, "name", "dcgmExporterChart"),
                service_port_name=_req(chart, "servicePortName", "dcgmExporterChart"),
                service_port=int(_req(chart, "servicePort", "dcgmExporterChart")),
                service_selector=dict(_req(chart, "serviceSelector", "dcgmExporterChart")),
                metrics=frozenset(_req(metrics, "chart", "metrics")),
                version=_req(chart, "exporterVersion", "dcgmExporterChart"),
            ),
        ),
        operator=ExporterFacts(
            name=_req(operator, "serviceName", "operatorExporter"),
            service_port_name=_req(operator, "servicePortName", "operatorExporter"),
            service_port=int(_req(operator, "servicePort", "operatorExporter")),
            service_selector=dict(_req(operator, "serviceSelector", "operatorExporter")),
            metrics=frozenset(_req(metrics, "operator", "metrics")),
            version=_req(operator, "exporterVersion", "operatorExporter"),
        ),
        operator_version=_req(operator, "gpuOperatorVersion", "operatorExporter"),
        labels_by_version=labels,
        honor_labels=bool(_req(scrape, "honorLabels", "scrape")),
        target_labels=tuple(_req(scrape, "targetLabels", "scrape")),
        collision_prefix=_req(scrape, "collisionPrefix", "scrape"),
        node_labels_metric=_req(ksm, "nodeLabelsMetric", "kubeStateMetrics"),
        node_label_prefix=_req(ksm, "nodeLabelPrefix", "kubeStateMetrics"),
        workspace_regions=tuple(_req(azure, "workspaceRegions", "azureMonitor")),
        scrape_crd_group=_req(azure, "scrapeCrdGroup", "azureMonitor"),
        service_monitor_limits=dict(_req(azure, "serviceMonitorLimits", "azureMonitor")),
        stream=_req(azure, "stream", "azureMonitor"),
        name_prefix=_req(azure, "namePrefix", "azureMonitor"),
        api_versions=dict(_req(azure, "apiVersions", "azureMonitor")),
        container_insights=_container_insights(ci),
        sources=sources,
    )
