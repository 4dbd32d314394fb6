"""The landing-zone example's cluster and GPU pool built three ways send the same inputs.

``examples/landing-zone/Pulumi.landing-zone.yaml`` is built

1. from the stack file (the real program, ``__main__.py``, under mocks),
2. from Python: :class:`~components.aks_cluster.AksGpuClusterArgs` with its
   :class:`~components.landing_zone.ClusterLandingZone` written here field by field from the example (and the typed
   Args: the stack's landing zone (``composition``) equals the one the component package maps its inputs to,
   ``component_package/landing_zone.py``),
3. from the component package's inputs (the ``AksGpuCluster`` object the schema takes, written here key by key from
   the example),

and the engine records the same inputs (camelCase, numbers as floats) for the ManagedCluster, the GPU pool's
AgentPool (its subnet, upgrade settings, encryption at host, OS disk, maxPods, taints, labels, driver), the maintenance
configurations and the role assignments. The GPU pool is passed as in ``tests/components/three_ways.py``.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from component_package.aks_gpu_cluster import AksGpuCluster as PackageCluster
from component_package.args import pool_spec
from component_package.landing_zone import landing_zone
from composition.landing_zone_wiring import landing_zone_args
from composition.wiring import platform_tags
from stack_config import StackConfig
from tests.components.harness import AGENT_POOL, MANAGED_CLUSTER, Run, run_main, run_program
from tests.components.test_landing_zone import (
    ACR,
    CONTROL_PLANE,
    GPU_SUBNET,
    KUBELET,
    MAINTENANCE,
    POOL,
    ROLE,
    SYSTEM_SUBNET,
    ZONE,
    example_config,
)
from tests.components.three_ways import ShippedPool, python_cluster, stack_cfg, wire

STACK = "landing-zone"
ROUTE_TABLE = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-spoke-gpu/providers/Microsoft.Network/"
    "routeTables/rt-spoke-to-hub-fw"
)
WORKSPACE = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-hub-logs/providers/"
    "Microsoft.OperationalInsights/workspaces/log-hub-security"
)


def example_cfg() -> StackConfig:
    return stack_cfg(example_config(), "examples/landing-zone/Pulumi.landing-zone.yaml")


def example_pool(cfg: StackConfig) -> ShippedPool:
    (pool,) = cfg.gpuPools
    return ShippedPool(STACK, cfg, pool)


def python_args(cfg: StackConfig) -> Any:
    """The example's cluster as a Python caller writes it: the landing zone field by field."""
    from components.landing_zone import ClusterLandingZone
    from rules.identity import Identities
    from rules.maintenance import MaintenanceWindow

    landing_zone = ClusterLandingZone(
        network_mode="overlay",
        pod_cidr="192.168.0.0/16",
        service_cidr="172.16.0.0/16",
        dns_service_ip="172.16.0.10",
        outbound_type="userDefinedRouting",
        subnet_ids=(SYSTEM_SUBNET, GPU_SUBNET, ROUTE_TABLE),
        private_dns_zone=ZONE,
        identities=Identities(control_plane=CONTROL_PLANE, kubelet=KUBELET),
        assign_roles=True,
        container_registries=(ACR,),
        maintenance=(
            MaintenanceWindow(
                kind="autoUpgrade",
                schedule="weekly",
                day_of_week="Sunday",
                start_time="01:00",
                duration_hours=4,
                utc_offset="+00:00",
                not_allowed=((date(2026, 12, 19), date(2027, 1, 4)),),
            ),
            MaintenanceWindow(
                kind="nodeOs",
                schedule="weekly",
                day_of_week="Saturday",
                start_time="22:00",
                duration_hours=6,
                utc_offset="+01:00",
            ),
        ),
        defender=True,
        defender_workspace_id=WORKSPACE,
        azure_policy_addon=True,
    )
    return python_cluster(cfg, [example_pool(cfg).python()], landing_zone=landing_zone)


