"""examples/landing-zone (issue 37): the wire inputs of the example as the engine receives them, and copies of it that
the stack config refuses with the numbers (too small a subnet, no route table for UDR, a surge the quota cannot hold).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agp_contract import parse_contract
from components.validation import InvalidArgsError
from conformance import check_resources, failures
from gpu_catalog.problems import Problem
from preflight.mock_answers import MOCK_CLIENT_ID
from stack_config import StackConfigError
from stack_config.loading import config_from_stack_yaml, validate_stack_config
from tests.components.harness import DEPLOYER_CLIENT_ID, DEPLOYER_OBJECT_ID, Run, run_main
from tests.conftest import TEST_TODAY

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "landing-zone" / "Pulumi.landing-zone.yaml"
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups"
VNET = f"{SUB}/rg-spoke-gpu/providers/Microsoft.Network/virtualNetworks/vnet-spoke-gpu"
SPOKE = f"{VNET}/subnets"
SYSTEM_SUBNET = f"{SPOKE}/snet-aks-system"
GPU_SUBNET = f"{SPOKE}/snet-aks-gpu"
IDS = f"{SUB}/rg-gpu-lz/providers/Microsoft.ManagedIdentity/userAssignedIdentities"
CONTROL_PLANE = f"{IDS}/id-aks-gpu-lz-control-plane"
KUBELET = f"{IDS}/id-aks-gpu-lz-kubelet"
ZONE = f"{SUB}/rg-hub-dns/providers/Microsoft.Network/privateDnsZones/privatelink.westeurope.azmk8s.io"
ACR = f"{SUB}/rg-shared-acr/providers/Microsoft.ContainerRegistry/registries/acrcontosoml"
ROLE_IDS = {
    "AcrPull": "7f951dda-4ed3-4680-a7ca-43fe172d538d",
    "Network Contributor": "4d97b98b-1d4f-4787-a291-c67834d212e7",
    "Managed Identity Operator": "f1a07417-d97a-45cb-824c-7a7467783830",
    "Private DNS Zone Contributor": "b12aa53e-6015-4669-85d0-8515ebb3ae7f",
}
CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
ROLE = "azure-native:authorization:RoleAssignment"
MAINTENANCE = "azure-native:containerservice:MaintenanceConfiguration"


def example_config() -> dict[str, Any]:
    return dict(yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))["config"])


@pytest.fixture(scope="module")
def run() -> Run:
    result = run_main(example_config(), stack="landing-zone")
    assert result.error is None, result.error
    return result


def test_every_pool_joins_its_subnet(run: Run) -> None:
    cluster = run.one(CLUSTER).inputs
    assert [p["vnetSubnetID"] for p in cluster["agentPoolProfiles"]] == [SYSTEM_SUBNET]
    pool = run.one(POOL).inputs
    assert pool["vnetSubnetID"] == GPU_SUBNET
    assert "podSubnetID" not in pool  # overlay: pods on the pod CIDR
    assert pool["upgradeSettings"] == {"maxSurge": "1", "drainTimeoutInMinutes": 60.0, "nodeSoakDurationInMinutes": 5.0}
    assert cluster["agentPoolProfiles"][0]["upgradeSettings"] == {"maxSurge": "1"}


def test_network_profile_and_private_api_server(run: Run) -> None:
    cluster = run.one(CLUSTER).inputs
    assert cluster["networkProfile"] == {
        "networkPlugin": "azure",
        "networkPluginMode": "overlay",
        "networkDataplane": "cilium",
        "networkPolicy": "cilium",
        "loadBalancerSku": "standard",
        "podCidr": "192.168.0.0/16",
        "serviceCidr": "172.16.0.0/16",
        "dnsServiceIP": "172.16.0.10",
        "outboundType": "userDefinedRouting",
    }
    assert cluster["apiServerAccessProfile"] == {
        "enablePrivateCluster": True,
        "privateDNSZone": ZONE,
        "disableRunCommand": True,
    }
    assert cluster["addonProfiles"]["azurepolicy"] == {"enabled": True}
    assert cluster["securityProfile"]["defender"] == {
        "logAnalyticsWorkspaceResourceId": f"{SUB}/rg-hub-logs/providers/Microsoft.OperationalInsights/workspaces/"
        "log-hub-security",
        "securityMonitoring": {"enabled": True},
    }


def test_user_assigned_identities(run: Run) -> None:
    cluster = run.one(CLUSTER).inputs
    assert cluster["identity"] == {"type": "UserAssigned", "userAssignedIdentities": [CONTROL_PLANE]}
    assert cluster["identityProfile"] == {
        "kubeletidentity": {"resourceId": KUBELET, "clientId": DEPLOYER_CLIENT_ID, "objectId": DEPLOYER_OBJECT_ID}
    }
    assert {(t, a["resourceName"]) for t, a in run.invokes if t.endswith("getUserAssignedIdentity")} == {
        ("azure-native:managedidentity:getUserAssignedIdentity", "id-aks-gpu-lz-control-plane"),
        ("azure-native:managedidentity:getUserAssignedIdentity", "id-aks-gpu-lz-kubelet"),
    }
    assert MOCK_CLIENT_ID  # the preflight's own mocks answer the same invoke (preflight/mock_answers.py)


def _roles(run: Run) -> dict[str, dict[str, Any]]:
    return {r.name: r.inputs for r in run.of_type(ROLE) if r.name.startswith("aks-role-")}


def test_role_assignments_by_built_in_id(run: Run) -> None:
    roles = _roles(run)
    assert sorted(roles) == [
        "aks-role-acrpull-acrcontosoml",
        "aks-role-managedidentityoperator-kubelet",
        "aks-role-networkcontributor-rt-spoke-to-hub-fw",
        "aks-role-networkcontributor-snet-aks-gpu",
        "aks-role-networkcontributor-snet-aks-system",
        # the custom private DNS zone: Network Contributor on the spoke VNet too (private-clusters.md)
        "aks-role-networkcontributor-vnet-spoke-gpu",
        "aks-role-privatednszonecontributor-privatelink.westeurope.azmk8s.io",
    ]
    acr = roles["aks-role-acrpull-acrcontosoml"]
    assert acr["scope"] == ACR
    assert acr["roleDefinitionId"].endswith(f"/providers/Microsoft.Authorization/roleDefinitions/{ROLE_IDS['AcrPull']}")
    assert acr["principalId"] == DEPLOYER_OBJECT_ID  # the kubelet identity's principal (mocked)
    assert acr["principalType"] == "ServicePrincipal"
    assert roles["aks-role-networkcontributor-snet-aks-gpu"]["scope"] == GPU_SUBNET
    vnet = roles["aks-role-networkcontributor-vnet-spoke-gpu"]
    assert (vnet["scope"], vnet["principalId"]) == (VNET, DEPLOYER_OBJECT_ID)  # the control-plane identity (mocked)
    assert vnet["roleDefinitionId"].endswith(ROLE_IDS["Network Contributor"])
    assert roles["aks-role-managedidentityoperator-kubelet"]["scope"] == KUBELET
    assert roles["aks-role-privatednszonecontributor-privatelink.westeurope.azmk8s.io"]["roleDefinitionId"].endswith(
        ROLE_IDS["Private DNS Zone Contributor"]
    )


def test_the_cluster_waits_for_the_control_plane_roles(run: Run) -> None:
    cluster = run.one(CLUSTER)
    before = {r.urn for r in run.of_type(ROLE) if r.name.startswith("aks-role-") and "acrpull" not in r.name}
    assert len(before) == 6 and before <= set(cluster.dependencies)
    acr = next(r for r in run.of_type(ROLE) if r.name == "aks-role-acrpull-acrcontosoml")
    assert acr.dependencies == [cluster.urn]  # after the cluster: the registry serves the nodes it creates


def test_both_maintenance_configurations(run: Run) -> None:
    windows = {r.inputs["configName"]: r.inputs for r in run.of_type(MAINTENANCE)}
    assert windows == {
        "aksManagedAutoUpgradeSchedule": {
            "resourceGroupName": "rg-gpu-lz",
            "resourceName": "aks-gpu-lz",
            "configName": "aksManagedAutoUpgradeSchedule",
            "maintenanceWindow": {
                "schedule": {"weekly": {"dayOfWeek": "Sunday", "intervalWeeks": 1.0}},
                "durationHours": 4.0,
                "startTime": "01:00",
                "utcOffset": "+00:00",
                "notAllowedDates": [{"start": "2026-12-19", "end": "2027-01-04"}],
            },
        },
        "aksManagedNodeOSUpgradeSchedule": {
            "resourceGroupName": "rg-gpu-lz",
            "resourceName": "aks-gpu-lz",
            "configName": "aksManagedNodeOSUpgradeSchedule",
            "maintenanceWindow": {
                "schedule": {"weekly": {"dayOfWeek": "Saturday", "intervalWeeks": 1.0}},
                "durationHours": 6.0,
                "startTime": "22:00",
                "utcOffset": "+01:00",
            },
        },
    }


# ------------------------------------------------------------------------------------------------ refused copies


def _problems(config: dict[str, Any]) -> list[Problem]:
    with pytest.raises(StackConfigError) as exc:
        validate_stack_config(config_from_stack_yaml(config), stack_file="Pulumi.landing-zone.yaml")
    return exc.value.problems


def test_the_example_validates() -> None:
    cfg = validate_stack_config(config_from_stack_yaml(example_config()), stack_file="Pulumi.landing-zone.yaml")
    assert cfg.cluster.network.outboundType == "userDefinedRouting"


def test_a_too_small_subnet_is_refused_with_the_numbers() -> None:
    config = copy.deepcopy(example_config())
    config["azure-gpu-platform:cluster"]["network"]["subnets"]["gpu"]["addressPrefix"] = "10.240.0.64/29"
    config["azure-gpu-platform:gpuPools"][0]["maxCount"] = 3
    assert _problems(config) == [
        Problem(
            "cluster.network.subnets.gpu",
            "subnet 'gpu' (10.240.0.64/29: 3 usable addresses, Azure keeps 5) cannot hold its pools at their worst "
            "case: 4 addresses needed (a100: (3 + 1 surge) nodes × 1 = 4). Use a larger prefix, fewer nodes "
            "(maxCount, maxSurge) or another subnet for a pool",
        ),
        Problem(
            "gpuQuota.StandardNCADSA100v4Family",
            "StandardNCADSA100v4Family: 72 vCPUs at maxCount + 24 vCPUs of upgrade surge = 96, but the stated quota is "
            "72: the upgrade surge cannot be placed (a100: (3 + 1 surge) × 24 vCPUs). Ask for more quota, lower "
            "maxSurge (maxSurge '0' with maxUnavailable '1' upgrades in place, no extra GPU) or maxCount",
        ),
    ]


def test_a_missing_route_table_is_refused() -> None:
    config = copy.deepcopy(example_config())
    del config["azure-gpu-platform:cluster"]["network"]["subnets"]["gpu"]["routeTableId"]
    assert _problems(config) == [
        Problem(
            "cluster.network.subnets.gpu.routeTableId",
            "outboundType userDefinedRouting needs a route table with 0.0.0.0/0 to a firewall or NVA associated with "
            "every node subnet; subnet 'gpu' states none (routeTableId)",
        )
    ]


def test_an_undersized_surge_quota_is_refused_with_the_numbers() -> None:
    config = copy.deepcopy(example_config())
    config["azure-gpu-platform:gpuQuota"] = {"StandardNCADSA100v4Family": 48}
    assert _problems(config) == [
        Problem(
            "gpuQuota.StandardNCADSA100v4Family",
            "StandardNCADSA100v4Family: 48 vCPUs at maxCount + 24 vCPUs of upgrade surge = 72, but the stated quota is "
            "48: the upgrade surge cannot be placed (a100: (2 + 1 surge) × 24 vCPUs). Ask for more quota, lower "
            "maxSurge (maxSurge '0' with maxUnavailable '1' upgrades in place, no extra GPU) or maxCount",
        )
    ]
    # upgrading in place (no surge node) fits the same quota
    config["azure-gpu-platform:gpuPools"][0]["upgrade"] = {"maxSurge": "0", "maxUnavailable": "1"}
    validate_stack_config(config_from_stack_yaml(config), stack_file="Pulumi.landing-zone.yaml")


def test_private_dns_zone_without_user_assigned_identity_is_refused() -> None:
    config = copy.deepcopy(example_config())
    del config["azure-gpu-platform:cluster"]["identity"]
    assert [p.path for p in _problems(config)] == ["cluster.identity.controlPlane"]


def test_undescribed_subnets_and_pod_subnet_without_flat_mode() -> None:
    config = copy.deepcopy(example_config())
    config["azure-gpu-platform:gpuPools"][0]["vnetSubnetId"] = f"{SPOKE}/snet-aks-gpus"
    config["azure-gpu-platform:gpuPools"][0]["podSubnetId"] = GPU_SUBNET
    assert _problems(config) == [
        Problem(
            "gpuPools[0].vnetSubnetId", "'snet-aks-gpus' is not described in cluster.network.subnets (gpu, system)"
        ),
        Problem("gpuPools[0].podSubnetId", "a pod subnet is Azure CNI's flat mode: set cluster.network.mode: flat"),
    ]


def test_the_preflight_passes_the_example() -> None:
    from tests.shared_runs import preflight_in_process

    run = preflight_in_process("--config-file", str(EXAMPLE), "--format", "json", "--today", TEST_TODAY)
    assert run.code == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["violations"] == []
    surge = [line for line in doc["cost"]["byResource"] if line["role"] == "pool.upgradeSurge"]
    # priced per hour of upgrade, apart from the steady-state month (the pool's maxSurge "1" at maxCount 2)
    assert [
        (line["vmSize"], line["nodesMin"], line["nodesMax"], line["hourlyMax"], line["monthlyMax"]) for line in surge
    ] == [("Standard_NC24ads_A100_v4", 0, 1, 3.673, None)]
    assert (doc["cost"]["upgradeSurge"]["hourlyMax"], doc["cost"]["upgradeSurge"]["nodesMax"]) == (3.673, 1)
    rows = {row["quota"]: row for row in doc["quota"]["rows"]}
    assert (rows["StandardNCADSA100v4Family"]["vcpusMin"], rows["StandardNCADSA100v4Family"]["vcpusMax"]) == (24, 72)
    assert rows["StandardNCADSA100v4Family"]["uses"] == ["aks-a100 (pool)", "aks-a100 (pool.upgradeSurge)"]


def test_conformance_covers_every_landing_zone_input(run: Run) -> None:
    findings = check_resources(run.records)
    assert failures(findings) == []
    assert not [f for f in findings if f.rule == "not-covered" and f.type.startswith("azure-native:")]


def test_the_contract_carries_the_network_facts(run: Run) -> None:
    assert run.outputs["contractVersion"] == "1"  # additive: the version stays
    assert run.outputs["network"] == {
        "apiServer": "private",
        "outboundType": "userDefinedRouting",
        "networkMode": "overlay",
        "podCidr": "192.168.0.0/16",
        "serviceCidr": "172.16.0.0/16",
        "privateDnsZone": ZONE,
        "subnets": {"system": SYSTEM_SUBNET, "a100": GPU_SUBNET},
        "podSubnets": {},
    }
    contract = parse_contract(run.outputs)
    assert contract.network is not None
    assert (contract.network.api_server, contract.network.subnets["a100"]) == ("private", GPU_SUBNET)
    assert contract.oidc_issuer_url is not None and contract.oidc_issuer_url.startswith("https://")


def test_the_pool_fields_go_through_the_spec_alike_from_each_door() -> None:
    """The stack file, the Python API and the component package build the same spec (issue 39's spec layer)."""
    from component_package.args import pool_spec
    from components.gpu_node_pool import GpuPoolSpec
    from rules.network import UpgradeSettings
    from stack_config.specs import gpu_pool

    cfg = validate_stack_config(config_from_stack_yaml(example_config()), stack_file="Pulumi.landing-zone.yaml")
    from_stack = gpu_pool(cfg, cfg.gpuPools[0])
    upgrade = UpgradeSettings("1", None, 60, 5)
    assert (from_stack.vnet_subnet_id, from_stack.pod_subnet_id, from_stack.upgrade) == (GPU_SUBNET, None, upgrade)
    python = GpuPoolSpec(
        name="a100",
        vm_size="Standard_NC24ads_A100_v4",
        max_count=2,
        external_device_plugin=True,
        vnet_subnet_id=GPU_SUBNET,
        upgrade=upgrade,
    )
    package = pool_spec(
        {
            "name": "a100",
            "vm_size": "Standard_NC24ads_A100_v4",
            "max_count": 2,
            "device_plugin": {},
            "vnet_subnet_id": GPU_SUBNET,
            "upgrade": {"max_surge": "1", "drain_timeout_minutes": 60, "node_soak_minutes": 5},
        }
    )
    assert (python.vnet_subnet_id, python.upgrade) == (package.vnet_subnet_id, package.upgrade) == (GPU_SUBNET, upgrade)
    with pytest.raises(InvalidArgsError, match="maxSurge 0 needs maxUnavailable above 0"):
        GpuPoolSpec(
            name="a100", vm_size="Standard_NC24ads_A100_v4", external_device_plugin=True, upgrade=UpgradeSettings("0")
        )
