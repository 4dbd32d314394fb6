"""Issue 29: what prod, staging and dev send for the hardening settings (wire values), and their ARM form."""

from __future__ import annotations

from typing import Any

import pytest

from preflight.arm import arm_template
from tests.components.harness import Run, run_stack

CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
WORKSPACE = "azure-native:operationalinsights:Workspace"
DIAGNOSTIC_SETTING = "azure-native:monitor:DiagnosticSetting"
CONTROL_PLANE_LOGS = [
    {"category": category, "enabled": True}
    for category in (
        "kube-audit-admin",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "cluster-autoscaler",
        "cloud-controller-manager",
        "guard",
        "csi-azuredisk-controller",
        "csi-azurefile-controller",
        "csi-snapshot-controller",
    )
]


@pytest.fixture(scope="module")
def prod() -> Run:
    return run_stack("prod")


def test_prod_cluster_wire_values(prod: Run) -> None:
    cluster = prod.one(CLUSTER).inputs
    assert cluster["apiServerAccessProfile"] == {
        "authorizedIPRanges": ["203.0.113.0/24"],
        "disableRunCommand": True,
    }
    network = cluster["networkProfile"]
    assert (network["networkPlugin"], network["networkPluginMode"]) == ("azure", "overlay")
    assert (network["networkDataplane"], network["networkPolicy"]) == ("cilium", "cilium")
    addons = cluster["addonProfiles"]
    assert addons["azureKeyvaultSecretsProvider"] == {
        "enabled": True,
        "config": {"enableSecretRotation": "true", "rotationPollInterval": "2m"},
    }
    assert addons["omsagent"]["enabled"] is True
    assert addons["omsagent"]["config"]["logAnalyticsWorkspaceResourceID"].endswith("/aks-logs")
    system = cluster["agentPoolProfiles"][0]
    assert (system["enableEncryptionAtHost"], system["osDiskType"], system["osDiskSizeGB"], system["maxPods"]) == (
        True,
        "Ephemeral",
        128.0,
        250.0,
    )
    workspace = prod.one(WORKSPACE).inputs
    assert workspace["workspaceName"] == "log-aks-gpu-prod"
    assert (workspace["sku"], workspace["retentionInDays"]) == ({"name": "PerGB2018"}, 30.0)


def test_prod_pools_state_their_hardening(prod: Run) -> None:
    pools = {r.name: r.inputs for r in prod.of_type(POOL)}
    got = {n: (p["enableEncryptionAtHost"], p["osDiskType"], p["osDiskSizeGB"], p["maxPods"]) for n, p in pools.items()}
    assert got == {
        "aks-a100mig": (True, "Managed", 128.0, 250.0),  # NC24ads_A100_v4: 64 GiB temp disk < 128 GiB OS disk
        "aks-h100": (True, "Ephemeral", 128.0, 250.0),  # 1024 GiB temp disk
        "aks-t4": (True, "Ephemeral", 128.0, 250.0),  # NC8as_T4_v3: 352 GiB
    }


def test_arm_form_carries_what_checkov_reads(prod: Run) -> None:
    report: dict[str, Any] = {
        "stack": "prod",
        "resources": [{"type": r.type, "name": r.name, "inputs": r.inputs} for r in prod.records],
    }
    template = arm_template(report)
    types = [r["type"] for r in template["resources"]]
    assert (
        types
        == ["Microsoft.ContainerService/managedClusters"]
        + ["Microsoft.ContainerService/managedClusters/agentPools"] * 3
    )
    cluster = template["resources"][0]
    assert cluster["name"] == "aks-gpu-prod" and cluster["apiVersion"] == "2025-09-01"
    assert cluster["location"] == "westeurope" and cluster["sku"] == {"name": "Base", "tier": "Standard"}
    props = cluster["properties"]
    assert "resourceGroupName" not in props and "location" not in props
    assert props["apiServerAccessProfile"]["authorizedIPRanges"] == ["203.0.113.0/24"]
    assert props["networkProfile"]["networkPolicy"] == "cilium"
    assert props["addonProfiles"]["azureKeyvaultSecretsProvider"]["config"]["enableSecretRotation"] == "true"
    pool = template["resources"][1]
    assert pool["name"].startswith("aks-gpu-prod/a100mig") and pool["properties"]["enableEncryptionAtHost"] is True


