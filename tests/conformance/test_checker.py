"""Unit tests of the conformance checker on tiny, engine-shaped inputs (camelCase, numbers as floats).

Each baseline is compliant; each mutation breaks one fact and asserts the exact finding path and rule.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance import (
    Finding,
    check_resource,
    check_resources,
    failures,
    load_facts,
    missing_value_paths,
    validate_facts,
)
from conformance.contracts import FACTS_DIR
from preflight.wire import UNKNOWN

AGENT_POOL = "azure-native:containerservice:AgentPool"
MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
RELEASE = "kubernetes:helm.sh/v3:Release"
KAITO = "kubernetes:kaito.sh/v1beta1:Workspace"
DBX_CLUSTER = "databricks:index/cluster:Cluster"
DBX_WORKSPACE = "azure-native:databricks:Workspace"
ROLE_ASSIGNMENT = "azure-native:authorization:RoleAssignment"
RESOURCE_GROUP = "azure-native:resources:ResourceGroup"
SECRET = "kubernetes:core/v1:Secret"
SLEEP = "time:index/sleep:Sleep"
MAINTENANCE = "azure-native:containerservice:MaintenanceConfiguration"
ARM_RESOURCE = "azure-native:resources:Resource"
CRP = "kubernetes:placement.kubernetes-fleet.io/v1:ClusterResourcePlacement"
ZONE_ID = (
    "/subscriptions/x/resourceGroups/rg-dns/providers/Microsoft.Network/privateDnsZones/privatelink.westeu.azmk8s.io"
)


def _dp_config(mig: str = "single", **sharing: Any) -> str:
    doc: dict[str, Any] = {"version": "v1", "flags": {"migStrategy": mig}}
    if sharing:
        doc["sharing"] = sharing
    return yaml.safe_dump(doc, sort_keys=False)


def _replicas(n: float = 4.0, name: str = "nvidia.com/gpu") -> dict[str, Any]:
    return {"renameByDefault": False, "resources": [{"name": name, "replicas": n}]}


BASELINES: dict[str, dict[str, Any]] = {
    AGENT_POOL: {
        "resourceGroupName": "rg-gpu-dev",
        "resourceName": "aks-gpu-dev",
        "agentPoolName": "t4a1b2",
        "mode": "User",
        "type": "VirtualMachineScaleSets",
        "vmSize": "Standard_NC4as_T4_v3",
        "osType": "Linux",
        "osSKU": "Ubuntu",
        "count": 1.0,
        "enableAutoScaling": True,
        "minCount": 1.0,
        "maxCount": 2.0,
        "gpuProfile": {"driver": "None"},
        "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"],
        "nodeLabels": {"nvidia.com/device-plugin.config": "t4"},
        "enableNodePublicIP": False,
        "scaleSetPriority": "Spot",
        "scaleSetEvictionPolicy": "Delete",
        "spotMaxPrice": -1.0,
        "orchestratorVersion": "1.35",
        "tags": {"environment": "dev"},
    },
    MANAGED_CLUSTER: {
        "resourceGroupName": "rg-gpu-dev",
        "resourceName": "aks-gpu-dev",
        "location": "westeurope",
        "dnsPrefix": "aks-gpu-dev",
        "kubernetesVersion": "1.35",
        "sku": {"name": "Base", "tier": "Standard"},
        "supportPlan": "KubernetesOfficial",
        "identity": {"type": "SystemAssigned"},
        "agentPoolProfiles": [
            {
                "name": "system",
                "mode": "System",
                "vmSize": "Standard_D4ds_v5",
                "count": 2.0,
                "osType": "Linux",
                "osSKU": "AzureLinux",
                "type": "VirtualMachineScaleSets",
                "availabilityZones": ["1", "2", "3"],
            }
        ],
        "enableRBAC": True,
        "disableLocalAccounts": True,
        "aadProfile": {"managed": True, "enableAzureRBAC": True},
        "oidcIssuerProfile": {"enabled": True},
        "securityProfile": {"workloadIdentity": {"enabled": True}},
        "autoUpgradeProfile": {"upgradeChannel": "stable", "nodeOSUpgradeChannel": "NodeImage"},
        "networkProfile": {"networkPlugin": "azure", "networkPluginMode": "overlay", "loadBalancerSku": "standard"},
        "metricsProfile": {"costAnalysis": {"enabled": True}},
        "aiToolchainOperatorProfile": {"enabled": True},
        "tags": {"environment": "dev"},
    },
    RELEASE: {
        "name": "gpu-operator",
        "chart": "gpu-operator",
        "version": "v26.7.0",
        "namespace": "gpu-operator",
        "createNamespace": True,
        "repositoryOpts": {"repo": "https://helm.ngc.nvidia.com/nvidia"},
        "compat": "true",
        "values": {
            "driver": {"enabled": True},
            "toolkit": {"enabled": True},
            "mig": {"strategy": "single"},
            "migManager": {
                "enabled": True,
                "env": [{"name": "WITH_REBOOT", "value": "false"}],
                "config": {"default": "all-disabled"},
            },
            "dcgmExporter": {"enabled": True},
            "daemonsets": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
            "node-feature-discovery": {
                "worker": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
            },
            "devicePlugin": {
                "config": {
                    "create": True,
                    "name": "device-plugin-config",
                    "default": "default",
                    "data": {"default": _dp_config(), "infer": _dp_config(mps=_replicas())},
                }
            },
        },
    },
    KAITO: {
        "apiVersion": "kaito.sh/v1beta1",
        "kind": "Workspace",
        "metadata": {"name": "phi-4", "namespace": "default", "labels": {"app.kubernetes.io/managed-by": "pulumi"}},
        "resource": {
            "instanceType": "Standard_NC24ads_A100_v4",
            "count": 1.0,
            "labelSelector": {"matchLabels": {"apps": "phi-4"}},
        },
        "inference": {"preset": {"name": "phi-4"}},
    },
    DBX_CLUSTER: {
        "clusterName": "ml-training",
        "sparkVersion": "17.3.x-gpu-ml-scala2.13",
        "nodeTypeId": "Standard_NC48ads_A100_v4",
        "driverNodeTypeId": "Standard_NC48ads_A100_v4",
        "autoscale": {"minWorkers": 1.0, "maxWorkers": 4.0},
        "autoterminationMinutes": 60.0,
        "dataSecurityMode": "SINGLE_USER",
        "singleUserName": "ml-platform@contoso.com",
        "runtimeEngine": "STANDARD",
        "sparkConf": {"spark.task.resource.gpu.amount": "2"},
        "customTags": {"environment": "prod"},
    },
    DBX_WORKSPACE: {
        "resourceGroupName": "rg-gpu-prod",
        "workspaceName": "dbw-gpu-prod",
        "location": "westeurope",
        "sku": {"name": "premium"},
        "computeMode": "Hybrid",
        "managedResourceGroupId": "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/dbw-managed",
        "parameters": {"enableNoPublicIp": {"value": True}},
        "tags": {"environment": "prod"},
    },
    ROLE_ASSIGNMENT: {
        "scope": "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks",
        "roleDefinitionId": "/subscriptions/0000/providers/Microsoft.Authorization/roleDefinitions/"
        "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b",
        "principalId": "00000000-0000-0000-0000-0000000000d1",
        "principalType": "ServicePrincipal",
        "description": "cluster admin",
    },
    RESOURCE_GROUP: {"resourceGroupName": "rg-gpu-dev", "location": "westeurope", "tags": {"environment": "dev"}},
    SECRET: {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "hf-token", "namespace": "default"},
        "type": "Opaque",
        "stringData": {"HF_TOKEN": "hf_x"},
    },
    SLEEP: {"createDuration": "300s", "triggers": {"deployer": "/subscriptions/x/roleAssignments/y"}},
    "pulumi:providers:kubernetes": {"kubeconfig": "apiVersion: v1\nkind: Config\n"},
    MAINTENANCE: {
        "resourceGroupName": "rg-gpu-dev",
        "resourceName": "aks-gpu-dev",
        "configName": "aksManagedNodeOSUpgradeSchedule",
        "maintenanceWindow": {
            "schedule": {"weekly": {"dayOfWeek": "Saturday", "intervalWeeks": 1.0}},
            "durationHours": 6.0,
            "startTime": "22:00",
            "utcOffset": "+01:00",
        },
    },
    "pulumi:providers:databricks": {"host": "https://adb-1.7.azuredatabricks.net", "azureWorkspaceResourceId": "/x"},
    ARM_RESOURCE: {  # a fleet's update strategy through the generic resource (components/fleet.py)
        "apiVersion": "2026-06-01",
        "resourceProviderNamespace": "Microsoft.ContainerService",
        "resourceType": "updateStrategies",
        "parentResourcePath": "fleets/gpu-fleet",
        "resourceGroupName": "rg-fleet",
        "resourceName": "gpu-staged",
        "properties": {
            "strategy": {
                "stages": [
                    {"name": "canary", "groups": [{"name": "canary"}], "afterStageWaitInSeconds": 3600.0},
                    {"name": "rest", "groups": [{"name": "rest"}]},
                ]
            }
        },
    },
    CRP: {
        "apiVersion": "placement.kubernetes-fleet.io/v1",
        "kind": "ClusterResourcePlacement",
        "metadata": {"name": "team-a-llm"},
        "spec": {
            "resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": "team-a"}],
            "policy": {"placementType": "PickN", "numberOfClusters": 1.0},
        },
    },
}


def base(type_token: str) -> dict[str, Any]:
    return copy.deepcopy(BASELINES[type_token])


def only(findings: list[Finding]) -> Finding:
    errors = failures(findings)
    assert len(errors) == 1, "\n".join(map(str, errors)) or "no findings"
    return errors[0]


# ---------------------------------------------------------------------------------------------------------------
# The facts themselves


def test_facts_are_consistent() -> None:
    assert validate_facts() == []


def test_every_source_names_repository_path_and_version() -> None:
    for path in sorted(FACTS_DIR.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc.get("sources"), path.name
        for sid, source in doc["sources"].items():
            assert source.get("repository") and source.get("path"), (path.name, sid)
            assert source.get("tag") or source.get("commit") or source.get("ref"), (path.name, sid)
            assert source.get("read"), (path.name, sid)


def test_pinned_versions_recorded() -> None:
    facts = load_facts()
    assert facts.charts["gpu-operator"].version == "v26.7.0"
    assert facts.documents["nvidia-device-plugin-config-v1"].schema["fields"]["flags"]
    tokens = {t.token for t in facts.types}
    for token in BASELINES:
        assert token in tokens, token


@pytest.mark.parametrize("type_token", sorted(BASELINES))
def test_baselines_conform(type_token: str) -> None:
    assert failures(check_resource(type_token, base(type_token))) == []


# ---------------------------------------------------------------------------------------------------------------
# The acceptance cases of the issue: a wrong enum, an unlisted field, a missing required field, mixed + MPS in a
# device plugin config string, a misspelled Helm values key.


def test_wrong_enum_agent_pool_os_sku() -> None:
    inputs = base(AGENT_POOL)
    inputs["osSKU"] = "Ubuntu2604"
    finding = only(check_resource(AGENT_POOL, inputs, name="aks-t4"))
    assert (finding.path, finding.rule) == ("osSKU", "enum")
    assert '"Ubuntu2604" is not an allowed value' in finding.message
    assert "Ubuntu, CBLMariner, AzureLinux, AzureLinux3, Windows2019, Windows2022, Ubuntu2204" in finding.message
    assert finding.source.startswith("Azure/azure-rest-api-specs ")
    assert "stable/2025-09-01" in finding.source and finding.source in finding.message
    assert (finding.type, finding.name) == (AGENT_POOL, "aks-t4")
    assert str(finding).startswith(f"{AGENT_POOL} aks-t4: osSKU: [enum] ")


def test_wrong_enum_inside_inline_agent_pool_profile() -> None:
    inputs = base(MANAGED_CLUSTER)
    inputs["agentPoolProfiles"][0]["osSKU"] = "Ubuntu2604"
    finding = only(check_resource(MANAGED_CLUSTER, inputs))
    assert (finding.path, finding.rule) == ("agentPoolProfiles[0].osSKU", "enum")


def test_unlisted_field_is_a_failure() -> None:
    inputs = base(AGENT_POOL)
    inputs["gpuDriverMode"] = "operator"
    finding = only(check_resource(AGENT_POOL, inputs))
    assert (finding.path, finding.rule) == ("gpuDriverMode", "unknown-field")
    assert "known here: agentPoolName, availabilityZones" in finding.message


def test_unlisted_nested_field_is_a_failure() -> None:
    inputs = base(AGENT_POOL)
    inputs["gpuProfile"]["nvidia"] = {"managementMode": "Managed"}  # preview API only, not in 2025-09-01
    finding = only(check_resource(AGENT_POOL, inputs))
    assert (finding.path, finding.rule) == ("gpuProfile.nvidia", "unknown-field")
    assert "known here: driver" in finding.message


def test_missing_required_field() -> None:
    inputs = base(ROLE_ASSIGNMENT)
    del inputs["principalId"]
    finding = only(check_resource(ROLE_ASSIGNMENT, inputs))
    assert (finding.path, finding.rule) == ("principalId", "required")
    assert "authorization-RoleAssignmentsCalls.json" in finding.source


def test_missing_required_sdk_input() -> None:
    inputs = base(AGENT_POOL)
    del inputs["resourceName"]
    finding = only(check_resource(AGENT_POOL, inputs))
    assert (finding.path, finding.rule) == ("resourceName", "required")


def test_mixed_mig_strategy_with_mps_in_device_plugin_config() -> None:
    inputs = base(RELEASE)
    inputs["values"]["mig"]["strategy"] = "mixed"
    inputs["values"]["devicePlugin"]["config"]["data"]["infer"] = _dp_config("mixed", mps=_replicas())
    finding = only(check_resource(RELEASE, inputs))
    assert finding.path == "values.devicePlugin.config.data.infer(yaml).sharing.mps"
    assert finding.rule == "device-plugin.no-mixed-mig-with-mps"
    assert "NVIDIA/k8s-device-plugin cmd/nvidia-device-plugin/main.go" in finding.source
    assert "v0.20.0" in finding.source


def test_misspelled_helm_values_key() -> None:
    inputs = base(RELEASE)
    inputs["values"]["migManager"]["enabeld"] = inputs["values"]["migManager"].pop("enabled")
    finding = only(check_resource(RELEASE, inputs))
    assert (finding.path, finding.rule) == ("values.migManager.enabeld", "unknown-field")
    assert 'did you mean "enabled"?' in finding.message
    assert finding.source.startswith("NVIDIA/gpu-operator deployments/gpu-operator/values.yaml @ v26.7.0")


# ---------------------------------------------------------------------------------------------------------------
# Generic checks


def test_enum_is_compared_exactly() -> None:
    inputs = base(RELEASE)
    inputs["values"]["mig"]["strategy"] = "Mixed"
    finding = only(check_resource(RELEASE, inputs))
    assert (finding.path, finding.rule) == ("values.mig.strategy", "enum")
    assert 'spelled "mixed" upstream' in finding.message


def test_pattern_and_length() -> None:
    inputs = base(AGENT_POOL)
    inputs["agentPoolName"] = "GpuPool"
    finding = only(check_resource(AGENT_POOL, inputs))
    assert (finding.path, finding.rule) == ("agentPoolName", "pattern")
    inputs["agentPoolName"] = "a" * 13
    rules = sorted(f.rule for f in failures(check_resource(AGENT_POOL, inputs)))
    assert rules == ["length", "pattern"]


def test_integers_arrive_as_floats() -> None:
    inputs = base(AGENT_POOL)
    inputs["maxPods"] = 30.0
    assert failures(check_resource(AGENT_POOL, inputs)) == []
    inputs["maxPods"] = 30.5
    finding = only(check_resource(AGENT_POOL, inputs))
    assert (finding.path, finding.rule) == ("maxPods", "type")


def test_wrong_type() -> None:
    inputs = base(AGENT_POOL)
    inputs["enableAutoScaling"] = "true"
    finding = only(check_resource(AGENT_POOL, inputs))
    assert (finding.path, finding.rule) == ("enableAutoScaling", "type")


def test_map_keys_with_dots_are_quoted_in_paths() -> None:
    inputs = base(RELEASE)
    inputs["values"]["devicePlugin"]["config"]["data"]["bad key"] = _dp_config()
    finding = only(check_resource(RELEASE, inputs))
    assert (finding.path, finding.rule) == ('values.devicePlugin.config.data["bad key"]', "pattern")


def test_versioned_type_token_is_covered() -> None:
    inputs = base(AGENT_POOL)
    inputs["osSKU"] = "Ubuntu2604"
    finding = only(check_resource("azure-native:containerservice/v20250901:AgentPool", inputs))
    assert (finding.path, finding.rule) == ("osSKU", "enum")


def test_unknown_type_is_not_covered_not_a_failure() -> None:
    findings = check_resource("aws:s3/bucket:Bucket", {"bucket": "x"})
    assert failures(findings) == []
    assert [(f.rule, f.severity) for f in findings] == [("not-covered", "info")]


def test_components_are_skipped_and_other_providers_allowed() -> None:
    assert check_resource("azure-gpu-platform:components:GpuNodePool", {"anything": 1}) == []
    assert check_resource("pulumi:providers:azure-native", {"location": "westeurope", "anything": "x"}) == []


def test_kubernetes_provider_fields_are_checked() -> None:
    finding = only(check_resource("pulumi:providers:kubernetes", {"kubeconfig": "x", "kubeConfig": "y"}))
    assert (finding.path, finding.rule) == ("kubeConfig", "unknown-field")


def test_unknown_values_are_reported_not_failed() -> None:
    inputs = base(AGENT_POOL)
    inputs["osSKU"] = UNKNOWN
    findings = check_resource(AGENT_POOL, inputs)
    assert failures(findings) == []
    assert [(f.path, f.rule, f.severity) for f in findings] == [("osSKU", "unknown-value", "info")]


def test_engine_form_secrets_are_unwrapped() -> None:
    inputs = base(SECRET)
    inputs["stringData"] = {
        "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
        "value": {"HF_TOKEN": "hf_x", "bad key": "y"},
    }
    finding = only(check_resource(SECRET, inputs))
    assert (finding.path, finding.rule) == ('stringData["bad key"]', "pattern")


def test_check_resources_takes_records_and_mappings() -> None:
    class Rec:
        def __init__(self, type_: str, name: str, inputs: dict[str, Any]) -> None:
            self.type, self.name, self.inputs = type_, name, inputs

    bad = base(AGENT_POOL)
    bad["osSKU"] = "Ubuntu2604"
    findings = check_resources(
        [
            Rec(AGENT_POOL, "aks-t4", bad),
            {"type": RESOURCE_GROUP, "name": "aks-rg", "inputs": base(RESOURCE_GROUP)},
            Rec("azure-gpu-platform:components:AksGpuCluster", "aks", {}),
        ]
    )
    assert [(f.name, f.path, f.rule) for f in failures(findings)] == [("aks-t4", "osSKU", "enum")]


# ---------------------------------------------------------------------------------------------------------------
# Device plugin config documents


def _release_with(name: str, text: str) -> dict[str, Any]:
    inputs = base(RELEASE)
    inputs["values"]["devicePlugin"]["config"]["data"][name] = text
    return inputs


def test_device_plugin_config_unknown_key() -> None:
    text = yaml.safe_dump({"version": "v1", "sharing": {"timeslicing": _replicas()}})
    finding = only(check_resource(RELEASE, _release_with("t4", text)))
    assert (finding.path, finding.rule) == (
        "values.devicePlugin.config.data.t4(yaml).sharing.timeslicing",
        "unknown-field",
    )
    assert 'did you mean "timeSlicing"?' in finding.message


def test_device_plugin_config_replicas_and_resources() -> None:
    finding = only(check_resource(RELEASE, _release_with("t4", _dp_config(timeSlicing=_replicas(1.0)))))
    assert (finding.path, finding.rule) == (
        "values.devicePlugin.config.data.t4(yaml).sharing.timeSlicing.resources[0].replicas",
        "range",
    )
    finding = only(check_resource(RELEASE, _release_with("t4", _dp_config(timeSlicing={"resources": []}))))
    assert (finding.path, finding.rule) == (
        "values.devicePlugin.config.data.t4(yaml).sharing.timeSlicing.resources",
        "items",
    )
    finding = only(check_resource(RELEASE, _release_with("t4", _dp_config(timeSlicing={"renameByDefault": True}))))
    assert (finding.path, finding.rule) == (
        "values.devicePlugin.config.data.t4(yaml).sharing.timeSlicing.resources",
        "required",
    )


def test_device_plugin_config_version_and_strategy() -> None:
    finding = only(check_resource(RELEASE, _release_with("t4", "version: v2\n")))
    assert (finding.path, finding.rule) == ("values.devicePlugin.config.data.t4(yaml).version", "enum")
    finding = only(check_resource(RELEASE, _release_with("t4", _dp_config("auto"))))
    assert (finding.path, finding.rule) == ("values.devicePlugin.config.data.t4(yaml).flags.migStrategy", "enum")


def test_device_plugin_config_not_yaml() -> None:
    finding = only(check_resource(RELEASE, _release_with("t4", "version: [v1\n")))
    assert (finding.path, finding.rule) == ("values.devicePlugin.config.data.t4(yaml)", "yaml")


def test_mig_strategy_mixed_with_time_slicing_is_fine() -> None:
    inputs = _release_with("t4", _dp_config("mixed", timeSlicing=_replicas(2.0, "nvidia.com/mig-3g.40gb")))
    inputs["values"]["mig"]["strategy"] = "mixed"
    assert failures(check_resource(RELEASE, inputs)) == []


# ---------------------------------------------------------------------------------------------------------------
# Every cross-field rule, one violation each


def _set(*path_value: Any) -> Callable[[dict[str, Any]], None]:
    *path, value = path_value

    def mutate(inputs: dict[str, Any]) -> None:
        target: Any = inputs
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return mutate


_DELETE = object()


def _both(*mutations: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def mutate(inputs: dict[str, Any]) -> None:
        for m in mutations:
            m(inputs)

    return mutate


RULE_CASES: list[tuple[str, str, Callable[[dict[str, Any]], None], str]] = [
    (
        "aks.cost-analysis-needs-paid-tier",
        MANAGED_CLUSTER,
        _set("sku", "tier", "Free"),
        "metricsProfile.costAnalysis.enabled",
    ),
    ("aks.lts-needs-premium", MANAGED_CLUSTER, _set("supportPlan", "AKSLongTermSupport"), "supportPlan"),
    ("aks.local-accounts-off-needs-aad", MANAGED_CLUSTER, _set("aadProfile", "managed", False), "disableLocalAccounts"),
    (
        "aks.overlay-needs-azure-cni",
        MANAGED_CLUSTER,
        _set("networkProfile", "networkPlugin", "kubenet"),
        "networkProfile.networkPlugin",
    ),
    (
        "aks.network-policy-matches-dataplane",
        MANAGED_CLUSTER,
        _set("networkProfile", "networkPolicy", "cilium"),
        "networkProfile.networkPolicy",
    ),
    (
        "aks.authorized-ranges-not-private",
        MANAGED_CLUSTER,
        _set("apiServerAccessProfile", {"authorizedIPRanges": ["203.0.113.0/24"], "enablePrivateCluster": True}),
        "apiServerAccessProfile.authorizedIPRanges",
    ),
    (
        "aks.private-dns-zone-needs-private-cluster",
        MANAGED_CLUSTER,
        _set("apiServerAccessProfile", {"privateDNSZone": "system"}),
        "apiServerAccessProfile.privateDNSZone",
    ),
    (
        "aks.custom-private-dns-zone-needs-user-assigned",
        MANAGED_CLUSTER,
        _set("apiServerAccessProfile", {"enablePrivateCluster": True, "privateDNSZone": ZONE_ID}),
        "identity.type",
    ),
    (
        "aks.kubelet-identity-needs-user-assigned",
        MANAGED_CLUSTER,
        _set(
            "identityProfile",
            {
                "kubeletidentity": {
                    "resourceId": "/subscriptions/x/resourceGroups/rg/providers/"
                    "Microsoft.ManagedIdentity/userAssignedIdentities/id-k"
                }
            },
        ),
        "identity.type",
    ),
    (
        "aks.maintenance-one-schedule",
        MAINTENANCE,
        _set("maintenanceWindow", "schedule", "daily", {"intervalDays": 1.0}),
        "maintenanceWindow.schedule",
    ),
    ("aks.needs-system-pool", MANAGED_CLUSTER, _set("agentPoolProfiles", 0, "mode", "User"), "agentPoolProfiles"),
    (
        "aks.system-pool-linux",
        MANAGED_CLUSTER,
        _set("agentPoolProfiles", 0, "osType", "Windows"),
        "agentPoolProfiles[0].osType",
    ),
    (
        "aks.windows-pool-name-length",
        AGENT_POOL,
        _both(_set("osType", "Windows"), _set("osSKU", "Windows2022"), _set("agentPoolName", "wingpu1")),
        "agentPoolName",
    ),
    (
        "aks.zones-need-vmss",
        MANAGED_CLUSTER,
        _set("agentPoolProfiles", 0, "type", "AvailabilitySet"),
        "agentPoolProfiles[0].availabilityZones",
    ),
    (
        "aks.eviction-policy-needs-spot",
        AGENT_POOL,
        _both(_set("scaleSetPriority", "Regular"), _set("spotMaxPrice", _DELETE)),
        "scaleSetEvictionPolicy",
    ),
    ("aks.spot-max-price", AGENT_POOL, _set("spotMaxPrice", 0.0), "spotMaxPrice"),
    ("aks.pool-count-range", MANAGED_CLUSTER, _set("agentPoolProfiles", 0, "count", 0.0), "agentPoolProfiles[0].count"),
    (
        "databricks-ws.managed-rg-by-compute-mode",
        DBX_WORKSPACE,
        _set("managedResourceGroupId", _DELETE),
        "managedResourceGroupId",
    ),
    ("helm.chart-version-matches-facts", RELEASE, _set("version", "v25.3.4"), "version"),
    (
        "helm.chart-repository",
        RELEASE,
        _set("repositoryOpts", "repo", "https://charts.example.com"),
        "repositoryOpts.repo",
    ),
    (
        "gpu-operator.device-plugin-config-named",
        RELEASE,
        _set("values", "devicePlugin", "config", "name", ""),
        "values.devicePlugin.config.name",
    ),
    (
        "gpu-operator.device-plugin-default-in-data",
        RELEASE,
        _set("values", "devicePlugin", "config", "default", "t4"),
        "values.devicePlugin.config.default",
    ),
    (
        "gpu-operator.mig-config-named",
        RELEASE,
        _set(
            "values",
            "migManager",
            "config",
            {"create": True, "name": "mig-parted", "data": {"mig.yaml": "version: v1\n"}},
        ),
        "values.migManager.config.data",
    ),
    (
        "device-plugin.no-mixed-mig-with-mps",
        RELEASE,
        _set("values", "devicePlugin", "config", "data", "infer", _dp_config("mixed", mps=_replicas())),
        "values.devicePlugin.config.data.infer(yaml).sharing.mps",
    ),
    (
        "device-plugin.one-sharing-strategy",
        RELEASE,
        _set("values", "devicePlugin", "config", "data", "infer", _dp_config(mps=_replicas(), timeSlicing=_replicas())),
        "values.devicePlugin.config.data.infer(yaml).sharing",
    ),
    (
        "kaito.inference-xor-tuning",
        KAITO,
        _set("tuning", {"input": {"urls": ["x"]}, "output": {"image": "y"}}),
        "tuning",
    ),
    ("kaito.preset-xor-template", KAITO, _set("inference", "template", {"spec": {}}), "inference.template"),
    (
        "kaito.label-selector-as-map",
        KAITO,
        _set(
            "resource", "labelSelector", {"matchExpressions": [{"key": "apps", "operator": "NotIn", "values": ["x"]}]}
        ),
        "resource.labelSelector.matchExpressions[0].operator",
    ),
    ("databricks.single-user-needs-name", DBX_CLUSTER, _set("singleUserName", _DELETE), "singleUserName"),
    ("databricks.kind-only-options", DBX_CLUSTER, _set("useMlRuntime", True), "useMlRuntime"),
    ("databricks.workers-or-autoscale", DBX_CLUSTER, _set("numWorkers", 2.0), "numWorkers"),
    ("databricks.autoscale-max-above-min", DBX_CLUSTER, _set("autoscale", "maxWorkers", 1.0), "autoscale.maxWorkers"),
    ("databricks.autotermination-range", DBX_CLUSTER, _set("autoterminationMinutes", 5.0), "autoterminationMinutes"),
    ("fleet.generic-resource", ARM_RESOURCE, _set("apiVersion", "2024-05-02-preview"), "apiVersion"),
    (
        "fleet.update-strategy-groups",
        ARM_RESOURCE,
        _set("properties", "strategy", "stages", 1, "groups", 0, "name", "canary"),
        "properties.strategy.stages[1].groups[0].name",
    ),
    (
        "fleet.auto-upgrade-target-version",
        ARM_RESOURCE,
        _both(
            _set("resourceType", "autoUpgradeProfiles"),
            _set("properties", {"channel": "Stable", "targetKubernetesVersion": "1.35"}),
        ),
        "properties.targetKubernetesVersion",
    ),
    ("fleet.crp-policy", CRP, _set("spec", "policy", "numberOfClusters", _DELETE), "spec.policy.numberOfClusters"),
    (
        "aks.system-pool-no-max-unavailable",
        MANAGED_CLUSTER,
        _set("agentPoolProfiles", 0, "upgradeSettings", {"maxSurge": "1", "maxUnavailable": "1"}),
        "agentPoolProfiles[0].upgradeSettings.maxUnavailable",
    ),
]


@pytest.mark.parametrize(("rule", "type_token", "mutate", "path"), RULE_CASES, ids=[c[0] for c in RULE_CASES])
def test_cross_field_rule(rule: str, type_token: str, mutate: Callable[[dict[str, Any]], None], path: str) -> None:
    inputs = base(type_token)
    mutate(inputs)
    finding = only(check_resource(type_token, inputs))
    assert (finding.path, finding.rule) == (path, rule)
    assert finding.source == load_facts().cite(load_facts().rules[rule].source)


def test_every_rule_has_a_case() -> None:
    assert {c[0] for c in RULE_CASES} == set(load_facts().rules)


def test_single_user_rule_covers_the_dedicated_alias() -> None:
    inputs = base(DBX_CLUSTER)
    inputs.update(kind="CLASSIC_PREVIEW", dataSecurityMode="DATA_SECURITY_MODE_DEDICATED", useMlRuntime=True)
    del inputs["singleUserName"]
    finding = only(check_resource(DBX_CLUSTER, inputs))
    assert (finding.path, finding.rule) == ("singleUserName", "databricks.single-user-needs-name")


def test_helm_release_of_an_uncovered_chart() -> None:
    inputs = {"chart": "ingress-nginx", "version": "4.0.0", "values": {"controller": {"replicaCount": 2}}}
    findings = check_resource(RELEASE, inputs)
    assert failures(findings) == []
    assert [(f.path, f.rule) for f in findings] == [("values", "not-covered")]


def test_missing_value_paths_against_a_chart_values_file() -> None:
    values = yaml.safe_load(
        """