def package_args(cfg: StackConfig) -> dict[str, Any]:
    """The example's cluster as the package's inputs, every key the example writes."""
    return {
        "cluster_name": cfg.cluster_name,
        "resource_group_name": "rg-gpu-lz",
        "create_resource_group": False,
        "location": "westeurope",
        "kubernetes_version": "1.36",
        "auto_upgrade_channel": "patch",
        "node_os_upgrade_channel": "NodeImage",
        "access": {"deployer_principal_type": "ServicePrincipal"},
        "network_dataplane": "cilium",
        "network_policy": "cilium",
        "network": {
            "mode": "overlay",
            "pod_cidr": "192.168.0.0/16",
            "service_cidr": "172.16.0.0/16",
            "dns_service_ip": "172.16.0.10",
            "outbound_type": "userDefinedRouting",
            "route_table_ids": [ROUTE_TABLE],
        },
        "api_server": {"private_cluster": True, "disable_run_command": True, "private_dns_zone": ZONE},
        "identity": {"control_plane": CONTROL_PLANE, "kubelet": KUBELET, "assign_roles": True},
        "container_registries": [ACR],
        "maintenance": {
            "auto_upgrade": {
                "schedule": "weekly",
                "day_of_week": "Sunday",
                "start_time": "01:00",
                "duration_hours": 4,
                "utc_offset": "+00:00",
                "not_allowed_dates": [{"start": "2026-12-19", "end": "2027-01-04"}],
            },
            "node_os": {
                "schedule": "weekly",
                "day_of_week": "Saturday",
                "start_time": "22:00",
                "duration_hours": 6,
                "utc_offset": "+01:00",
            },
        },
        "defender": {"enabled": True, "log_analytics_workspace_id": WORKSPACE},
        "azure_policy_addon": True,
        "container_insights": True,
        "control_plane_logs": True,
        "log_analytics_workspace_id": WORKSPACE,
        "image_cleaner": True,
        "image_cleaner_interval_hours": 168,
        "ssh_access": "Disabled",
        "system_pool": {
            "vm_size": "Standard_D4ds_v5",
            "encryption_at_host": True,
            "count": 3,
            "vnet_subnet_id": SYSTEM_SUBNET,
            "upgrade": {"max_surge": "1"},
        },
        "gpu_pools": [
            example_pool(cfg).package_inputs()
            | {"upgrade": {"max_surge": "1", "drain_timeout_minutes": 60, "node_soak_minutes": 5}}
        ],
        "tags": platform_tags(cfg),
        "protect": cfg.protect,
    }


@pytest.fixture(scope="module")
def runs() -> tuple[Run, Run]:
    from_stack = run_main(example_config(), stack=STACK)
    assert from_stack.error is None, from_stack.error
    cfg = example_cfg()
    package = run_program(lambda: PackageCluster("aks", package_args(cfg)), config={}, stack=STACK)  # type: ignore[arg-type]
    assert package.error is None, package.error
    return from_stack, package


@pytest.fixture(scope="module")
def python_run() -> Run:
    from components.aks_cluster import AksGpuCluster

    run = run_program(lambda: AksGpuCluster("aks", python_args(example_cfg())), config={}, stack=STACK)
    assert run.error is None, run.error
    return run


def test_the_typed_args_are_the_same_landing_zone() -> None:
    cfg = example_cfg()
    args = package_args(cfg)
    specs = [pool_spec(p) for p in args["gpu_pools"]]
    from_package = landing_zone(args, specs, "aks")
    assert from_package == landing_zone_args(cfg)
    assert from_package.subnet_ids == (SYSTEM_SUBNET, GPU_SUBNET, ROUTE_TABLE)


def test_the_python_doors_landing_zone_is_the_stacks() -> None:
    assert python_args(example_cfg()).landing_zone == landing_zone_args(example_cfg())