def test_dev_deviations_are_intentional_and_advisory() -> None:
    dev = run_stack("dev")
    assert dev.error is None
    cluster = dev.one(CLUSTER).inputs
    assert "apiServerAccessProfile" not in cluster  # open API server: advisory
    assert cluster["networkProfile"]["networkPolicy"] == "none"  # advisory
    assert "addonProfiles" not in cluster  # no Container Insights, no secret consumed
    assert dev.of_type(WORKSPACE) == []
    (pool,) = dev.of_type(POOL)
    assert (pool.inputs["enableEncryptionAtHost"], pool.inputs["osDiskType"], pool.inputs["maxPods"]) == (
        False,  # no sourced per-size support: the default stays off
        "Ephemeral",  # NC4as_T4_v3: 176 GiB temp disk
        250.0,
    )


@pytest.mark.parametrize("stack", ["staging", "prod"])
def test_microsofts_builtin_aks_definitions_on_the_wire(stack: str) -> None:
    """Issue 40: Run Command off, Image Cleaner weekly, SSH off on the system pool and every GPU pool, and a diagnostic
    setting sending the control-plane logs to the workspace the platform creates (resource-specific tables)."""
    run = run_stack(stack)
    cluster = run.one(CLUSTER)
    assert cluster.inputs["apiServerAccessProfile"]["disableRunCommand"] is True
    assert cluster.inputs["securityProfile"] == {
        "workloadIdentity": {"enabled": True},
        "imageCleaner": {"enabled": True, "intervalHours": 168.0},
    }
    assert cluster.inputs["agentPoolProfiles"][0]["securityProfile"] == {"sshAccess": "Disabled"}
    pools = run.of_type(POOL)
    assert pools and {p.name: p.inputs["securityProfile"] for p in pools} == {
        p.name: {"sshAccess": "Disabled"} for p in pools
    }
    setting = run.one(DIAGNOSTIC_SETTING)
    assert setting.inputs["name"] == "aks-control-plane"
    assert setting.inputs["logAnalyticsDestinationType"] == "Dedicated"
    assert setting.inputs["logs"] == CONTROL_PLANE_LOGS
    assert (
        setting.inputs["workspaceId"]
        == run.one(CLUSTER).inputs["addonProfiles"]["omsagent"]["config"]["logAnalyticsWorkspaceResourceID"]
    )
    assert cluster.urn in setting.dependencies


def test_dev_leaves_them_at_the_defaults() -> None:
    run = run_stack("dev")
    cluster = run.one(CLUSTER).inputs
    assert "disableRunCommand" not in (cluster.get("apiServerAccessProfile") or {})
    assert "imageCleaner" not in cluster["securityProfile"]
    assert "securityProfile" not in cluster["agentPoolProfiles"][0]
    assert run.of_type(DIAGNOSTIC_SETTING) == []


def test_the_python_api_pool_gets_the_stack_files_hardening_defaults() -> None:
    """``GpuPoolSpec`` resolves ``os_disk_type`` and ``encryption_at_host`` from the catalog as a stack file's pool does
    (it used to send ``Managed`` on the 12 sizes the catalog gives an ephemeral OS disk)."""
    from components.gpu_node_pool import GpuPoolSpec
    from components.pool_scheduling import PoolDevicePlugin
    from gpu_catalog.device_plugins import load_device_plugin_facts

    plugin = PoolDevicePlugin(load_device_plugin_facts().chart.version)
    t4 = GpuPoolSpec(name="t4", vm_size="Standard_NC4as_T4_v3", device_plugin=plugin)
    assert (t4.os_disk_type, t4.encryption_at_host) == ("Ephemeral", False)
    managed = GpuPoolSpec(name="t4", vm_size="Standard_NC4as_T4_v3", os_disk_type="Managed", device_plugin=plugin)
    assert managed.os_disk_type == "Managed"