driver: {enabled: true, version: "1"}
toolkit: {enabled: true, env: []}
mig: {strategy: single}
migManager: {enabled: true, env: [], config: {default: all-disabled, create: false, name: "", data: {}}}
dcgmExporter: {enabled: true}
daemonsets: {tolerations: []}
devicePlugin: {enabled: true, env: [], config: {create: false, name: "", default: "", data: {}}}
gfd: {enabled: true}
nfd: {enabled: true}
cdi: {enabled: true}
node-feature-discovery: {worker: {tolerations: []}}
"""
    )
    assert missing_value_paths("gpu-operator", yaml.safe_dump(values)) == []
    del values["migManager"]["env"]
    del values["cdi"]
    assert missing_value_paths("gpu-operator", yaml.safe_dump(values)) == ["migManager.env", "cdi"]


def test_a_rule_reads_its_limits_from_the_facts(tmp_path: Path) -> None:
    """The pool-count range lives in aks.json's rule declaration: lowering its maximum there refuses a count the
    shipped facts accept, and the message names the new bound."""
    for path in FACTS_DIR.glob("*.json"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    aks = json.loads((tmp_path / "aks.json").read_text(encoding="utf-8"))
    assert aks["rules"]["aks.pool-count-range"]["limits"] == {"userMin": 0, "systemMin": 1, "max": 1000}
    aks["rules"]["aks.pool-count-range"]["limits"]["max"] = 3
    (tmp_path / "aks.json").write_text(json.dumps(aks), encoding="utf-8")
    inputs = base(AGENT_POOL)
    inputs["count"] = 4.0
    assert failures(check_resource(AGENT_POOL, inputs)) == []
    finding = only(check_resource(AGENT_POOL, inputs, facts=load_facts(tmp_path)))
    assert (finding.path, finding.rule) == ("count", "aks.pool-count-range")
    assert finding.message.startswith("count for a User pool is 0..3, not 4 ")


def test_maintenance_window_shorter_than_four_hours_is_out_of_range() -> None:
    inputs = base(MAINTENANCE)
    inputs["maintenanceWindow"]["durationHours"] = 3.0
    finding = only(check_resource(MAINTENANCE, inputs))
    assert (finding.path, finding.rule) == ("maintenanceWindow.durationHours", "range")
    assert failures(check_resource(MAINTENANCE, base(MAINTENANCE))) == []
