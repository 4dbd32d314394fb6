"""Offline quota demand: vCPUs per region and quota family at min and max scale, for every kind of GPU use."""

from __future__ import annotations

from typing import Any

from gpu_catalog import default_catalog, load_catalog
from preflight.model import RecordedResource
from preflight.quota import LOW_PRIORITY, REGIONAL, UNKNOWN_FAMILY, quota_demand
from preflight.wire import UNKNOWN

PREFIX = "urn:pulumi:qa::azure-gpu-platform::"
POOL = "azure-native:containerservice:AgentPool"
CLUSTER = "azure-native:containerservice:ManagedCluster"
DBX = "databricks:index/cluster:Cluster"
KAITO = "kubernetes:kaito.sh/v1beta1:Workspace"
NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
VM = "azure-native:compute:VirtualMachine"
VMSS = "azure-native:compute:VirtualMachineScaleSet"
REGISTRY_OLD = "b09f55fe371f0979afab78a48f693d97ba946754"
REGISTRY_NEW = "021c778aafedcb80e117ea99e73c1080fed39f8d"


def res(typ: str, name: str, **inputs: Any) -> RecordedResource:
    return RecordedResource(urn=f"{PREFIX}{typ}::{name}", type=typ, name=name, inputs=inputs)


def rows(
    resources: list[RecordedResource], region: str | None = "westeurope"
) -> dict[tuple[str, str], tuple[int, int]]:
    demand = quota_demand(resources, default_region=region)
    return {(r.region, r.quota): (r.vcpus_min, r.vcpus_max) for r in demand.rows()}


# ---------------------------------------------------------------------------------------------------- catalog facts


def test_every_catalog_size_has_a_sourced_quota_family_or_an_explicit_null() -> None:
    cat = default_catalog()
    named = [s for s in cat.sizes() if s.quota_family is not None]
    assert len(named) == 74 and len(cat) == 112
    for s in named:
        assert s.quota_family_source is not None
        assert "Azure/karpenter-provider-azure pkg/utils/supported-gpus.yaml@" in s.quota_family_source
        assert REGISTRY_OLD in s.quota_family_source or REGISTRY_NEW in s.quota_family_source
    assert cat["Standard_NC4as_T4_v3"].quota_family == "StandardNCASv3_T4Family"
    assert cat["Standard_NC24ads_A100_v4"].quota_family == "StandardNCADSA100v4Family"
    assert cat["Standard_ND96isr_H100_v5"].quota_family == "standardNDSH100v5Family"
    assert cat["Standard_NV36ads_A10_v5"].quota_family == "StandardNVADSA10v5Family"
    # variants carry their own family, not their sibling's
    assert cat["Standard_NC6_Promo"].quota_family == "standardNCPromoFamily"
    assert cat["Standard_NC6"].quota_family == "standardNCFamily"
    assert cat["Standard_NC128lds_xl_RTXPRO6000BSE_v6"].quota_family == "StandardNCRTXPRO6000BSEv6Family"
    assert REGISTRY_NEW in (cat["Standard_NC128lds_xl_RTXPRO6000BSE_v6"].quota_family_source or "")
    # no source names these: null, never guessed
    for name in ("Standard_NCC40ads_H100_v5", "Standard_ND96isr_MI300X_v5", "Standard_NV4as_v4"):
        assert cat[name].quota_family is None and cat[name].quota_family_source is None


def test_a_family_without_a_source_is_refused_at_load(tmp_path: Any) -> None:
    import json

    from gpu_catalog.catalog import CATALOG_PATH, CatalogError

    doc = json.loads(CATALOG_PATH.read_text())
    doc["sizes"][0]["quotaFamily"] = {"name": "standardNCFamily", "source": None}
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc))
    try:
        load_catalog(path)
    except CatalogError as exc:
        assert "quotaFamily.name 'standardNCFamily' needs quotaFamily.source" in str(exc)
    else:
        raise AssertionError("a family without a source loaded")


# ---------------------------------------------------------------------------------------------------- demand


