"""AKS scale limits a stack can exceed: node pools per cluster, nodes per pool, nodes per cluster (by tier).

The values are read once from ``gpu_catalog/facts/aks_limits.json``, which records their sources (the AKS limits
page, MicrosoftDocs/azure-aks-docs ``articles/aks/quotas-skus-regions.md``, whose table is the include
``container-service-limits.md``; the tier limits from ``free-standard-pricing-tiers.md``). These are limits, not
quotas: no support request raises them. Facts are counts the caller has already resolved (the stack's defaults
applied); findings name the fact's field (``nodePools``, ``nodes``) and say what is allowed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from . import Finding

LIMITS_PATH: Final = Path(__file__).resolve().parents[1] / "gpu_catalog" / "facts" / "aks_limits.json"
SOURCE: Final = "AKS quotas and limits, MicrosoftDocs/azure-aks-docs articles/aks/quotas-skus-regions.md"


@dataclass(frozen=True, slots=True)
class AksLimits:
    node_pools_per_cluster: int
    nodes_per_node_pool: int
    nodes_per_cluster: dict[str, int]
    """By cluster tier (Free, Standard, Premium)."""
    pods_per_node: int


@cache
def aks_limits(path: Path = LIMITS_PATH) -> AksLimits:
    raw = json.loads(path.read_text(encoding="utf-8"))["limits"]
    return AksLimits(
        node_pools_per_cluster=int(raw["nodePoolsPerCluster"]),
        nodes_per_node_pool=int(raw["nodesPerNodePool"]),
        nodes_per_cluster={str(k): int(v) for k, v in raw["nodesPerCluster"].items()},
        pods_per_node=int(raw["podsPerNode"]),
    )


MAX_NODE_POOLS_PER_CLUSTER: Final = aks_limits().node_pools_per_cluster
MAX_NODES_PER_NODE_POOL: Final = aks_limits().nodes_per_node_pool
MAX_PODS_PER_NODE: Final = aks_limits().pods_per_node


@dataclass(frozen=True, slots=True)
class ClusterScale:
    """What one cluster asks for: its node pools (system pools included) and the most nodes each may run."""

    tier: str
    system_pools: int
    pool_max_nodes: tuple[int, ...]
    """The largest node count of every pool (system and GPU): ``maxCount`` when autoscaling, else ``count``."""


def node_pools_per_cluster(scale: ClusterScale) -> list[Finding]:
    """At most 100 node pools per cluster, the system pool counted."""
    total = len(scale.pool_max_nodes)
    limit = MAX_NODE_POOLS_PER_CLUSTER
    if total <= limit:
        return []
    gpu = total - scale.system_pools
    return [
        Finding(
            "nodePools",
            f"{total} node pools ({scale.system_pools} system + {gpu} GPU) on one cluster: AKS allows at most {limit} "
            f"node pools per cluster ({SOURCE}); allowed: at most {limit - scale.system_pools} GPU pools next to "
            f"{scale.system_pools} system pool{'s' if scale.system_pools != 1 else ''} — split them over clusters",
        )
    ]


def nodes_per_cluster(scale: ClusterScale) -> list[Finding]:
    """At most 5,000 nodes per cluster on the Standard and Premium tiers, 1,000 on Free, over every pool's largest
    node count."""
    limit = aks_limits().nodes_per_cluster.get(scale.tier)
    total = sum(scale.pool_max_nodes)
    if limit is None or total <= limit:
        return []
    return [
        Finding(
            "nodes",
            f"the pools may run {total:,} nodes together (every pool's maxCount, or count without autoscaling): AKS "
            f"allows at most {limit:,} nodes per cluster on the {scale.tier} tier ({SOURCE}); allowed: pool sizes "
            f"adding up to {limit:,} or fewer",
        )
    ]


def cluster_scale(scale: ClusterScale) -> list[Finding]:
    """Every scale limit of one cluster (nodes per pool is the stack schema's bound: ``MAX_NODES_PER_NODE_POOL``)."""
    return [*node_pools_per_cluster(scale), *nodes_per_cluster(scale)]
