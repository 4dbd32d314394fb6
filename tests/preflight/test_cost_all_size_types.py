"""Cost of every resource type that names a VM size (issue 15): node counts from the size table's ``nodes`` entries.

Prices used: Standard_NC4as_T4_v3 $0.526/h, Standard_NC24ads_A100_v4 $3.673/h (catalog, indicative).
"""

from __future__ import annotations

from typing import Any

import pytest

from preflight.cost import NOT_SET, cost_lines, estimate_cost
from preflight.model import RecordedResource
from preflight.wire import UNKNOWN

PREFIX = "urn:pulumi:dev::raw::"
T4, A100 = "Standard_NC4as_T4_v3", "Standard_NC24ads_A100_v4"
T4_H, A100_H = 0.526, 3.673


def res(typ: str, name: str, **inputs: Any) -> RecordedResource:
    return RecordedResource(urn=f"{PREFIX}{typ}::{name}", type=typ, name=name, inputs=inputs)


def nodes(r: RecordedResource) -> list[tuple[str, str, int | None, int | None]]:
    return [(line.role, line.vm_size, line.nodes_min, line.nodes_max) for line in cost_lines(r)]


def test_virtual_machine_is_one_node() -> None:
    [line] = cost_lines(res("azure-native:compute:VirtualMachine", "vm", hardwareProfile={"vmSize": A100}))
    assert (line.role, line.nodes_min, line.nodes_max, line.hourly_max) == ("hardwareProfile.vmSize", 1, 1, A100_H)
    for typ, key in (
        ("azure:compute/linuxVirtualMachine:LinuxVirtualMachine", "size"),
        ("azure:compute/windowsVirtualMachine:WindowsVirtualMachine", "size"),
        ("azure:compute/virtualMachine:VirtualMachine", "vmSize"),
    ):
        assert nodes(res(typ, "vm", **{key: T4})) == [(key, T4, 1, 1)]


def test_scale_set_at_its_capacity() -> None:
    vmss = res("azure-native:compute:VirtualMachineScaleSet", "ss", sku={"name": T4, "capacity": 4.0})
    [line] = cost_lines(vmss)
    assert (line.nodes_min, line.nodes_max, line.hourly_max) == (4, 4, pytest.approx(4 * T4_H))
    classic = res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", "ss", sku=T4, instances=3.0)
    assert nodes(classic) == [("sku", T4, 3, 3)]
    flex = res("azure:compute/orchestratedVirtualMachineScaleSet:OrchestratedVirtualMachineScaleSet", "f", skuName=T4)
    [line] = cost_lines(flex)  # instances not given: listed, not guessed
    assert (line.nodes_min, line.priced, line.note) == (None, False, NOT_SET)


def test_aml_cluster_from_min_to_max_and_instance_as_one() -> None:
    cluster = res(
        "azure-native:machinelearningservices:Compute",
        "aml",
        properties={
            "computeType": "AmlCompute",
            "properties": {"vmSize": A100, "scaleSettings": {"maxNodeCount": 4.0}},
        },
    )
    [line] = cost_lines(cluster)  # minNodeCount defaults to 0
    assert (line.role, line.nodes_min, line.nodes_max) == ("properties.properties.vmSize", 0, 4)
    assert (line.hourly_min, line.hourly_max) == (0.0, pytest.approx(4 * A100_H))
    instance = res(
        "azure-native:machinelearningservices:Compute",
        "ci",
        properties={"computeType": "ComputeInstance", "properties": {"vmSize": T4}},
    )
    assert nodes(instance) == [("properties.properties.vmSize", T4, 1, 1)]
    classic = res(
        "azure:machinelearning/computeCluster:ComputeCluster",
        "cc",
        vmSize=T4,
        scaleSettings={"minNodeCount": 1.0, "maxNodeCount": 3.0},
    )
    assert nodes(classic) == [("vmSize", T4, 1, 3)]


def test_batch_pool_at_its_target_nodes_and_autoscale_unpriced() -> None:
    fixed = res(
        "azure-native:batch:Pool",
        "b",
        vmSize=A100,
        scaleSettings={"fixedScale": {"targetDedicatedNodes": 2.0, "targetLowPriorityNodes": 3.0}},
    )
    [line] = cost_lines(fixed)
    assert (line.nodes_min, line.nodes_max, line.hourly_max) == (5, 5, pytest.approx(5 * A100_H))
    auto = res(
        "azure-native:batch:Pool", "a", vmSize=A100, scaleSettings={"autoScale": {"formula": "$TargetDedicatedNodes=2"}}
    )
    [line] = cost_lines(auto)
    assert (line.priced, line.note) == (False, "autoscale formula: the node count is decided at run time")
    classic = res("azure:batch/pool:Pool", "c", vmSize=T4, fixedScale={"targetDedicatedNodes": 2.0})
    assert nodes(classic) == [("vmSize", T4, 2, 2)]