def test_aks_pools_fixed_and_autoscaling_and_spot() -> None:
    got = rows(
        [
            res(POOL, "a100", vmSize="Standard_NC24ads_A100_v4", count=2.0),
            res(POOL, "t4", vmSize="Standard_NC8as_T4_v3", enableAutoScaling=True, minCount=1.0, maxCount=5.0),
            res(
                POOL,
                "spot",
                vmSize="Standard_NC4as_T4_v3",
                enableAutoScaling=True,
                minCount=0.0,
                maxCount=3.0,
                scaleSetPriority="Spot",
            ),
        ]
    )
    # a100: 2 x 24 = 48; t4: 1..5 x 8 = 8..40; spot: 0..3 x 4 = 0..12 against low-priority only (not its family);
    # each pool's upgrade surge (AKS's default 10 %, rounded up: one node each) on top at the maximum
    assert got == {
        ("westeurope", "StandardNCADSA100v4Family"): (48, 48 + 24),
        ("westeurope", "StandardNCASv3_T4Family"): (8, 40 + 8),
        ("westeurope", REGIONAL): (56, 88 + 32),
        ("westeurope", LOW_PRIORITY): (0, 12 + 4),
    }


def test_regions_from_the_resource_the_cluster_or_the_stack() -> None:
    got = rows(
        [
            res(CLUSTER, "aks", resourceName="aks-east", location="East US", agentPoolProfiles=[]),
            res(POOL, "east", vmSize="Standard_NC4as_T4_v3", count=1.0, resourceName="aks-east"),
            res(VM, "vm", hardwareProfile={"vmSize": "Standard_NC8as_T4_v3"}, location="westus3"),
            res(DBX, "dbx", nodeTypeId="Standard_NC24ads_A100_v4", numWorkers=2.0),
        ],
        region="northeurope",
    )
    assert got[("eastus", "StandardNCASv3_T4Family")] == (4, 4 + 4)  # + the pool's default upgrade surge
    assert got[("westus3", "StandardNCASv3_T4Family")] == (8, 8)
    # Databricks without a workspace in the program: the stack's region; workers 2 x 24 + driver 24 = 72
    assert got[("northeurope", "StandardNCADSA100v4Family")] == (72, 72)


def test_databricks_driver_and_autoscaling_workers_and_spot_workers() -> None:
    got = rows(
        [
            res(
                DBX,
                "train",
                nodeTypeId="Standard_NC48ads_A100_v4",
                driverNodeTypeId="Standard_NC24ads_A100_v4",
                autoscale={"minWorkers": 1.0, "maxWorkers": 3.0},
            ),
            res(
                DBX,
                "cheap",
                nodeTypeId="Standard_NC4as_T4_v3",
                numWorkers=2.0,
                azureAttributes={"availability": "SPOT_AZURE"},
            ),
        ]
    )
    # train: workers 1..3 x 48 = 48..144, driver 24 -> 72..168; cheap: workers 2 x 4 spot, driver 4 on demand
    assert got == {
        ("westeurope", "StandardNCADSA100v4Family"): (72, 168),
        ("westeurope", "StandardNCASv3_T4Family"): (4, 4),
        ("westeurope", REGIONAL): (76, 172),
        ("westeurope", LOW_PRIORITY): (8, 8),
    }


def test_kaito_workspace_vm_and_scale_set() -> None:
    got = rows(
        [
            res(KAITO, "phi", resource={"instanceType": "Standard_NV36ads_A10_v5", "count": 2.0}),
            res(VM, "vm", hardwareProfile={"vmSize": "Standard_NV36ads_A10_v5"}),
            res(VMSS, "ss", sku={"name": "Standard_NV36ads_A10_v5", "capacity": 3.0}),
            res(VMSS, "ss-spot", sku={"name": "Standard_NV36ads_A10_v5", "capacity": 1.0},
                virtualMachineProfile={"priority": "Spot"}),
        ]
    )  # fmt: skip
    # 36 x (2 + 1 + 3) = 216 regular; the spot scale set 36 against low-priority
    assert got == {
        ("westeurope", "StandardNVADSA10v5Family"): (216, 216),
        ("westeurope", REGIONAL): (216, 216),
        ("westeurope", LOW_PRIORITY): (36, 36),
    }


def nodepool(limit: Any, sizes: list[str], capacity: list[str] | None = None) -> RecordedResource:
    reqs: list[dict[str, Any]] = [{"key": "karpenter.azure.com/sku-name", "operator": "In", "values": sizes}]
    if capacity:
        reqs.append({"key": "karpenter.sh/capacity-type", "operator": "In", "values": capacity})
    spec: dict[str, Any] = {"template": {"spec": {"requirements": reqs}}}
    if limit is not None:
        spec["limits"] = {"nvidia.com/gpu": limit}
    return res(NODEPOOL, "np", apiVersion="karpenter.sh/v1", kind="NodePool", spec=spec)


