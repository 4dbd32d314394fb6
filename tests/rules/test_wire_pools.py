"""rules.wire_pools: the one reader of AKS pools from wire props."""

from __future__ import annotations

from typing import Any

from rules.wire_pools import PROFILES, AksPools, WirePool, aks_pools

UNKNOWN = "<unknown>"


def _unknown(value: Any) -> bool:
    return value == UNKNOWN


def test_agent_pool_is_its_own_pool() -> None:
    props = {"agentPoolName": "gpu", "vmSize": "Standard_NC4as_T4_v3"}
    found = aks_pools("azure-native:containerservice:AgentPool", props)
    assert found.pools == (WirePool(0, "", "gpu", props, standalone=True),)
    assert found.unknown == ()
    assert found.pools[0].name_key == "agentPoolName"


def test_versioned_agent_pool_and_non_mapping_props() -> None:
    found = aks_pools("azure-native:containerservice/v20250901:AgentPool", None)
    assert found.pools == (WirePool(0, "", None, {}, standalone=True),)


def test_versioned_managed_cluster_profiles() -> None:
    a, b = {"name": "system", "mode": "System"}, {"vmSize": "Standard_NC4as_T4_v3"}
    found = aks_pools("azure-native:containerservice/v20250901:ManagedCluster", {PROFILES: [a, b]})
    assert found.pools == (
        WirePool(0, "agentPoolProfiles[0]", "system", a, standalone=False),
        WirePool(1, "agentPoolProfiles[1]", None, b, standalone=False),
    )
    assert found.pools[0].name_key == "name"
    assert (found.unknown, found.unknown_entries, found.skipped) == ((), (), ())


def test_unknown_list() -> None:
    found = aks_pools("azure-native:containerservice:ManagedCluster", {PROFILES: UNKNOWN}, is_unknown=_unknown)
    assert found == AksPools(unknown_list=True)
    assert found.unknown == ("agentPoolProfiles",)


def test_unknown_list_without_is_unknown_is_no_pools() -> None:
    assert aks_pools("azure-native:containerservice:ManagedCluster", {PROFILES: UNKNOWN}) == AksPools()


def test_unknown_entry() -> None:
    pool = {"name": "gpu"}
    found = aks_pools("azure-native:containerservice:ManagedCluster", {PROFILES: [UNKNOWN, pool]}, is_unknown=_unknown)
    assert [p.prefix for p in found.pools] == ["agentPoolProfiles[1]"]
    assert found.unknown_entries == (0,)
    assert found.unknown == ("agentPoolProfiles[0]",)


def test_non_dict_entries_are_skipped() -> None:
    found = aks_pools("azure-native:containerservice:ManagedCluster", {PROFILES: [None, "x", 3, {"name": "a"}, []]})
    assert [(p.index, p.name) for p in found.pools] == [(3, "a")]
    assert found.skipped == (0, 1, 2, 4)
    assert found.unknown == ()


def test_no_profiles() -> None:
    for props in ({}, {PROFILES: None}, {PROFILES: []}, {PROFILES: {"name": "a"}}, {PROFILES: "abc"}, None):
        assert aks_pools("azure-native:containerservice:ManagedCluster", props, is_unknown=_unknown) == AksPools()


def test_other_types_have_no_pools() -> None:
    props = {PROFILES: [{"name": "a"}], "agentPoolName": "b"}
    for resource_type in (
        "azure-native:compute:VirtualMachineScaleSet",
        "azure:containerservice/kubernetesCluster:KubernetesCluster",
        "azure-native:containerservice:ManagedClusterSnapshot",
    ):
        assert aks_pools(resource_type, props) == AksPools()
