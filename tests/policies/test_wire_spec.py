"""``policies/_specs.py``: the pack builds the pool spec from wire props, with the spec's defaults where AKS has the
same (the OS SKU of an ``osType``) and AKS's where it differs (no taints written: none)."""

from __future__ import annotations

from policies._resources import Pool, agent_pools
from policies._specs import wire_pool

AGENT_POOL = "azure-native:containerservice:AgentPool"


def _pool(**props: object) -> Pool:
    [pool], unknown = agent_pools(AGENT_POOL, {"agentPoolName": "gpu", "vmSize": "Standard_NC4as_T4_v3", **props})
    assert unknown == []
    return pool


def test_the_spec_resolves_the_os_sku_of_the_os_type() -> None:
    assert wire_pool(_pool()).os_sku == "Ubuntu"
    assert wire_pool(_pool(osType="Windows")).os_sku == "Windows2022"
    assert wire_pool(_pool(osSKU="AzureLinux")).os_sku == "AzureLinux"


def test_aks_defaults_where_the_spec_would_add_its_own() -> None:
    bare = wire_pool(_pool())
    assert (bare.node_taints, bare.skips_driver, bare.name) == ((), False, "gpu")
    skipped = wire_pool(_pool(gpuProfile={"driver": "None"}, nodeTaints=["a=b:NoSchedule"]))
    assert (skipped.node_taints, skipped.skips_driver) == (("a=b:NoSchedule",), True)


def test_built_once_per_pool() -> None:
    pool = _pool()
    assert wire_pool(pool) is wire_pool(pool)