def test_nodepool_limit_filled_with_the_size_needing_most_vcpus() -> None:
    # limit 6 GPUs: NC24ads_A100_v4 (24 vCPUs / 1 GPU) -> 6 nodes = 144; NC96ads_A100_v4 (96 / 4) -> 2 nodes = 192
    demand = quota_demand([nodepool("6", ["Standard_NC24ads_A100_v4", "Standard_NC96ads_A100_v4"])], default_region="x")
    (use,) = demand.uses
    assert (use.vm_size, use.nodes_min, use.nodes_max, use.vcpus_max) == ("Standard_NC96ads_A100_v4", 0, 2, 192)
    assert {(r.quota, r.vcpus_min, r.vcpus_max) for r in demand.rows()} == {
        ("StandardNCADSA100v4Family", 0, 192),
        (REGIONAL, 0, 192),
    }


def test_spot_nodepool_and_unknown_limit_and_unknown_family() -> None:
    spot = quota_demand([nodepool("4", ["Standard_NC4as_T4_v3"], ["spot"])], default_region="x")
    assert {(r.quota, r.vcpus_max) for r in spot.rows()} == {(REGIONAL, 0), (LOW_PRIORITY, 16)}
    unknown = quota_demand([nodepool(UNKNOWN, ["Standard_NC4as_T4_v3"])], default_region="x")
    assert [u.note for u in unknown.unknown()] == ["GPU limit unknown during the preview"]
    ncc = quota_demand([res(POOL, "ncc", vmSize="Standard_NCC40ads_H100_v5", count=1.0)], default_region="x")
    # one node plus its default upgrade surge of one
    assert {(r.quota, r.vcpus_max) for r in ncc.rows()} == {(UNKNOWN_FAMILY, 80), (REGIONAL, 80)}
    reasons = [u["reason"] for u in ncc.to_json()["unknown"]]  # the pool and its upgrade surge
    assert (
        reasons
        == ["Standard_NCC40ads_H100_v5: no source names its quota family (counted in the regional total only)"] * 2
    )


def test_cpu_pools_are_listed_not_counted() -> None:
    cluster = res(
        CLUSTER,
        "aks",
        location="westeurope",
        agentPoolProfiles=[{"name": "system", "vmSize": "Standard_D4ds_v5", "count": 2.0}],
    )
    demand = quota_demand([cluster], default_region="westeurope")
    assert demand.uses == []
    assert [(c.role, c.vm_size, c.nodes_max) for c in demand.cpu] == [
        ("agentPoolProfiles[system]", "Standard_D4ds_v5", 2)
    ]


def test_explicit_api_version_type_tokens_count_as_the_plain_ones() -> None:
    """``azure-native:containerservice/v20250901:AgentPool`` is an AgentPool: its region comes from its cluster and its
    CPU pools are listed, as for the unversioned tokens (``rules.resource_types``)."""
    versioned_cluster = CLUSTER.replace("containerservice:", "containerservice/v20250901:")
    versioned_pool = POOL.replace("containerservice:", "containerservice/v20250901:")
    resources = [
        res(
            versioned_cluster,
            "aks",
            resourceName="aks-east",
            location="East US",
            agentPoolProfiles=[{"name": "system", "vmSize": "Standard_D4ds_v5", "count": 2.0}],
        ),
        res(versioned_pool, "east", vmSize="Standard_NC4as_T4_v3", count=1.0, resourceName="aks-east"),
        res(versioned_pool, "cpu", vmSize="Standard_D8ds_v5", count=3.0, resourceName="aks-east"),
    ]
    demand = quota_demand(resources, default_region="northeurope")
    assert {(r.region, r.quota): (r.vcpus_min, r.vcpus_max) for r in demand.rows()}[
        ("eastus", "StandardNCASv3_T4Family")
    ] == (4, 8)
    assert sorted((c.role, c.vm_size, c.nodes_max) for c in demand.cpu) == [
        ("agentPoolProfiles[system]", "Standard_D4ds_v5", 2),
        ("pool", "Standard_D8ds_v5", 3),
    ]
