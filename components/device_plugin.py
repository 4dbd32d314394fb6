"""``NvidiaDevicePlugin``: NVIDIA's ``nvidia-device-plugin`` chart for the GPU pools the GPU operator does not manage.

AKS installs the NVIDIA driver on a Linux GPU pool and nothing else: without a device plugin the nodes advertise no
``nvidia.com/gpu`` and GPU pods stay Pending (MicrosoftDocs/azure-aks-docs ``use-nvidia-gpu.md``). When
``gpuOperator.enabled`` is false the platform deploys NVIDIA's chart (NVIDIA/k8s-device-plugin, pinned in
``gpu_catalog/facts/device_plugins.json``) for every Linux GPU pool and NodePool:

* chart ``nvidia-device-plugin`` from https://nvidia.github.io/k8s-device-plugin, in its own namespace (the chart
  refuses ``default``), installed through the cluster's Kubernetes provider;
* ``affinity``: the nodes of the pools it serves, by the platform's pool label (``azure-gpu-platform/pool In
  [...]``). The chart's default affinity needs node-feature-discovery labels that AKS nodes do not carry, and
  selecting our pools keeps it off nodes another plugin serves (a KAITO workspace's);
* ``tolerations``: every taint of the pools it serves (the chart's defaults tolerate ``nvidia.com/gpu`` only);
* ``config.map``: ``default`` (no sharing) plus one config per sharing pool, picked by the node label
  ``nvidia.com/device-plugin.config: <pool>`` (``GpuNodePool`` / ``NapGpuPool`` set it), each with the MIG strategy
  (``flags.migStrategy``) AKS-partitioned MIG pools are advertised with;
* ``gfd.enabled`` when a pool shares by MPS or has a MIG profile: the MPS control daemon only runs on nodes that
  gpu-feature-discovery labels ``nvidia.com/mps.capable=true``, and AKS's MIG guide installs the chart with GFD
  (which brings node-feature-discovery: its worker gets the same tolerations).

What each node then advertises is the node-stack model's (:mod:`rules.node_stack`), which the pools' contract entries
read; the chart values are made of the same pool entries (:func:`composition.wiring.device_plugin_args`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import yaml

from gpu_catalog.device_plugins import load_device_plugin_facts
from rules import Finding
from rules.kube_names import chart_namespace_problem

from .contract import Toleration
from .gpu_operator import DEFAULT_DEVICE_PLUGIN_CONFIG, device_plugin_config
from .helm import helm_release
from .pool_scheduling import POOL_LABEL, MigStrategy, SharedPool
from .validation import refuse_findings

TYPE_TOKEN = "azure-gpu-platform:components:NvidiaDevicePlugin"
COMPONENT = "NvidiaDevicePlugin"
CHART = load_device_plugin_facts().chart
RELEASE_NAME = "nvidia-device-plugin"


@dataclass(frozen=True)
class NvidiaDevicePluginArgs:
    """The chart release: version, namespace and the values derived from the pools it serves."""

    pools: Sequence[str]
    """The logical names of the pools it serves (their nodes carry ``azure-gpu-platform/pool: <name>``)."""
    version: str = CHART.version
    namespace: str = CHART.namespace
    mig_strategy: MigStrategy = "single"
    shared_pools: Mapping[str, SharedPool] = field(default_factory=dict)
    """Pool name → its sharing config (selected by the pool's ``nvidia.com/device-plugin.config`` label)."""
    tolerations: Sequence[Toleration] = ()
    """The served pools' taints, in pool order (duplicates are dropped)."""
    gpu_feature_discovery: bool = False
    """Deploy gpu-feature-discovery (and node-feature-discovery): needed for MPS and AKS-partitioned MIG."""

    def __post_init__(self) -> None:
        found: list[Finding] = []
        if self.version != CHART.version:
            found.append(
                Finding(
                    "version",
                    f"{self.version!r} is not a chart version the facts were read at "
                    f"(gpu_catalog/facts/device_plugins.json). Allowed: {CHART.version}.",
                )
            )
        if not self.pools:
            found.append(Finding("pools", "no pool to serve: deploy the chart only for GPU pools that need it."))
        refused = chart_namespace_problem(CHART.name, self.namespace)
        if refused is not None:
            found.append(Finding("namespace", refused))
        refuse_findings(COMPONENT, RELEASE_NAME, found, {})


def _tolerations(tolerations: Sequence[Toleration]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for tol in tolerations:
        as_dict = tol.to_dict()
        if as_dict not in out:
            out.append(as_dict)
    return out


def device_plugin_values(args: NvidiaDevicePluginArgs) -> dict[str, Any]:
    """Helm values for the chart."""
    configs = {DEFAULT_DEVICE_PLUGIN_CONFIG: yaml.safe_dump(device_plugin_config(args.mig_strategy), sort_keys=False)}
    for pool, shared in args.shared_pools.items():
        configs[pool] = yaml.safe_dump(device_plugin_config(args.mig_strategy, shared), sort_keys=False)
    tolerations = _tolerations(args.tolerations)
    values: dict[str, Any] = {
        "migStrategy": args.mig_strategy,
        "config": {"map": configs, "default": DEFAULT_DEVICE_PLUGIN_CONFIG},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": list(args.pools)}]}
                    ]
                }
            }
        },
        "tolerations": tolerations,
        "gfd": {"enabled": args.gpu_feature_discovery},
    }
    if args.gpu_feature_discovery:
        values["nfd"] = {"worker": {"tolerations": tolerations}}
    return values


class NvidiaDevicePlugin(pulumi.ComponentResource):
    """The nvidia-device-plugin Helm release for one cluster.

    ``provider``: the cluster's Kubernetes provider; ``depends_on``: what the release waits for (the pools it serves
    and the data-plane role assignments' propagation).
    """

    version: str
    namespace: str

    def __init__(
        self,
        name: str,
        args: NvidiaDevicePluginArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        provider: pulumi.ProviderResource,
        depends_on: Sequence[pulumi.Resource] = (),
    ) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        self.version = args.version
        self.namespace = args.namespace
        self.release = helm_release(
            f"{name}-release",
            release_name=RELEASE_NAME,
            chart=CHART.name,
            repo=CHART.repository,
            version=args.version,
            namespace=args.namespace,
            values=device_plugin_values(args),
            parent=self,
            provider=provider,
            depends_on=depends_on,
        )
        self.register_outputs({"version": self.version, "namespace": self.namespace})
