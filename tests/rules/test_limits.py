"""AKS scale limits (rules/limits.py, facts gpu_catalog/facts/aks_limits.json) and the stack file's refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rules.limits import (
    LIMITS_PATH,
    MAX_NODE_POOLS_PER_CLUSTER,
    MAX_NODES_PER_NODE_POOL,
    MAX_PODS_PER_NODE,
    ClusterScale,
    aks_limits,
    cluster_scale,
)
from stack_config import StackConfigError, validate_stack_config

STACK = "stacks/Pulumi.dev.yaml"
SOURCE = "AKS quotas and limits, MicrosoftDocs/azure-aks-docs articles/aks/quotas-skus-regions.md"


def test_the_limits_are_aks_published_values_with_their_sources() -> None:
    assert (MAX_NODE_POOLS_PER_CLUSTER, MAX_NODES_PER_NODE_POOL, MAX_PODS_PER_NODE) == (100, 1000, 250)
    assert aks_limits().nodes_per_cluster == {"Free": 1000, "Standard": 5000, "Premium": 5000}
    doc = json.loads(LIMITS_PATH.read_text())
    assert [(s["repository"], s["path"], s.get("commit")) for s in doc["sources"]] == [
        (
            "MicrosoftDocs/azure-aks-docs",
            "articles/aks/quotas-skus-regions.md",
            "fb060abe6a8fef960d4c487b543bf7b1e97808fe",
        ),
        (
            "MicrosoftDocs/azure-docs",
            "includes/container-service-limits.md",
            "03adcc30b28ecad9f81aba5638a15fb1930f5ec0",
        ),
        (
            "MicrosoftDocs/azure-aks-docs",
            "articles/aks/free-standard-pricing-tiers.md",
            "fb060abe6a8fef960d4c487b543bf7b1e97808fe",
        ),
        (
            "MicrosoftDocs/azure-aks-docs",
            "articles/aks/best-practices-performance-scale-large.md",
            "fb060abe6a8fef960d4c487b543bf7b1e97808fe",
        ),
    ]


def test_one_hundred_pools_pass_and_one_hundred_and_one_are_refused() -> None:
    assert cluster_scale(ClusterScale("Standard", 1, (2,) + (1,) * 99)) == []
    [finding] = cluster_scale(ClusterScale("Standard", 1, (2,) + (1,) * 100))
    assert finding.field == "nodePools"
    assert finding.message == (
        "101 node pools (1 system + 100 GPU) on one cluster: AKS allows at most 100 node pools per cluster "
        f"({SOURCE}); allowed: at most 99 GPU pools next to 1 system pool — split them over clusters"
    )


def test_nodes_per_cluster_by_tier() -> None:
    assert cluster_scale(ClusterScale("Standard", 1, (3, 1000, 1000, 1000, 1000, 997))) == []
    [finding] = cluster_scale(ClusterScale("Standard", 1, (3, 1000, 1000, 1000, 1000, 998)))
    assert (finding.field, finding.message) == (
        "nodes",
        "the pools may run 5,001 nodes together (every pool's maxCount, or count without autoscaling): AKS allows at "
        f"most 5,000 nodes per cluster on the Standard tier ({SOURCE}); allowed: pool sizes adding up to 5,000 or "
        "fewer",
    )
    assert [f.field for f in cluster_scale(ClusterScale("Free", 1, (2, 999)))] == ["nodes"]
    assert cluster_scale(ClusterScale("Free", 1, (2, 998))) == []


def _stack(pools: int, **pool: Any) -> dict[str, Any]:
    return {
        "environment": "dev",
        "location": "westeurope",
        "cluster": {"access": {"deployerPrincipalType": "User"}},
        "gpuPools": [
            {"name": f"gpu{i}", "vmSize": "Standard_NC24ads_A100_v4", "minCount": 1, "maxCount": 2, **pool}
            for i in range(pools)
        ],
    }


def test_a_stack_with_101_pools_is_refused_naming_the_key_and_the_limit() -> None:
    assert len(validate_stack_config(_stack(99), stack_file=STACK).gpuPools) == 99  # 100 pools with the system pool
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(_stack(100), stack_file=STACK)
    assert [(p.path, p.message) for p in err.value.problems] == [
        (
            "gpuPools",
            f"101 node pools (1 system + 100 GPU) on one cluster: AKS allows at most 100 node pools per cluster "
            f"({SOURCE}); allowed: at most 99 GPU pools next to 1 system pool — split them over clusters",
        )
    ]
    assert f"  {STACK}: gpuPools: 101 node pools" in str(err.value)


def test_a_stack_whose_pools_may_exceed_the_clusters_nodes_is_refused() -> None:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(_stack(6, maxCount=1000), stack_file=STACK)
    assert [p.path for p in err.value.problems] == ["gpuPools"]
    assert err.value.problems[0].message.startswith("the pools may run 6,002 nodes together")


def test_a_pool_above_1000_nodes_is_refused_by_the_schema_bound() -> None:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(_stack(1, maxCount=1001), stack_file=STACK)
    assert [p.path for p in err.value.problems] == ["gpuPools[0].maxCount"]
    assert err.value.problems[0].message == "Input should be less than or equal to 1000 (got 1001)."