def test_aks_virtual_machines_pool_and_classic_aks() -> None:
    vms = res(
        "azure-native:containerservice:AgentPool",
        "vms",
        type="VirtualMachines",
        virtualMachinesProfile={"scale": {"manual": [{"size": T4, "count": 3.0}, {"size": A100, "count": 2.0}]}},
    )
    assert nodes(vms) == [
        ("virtualMachinesProfile.scale.manual[0]", T4, 3, 3),
        ("virtualMachinesProfile.scale.manual[1]", A100, 2, 2),
    ]
    classic = res(
        "azure:containerservice/kubernetesCluster:KubernetesCluster",
        "k",
        defaultNodePool={"name": "gpu", "vmSize": T4, "autoScalingEnabled": True, "minCount": 1.0, "maxCount": 5.0},
    )
    assert nodes(classic) == [("defaultNodePool.vmSize", T4, 1, 5)]
    pool = res(
        "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool", "p", vmSize=A100, nodeCount=2.0
    )
    assert nodes(pool) == [("vmSize", A100, 2, 2)]


def test_a_size_without_price_and_a_count_not_set_says_both_and_nothing_else() -> None:
    # Regression: the note used to also claim "node count unknown during the preview" although the inputs were known
    classic = res(
        "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool", "p", vmSize="Standard_NC999_v9"
    )
    [line] = cost_lines(classic)
    assert (line.priced, line.nodes_min, line.nodes_max) == (False, None, None)
    assert line.note == "not in the GPU catalog: no price; node count not set in the inputs"
    fleet = res("azure-native:azurefleet:Fleet", "f", vmSizesProfile=[{"name": "Standard_NC999_v9"}])
    [line] = cost_lines(fleet)
    assert line.note == (
        "not in the GPU catalog: no price; a fleet allocates regularPriorityProfile/spotPriorityProfile capacity "
        "across vmSizesProfile sizes, so no count belongs to one size: listed unpriced"
    )


def test_aks_pools_keep_their_roles_and_pool_order() -> None:
    cluster = res(
        "azure-native:containerservice/v20250901:ManagedCluster",
        "mc",
        agentPoolProfiles=[
            {"name": "gpu", "vmSize": T4, "enableAutoScaling": True, "minCount": 1.0, "maxCount": 3.0},
            UNKNOWN,
            {
                "type": "VirtualMachines",
                "virtualMachinesProfile": {"scale": {"manual": [{"size": A100, "count": 2.0}]}},
            },
            {"name": "fixed", "vmSize": A100},
        ],
    )
    assert nodes(cluster) == [
        ("agentPoolProfiles[gpu]", T4, 1, 3),
        ("agentPoolProfiles[gpu].upgradeSurge", T4, 0, 1),  # AKS's default surge, 10 % of 3 rounded up
        ("agentPoolProfiles[2].virtualMachinesProfile.scale.manual[0]", A100, 2, 2),
        ("agentPoolProfiles[fixed]", A100, 1, 1),  # count absent: the API's default, 1
        ("agentPoolProfiles[fixed].upgradeSurge", A100, 0, 1),
    ]
    pool = res("azure-native:containerservice:AgentPool", "p", vmSize=T4, enableAutoScaling=True, maxCount=UNKNOWN)
    [line] = cost_lines(pool)
    assert (line.role, line.nodes_min, line.nodes_max, line.note) == (
        "pool",
        1,
        None,
        "node count unknown during the preview",
    )


def test_unknown_count_during_preview_is_stated() -> None:
    [line] = cost_lines(res("azure-native:compute:VirtualMachineScaleSet", "ss", sku={"name": T4, "capacity": UNKNOWN}))
    assert (line.priced, line.note) == (False, "node count unknown during the preview")


def test_totals_over_the_new_types() -> None:
    estimate = estimate_cost(
        [
            res("azure-native:compute:VirtualMachine", "vm", hardwareProfile={"vmSize": A100}),
            res("azure-native:compute:VirtualMachineScaleSet", "ss", sku={"name": T4, "capacity": 4.0}),
            res("azure-native:compute:VirtualMachine", "cpu", hardwareProfile={"vmSize": "Standard_D4s_v5"}),
        ]
    )
    assert len(estimate.lines) == 2  # the CPU VM is no GPU cost
    assert estimate.hourly_max == pytest.approx(A100_H + 4 * T4_H)
    assert estimate.monthly_max == pytest.approx(730 * (A100_H + 4 * T4_H))


def test_types_without_a_node_count_are_listed_unpriced_with_the_reason() -> None:
    fleet = res("azure-native:azurefleet:Fleet", "f", vmSizesProfile=[{"name": A100}, {"name": T4}])
    lines = cost_lines(fleet)
    assert [(line.role, line.vm_size, line.priced) for line in lines] == [
        ("vmSizesProfile[0].name", A100, False),
        ("vmSizesProfile[1].name", T4, False),
    ]
    assert lines[0].note is not None and lines[0].note.startswith("a fleet allocates")
    [build] = cost_lines(
        res("azure-native:virtualmachineimages:VirtualMachineImageTemplate", "i", vmProfile={"vmSize": T4})
    )
    assert (build.priced, build.note) == (False, "the build VM runs only while an image builds: listed unpriced")
