"""Input series for ``promtool test rules``, shaped exactly as Azure's managed Prometheus agent stores dcgm-exporter's
series scraped through the platform's ServiceMonitor — written here independently of the facts the rules read, so a
rule that reads a label under a name the agent does not store fails its scenario.

The exporter (NVIDIA/dcgm-exporter ``internal/pkg/rendermetrics/render_metrics.go``): every GPU series carries ``gpu``,
``UUID``, ``pci_bus_id``, ``device``, ``modelName``; a MIG instance adds ``GPU_I_PROFILE`` and ``GPU_I_ID`` and keeps
its parent GPU's ``UUID``; the node name is ``hostname`` from 4.6.0-4.8.3 (release PR #711, after PR #655) and
``Hostname`` at 4.5.3-4.8.2; a GPU allocated to a pod gets ``pod``, ``namespace``, ``container`` (the kubelet's
pod-resources API), one series per physical GPU (one pod's labels) unless ``KUBERNETES_VIRTUAL_GPUS=true`` (one per
pod, with ``vgpu``); an unallocated GPU has none of them. The scrape (prometheus/prometheus ``scrape/scrape.go``
``mutateSampleLabels``, honor_labels false; prometheus-operator's ServiceMonitor target labels): a scraped label that
collides with a target label becomes ``exported_<name>``, an empty one is absent, and every target label is added.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OPERATOR_TARGET = {
    "namespace": "gpu-operator",
    "service": "nvidia-dcgm-exporter",
    "pod": "nvidia-dcgm-exporter-7xk2p",
    "container": "nvidia-dcgm-exporter",
    "endpoint": "gpu-metrics",
    "job": "nvidia-dcgm-exporter",
    "instance": "10.244.3.7:9400",
}
CHART_TARGET = {
    "namespace": "dcgm-exporter",
    "service": "dcgm-exporter",
    "pod": "dcgm-exporter-q9z8w",
    "container": "exporter",
    "endpoint": "metrics",
    "job": "dcgm-exporter",
    "instance": "10.244.5.9:9400",
}
KSM_TARGET = {"job": "kube-state-metrics", "instance": "10.244.0.12:8080"}
POOL = "label_azure_gpu_platform_pool"
"""kube-state-metrics' name for the node label ``azure-gpu-platform/pool`` (``label_`` + key, other chars ``_``)."""


def stored(exposed: Mapping[str, str], target: Mapping[str, str], cluster: str) -> dict[str, str]:
    """A scraped series' labels as the agent stores them (honor_labels false) plus its ``cluster`` label."""
    out: dict[str, str] = {}
    for name, value in exposed.items():
        if value == "":
            continue
        out[f"exported_{name}" if name in target else name] = value
    return {**out, **target, "cluster": cluster}


@dataclass(frozen=True)
class Gpu:
    """One GPU (or MIG instance) on a node, as the exporter exposes it."""

    node: str
    uuid: str
    index: int = 0
    model: str = "NVIDIA A100 80GB PCIe"
    mig: tuple[str, int] | None = None
    """(GPU_I_PROFILE, GPU_I_ID) of a MIG instance."""
    pod: tuple[str, str] | None = None
    """(namespace, pod) the kubelet allocated it to."""
    vgpu: int | None = None

    def exposed(self, node_label: str) -> dict[str, str]:
        labels = {
            "gpu": str(self.index),
            "UUID": self.uuid,
            "pci_bus_id": f"0000{self.index:04d}:00:00.0",
            "device": f"nvidia{self.index}",
            "modelName": self.model,
        }
        if self.mig is not None:
            labels |= {"GPU_I_PROFILE": self.mig[0], "GPU_I_ID": str(self.mig[1])}
        labels[node_label] = self.node
        if self.pod is not None:
            labels |= {"pod": self.pod[1], "namespace": self.pod[0], "container": "main"}
        if self.vgpu is not None:
            labels["vgpu"] = str(self.vgpu)
        return labels


@dataclass
class Scenario:
    """The input series of one ``promtool test rules`` test and the alerts expected at each evaluation time."""

    cluster: str
    node_label: str
    target: Mapping[str, str]
    series: list[dict[str, str]] = field(default_factory=list)
    expected: dict[str, list[dict[str, str]]] = field(default_factory=dict)

    def add(self, metric: str, gpu: Gpu, values: str) -> dict[str, str]:
        """A DCGM series of ``gpu``; returns its stored labels (without the metric name)."""
        labels = stored(gpu.exposed(self.node_label), self.target, self.cluster)
        self.series.append({"series": _selector(metric, labels), "values": values})
        return labels

    def node(self, name: str, pool: str) -> None:
        """kube-state-metrics' ``kube_node_labels`` of a node (its ``node`` label; the pool label allow-listed)."""
        labels = {**KSM_TARGET, "cluster": self.cluster, "node": name, POOL: pool}
        self.series.append({"series": _selector("kube_node_labels", labels), "values": "1+0x200"})

    def expect(self, alert: str, labels: Mapping[str, str]) -> None:
        self.expected.setdefault(alert, []).append(dict(labels))

    def test(self, alerts: Mapping[str, str], eval_minutes: int, pending_minutes: int) -> dict[str, Any]:
        """The promtool test: at ``eval_minutes`` exactly the expected alerts of every rule (``alerts``: name →
        summary) fire; at ``pending_minutes`` (inside the idle window) no idle alert fires yet."""
        cases = [
            {
                "eval_time": f"{eval_minutes}m",
                "alertname": name,
                "exp_alerts": [
                    {"exp_labels": labels, "exp_annotations": {"summary": summary}}
                    for labels in self.expected.get(name, [])
                ],
            }
            for name, summary in alerts.items()
        ]
        cases += [
            {"eval_time": f"{pending_minutes}m", "alertname": name, "exp_alerts": []}
            for name in alerts
            if "Idle" in name
        ]
        return {"interval": "1m", "input_series": self.series, "alert_rule_test": cases}


def _selector(metric: str, labels: Mapping[str, str]) -> str:
    inner = ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    return f"{metric}{{{inner}}}"


def gpu_keys(labels: Mapping[str, str], node_label: str, *extra: str) -> dict[str, str]:
    """The labels an aggregated alert keeps: the node and UUID (and ``extra``) of a stored series."""
    return {k: labels[k] for k in (node_label, "UUID", *extra)}
