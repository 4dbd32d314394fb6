"""``build_platform(cfg)`` wires the components of one environment; ``export_contract(...)`` exports the contract.

Resource tree (URNs are pinned by the snapshot tests in ``tests/components/snapshots/``)::

    AksGpuCluster "aks"
      ResourceGroup "aks-rg"            (unless resourceGroup.existing)
      ManagedCluster "aks-cluster"
      GpuNodePool "aks-<pool>" → AgentPool "aks-<pool>"   (chained: each after the previous)
      kubernetes Provider "aks-k8s"     (when something runs in the cluster)
    GpuOperator "gpu-operator" → helm.sh/v3 Release "gpu-operator-release"   (when gpuOperator.enabled)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi

from .aks_cluster import AksGpuCluster
from .config import StackConfig
from .contract import CONTRACT_VERSION
from .gpu_node_pool import pool_contract
from .gpu_operator import GpuOperator

CLUSTER_COMPONENT = "aks"
OPERATOR_COMPONENT = "gpu-operator"


@dataclass
class Platform:
    """What :func:`build_platform` created (for the export and for further components)."""

    cfg: StackConfig
    cluster: AksGpuCluster
    gpu_operator: GpuOperator | None = None


def build_platform(cfg: StackConfig) -> Platform:
    """Create every resource of the environment described by a validated :class:`StackConfig`."""
    cluster = AksGpuCluster(CLUSTER_COMPONENT, cfg)
    operator = GpuOperator(OPERATOR_COMPONENT, cfg, cluster) if cfg.gpuOperator.enabled else None
    return Platform(cfg=cfg, cluster=cluster, gpu_operator=operator)


def contract_outputs(platform: Platform) -> dict[str, Any]:
    """The output contract (version ``CONTRACT_VERSION``): see :mod:`components.contract`."""
    cfg = platform.cfg
    cluster = platform.cluster
    return {
        "contractVersion": CONTRACT_VERSION,
        "environment": cfg.environment,
        "location": cfg.location,
        "resourceGroupName": cluster.resource_group_name,
        "clusterName": cluster.cluster_name,
        "clusterId": cluster.cluster_id,
        "kubernetesVersion": cfg.cluster.kubernetesVersion,
        "oidcIssuerUrl": cluster.oidc_issuer_url,
        "kubeconfig": cluster.kubeconfig,
        "gpuPools": {p.name: pool_contract(cfg, p).to_dict() for p in cfg.gpuPools},
        "gpuOperatorVersion": platform.gpu_operator.version if platform.gpu_operator is not None else None,
    }


def export_contract(platform: Platform) -> None:
    """Export the contract as stack outputs (``kubeconfig`` stays secret)."""
    for key, value in contract_outputs(platform).items():
        pulumi.export(key, value)
