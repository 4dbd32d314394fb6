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
"""

from __future__ import annotations

from typing import Any

import pulumi
import yaml

from .aks_cluster import AksGpuCluster
from .config import GpuPoolConfig, StackConfig
from .gpu_node_pool import mig_partitioned_by_operator, mig_resource_name, pool_tolerations

TYPE_TOKEN = "azure-gpu-platform:components:GpuOperator"
CHART = "gpu-operator"
CHART_REPO = "https://helm.ngc.nvidia.com/nvidia"
RELEASE_NAME = "gpu-operator"
DEVICE_PLUGIN_CONFIGMAP = "device-plugin-config"
DEFAULT_DEVICE_PLUGIN_CONFIG = "default"

_CHART_DEFAULT_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def managed_pools(cfg: StackConfig) -> list[GpuPoolConfig]:
    """The pools the operator manages: every Linux GPU pool of the cluster."""
    return [p for p in cfg.gpuPools if cfg.operator_manages(p)]


def device_plugin_config(cfg: StackConfig, pool: GpuPoolConfig) -> dict[str, Any]:
    """The device plugin config (``version: v1``) for one pool: its sharing strategy and replicas."""
    doc: dict[str, Any] = {"version": "v1", "flags": {"migStrategy": cfg.gpuOperator.migStrategy}}
    if pool.sharing is None or pool.sharing_mode == "none":
        return doc
    resource = {"name": mig_resource_name(pool, cfg.gpuOperator), "replicas": pool.sharing.replicas}
    body: dict[str, Any] = {"renameByDefault": pool.sharing.rename_by_default, "resources": [resource]}
    doc["sharing"] = {pool.sharing_mode: body}
    return doc


def device_plugin_configs(cfg: StackConfig) -> dict[str, str]:
    """ConfigMap data: ``default`` plus one YAML document per sharing pool, keyed by the pool name."""
    data = {
        DEFAULT_DEVICE_PLUGIN_CONFIG: yaml.safe_dump(
            {"version": "v1", "flags": {"migStrategy": cfg.gpuOperator.migStrategy}}, sort_keys=False
        )
    }
    for pool in managed_pools(cfg):
        if pool.sharing_mode != "none":
            data[pool.name] = yaml.safe_dump(device_plugin_config(cfg, pool), sort_keys=False)
    return data


def operator_tolerations(cfg: StackConfig) -> list[dict[str, str]]:
    out: list[dict[str, str]] = [dict(_CHART_DEFAULT_TOLERATION)]
    for pool in managed_pools(cfg):
        for tol in pool_tolerations(pool):
            as_dict = tol.to_dict()
            covered = any(t["operator"] == "Exists" and t["key"] == tol.key and t["effect"] == tol.effect for t in out)
            if not covered and as_dict not in out:
                out.append(as_dict)
    return out


def operator_partitions_mig(cfg: StackConfig) -> bool:
    """Whether the operator's MIG manager runs: some MIG pool gets its driver (and MIG layout) from the operator."""
    return any(mig_partitioned_by_operator(cfg, p) for p in managed_pools(cfg))


def operator_values(cfg: StackConfig) -> dict[str, Any]:
    """Helm values for the chart, derived from the pools."""
    installs = cfg.operator_installs_driver
    tolerations = operator_tolerations(cfg)
    values: dict[str, Any] = {
        "driver": {"enabled": installs},
        "toolkit": {"enabled": installs},
        "mig": {"strategy": cfg.gpuOperator.migStrategy},
        "migManager": {"enabled": operator_partitions_mig(cfg)},
        "dcgmExporter": {"enabled": cfg.gpuOperator.dcgmExporter},
        "daemonsets": {"tolerations": tolerations},
        "node-feature-discovery": {"worker": {"tolerations": tolerations}},
        "devicePlugin": {
            "config": {
                "create": True,
                "name": DEVICE_PLUGIN_CONFIGMAP,
                "default": DEFAULT_DEVICE_PLUGIN_CONFIG,
                "data": device_plugin_configs(cfg),
            }
        },
    }
    return values


class GpuOperator(pulumi.ComponentResource):
    """The NVIDIA GPU operator Helm release for one cluster."""

    version: str
    namespace: str

    def __init__(
        self,
        name: str,
        cfg: StackConfig,
        cluster: AksGpuCluster,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        from pulumi_kubernetes.helm.v3 import Release, ReleaseArgs, RepositoryOptsArgs

        op = cfg.gpuOperator
        self.version = op.version
        self.namespace = op.namespace
        pools = [p.agent_pool for p in cluster.pools]
        self.release = Release(
            f"{name}-release",
            ReleaseArgs(
                name=RELEASE_NAME,
                chart=CHART,
                version=op.version,
                repository_opts=RepositoryOptsArgs(repo=CHART_REPO),
                namespace=op.namespace,
                create_namespace=True,
                values=operator_values(cfg),
            ),
            opts=pulumi.ResourceOptions(
                parent=self,
                provider=cluster.kubernetes_provider(),
                # After the GPU pools: the operator's daemonsets land on nodes that exist, and a pool replacement
                # (new name) is in place before the operator is reconfigured for it.
                # ... and after the data-plane role assignments have propagated (the first `pulumi up`).
                depends_on=[*(pools or [cluster.cluster]), *cluster.kubernetes_access],
            ),
        )
        self.register_outputs({"version": self.version, "namespace": self.namespace})
