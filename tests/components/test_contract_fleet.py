"""The output contract of a fleet stack: the fleet view built from the fleet's spec, one contract per member, and the
typed reader's ``fleet`` / ``member`` / ``member_kubeconfig`` (under mocks)."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from components.contract import (
    ContractError,
    FleetContract,
    PlatformContract,
    PlatformStackReference,
    fleet_contract,
    fleet_outputs,
    parse_contract,
    parse_fleet,
)
from rules.specs.fleet import FleetMember, FleetPool, FleetSpec
from tests.components.harness import run_program

SPEC = FleetSpec(
    name="gpu-fleet",
    location="westeurope",
    hub=True,
    members=(
        FleetMember("weu", "westeurope", "canary", "1.34", pools=(
            FleetPool("a100", "Standard_NC24ads_A100_v4", ("nvidia.com/mig-3g.40gb",), 3),
            FleetPool("t4", "Standard_NC8as_T4_v3", ("nvidia.com/gpu",), 4),
        )),
        FleetMember("sec", "swedencentral", "rest", "1.34",
                    pools=(FleetPool("t4", "Standard_NC8as_T4_v3", ("nvidia.com/gpu",), 2),)),
        FleetMember("eus", "eastus", "rest", "1.34", labels={"team": "ml"}),
    ),
)  # fmt: skip

MEMBER = {
    "environment": "prod",
    "location": "westeurope",
    "resourceGroupName": "rg-gpu-prod-weu",
    "clusterName": "aks-gpu-prod-weu",
    "clusterId": "/subscriptions/0/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/x",
    "kubernetesVersion": "1.34",
    "gpuPools": {},
}


def test_the_fleet_view_of_the_spec() -> None:
    view = fleet_contract(SPEC).to_dict()
    assert view["name"] == "gpu-fleet" and view["location"] == "westeurope" and view["hub"] is True
    assert view["groups"] == {"canary": ["weu"], "rest": ["sec", "eus"]}
    assert view["regions"] == {"westeurope": ["weu"], "swedencentral": ["sec"], "eastus": ["eus"]}
    assert view["requestable"] == {
        "nvidia.com/mig-3g.40gb": {"weu": ["Standard_NC24ads_A100_v4"]},
        "nvidia.com/gpu": {"weu": ["Standard_NC8as_T4_v3"], "sec": ["Standard_NC8as_T4_v3"]},
    }
    assert view["members"]["sec"] == {
        "region": "swedencentral",
        "group": "rest",
        "kubernetesVersion": "1.34",
        "labels": {
            "azure-gpu-platform/region": "swedencentral",
            "gpu-size.azure-gpu-platform/Standard_NC8as_T4_v3": "true",
            "gpu-resource.azure-gpu-platform/nvidia.com_gpu": "true",
        },
        "pools": [{"name": "t4", "vmSize": "Standard_NC8as_T4_v3", "gpuResources": ["nvidia.com/gpu"], "maxNodes": 2}],
    }
    assert view["members"]["eus"]["labels"]["team"] == "ml" and view["members"]["eus"]["pools"] == []
    assert FleetContract.from_dict(view) == fleet_contract(SPEC)


def test_fleet_outputs_one_contract_per_member() -> None:
    outputs = fleet_outputs(SPEC, {"weu": {**MEMBER, "contractVersion": "1", "kubeconfig": "secret-weu"}})
    assert set(outputs) == {"contractVersion", "fleet", "members", "memberKubeconfigs"}
    assert outputs["contractVersion"] == "1"
    assert outputs["members"] == {"weu": MEMBER}
    assert outputs["memberKubeconfigs"] == {"weu": "secret-weu"}


def test_a_fleet_stack_is_not_read_as_one_cluster() -> None:
    outputs = fleet_outputs(SPEC, {"weu": MEMBER})
    with pytest.raises(ContractError, match=r"is a fleet stack: .* PlatformStackReference\.member\(<name>\)"):
        parse_contract(outputs)
    with pytest.raises(ContractError, match="exports no fleet: it is a single-cluster stack"):
        parse_fleet({"contractVersion": "1", **MEMBER})
    with pytest.raises(ContractError, match="speaks output contract version 2"):
        parse_fleet({**outputs, "contractVersion": "2"})


def test_the_reader_gives_the_fleet_and_each_member() -> None:
    outputs: dict[str, Any] = fleet_outputs(SPEC, {"weu": {**MEMBER, "kubeconfig": "apiVersion: v1"}})
    seen: dict[str, Any] = {}

    def program() -> None:
        ref = PlatformStackReference("my-org/azure-gpu-platform/fleet")
        ref.fleet.apply(lambda f: seen.setdefault("fleet", f))
        ref.member("weu").apply(lambda c: seen.setdefault("weu", c))
        pulumi.export("kubeconfig", ref.member_kubeconfig("weu"))

    run = run_program(program, config={}, stack="consumer", stack_outputs=outputs)
    assert run.error is None, run.error
    fleet = seen["fleet"]
    assert isinstance(fleet, FleetContract)
    assert fleet.where("nvidia.com/gpu") == {"weu": ["Standard_NC8as_T4_v3"], "sec": ["Standard_NC8as_T4_v3"]}
    assert fleet.member("sec").region == "swedencentral" and fleet.member("sec").pools[0].max_nodes == 2
    with pytest.raises(ContractError, match="the fleet has no member 'xyz'; it has: eus, sec, weu"):
        fleet.member("xyz")
    weu = seen["weu"]
    assert isinstance(weu, PlatformContract)
    assert (weu.cluster_name, weu.contract_version, weu.location) == ("aks-gpu-prod-weu", "1", "westeurope")
