"""Issue 15 acceptance: a raw program mixing every resource type that takes a VM size, through `python -m preflight`.

tests/fixtures/raw_program_all_sizes puts one refused size in each type (an AKS VirtualMachines pool, a VM, a scale
set, an Azure ML cluster, a Batch pool, the classic provider's KubernetesCluster and KubernetesClusterNodePool) and a
good H100 VM next to them: the real program runner, the real pack over gRPC, the real cost estimate.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from gpu_catalog import default_catalog
from tests.preflight.test_cli import REPO, preflight

pytestmark = pytest.mark.slow

PROGRAM = REPO / "tests" / "fixtures" / "raw_program_all_sizes"
PRE = "urn:pulumi:test::raw-all-sizes::"
URN = {
    "vms-pool": f"{PRE}azure-native:containerservice:AgentPool::vms-pool",
    "v100-vm": f"{PRE}azure-native:compute:VirtualMachine::v100-vm",
    "h100-vm": f"{PRE}azure-native:compute:VirtualMachine::h100-vm",
    "a10-vmss": f"{PRE}azure-native:compute:VirtualMachineScaleSet::a10-vmss",
    "aml-cluster": f"{PRE}azure-native:machinelearningservices:Compute::aml-cluster",
    "p100-batch": f"{PRE}azure-native:batch:Pool::p100-batch",
    "classic-aks": f"{PRE}azure:containerservice/kubernetesCluster:KubernetesCluster::classic-aks",
    "classic-rtx": f"{PRE}azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool::classic-rtx",
}


@cache
def report() -> dict[str, Any]:
    run = preflight("--program", str(PROGRAM), "--config-file", str(PROGRAM / "Pulumi.test.yaml"), "--format", "json")
    assert run.code == 1, run.stderr
    return json.loads(run.stdout)


def test_each_bad_size_is_refused_at_its_field_and_the_h100_vm_passes() -> None:
    found = {
        (v["policyName"], v["urn"].split("::")[-1]): v["message"].split("\n")[-1]
        for v in report()["violations"]
        if v["enforcementLevel"] == "mandatory"
    }
    expected_start = {
        ("gpu-size-no-nvv4", "vms-pool"): "virtualMachinesProfile.scale.manual[1].size: Standard_NV32as_v4 is an NVv4",
        ("gpu-size-not-retired", "v100-vm"): "hardwareProfile.vmSize: Standard_NC6s_v3 (NVIDIA Tesla V100 16 GiB) was",
        ("gpu-size-minimum", "a10-vmss"): "sku.name: Standard_NV6ads_A10_v5 (NVIDIA A10",
        ("gpu-size-known", "aml-cluster"): "properties.properties.vmSize: Standard_NC99zz_v9 is not a GPU size",
        ("gpu-size-minimum", "p100-batch"): "vmSize: Standard_NC6s_v2 (NVIDIA Tesla P100",
        ("gpu-size-not-retired", "p100-batch"): "vmSize: Standard_NC6s_v2 (NVIDIA Tesla P100 16 GiB) was retired",
        ("gpu-size-no-nvv4", "classic-aks"): "defaultNodePool.vmSize: Standard_NV16as_v4 is an NVv4 size",
        ("gpu-size-aks-supported", "classic-rtx"): "vmSize: Standard_NC128ds_xl_RTXPRO6000BSE_v6 (NVIDIA RTX PRO",
    }
    for key, start in expected_start.items():
        assert key in found, key
        assert found[key].startswith(start), (key, found[key])
    assert not [v for v in report()["violations"] if v["urn"] == URN["h100-vm"]]
    assert {urn for _, urn in found} == set(URN) - {"h100-vm"}


def test_cost_prices_the_new_types() -> None:
    lines = {(c["urn"], c["role"]): c for c in report()["cost"]["byResource"]}
    nodes = {
        (URN["vms-pool"], "virtualMachinesProfile.scale.manual[1]"): (2, 2),
        (URN["v100-vm"], "hardwareProfile.vmSize"): (1, 1),
        (URN["h100-vm"], "hardwareProfile.vmSize"): (1, 1),
        (URN["a10-vmss"], "sku.name"): (3, 3),
        (URN["aml-cluster"], "properties.properties.vmSize"): (0, 4),
        (URN["p100-batch"], "vmSize"): (2, 2),
        (URN["classic-aks"], "defaultNodePool.vmSize"): (1, 1),
        (URN["classic-rtx"], "vmSize"): (1, 1),
    }
    for key, (lo, hi) in nodes.items():
        assert (lines[key]["nodesMin"], lines[key]["nodesMax"]) == (lo, hi), key
    cat = default_catalog()
    v100 = cat["Standard_NC6s_v3"].price_usd_per_hour
    assert v100 is not None
    assert lines[(URN["v100-vm"], "hardwareProfile.vmSize")]["hourlyMax"] == pytest.approx(v100, abs=1e-4)
    assert lines[(URN["h100-vm"], "hardwareProfile.vmSize")]["note"] == "no indicative price in the catalog"