def test_the_cluster_sends_the_same_inputs_whichever_door_it_comes_in_by(
    runs: tuple[Run, Run], python_run: Run
) -> None:
    from_stack, package = runs
    cluster = package.one(MANAGED_CLUSTER).inputs
    assert cluster == from_stack.one(MANAGED_CLUSTER).inputs
    assert python_run.one(MANAGED_CLUSTER).inputs == cluster
    assert cluster["agentPoolProfiles"][0]["vnetSubnetID"] == SYSTEM_SUBNET
    assert cluster["agentPoolProfiles"][0]["upgradeSettings"] == {"maxSurge": "1"}
    assert cluster["networkProfile"]["outboundType"] == "userDefinedRouting"
    assert (cluster["networkProfile"]["podCidr"], cluster["networkProfile"]["dnsServiceIP"]) == (
        "192.168.0.0/16",
        "172.16.0.10",
    )
    assert cluster["identity"] == {"type": "UserAssigned", "userAssignedIdentities": [CONTROL_PLANE]}
    assert cluster["identityProfile"]["kubeletidentity"]["resourceId"] == KUBELET
    assert cluster["apiServerAccessProfile"]["privateDNSZone"] == ZONE
    assert cluster["addonProfiles"]["azurepolicy"] == {"enabled": True}
    assert cluster["securityProfile"]["defender"] == {
        "logAnalyticsWorkspaceResourceId": WORKSPACE,
        "securityMonitoring": {"enabled": True},
    }


def test_the_gpu_pool_sends_the_same_inputs_whichever_door_it_comes_in_by(
    runs: tuple[Run, Run], python_run: Run
) -> None:
    from_stack, package = runs
    stack_pool = wire(from_stack.by_name("aks-a100", AGENT_POOL).inputs)
    assert wire(package.by_name("aks-a100", AGENT_POOL).inputs) == stack_pool
    assert wire(python_run.by_name("aks-a100", AGENT_POOL).inputs) == stack_pool
    assert stack_pool["vnetSubnetID"] == GPU_SUBNET
    assert stack_pool["upgradeSettings"] == {
        "maxSurge": "1",
        "drainTimeoutInMinutes": 60.0,
        "nodeSoakDurationInMinutes": 5.0,
    }
    assert (stack_pool["enableEncryptionAtHost"], stack_pool["osDiskType"], stack_pool["maxPods"]) == (
        True,
        "Managed",
        250.0,
    )
    assert stack_pool["nodeTaints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert stack_pool["gpuProfile"] == {"driver": "None"}


def test_the_landing_zone_resources_are_the_same(runs: tuple[Run, Run], python_run: Run) -> None:
    from_stack, package = runs
    for type_ in (MAINTENANCE, ROLE):
        stack_inputs = sorted((r.inputs for r in from_stack.of_type(type_)), key=repr)
        assert sorted((r.inputs for r in package.of_type(type_)), key=repr) == stack_inputs, type_
        assert sorted((r.inputs for r in python_run.of_type(type_)), key=repr) == stack_inputs, type_
    assert len(package.of_type(MAINTENANCE)) == 2
    # Network Contributor on both subnets and the route table, Private DNS Zone Contributor, Managed Identity
    # Operator, AcrPull, and the deployer's Cluster Admin
    assert len(package.of_type(ROLE)) == 7
    (pool,) = package.of_type(POOL)
    assert pool.inputs["vnetSubnetID"] == GPU_SUBNET


def test_a_package_input_the_rules_refuse_is_named_by_its_property_path() -> None:
    from component_package.args import ArgsRefusedError

    args = package_args(example_cfg())
    args["maintenance"]["node_os"] |= {"schedule": "daily", "interval": 8}
    del args["maintenance"]["node_os"]["day_of_week"]
    run = run_program(lambda: PackageCluster("aks", args), config={}, stack=STACK)  # type: ignore[arg-type]
    assert isinstance(run.error, ArgsRefusedError)
    assert run.error.errors == [
        {
            "property_path": "maintenance.nodeOs.interval",
            "reason": "8: a daily schedule's intervalDays is 1 to 7 (AKS REST API 2025-09-01)",
        }
    ]
