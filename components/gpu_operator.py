"""``GpuOperator``: NVIDIA's GPU operator (Helm chart ``gpu-operator``) on the cluster's Linux GPU pools.

* Chart ``gpu-operator`` from https://helm.ngc.nvidia.com/nvidia, pinned version (``gpuOperator.version``), own
  namespace (``gpu-operator``), installed through a Kubernetes provider built from the cluster's secret user
  kubeconfig (see :mod:`components.aks_cluster` for why ``kubelogin`` is needed).
* Driver mode follows the pools: pools that skip the AKS driver (``gpuProfile.driver=None``, ``driver: operator``)
  → the operator installs driver and container toolkit; pools that keep the AKS driver → ``driver.enabled=false``
  and ``toolkit.enabled=false``. A cluster uses one mode for all its Linux GPU pools (checked in the config).
* GPU sharing per pool: time-slicing or MPS replicas, rendered as one named entry per pool in the device plugin's
  ConfigMap (``devicePlugin.config``); each pool's nodes select their entry with the node label
  ``nvidia.com/device-plugin.config: <pool name>`` (set by ``GpuNodePool``). Nodes without the label use
  ``default`` (no sharing).
* MIG, by driver mode. AKS partitions a pool's GPUs (``gpuInstanceProfile``) only when AKS installs the driver
  (Azure/AgentBaker ``cse_main.sh``: ``ensureMigPartition`` sits inside the ``skip_nvidia_driver_install != true``
  branch). So when the operator installs the driver, its MIG manager is on and partitions each MIG pool into the
  layout of the pool's ``nvidia.com/mig.config`` label (``all-3g.40gb``; set by ``GpuNodePool``); when AKS installs
  the driver, AKS partitions and the MIG manager stays off (it would reset unlabelled MIG-capable nodes to
  ``all-disabled``). Either way the device plugin advertises what the MIG strategy names (``single``:
  ``nvidia.com/gpu``; ``mixed``: ``nvidia.com/mig-3g.40gb``), which is what the output contract says.
* Tolerations: the daemonsets (and node-feature-discovery's worker) tolerate every taint of every managed pool.

:class:`GpuOperatorArgs` holds what the chart's values are made of, already derived from the pools
(:func:`composition.wiring.gpu_operator_args` reads each pool's contract entry and sharing config, computed once by
``GpuNodePool``); the Kubernetes provider and what the release waits for are passed next to it. Its rules apply to
the pools it manages (the driver install, the validated platforms): each pool checks them
(:class:`~components.gpu_node_pool.GpuPoolSpec`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import yaml

from gpu_catalog.lifecycle import default_gpu_operator_version

from .contract import Toleration
from .helm import helm_release
from .pool_scheduling import MigStrategy, SharedPool

TYPE_TOKEN = "azure-gpu-platform:components:GpuOperator"
CHART = "gpu-operator"
CHART_REPO = "https://helm.ngc.nvidia.com/nvidia"
RELEASE_NAME = "gpu-operator"
DEVICE_PLUGIN_CONFIGMAP = "device-plugin-config"
DEFAULT_DEVICE_PLUGIN_CONFIG = "default"

_CHART_DEFAULT_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


@dataclass(frozen=True)
class GpuOperatorArgs:
    """The GPU operator release: chart version, namespace and the values derived from the pools it manages."""

    version: str = field(default_factory=default_gpu_operator_version)
    """Chart version (default: ``gpu_catalog/facts/gpu_operator.json``)."""
    namespace: str = "gpu-operator"
    mig_strategy: MigStrategy = "single"
    dcgm_exporter: bool = True
    installs_driver: bool = True
    """``driver.enabled`` and ``toolkit.enabled``: false on pools that keep the AKS driver."""
    mig_manager: bool = False
    """The MIG manager partitions the pools whose driver the operator installs (their ``nvidia.com/mig.config``)."""
    shared_pools: Mapping[str, SharedPool] = field(default_factory=dict)
    """Pool name → its device plugin sharing config (selected by the pool's ``nvidia.com/device-plugin.config``)."""
    tolerations: Sequence[Toleration] = ()
    """The managed pools' taints, in pool order (duplicates are dropped)."""


def device_plugin_config(mig_strategy: MigStrategy, shared: SharedPool | None = None) -> dict[str, Any]:
    """The device plugin config (``version: v1``): the MIG strategy and, for a sharing pool, its strategy and
    replicas."""
    doc: dict[str, Any] = {"version": "v1", "flags": {"migStrategy": mig_strategy}}
    if shared is None:
        return doc
    resource = {"name": shared.resource_name, "replicas": shared.sharing.replicas}
    body: dict[str, Any] = {"renameByDefault": shared.sharing.rename_by_default, "resources": [resource]}
    doc["sharing"] = {shared.sharing.mode: body}
    return doc


def device_plugin_configs(args: GpuOperatorArgs) -> dict[str, str]:
    """ConfigMap data: ``default`` plus one YAML document per sharing pool, keyed by the pool name."""
    data = {DEFAULT_DEVICE_PLUGIN_CONFIG: yaml.safe_dump(device_plugin_config(args.mig_strategy), sort_keys=False)}
    for pool, shared in args.shared_pools.items():
        data[pool] = yaml.safe_dump(device_plugin_config(args.mig_strategy, shared), sort_keys=False)
    return data


def operator_tolerations(tolerations: Sequence[Toleration]) -> list[dict[str, str]]:
    """The chart's default toleration, then every pool toleration not already covered."""
    out: list[dict[str, str]] = [dict(_CHART_DEFAULT_TOLERATION)]
    for tol in tolerations:
        as_dict = tol.to_dict()
        covered = any(t["operator"] == "Exists" and t["key"] == tol.key and t["effect"] == tol.effect for t in out)
        if not covered and as_dict not in out:
            out.append(as_dict)
    return out


def operator_values(args: GpuOperatorArgs) -> dict[str, Any]:
    """Helm values for the chart."""
    tolerations = operator_tolerations(args.tolerations)
    return {
        "driver": {"enabled": args.installs_driver},
        "toolkit": {"enabled": args.installs_driver},
        "mig": {"strategy": args.mig_strategy},
        "migManager": {"enabled": args.mig_manager},
        "dcgmExporter": {"enabled": args.dcgm_exporter},
        "daemonsets": {"tolerations": tolerations},
        "node-feature-discovery": {"worker": {"tolerations": tolerations}},
        "devicePlugin": {
            "config": {
                "create": True,
                "name": DEVICE_PLUGIN_CONFIGMAP,
                "default": DEFAULT_DEVICE_PLUGIN_CONFIG,
                "data": device_plugin_configs(args),
            }
        },
    }


class GpuOperator(pulumi.ComponentResource):
    """The NVIDIA GPU operator Helm release for one cluster.

    ``provider``: the cluster's Kubernetes provider; ``depends_on``: what the release waits for (the GPU pools, so
    the daemonsets land on nodes that exist and a replaced pool is in place before the operator is reconfigured for
    it, and the data-plane role assignments' propagation on the first ``pulumi up``).
    """

    version: str
    namespace: str

    def __init__(
        self,
        name: str,
        args: GpuOperatorArgs,
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
            chart=CHART,
            repo=CHART_REPO,
            version=args.version,
            namespace=args.namespace,
            values=operator_values(args),
            parent=self,
            provider=provider,
            depends_on=depends_on,
        )
        self.register_outputs({"version": self.version, "namespace": self.namespace})
