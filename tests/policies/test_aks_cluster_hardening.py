"""aks-cluster-hardening: a compliant cluster (restricted API server, Cilium policy, Container Insights, encryption at
host on every pool), then one mutation each; advisory by default (the shipped dev stack accepts them on purpose)."""

from __future__ import annotations

from typing import Any

from policies.aks_cluster_hardening import POLICY
from tests.policies._helpers import AGENT_POOL, MANAGED_CLUSTER, run_policy, with_

HARDENED: dict[str, Any] = {
    "resourceGroupName": "rg-gpu-prod",
    "resourceName": "aks-gpu-prod",
    "apiServerAccessProfile": {"authorizedIPRanges": ["203.0.113.0/24"]},
    "networkProfile": {"networkPlugin": "azure", "networkDataplane": "cilium", "networkPolicy": "cilium"},
    "addonProfiles": {"omsagent": {"enabled": True, "config": {"logAnalyticsWorkspaceResourceID": "/x"}}},
    "agentPoolProfiles": [{"name": "system", "vmSize": "Standard_D8ds_v5", "enableEncryptionAtHost": True}],
}
POOL: dict[str, Any] = {"agentPoolName": "t4", "vmSize": "Standard_NC8as_T4_v3", "enableEncryptionAtHost": True}


def test_a_hardened_cluster_and_pool_pass() -> None:
    assert run_policy(POLICY, MANAGED_CLUSTER, HARDENED).violations == []
    assert run_policy(POLICY, AGENT_POOL, POOL).violations == []
    assert POLICY.enforcement_level.value == "advisory"


def test_a_private_cluster_needs_no_ranges() -> None:
    cluster = with_(HARDENED, apiServerAccessProfile={"enablePrivateCluster": True})
    assert run_policy(POLICY, MANAGED_CLUSTER, cluster).violations == []


def test_an_open_api_server_is_reported() -> None:
    [message] = run_policy(POLICY, MANAGED_CLUSTER, with_(HARDENED, apiServerAccessProfile=None)).violations
    assert message.startswith("apiServerAccessProfile: the Kubernetes API server is open to the internet")


def test_no_network_policy_is_reported() -> None:
    network = {"networkPlugin": "azure", "networkPluginMode": "overlay"}
    [message] = run_policy(POLICY, MANAGED_CLUSTER, with_(HARDENED, networkProfile=network)).violations
    assert message.startswith("networkProfile.networkPolicy: no network policy engine")


def test_no_container_insights_is_reported() -> None:
    [message] = run_policy(POLICY, MANAGED_CLUSTER, with_(HARDENED, addonProfiles=None)).violations
    assert message == (
        "addonProfiles.omsagent: no Container Insights: container logs and events are not sent to Azure Monitor. "
        "Set cluster.monitoring.containerInsights: true"
    )


def test_pools_without_encryption_at_host_are_named() -> None:
    profiles = [{"name": "system", "vmSize": "Standard_D8ds_v5"}]
    [message] = run_policy(POLICY, MANAGED_CLUSTER, with_(HARDENED, agentPoolProfiles=profiles)).violations
    assert message.startswith("enableEncryptionAtHost: encryption at host is off on system:")
    [pool] = run_policy(POLICY, AGENT_POOL, with_(POOL, enableEncryptionAtHost=False)).violations
    assert pool.startswith("enableEncryptionAtHost: encryption at host is off on t4:")
