"""The components under mocks: the inputs the engine receives (camelCase wire names, numbers as floats),
dependencies, protect flags and the exported contract. Pool counts are kept small (each AgentPool ≈150 ms)."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
import yaml

from components.contract import CONTRACT_VERSION, parse_contract
from components.gpu_node_pool import GpuNodePool, GpuNodePoolArgs, GpuPoolSpec
from components.pool_scheduling import DEVICE_PLUGIN_CONFIG_LABEL, POOL_LABEL
from components.validation import InvalidArgsError
from tests.components.harness import (
    AGENT_POOL,
    CREDENTIALS_INVOKE,
    FAKE_KUBECONFIG,
    HELM_RELEASE,
    ISSUER_URL,
    K8S_PROVIDER,
    MANAGED_CLUSTER,
    RESOURCE_GROUP,
    run_main,
    run_program,
    run_stack,
    with_ci_deployer,
)

T4 = {"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "minCount": 1, "maxCount": 3}
BASE: dict[str, Any] = {"environment": "dev", "location": "westeurope", "gpuPools": [T4]}


def config(**top: Any) -> dict[str, Any]:
    out = copy.deepcopy(BASE)
    out.update(copy.deepcopy(top))
    return with_ci_deployer(out)


def ok(run: Any) -> Any:
    assert run.error is None, run.error
    return run


# --------------------------------------------------------------------------------------------- cluster


def test_cluster_inputs_are_secure_by_default() -> None:
    run = ok(run_main(config()))
    mc = run.one(MANAGED_CLUSTER).inputs
    assert mc["resourceName"] == "aks-gpu-dev"
    assert mc["resourceGroupName"] == "rg-gpu-dev"
    assert mc["kubernetesVersion"] == "1.36"
    assert mc["supportPlan"] == "KubernetesOfficial"
    assert mc["identity"] == {"type": "SystemAssigned"}
    assert mc["disableLocalAccounts"] is True
    assert mc["enableRBAC"] is True
    assert mc["aadProfile"] == {"managed": True, "enableAzureRBAC": True}
    assert mc["oidcIssuerProfile"] == {"enabled": True}
    assert mc["securityProfile"] == {"workloadIdentity": {"enabled": True}}
    assert mc["autoUpgradeProfile"] == {"upgradeChannel": "stable", "nodeOSUpgradeChannel": "NodeImage"}
    assert mc["sku"] == {"name": "Base", "tier": "Standard"}
    assert "metricsProfile" not in mc
    assert "aiToolchainOperatorProfile" not in mc
    [system] = mc["agentPoolProfiles"]
    assert system["mode"] == "System"
    assert system["vmSize"] == "Standard_D4ds_v5"
    assert system["count"] == 2.0
    assert system["enableNodePublicIP"] is False
    assert "gpuProfile" not in system


def test_cost_analysis_and_kaito_flags() -> None:
    run = ok(run_main(config(cluster={"costAnalysis": True, "kaitoAddon": True, "skuTier": "Premium"})))
    mc = run.one(MANAGED_CLUSTER).inputs
    assert mc["metricsProfile"] == {"costAnalysis": {"enabled": True}}
    assert mc["aiToolchainOperatorProfile"] == {"enabled": True}
    assert mc["oidcIssuerProfile"] == {"enabled": True}
    assert mc["sku"]["tier"] == "Premium"


def test_existing_resource_group_is_not_created() -> None:
    run = ok(run_main(config(resourceGroup={"name": "rg-shared", "existing": True})))
    assert run.of_type(RESOURCE_GROUP) == []
    assert run.one(MANAGED_CLUSTER).inputs["resourceGroupName"] == "rg-shared"
    assert run.one(AGENT_POOL).inputs["resourceGroupName"] == "rg-shared"


def test_prod_protects_stateful_resources_only() -> None:
    run = ok(run_main(config(environment="prod"), stack="prod"))
    assert run.one(MANAGED_CLUSTER).protect is True
    assert run.one(RESOURCE_GROUP).protect is True
    assert run.one(AGENT_POOL).protect is False  # pools are replaced create-before-delete: never protect them
    dev = ok(run_main(config()))
    assert dev.one(MANAGED_CLUSTER).protect is False
    explicit = ok(run_main(config(cluster={"protect": True})))
    assert explicit.one(MANAGED_CLUSTER).protect is True


# --------------------------------------------------------------------------------------------- pools


def test_gpu_pool_inputs_without_operator() -> None:
    run = ok(run_main(config()))
    ap = run.one(AGENT_POOL)
    i = ap.inputs
    assert i["resourceName"] == "aks-gpu-dev"
    assert i["resourceGroupName"] == "rg-gpu-dev"
    assert i["agentPoolName"].startswith("t4") and len(i["agentPoolName"]) == 6
    assert i["vmSize"] == "Standard_NC4as_T4_v3"
    assert i["mode"] == "User"
    assert i["osType"] == "Linux"
    assert i["osSKU"] == "Ubuntu"
    assert i["gpuProfile"] == {"driver": "Install"}
    assert "gpuInstanceProfile" not in i
    assert i["enableAutoScaling"] is True
    assert (i["minCount"], i["maxCount"], i["count"]) == (1.0, 3.0, 1.0)
    assert i["nodeTaints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert i["nodeLabels"][POOL_LABEL] == "t4"
    assert i["nodeLabels"]["azure-gpu-platform/gpu-model"] == "nvidia-tesla-t4-16-gib"
    assert DEVICE_PLUGIN_CONFIG_LABEL not in i["nodeLabels"]
    assert i["enableNodePublicIP"] is False
    assert i["orchestratorVersion"] == "1.36"
    assert "scaleSetPriority" not in i
    # Defect: AKS installs the driver only, so without the GPU operator nothing advertised nvidia.com/gpu and the
    # preflight passed. Now the platform deploys NVIDIA's device-plugin chart for the pool.
    [release] = run.of_type(HELM_RELEASE)
    assert release.name == "nvidia-device-plugin-release"
    r = release.inputs
    assert (r["chart"], r["version"], r["namespace"]) == ("nvidia-device-plugin", "0.20.0", "nvidia-device-plugin")
    assert r["repositoryOpts"] == {"repo": "https://nvidia.github.io/k8s-device-plugin"}
    values = r["values"]
    assert values["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": ["t4"]}]}]
    assert values["config"]["default"] == "default"
    assert list(values["config"]["map"]) == ["default"]
    assert values["gfd"] == {"enabled": False}
    assert run.outputs["gpuPools"]["t4"]["scheduling"]["devicePlugin"] == "nvidia-device-plugin"
    assert run.outputs["devicePluginVersion"] == "0.20.0"


def test_operator_managed_mig_spot_pool_inputs() -> None:
    pool = {
        "name": "a100",
        "vmSize": "Standard_NC24ads_A100_v4",
        "migProfile": "MIG3g",
        "count": 2,
        "spot": True,
        "zones": ["1", "2"],
        "maxPods": 30,
        "taints": ["sku=gpu:NoSchedule"],
        "labels": {"team": "ml"},
        "sharing": {"timeSlicing": {"replicas": 2}},
    }
    run = ok(run_main(config(gpuPools=[pool], gpuOperator={"enabled": True})))
    i = run.one(AGENT_POOL).inputs
    assert i["gpuProfile"] == {"driver": "None"}
    # The operator installs the driver, so AKS would not partition: the operator's MIG manager does, from the label.
    assert "gpuInstanceProfile" not in i
    assert i["enableAutoScaling"] is False
    assert i["count"] == 2.0
    assert "minCount" not in i and "maxCount" not in i
    assert i["scaleSetPriority"] == "Spot"
    assert i["scaleSetEvictionPolicy"] == "Delete"
    assert i["spotMaxPrice"] == -1.0
    assert i["availabilityZones"] == ["1", "2"]
    assert i["maxPods"] == 30.0
    assert i["nodeTaints"] == ["sku=gpu:NoSchedule"]
    assert i["nodeLabels"] == {
        "team": "ml",
        POOL_LABEL: "a100",
        "azure-gpu-platform/gpu-model": "nvidia-a100-pcie-80-gib",
        DEVICE_PLUGIN_CONFIG_LABEL: "a100",
        "nvidia.com/mig.config": "all-3g.40gb",
    }
    values = run.one(HELM_RELEASE).inputs["values"]
    assert values["migManager"] == {"enabled": True}
    tolerations = values["daemonsets"]["tolerations"]
    assert {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"} in tolerations
    spot = {
        "key": "kubernetes.azure.com/scalesetpriority",
        "operator": "Equal",
        "value": "spot",
        "effect": "NoSchedule",
    }
    assert spot in tolerations
    assert values["node-feature-discovery"]["worker"]["tolerations"] == tolerations


def test_windows_pool_inputs() -> None:
    win = {"name": "wingpu", "os": "Windows", "vmSize": "Standard_NC4as_T4_v3", "count": 1}
    run = ok(run_main(config(gpuPools=[win], gpuOperator={"enabled": True})))
    i = run.one(AGENT_POOL).inputs
    assert i["osType"] == "Windows"
    assert i["osSKU"] == "Windows2022"
    assert i["gpuProfile"] == {"driver": "Install"}
    assert len(i["agentPoolName"]) == 6 and i["agentPoolName"].startswith("win")
    assert DEVICE_PLUGIN_CONFIG_LABEL not in i["nodeLabels"]
    # The operator has no Linux pool to manage: it must not install drivers.
    values = run.one(HELM_RELEASE).inputs["values"]
    assert values["driver"] == {"enabled": False}


def test_gpu_pools_are_chained_one_after_another() -> None:
    pools = [
        {"name": "a", "vmSize": "Standard_NC4as_T4_v3"},
        {"name": "b", "vmSize": "Standard_NC8as_T4_v3"},
        {"name": "c", "vmSize": "Standard_NC24ads_A100_v4"},
    ]
    run = ok(run_main(config(gpuPools=pools)))
    cluster = run.one(MANAGED_CLUSTER)
    agent_pools = run.of_type(AGENT_POOL)
    assert [p.name for p in agent_pools] == ["aks-a", "aks-b", "aks-c"]
    assert cluster.urn in agent_pools[0].dependencies
    for previous, current in itertools.pairwise(agent_pools):
        assert previous.urn in current.dependencies, f"{current.name} must wait for {previous.name}"
    # No pool waits on a later pool.
    assert agent_pools[2].urn not in agent_pools[0].dependencies + agent_pools[1].dependencies


def _pool_name_and_urn(**changes: Any) -> tuple[str, str]:
    run = ok(run_main(config(gpuPools=[{**T4, **changes}])))
    ap = run.one(AGENT_POOL)
    return ap.inputs["agentPoolName"], ap.urn


def test_create_time_fields_change_the_azure_name_but_not_the_urn() -> None:
    name, urn = _pool_name_and_urn()
    bigger_name, bigger_urn = _pool_name_and_urn(vmSize="Standard_NC8as_T4_v3")
    scaled_name, scaled_urn = _pool_name_and_urn(maxCount=5)
    assert bigger_name != name, "a new vm size must create a new pool (new Azure name) before the old one goes"
    assert scaled_name == name, "maxCount is updated in place"
    assert urn == bigger_urn == scaled_urn
    assert all(len(n) <= 12 and n.isalnum() and n.islower() and n[0].isalpha() for n in (name, bigger_name))


def test_pool_validates_at_construction_with_the_policy_message() -> None:
    # Built without a stack file: the pool's Args refuse the size, before anything is registered.
    def program() -> None:
        pool = GpuPoolSpec(name="amd", vm_size="Standard_NV32as_v4")
        GpuNodePool("amd", GpuNodePoolArgs(pool=pool, resource_group_name="rg", cluster_name="aks"))

    run = run_program(program, config={})
    assert isinstance(run.error, InvalidArgsError)
    assert run.records == []
    assert "GpuNodePool 'amd'" in str(run.error)
    assert "vm_size: Standard_NV32as_v4 is an NVv4 size" in str(run.error)


# --------------------------------------------------------------------------------------------- operator


def test_gpu_operator_release_inputs() -> None:
    pool = {**T4, "sharing": {"timeSlicing": {"replicas": 4}}}
    run = ok(run_main(config(gpuPools=[pool], gpuOperator={"enabled": True})))
    rel = run.one(HELM_RELEASE)
    i = rel.inputs
    assert i["chart"] == "gpu-operator"
    assert i["version"] == "v26.7.0"
    assert i["repositoryOpts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    assert i["namespace"] == "gpu-operator"
    assert i["createNamespace"] is True
    assert i["name"] == "gpu-operator"
    values = i["values"]
    assert values["driver"] == {"enabled": True}
    assert values["toolkit"] == {"enabled": True}
    assert values["mig"] == {"strategy": "single"}
    plugin = values["devicePlugin"]["config"]
    assert plugin["create"] is True and plugin["default"] == "default"
    t4 = yaml.safe_load(plugin["data"]["t4"])
    assert t4["sharing"] == {
        "timeSlicing": {"renameByDefault": False, "resources": [{"name": "nvidia.com/gpu", "replicas": 4}]}
    }
    assert "sharing" not in yaml.safe_load(plugin["data"]["default"])
    assert run.one(AGENT_POOL).inputs["nodeLabels"][DEVICE_PLUGIN_CONFIG_LABEL] == "t4"
    # Through the cluster's Kubernetes provider, built from the secret user kubeconfig, after the GPU pools.
    provider = run.one(K8S_PROVIDER)
    assert rel.provider.startswith(provider.urn + "::")
    assert "kubeconfig" in provider.secret_inputs
    assert provider.inputs["kubeconfig"] == FAKE_KUBECONFIG
    assert run.one(AGENT_POOL).urn in rel.dependencies
    credentials = [args for token, args in run.invokes if token == CREDENTIALS_INVOKE]
    assert credentials == [{"resourceGroupName": "rg-gpu-dev", "resourceName": "aks-gpu-dev", "format": "exec"}]


def test_operator_mode_b_keeps_the_aks_driver() -> None:
    pool = {**T4, "driver": "aks", "sharing": {"mps": {"replicas": 4}}}
    run = ok(run_main(config(gpuPools=[pool], gpuOperator={"enabled": True, "migStrategy": "single"})))
    assert run.one(AGENT_POOL).inputs["gpuProfile"] == {"driver": "Install"}
    values = run.one(HELM_RELEASE).inputs["values"]
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"] == {"enabled": False}
    mps = yaml.safe_load(values["devicePlugin"]["config"]["data"]["t4"])
    assert mps["sharing"]["mps"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    assert mps["flags"] == {"migStrategy": "single"}


# --------------------------------------------------------------------------------------------- contract


def test_output_contract() -> None:
    pools = [
        {**T4, "sharing": {"mps": {"replicas": 4}}},
        {"name": "a100", "vmSize": "Standard_NC24ads_A100_v4", "migProfile": "MIG1g", "minCount": 1, "maxCount": 2},
    ]
    # MPS needs the single MIG strategy (the device plugin refuses mixed + MPS): MIG slices are nvidia.com/gpu.
    run = ok(run_main(config(gpuPools=pools, gpuOperator={"enabled": True, "migStrategy": "single"})))
    out = run.outputs
    assert out["contractVersion"] == CONTRACT_VERSION == "1"
    assert out["clusterName"] == "aks-gpu-dev"
    assert out["clusterId"] == "/mock/azure-native:containerservice:ManagedCluster/aks-cluster"
    assert out["resourceGroupName"] == "rg-gpu-dev"
    assert out["oidcIssuerUrl"] == ISSUER_URL
    assert out["kubeconfig"] == FAKE_KUBECONFIG
    assert run.secret_outputs == {"kubeconfig"}
    assert out["gpuOperatorVersion"] == "v26.7.0"
    t4 = out["gpuPools"]["t4"]
    azure_names = {p.inputs["vmSize"]: p.inputs["agentPoolName"] for p in run.of_type(AGENT_POOL)}
    assert t4["azureName"] == azure_names["Standard_NC4as_T4_v3"]
    assert (t4["vmSize"], t4["gpuModel"], t4["gpusPerNode"]) == ("Standard_NC4as_T4_v3", "NVIDIA Tesla T4 16 GiB", 1)
    assert t4["scheduling"] == {
        "nodeSelector": {POOL_LABEL: "t4"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
        "resourceName": "nvidia.com/gpu",
        "sharing": "mps",
        "replicas": 4,
        "mpsActiveThreadPercentage": 25,
        "allocatablePerNode": 4,
        "devicePlugin": "gpu-operator",
    }
    a100 = out["gpuPools"]["a100"]["scheduling"]
    assert a100["resourceName"] == "nvidia.com/gpu"
    assert a100["allocatablePerNode"] == 7
    contract = parse_contract(out)
    assert contract.pool("a100").mig_profile == "MIG1g"
    assert contract.pool("t4").scheduling.mps_active_thread_percentage == 25


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_every_stack_builds_and_exports_the_contract(stack: str) -> None:
    run = ok(run_stack(stack))
    contract = parse_contract(run.outputs)
    assert contract.environment == stack
    assert set(contract.gpu_pools) == {p.inputs["nodeLabels"][POOL_LABEL] for p in run.of_type(AGENT_POOL)}
    assert len(run.of_type(HELM_RELEASE)) == 1
    assert run.one(MANAGED_CLUSTER).protect is (stack == "prod")
