"""The component package through its provider process: ``GetSchema`` and ``Construct`` over gRPC, as the engine calls
them (``tests/package/harness.py`` starts the process the way the Python language host does)."""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from pulumi.runtime.proto import errors_pb2, provider_pb2, status_pb2

from component_package.provider import NAMESPACE, PACKAGE_NAME, VERSION
from components.contract import SharingMode
from components.gpu_node_pool import GpuPoolSpec
from components.nap_pool import FACTS as NAP_FACTS
from components.nap_pool import NapGpuPoolArgs
from components.pool_scheduling import GpuSharing, MigStrategy
from components.validation import InvalidArgsError
from gpu_catalog import MIG_PROFILES
from rules.access import deployer_principal_type
from rules.aks import DEFAULT_GPU_TAINT, LINUX_OS_SKUS, WINDOWS_OS_SKUS
from rules.databricks import DEDICATED_MODES
from rules.karpenter import resolve_sizes
from rules.specs import AksGpuPool
from rules.specs.keys import spec_keys
from tests.conftest import TODAY

from .harness import REPO_ROOT, Engine, Plugin, construct_request, engine, provider, state_dict

pytestmark = pytest.mark.slow

TOKEN = f"{PACKAGE_NAME}:index"
COMPONENTS = (
    "AksGpuCluster",
    "GpuNodePool",
    "GpuOperator",
    "NvidiaDevicePlugin",
    "KaitoWorkspace",
    "DatabricksGpuCluster",
    "NapGpuPool",
)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, Plugin]]:
    consumer = tmp_path_factory.mktemp("consumer")  # the consumer's project directory: the plugin's working directory
    with engine() as eng, provider(eng.engine_address, consumer) as plugin:
        yield eng, plugin


@pytest.fixture(scope="module")
def schema(running: tuple[Engine, Plugin]) -> dict[str, Any]:
    _, plugin = running
    return json.loads(plugin.stub.GetSchema(provider_pb2.GetSchemaRequest(version=0)).schema)


def _type(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return schema["types"][f"{TOKEN}:{name}"]


def _enum_values(schema: dict[str, Any], name: str) -> set[str]:
    t = _type(schema, name)
    assert t["type"] == "string"
    return {v["value"] for v in t["enum"]}


# -------------------------------------------------------------------------------------------------------- schema


def test_the_schema_names_the_package_its_version_and_its_components(schema: dict[str, Any]) -> None:
    assert (schema["name"], schema["namespace"], schema["version"]) == (PACKAGE_NAME, NAMESPACE, VERSION)
    # The package metaschema (pulumi/pulumi pkg/codegen/schema/pulumi.json): a name pattern and a semver version.
    assert re.fullmatch(r"[a-zA-Z][-a-zA-Z0-9_]*", schema["name"])
    assert re.fullmatch(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", schema["version"])
    assert set(schema["resources"]) == {f"{TOKEN}:{c}" for c in COMPONENTS}
    assert all(r["isComponent"] for r in schema["resources"].values())


def test_gpu_node_pool_inputs_are_typed_required_and_documented(schema: dict[str, Any]) -> None:
    pool = schema["resources"][f"{TOKEN}:GpuNodePool"]
    assert pool["description"].startswith("One AKS GPU node pool")
    assert pool["requiredInputs"] == ["clusterName", "pool", "resourceGroupName"]
    inputs = pool["inputProperties"]
    # Values another resource supplies are inputs (no `plain`); the pool is a plain object the rules check.
    assert inputs["resourceGroupName"] == {"description": "The cluster's resource group.", "type": "string"}
    assert inputs["pool"]["$ref"] == f"#/types/{TOKEN}:GpuPool"
    assert inputs["pool"]["plain"] is True

    spec = _type(schema, "GpuPool")
    assert spec["required"] == ["name", "vmSize"]
    props = spec["properties"]
    assert props["vmSize"]["type"] == "string"
    assert "GPU VM size" in props["vmSize"]["description"]
    assert props["count"]["type"] == "integer"
    assert props["spot"]["type"] == "boolean"
    assert props["taints"]["type"] == "array"
    assert props["taints"]["items"]["type"] == "string"
    assert props["labels"]["additionalProperties"]["type"] == "string"
    refs = {key: props[key]["$ref"].rsplit(":", 1)[-1] for key in props if "$ref" in props[key]}
    objects = {
        "driver": "DriverMode",
        "sharing": "Sharing",
        "gpuOperator": "PoolGpuOperator",
        "devicePlugin": "PoolDevicePlugin",
        "upgrade": "UpgradeSettings",
    }
    # every other reference is the enum of a spec key's allowed values (named after the key unless it says)
    enums = {
        k.written: k.key.enum or k.written[:1].upper() + k.written[1:]
        for k in spec_keys(AksGpuPool)
        if k.package_key and k.values and not k.key.translated and typing.get_origin(k.value_type) is not tuple
    }
    assert refs == {**objects, **enums}
    assert {"os": "OsType", "osSku": "OsSku", "migProfile": "MigProfile", "osDiskType": "OsDiskType"}.items() <= (
        refs.items()
    )
    assert _type(schema, "Sharing")["required"] == ["mode", "replicas"]


def test_enums_carry_the_values_the_rules_allow(schema: dict[str, Any]) -> None:
    assert _enum_values(schema, "OsType") == set(typing.get_args(typing.get_type_hints(GpuPoolSpec)["os"]))
    assert _enum_values(schema, "OsSku") == {*LINUX_OS_SKUS, *WINDOWS_OS_SKUS}
    assert _enum_values(schema, "MigProfile") == set(MIG_PROFILES)
    assert _enum_values(schema, "SharingMode") == set(typing.get_args(typing.get_type_hints(GpuSharing)["mode"]))
    assert _enum_values(schema, "SharingMode") == set(typing.get_args(SharingMode)) - {"none"}
    assert _enum_values(schema, "MigStrategy") == set(typing.get_args(MigStrategy))
    assert _enum_values(schema, "DriverMode") == {"aks", "operator"}
    assert _enum_values(schema, "DataSecurityMode") == set(DEDICATED_MODES)
    assert _enum_values(schema, "SkuTier") == {"Free", "Standard", "Premium"}
    time_slicing = next(v for v in _type(schema, "SharingMode")["enum"] if v["value"] == "timeSlicing")
    assert time_slicing["name"] == "TIME_SLICING"
    assert _type(schema, "OsSku")["description"].startswith("The node OS image")


def test_outputs_carry_the_contracts_scheduling_data(schema: dict[str, Any]) -> None:
    outputs = schema["resources"][f"{TOKEN}:GpuNodePool"]["properties"]
    assert outputs["scheduling"]["$ref"] == f"#/types/{TOKEN}:PoolScheduling"
    assert outputs["azureName"]["type"] == "string"
    scheduling = _type(schema, "PoolScheduling")
    props = scheduling["properties"]
    assert props["nodeSelector"]["type"] == "object"
    assert props["nodeSelector"]["additionalProperties"]["type"] == "string"
    assert props["nodeSelector"]["description"] == "The pod's node selector."
    assert props["tolerations"]["items"]["$ref"] == f"#/types/{TOKEN}:SchedulingToleration"
    assert props["resourceName"]["type"] == "string"
    assert "mpsActiveThreadPercentage" not in scheduling["required"]
    assert {"nodeSelector", "tolerations", "resourceName"} <= set(scheduling["required"])
    cluster = schema["resources"][f"{TOKEN}:AksGpuCluster"]["properties"]
    assert cluster["gpuPools"]["additionalProperties"]["$ref"] == f"#/types/{TOKEN}:GpuPoolInfo"
    assert _type(schema, "GpuPoolInfo")["properties"]["scheduling"]["$ref"] == f"#/types/{TOKEN}:PoolScheduling"
    assert {"kubeconfig", "clusterId", "oidcIssuerUrl"} <= set(cluster)


def test_the_other_components_require_what_their_args_require(schema: dict[str, Any]) -> None:
    required = {c: schema["resources"][f"{TOKEN}:{c}"]["requiredInputs"] for c in COMPONENTS}
    assert required == {
        "AksGpuCluster": ["clusterName", "kubernetesVersion", "location", "resourceGroupName"],
        "GpuNodePool": ["clusterName", "pool", "resourceGroupName"],
        "GpuOperator": ["kubeconfig"],
        "NvidiaDevicePlugin": ["kubeconfig", "pools"],
        "KaitoWorkspace": [
            "addonEnabled",
            "instanceType",
            "kubeconfig",
            "kubernetesVersion",
            "preset",
            "workspaceName",
        ],
        "DatabricksGpuCluster": ["clusterName", "nodeTypeId", "singleUserName", "workspaceUrl"],
        "NapGpuPool": ["gpuLimit", "kubeconfig", "location", "poolName"],
    }


# ----------------------------------------------------------------------------------------------------- construct

A100_POOL = {"name": "a100", "vmSize": "Standard_NC24ads_A100_v4", "minCount": 1, "maxCount": 3, "spot": True}


def test_construct_registers_the_pool_and_its_agent_pool_with_the_engines_inputs(
    running: tuple[Engine, Plugin],
) -> None:
    eng, plugin = running
    inputs = {"resourceGroupName": "rg-team", "clusterName": "aks-team", "pool": A100_POOL}
    response = plugin.stub.Construct(construct_request(eng, f"{TOKEN}:GpuNodePool", "a100", inputs))

    wrapper = f"urn:pulumi:dev::consumer::{TOKEN}:GpuNodePool::a100"
    inner = f"urn:pulumi:dev::consumer::{TOKEN}:GpuNodePool$azure-gpu-platform:components:GpuNodePool::a100"
    assert response.urn == wrapper
    recorded = {r.urn: r for r in eng.monitor.monitor.recorded if r.name.startswith("a100")}
    agent_pool_urn = (
        f"urn:pulumi:dev::consumer::{TOKEN}:GpuNodePool$azure-gpu-platform:components:GpuNodePool"
        "$azure-native:containerservice:AgentPool::a100"
    )
    assert set(recorded) == {wrapper, inner, agent_pool_urn}
    assert recorded[inner].parent == wrapper
    agent_pool = recorded[agent_pool_urn]
    assert agent_pool.parent == inner
    assert agent_pool.inputs == {
        "agentPoolName": "a100",
        "resourceGroupName": "rg-team",
        "resourceName": "aks-team",
        "mode": "User",
        "type": "VirtualMachineScaleSets",
        "vmSize": "Standard_NC24ads_A100_v4",
        "osType": "Linux",
        "count": 1.0,
        "gpuProfile": {"driver": "Install"},
        "nodeTaints": [DEFAULT_GPU_TAINT],
        # no operator or chart given: the cluster's own device plugin, declared for the policy pack (issue 40)
        "nodeLabels": {
            "azure-gpu-platform/pool": "a100",
            "azure-gpu-platform/device-plugin": "external",
            "azure-gpu-platform/gpu-model": "nvidia-a100-pcie-80-gib",
        },
        "enableNodePublicIP": False,
        # hardening (issue 29): NC24ads_A100_v4's 64 GiB temp disk cannot hold the 128 GiB OS disk; its encryption at
        # host support is not sourced, so both stay off by default
        "enableEncryptionAtHost": False,
        "osDiskType": "Managed",
        "osDiskSizeGB": 128.0,
        # the pool spec's defaults, as a stack file's pool gets them (rules/specs/aks_gpu_pool.py)
        "osSKU": "Ubuntu",
        "maxPods": 250.0,
        "tags": {"gpu-pool": "a100"},
        "enableAutoScaling": True,
        "minCount": 1.0,
        "maxCount": 3.0,
        "scaleSetPriority": "Spot",
        "scaleSetEvictionPolicy": "Delete",
        "spotMaxPrice": -1.0,
    }

    state = state_dict(response)
    assert state["azureName"] == "a100"
    assert state["vmSize"] == "Standard_NC24ads_A100_v4"
    assert state["gpusPerNode"] == 1
    assert state["driver"] == "aks"
    assert state["scheduling"] == {
        "nodeSelector": {"azure-gpu-platform/pool": "a100"},
        "tolerations": [
            {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
            {
                "key": "kubernetes.azure.com/scalesetpriority",
                "operator": "Equal",
                "value": "spot",
                "effect": "NoSchedule",
            },
        ],
        "resourceName": "nvidia.com/gpu",
        "sharing": "none",
        "replicas": 1,
        "allocatablePerNode": 1,
        "devicePlugin": "external",  # no gpuOperator, no devicePlugin: the cluster's own plugin, taken on trust
    }
    assert state["agentPoolId"].endswith("/agentPools/a100")


def test_a_pool_served_by_the_device_plugin_chart_says_so(running: tuple[Engine, Plugin]) -> None:
    eng, plugin = running
    pool = {**A100_POOL, "name": "a100dp", "devicePlugin": {"migStrategy": "mixed"}}
    inputs = {"resourceGroupName": "rg-team", "clusterName": "aks-team", "pool": pool}
    response = plugin.stub.Construct(construct_request(eng, f"{TOKEN}:GpuNodePool", "a100dp", inputs))
    assert state_dict(response)["scheduling"]["devicePlugin"] == "nvidia-device-plugin"


def _refusal(plugin: Plugin, eng: Engine, name: str, pool: dict[str, Any]) -> tuple[grpc.RpcError, list[Any]]:
    inputs = {"resourceGroupName": "rg-team", "clusterName": "aks-team", "pool": pool}
    return _refused(plugin, eng, "GpuNodePool", name, inputs)


def _refused(
    plugin: Plugin, eng: Engine, component: str, name: str, inputs: dict[str, Any]
) -> tuple[grpc.RpcError, list[Any]]:
    """Construct fails: the error, and its input-property errors (path, reason); nothing was registered."""
    before = len(eng.monitor.monitor.recorded)
    with pytest.raises(grpc.RpcError) as caught:
        plugin.stub.Construct(construct_request(eng, f"{TOKEN}:{component}", name, inputs))
    assert len(eng.monitor.monitor.recorded) == before  # nothing was registered
    error = caught.value
    details: dict[Any, Any] = dict(error.trailing_metadata() or ())  # type: ignore[attr-defined]
    status = status_pb2.Status.FromString(details["grpc-status-details-bin"])
    found = []
    for detail in status.details:
        errors = errors_pb2.InputPropertiesError()
        assert detail.Unpack(errors)
        found += [(e.property_path, e.reason) for e in errors.errors]
    return error, found


def _python_refusal(**kwargs: Any) -> InvalidArgsError:
    """The same pool given to the component from Python (on an existing cluster, as the package builds it: the
    cluster's own device plugin taken on trust)."""
    with pytest.raises(InvalidArgsError) as caught:
        GpuPoolSpec(**{"external_device_plugin": True, **kwargs})
    return caught.value


def test_a_bad_size_fails_construct_with_the_rules_message(running: tuple[Engine, Plugin]) -> None:
    eng, plugin = running
    error, found = _refusal(plugin, eng, "cpu", {"name": "cpu", "vmSize": "Standard_D4ds_v5"})
    expected = _python_refusal(name="cpu", vm_size="Standard_D4ds_v5")
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert error.details() == str(expected)  # type: ignore[attr-defined]
    assert found == [("pool.vmSize", expected.findings[0].message)]
    assert "Standard_D4ds_v5 is not a GPU size" in expected.findings[0].message
    assert "Traceback" not in error.details()  # type: ignore[attr-defined]


def test_a_windows_pool_name_of_seven_characters_fails_construct_with_the_rules_message(
    running: tuple[Engine, Plugin],
) -> None:
    eng, plugin = running
    pool = {"name": "gpuwin1", "vmSize": "Standard_NC4as_T4_v3", "os": "Windows", "orchestratorVersion": "1.34"}
    error, found = _refusal(plugin, eng, "gpuwin1", pool)
    expected = _python_refusal(
        name="gpuwin1", vm_size="Standard_NC4as_T4_v3", os="Windows", orchestrator_version="1.34"
    )
    assert error.details() == str(expected)  # type: ignore[attr-defined]
    assert found == [("pool.name", expected.findings[0].message)]
    assert "'gpuwin1' has 7 characters: AKS limits Windows node pool names to 6" in expected.findings[0].message


def test_numbers_reach_the_rules_as_integers(running: tuple[Engine, Plugin]) -> None:
    eng, plugin = running
    pool = {"name": "bounds", "vmSize": "Standard_NC24ads_A100_v4", "minCount": 3, "maxCount": 2}
    error, found = _refusal(plugin, eng, "bounds", pool)
    expected = _python_refusal(name="bounds", vm_size="Standard_NC24ads_A100_v4", min_count=3, max_count=2)
    assert error.details() == str(expected)  # type: ignore[attr-defined]
    assert found == [("pool.minCount", "minCount 3 is greater than maxCount 2.")]


def test_an_enum_value_outside_the_schema_is_refused_before_the_component_runs(
    running: tuple[Engine, Plugin],
) -> None:
    eng, plugin = running
    error, found = _refusal(
        plugin, eng, "mig", {"name": "mig", "vmSize": "Standard_NC24ads_A100_v4", "migProfile": "MIG5g"}
    )
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert [path for path, _ in found] == ["pool.migProfile"]
    assert "MigProfile" in found[0][1]


def test_the_plugin_directory_holds_what_the_language_host_runs() -> None:
    from .harness import PLUGIN_DIR

    manifest = (PLUGIN_DIR / "PulumiPlugin.yaml").read_text()
    import yaml

    assert yaml.safe_load(manifest) == {
        "runtime": {"name": "python", "options": {"toolchain": "pip", "virtualenv": "venv"}}
    }
    assert (PLUGIN_DIR / "__main__.py").is_file()
    requirements = [
        line.strip()
        for line in (PLUGIN_DIR / "requirements.txt").read_text().splitlines()
        if line.strip()[:1] not in ("", "#")
    ]
    assert requirements[0] == "-c ../requirements.txt"
    root = {
        line.split(">")[0].split("=")[0].strip().lower()
        for line in (Path(PLUGIN_DIR).parent / "requirements.txt").read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert {r.lower() for r in requirements[1:]} <= root


EVERY_COMPONENT: dict[str, tuple[dict[str, Any], str, set[str]]] = {
    # component: (inputs, the project component it constructs, outputs in the state)
    "AksGpuCluster": (
        {
            "clusterName": "aks-team",
            "resourceGroupName": "rg-team",
            "location": "westeurope",
            "kubernetesVersion": "1.36",
            "skuTier": "Standard",
            "access": {"deployerPrincipalType": "ServicePrincipal"},
            "gpuPools": [{"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "spot": True}],
        },
        "azure-gpu-platform:components:AksGpuCluster",
        {"clusterName", "clusterId", "resourceGroupName", "kubeconfig", "gpuPools"},
    ),
    "GpuOperator": (
        {
            "kubeconfig": "apiVersion: v1",
            "tolerations": [{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
        },
        "azure-gpu-platform:components:GpuOperator",
        {"version", "namespace"},
    ),
    "NvidiaDevicePlugin": (
        {
            "kubeconfig": "apiVersion: v1",
            "pools": ["t4"],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
        },
        "azure-gpu-platform:components:NvidiaDevicePlugin",
        {"version", "namespace"},
    ),
    "KaitoWorkspace": (
        {
            "kubeconfig": "apiVersion: v1",
            "workspaceName": "phi",
            "preset": "phi-4-mini-instruct",
            "instanceType": "Standard_NC24ads_A100_v4",
            "matchLabels": {"apps": "phi"},
            "kubernetesVersion": "1.35",
            "addonEnabled": True,
        },
        "azure-gpu-platform:components:KaitoWorkspace",
        {"workspaceName", "namespace", "serviceHost", "port", "endpoint"},
    ),
    "DatabricksGpuCluster": (
        {
            "workspaceUrl": "https://adb-1.1.azuredatabricks.net",
            "clusterName": "train",
            "nodeTypeId": "Standard_NC24ads_A100_v4",
            "singleUserName": "alice@contoso.com",
            "numWorkers": 2,
            "sparkConf": {"spark.task.resource.gpu.amount": "1"},
        },
        "azure-gpu-platform:components:DatabricksGpuCluster",
        {"clusterId"},
    ),
    "NapGpuPool": (
        {
            "kubeconfig": "apiVersion: v1",
            "poolName": "t4",
            "location": "westeurope",
            "gpuLimit": 4,
            "series": ["NCas_T4_v3"],
        },
        "azure-gpu-platform:components:NapGpuPool",
        {"nodePool", "sizes", "gpuModels", "capacityTypes", "driver", "gpuLimit", "scheduling"},
    ),
}


@pytest.mark.parametrize("component", sorted(EVERY_COMPONENT))
def test_every_component_constructs_the_projects_component(running: tuple[Engine, Plugin], component: str) -> None:
    eng, plugin = running
    inputs, inner_type, outputs = EVERY_COMPONENT[component]
    name = f"x{component.lower()}"
    response = plugin.stub.Construct(construct_request(eng, f"{TOKEN}:{component}", name, inputs))
    assert response.urn == f"urn:pulumi:dev::consumer::{TOKEN}:{component}::{name}"
    inner = [r for r in eng.monitor.monitor.recorded if r.type == inner_type and r.parent == response.urn]
    assert [r.name for r in inner] == [name]
    assert outputs <= set(state_dict(response))
    if component == "AksGpuCluster":  # a map's values keep the contract's own (schema) names
        t4 = state_dict(response)["gpuPools"]["t4"]
        assert t4["vmSize"] == "Standard_NC4as_T4_v3"
        assert t4["scheduling"]["nodeSelector"] == {"azure-gpu-platform/pool": "t4"}
        assert t4["scheduling"]["resourceName"] == "nvidia.com/gpu"


EXAMPLE = REPO_ROOT / "examples" / "gpu-pool-on-existing-cluster" / "Pulumi.yaml"
EXAMPLE_CONFIG = {"resourceGroupName": "rg-vision", "clusterName": "aks-vision"}


def _interpolate(value: Any) -> Any:
    """The example's values with its config filled in, as Pulumi YAML evaluates ``${key}``."""
    if isinstance(value, str) and value.startswith("${") and value.endswith("}"):
        return EXAMPLE_CONFIG[value[2:-1]]
    if isinstance(value, dict):
        return {k: _interpolate(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v) for v in value]
    return value


def test_the_yaml_example_uses_the_package_as_its_schema_says(
    running: tuple[Engine, Plugin], schema: dict[str, Any]
) -> None:
    """The example program's resource, inputs and outputs exist in the schema, and Construct accepts its inputs."""
    import yaml

    program = yaml.safe_load(EXAMPLE.read_text())
    assert program["runtime"] == "yaml"
    assert (EXAMPLE.parent / program["packages"][PACKAGE_NAME]).resolve() == REPO_ROOT / "component_package"
    assert set(program["config"]) == set(EXAMPLE_CONFIG)
    (name, resource), *others = program["resources"].items()
    assert others == []
    component = resource["type"].rsplit(":", 1)[-1]
    spec = schema["resources"][resource["type"]]
    props = resource["properties"]
    assert set(spec["requiredInputs"]) <= set(props) <= set(spec["inputProperties"])
    pool_type = _type(schema, "GpuPool")
    assert set(pool_type["required"]) <= set(props["pool"]) <= set(pool_type["properties"])
    for output in program["outputs"].values():  # ${a100Pool.scheduling.nodeSelector}
        path = output[2:-1].split(".")
        assert path[0] == name
        assert path[1] in spec["properties"]
        if len(path) > 2:
            assert path[2] in _type(schema, "PoolScheduling")["properties"]

    eng, plugin = running
    response = plugin.stub.Construct(construct_request(eng, resource["type"], "example", _interpolate(props)))
    assert response.urn == f"urn:pulumi:dev::consumer::{TOKEN}:{component}::example"
    state = state_dict(response)
    assert state["scheduling"]["nodeSelector"] == {"azure-gpu-platform/pool": "a100"}
    agent_pool = next(
        r
        for r in eng.monitor.monitor.recorded
        if r.type == "azure-native:containerservice:AgentPool" and r.name == "example"
    )
    assert agent_pool.inputs["resourceName"] == "aks-vision"
    assert agent_pool.inputs["nodeLabels"]["team"] == "vision"


LLAMA = {
    "kubeconfig": "apiVersion: v1",
    "workspaceName": "llama",
    "preset": "llama-3.1-8b-instruct",
    "instanceType": "Standard_NC24ads_A100_v4",
    "matchLabels": {"apps": "llama"},
    "kubernetesVersion": "1.35",
    "addonEnabled": True,
    "modelAccessSecret": "hf-token",
    "modelAccessTokenConfig": "kaito:hfToken",
}


def test_a_missing_model_access_token_is_refused_before_anything_is_registered(
    running: tuple[Engine, Plugin],
) -> None:
    eng, plugin = running
    before = len(eng.monitor.monitor.recorded)
    with pytest.raises(grpc.RpcError) as caught:
        plugin.stub.Construct(construct_request(eng, f"{TOKEN}:KaitoWorkspace", "llama", LLAMA))
    assert len(eng.monitor.monitor.recorded) == before
    error = caught.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert "the secret config value kaito:hfToken is not set" in error.details()  # type: ignore[attr-defined]


def test_a_model_access_token_from_the_stacks_secret_config_becomes_the_secret(
    running: tuple[Engine, Plugin],
) -> None:
    eng, plugin = running
    request = construct_request(
        eng, f"{TOKEN}:KaitoWorkspace", "llama2", LLAMA, secret_config={"kaito:hfToken": "hf_example"}
    )
    response = plugin.stub.Construct(request)
    types = {r.type for r in eng.monitor.monitor.recorded if r.name.startswith("llama2")}
    assert {
        "kubernetes:core/v1:Secret",
        "kubernetes:kaito.sh/v1beta1:Workspace",
        "pulumi:providers:kubernetes",
    } <= types
    assert state_dict(response)["endpoint"] == "http://llama.default.svc.cluster.local/v1/chat/completions"


def test_the_plugin_reports_the_package_version(running: tuple[Engine, Plugin]) -> None:
    from google.protobuf import empty_pb2

    _, plugin = running
    assert plugin.stub.GetPluginInfo(empty_pb2.Empty()).version == VERSION


# ------------------------------------------------------------------------------------------------------- NapGpuPool

NAP_POOL = {
    "kubeconfig": "apiVersion: v1",
    "poolName": "a100",
    "location": "westeurope",
    "gpuLimit": 8,
    "sizes": ["Standard_NC48ads_A100_v4", "Standard_NC24ads_A100_v4"],
    "capacityTypes": ["spot", "on-demand"],
    "zones": ["1", "2"],
    "driver": "operator",
    "sharing": {"mode": "timeSlicing", "replicas": 2},
    "labels": {"team": "vision"},
    "imageFamily": "Ubuntu2404",
    "disruption": {"consolidateAfter": "10m", "budgets": [{"nodes": "1", "reasons": ["Empty"]}]},
    "tags": {"cost-center": "ml"},
    "gpuOperator": {"installsDriver": True},
}


def test_nap_gpu_pool_inputs_take_their_enums_from_the_facts(schema: dict[str, Any]) -> None:
    nap = schema["resources"][f"{TOKEN}:NapGpuPool"]
    assert nap["description"].startswith("GPU nodes from AKS node auto-provisioning")
    inputs = nap["inputProperties"]
    assert inputs["kubeconfig"] == {
        "description": (
            "A kubeconfig for the cluster (e.g. `AksGpuCluster.kubeconfig`); NAP must be on for the cluster."
        ),
        "type": "string",
    }
    assert inputs["gpuLimit"]["type"] == "integer"
    assert inputs["capacityTypes"]["items"]["$ref"] == f"#/types/{TOKEN}:CapacityType"
    assert inputs["imageFamily"]["$ref"] == f"#/types/{TOKEN}:ImageFamily"
    assert inputs["driver"]["$ref"] == f"#/types/{TOKEN}:DriverMode"
    assert inputs["sharing"]["$ref"] == f"#/types/{TOKEN}:Sharing"
    assert inputs["disruption"]["$ref"] == f"#/types/{TOKEN}:NapDisruption"
    assert {"sizes", "series", "gpuModels", "zones", "taints", "labels", "expireAfter", "weight"} <= set(inputs)
    assert _enum_values(schema, "CapacityType") == set(NAP_FACTS.capacity_types)
    assert _enum_values(schema, "ImageFamily") == set(NAP_FACTS.image_families)
    assert _enum_values(schema, "ConsolidationPolicy") == set(NAP_FACTS.consolidation_policies)
    assert _enum_values(schema, "BudgetReason") == {"Underutilized", "Empty", "Drifted"}
    disruption = _type(schema, "NapDisruption")["properties"]
    assert disruption["consolidationPolicy"]["$ref"] == f"#/types/{TOKEN}:ConsolidationPolicy"
    assert _type(schema, "DisruptionBudget")["required"] == ["nodes"]
    outputs = nap["properties"]
    assert outputs["scheduling"]["$ref"] == f"#/types/{TOKEN}:PoolScheduling"
    assert outputs["sizes"]["items"]["type"] == "string"
    assert outputs["gpuLimit"]["type"] == "integer"


def test_construct_registers_the_aks_node_class_and_node_pool_with_the_engines_inputs(
    running: tuple[Engine, Plugin],
) -> None:
    eng, plugin = running
    response = plugin.stub.Construct(construct_request(eng, f"{TOKEN}:NapGpuPool", "nap", NAP_POOL))
    wrapper = f"urn:pulumi:dev::consumer::{TOKEN}:NapGpuPool::nap"
    inner_type = f"{TOKEN}:NapGpuPool$azure-gpu-platform:components:NapGpuPool"
    assert response.urn == wrapper
    recorded = {r.urn: r for r in eng.monitor.monitor.recorded if r.name.startswith("nap")}
    inner = f"urn:pulumi:dev::consumer::{inner_type}::nap"
    node_class_urn = (
        f"urn:pulumi:dev::consumer::{inner_type}$kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass::nap-nodeclass"
    )
    node_pool_urn = f"urn:pulumi:dev::consumer::{inner_type}$kubernetes:karpenter.sh/v1:NodePool::nap-nodepool"
    k8s_urn = f"urn:pulumi:dev::consumer::{TOKEN}:NapGpuPool$pulumi:providers:kubernetes::nap-k8s"
    assert set(recorded) == {wrapper, inner, node_class_urn, node_pool_urn, k8s_urn}
    assert recorded[inner].parent == wrapper
    assert recorded[k8s_urn].inputs["kubeconfig"] == "apiVersion: v1"
    node_class, node_pool = recorded[node_class_urn], recorded[node_pool_urn]
    assert node_class.parent == node_pool.parent == inner
    assert node_class.inputs == {
        "apiVersion": "karpenter.azure.com/v1beta1",
        "kind": "AKSNodeClass",
        "metadata": {"name": "a100", "labels": {"app.kubernetes.io/managed-by": "pulumi"}},
        "spec": {"gpu": {"mode": "None"}, "imageFamily": "Ubuntu2404", "tags": {"cost-center": "ml"}},
    }
    assert node_pool.inputs == {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "a100", "labels": {"app.kubernetes.io/managed-by": "pulumi"}},
        "spec": {
            "template": {
                "metadata": {
                    "labels": {
                        "team": "vision",
                        "azure-gpu-platform/pool": "a100",
                        "nvidia.com/device-plugin.config": "a100",
                    }
                },
                "spec": {
                    "nodeClassRef": {"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "a100"},
                    "requirements": [
                        {
                            "key": "karpenter.azure.com/sku-name",
                            "operator": "In",
                            "values": ["Standard_NC24ads_A100_v4", "Standard_NC48ads_A100_v4"],  # cheapest first
                        },
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]},
                        {
                            "key": "topology.kubernetes.io/zone",
                            "operator": "In",
                            "values": ["westeurope-1", "westeurope-2"],
                        },
                    ],
                    "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule", "value": "present"}],
                },
            },
            "limits": {"nvidia.com/gpu": "16"},  # 8 GPUs x 2 time-slicing replicas: the units Karpenter counts
            "disruption": {
                "consolidationPolicy": "WhenEmpty",
                "consolidateAfter": "10m",
                "budgets": [{"nodes": "1", "reasons": ["Empty"]}],
            },
        },
    }

    state = state_dict(response)
    assert state["nodePool"] == "a100"
    assert state["sizes"] == ["Standard_NC24ads_A100_v4", "Standard_NC48ads_A100_v4"]
    assert state["capacityTypes"] == ["spot", "on-demand"]
    assert state["driver"] == "operator"
    assert state["gpuLimit"] == 8
    assert state["scheduling"] == {
        "nodeSelector": {"azure-gpu-platform/pool": "a100"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
        "resourceName": "nvidia.com/gpu",
        "sharing": "timeSlicing",
        "replicas": 2,
        "allocatablePerNode": 2,
        "devicePlugin": "gpu-operator",
    }


def test_gpu_models_and_series_resolve_through_the_catalog_as_from_a_stack_file(
    running: tuple[Engine, Plugin],
) -> None:
    eng, plugin = running
    inputs = {"kubeconfig": "apiVersion: v1", "poolName": "t4", "location": "westeurope", "gpuLimit": 4}
    response = plugin.stub.Construct(
        construct_request(eng, f"{TOKEN}:NapGpuPool", "naptier", {**inputs, "gpuModels": ["T4"]})
    )
    expected, found = resolve_sizes([], [], ["T4"], today=TODAY)
    assert found == []
    assert expected == [
        "Standard_NC4as_T4_v3",
        "Standard_NC8as_T4_v3",
        "Standard_NC16as_T4_v3",
        "Standard_NC64as_T4_v3",
    ]
    assert state_dict(response)["sizes"] == expected
    node_pool = next(r for r in eng.monitor.monitor.recorded if r.name == "naptier-nodepool")
    assert node_pool.inputs["spec"]["template"]["spec"]["requirements"][0]["values"] == expected
    assert node_pool.inputs["spec"]["disruption"] == {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5m"}
    node_class = next(r for r in eng.monitor.monitor.recorded if r.name == "naptier-nodeclass")
    assert node_class.inputs["spec"] == {"gpu": {"mode": "Driver"}}


def _nap_python_refusal(**kwargs: Any) -> InvalidArgsError:
    """The same NodePool given to the component from Python."""
    with pytest.raises(InvalidArgsError) as caught:
        NapGpuPoolArgs(**{"name": "refused", "location": "westeurope", "external_device_plugin": True, **kwargs})
    return caught.value


@pytest.mark.parametrize("size", ["Standard_NV32as_v4", "Standard_NC6s_v3"])
def test_a_nodepool_allowing_a_refused_size_fails_construct_with_the_rules_message(
    running: tuple[Engine, Plugin], size: str
) -> None:
    eng, plugin = running
    inputs = {
        "kubeconfig": "apiVersion: v1",
        "poolName": "refused",
        "location": "westeurope",
        "gpuLimit": 4,
        "sizes": ["Standard_NC4as_T4_v3", size],
    }
    error, found = _refused(plugin, eng, "NapGpuPool", f"nap-{size.lower()}", inputs)
    expected = _nap_python_refusal(sizes=("Standard_NC4as_T4_v3", size), gpu_limit=4)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert error.details() == str(expected)  # type: ignore[attr-defined]
    assert found == [("sizes[1]", f.message) for f in expected.findings]
    assert expected.findings and all(f.field == "sizes[1]" for f in expected.findings)
    assert "retired by Microsoft" in str(expected)
    assert "Traceback" not in error.details()  # type: ignore[attr-defined]


def test_a_nodepool_without_a_gpu_limit_fails_construct_with_the_rules_message(running: tuple[Engine, Plugin]) -> None:
    eng, plugin = running
    inputs = {"kubeconfig": "apiVersion: v1", "poolName": "refused", "location": "westeurope", "gpuModels": ["A100"]}
    error, found = _refused(plugin, eng, "NapGpuPool", "nap-nolimit", inputs)
    sizes, _ = resolve_sizes([], [], ["A100"], today=TODAY)
    expected = _nap_python_refusal(sizes=tuple(sizes), gpu_limit=0)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert error.details() == str(expected)  # type: ignore[attr-defined]
    assert found == [("gpuLimit", expected.findings[0].message)]
    assert "sets no spec.limits['nvidia.com/gpu']" in expected.findings[0].message


def test_a_series_naming_no_size_is_refused_with_the_rules_message(running: tuple[Engine, Plugin]) -> None:
    eng, plugin = running
    inputs = {
        "kubeconfig": "apiVersion: v1",
        "poolName": "refused",
        "location": "westeurope",
        "gpuLimit": 4,
        "sizes": ["Standard_NC4as_T4_v3"],
        "series": ["NCxx_v9"],
        "driver": "operator",
    }
    error, found = _refused(plugin, eng, "NapGpuPool", "nap-series", inputs)
    _, selector = resolve_sizes(["Standard_NC4as_T4_v3"], ["NCxx_v9"], today=TODAY)
    driver = _nap_python_refusal(sizes=("Standard_NC4as_T4_v3",), gpu_limit=4, driver_skipped=True)
    # the NodePool spec's checklist order, as a stack file gets them (the selectors are resolved first)
    assert [path for path, _ in found] == ["series[0]", "driver"]
    assert found == [("series[0]", selector[0].message), ("driver", driver.findings[0].message)]
    assert "'NCxx_v9' names no catalog size" in error.details()  # type: ignore[attr-defined]


def test_an_array_of_enum_values_reaches_the_component_and_a_value_outside_it_is_refused(
    running: tuple[Engine, Plugin],
) -> None:
    """The SDK maps an array of enums item by item as objects (each value would arrive as ``{}``); the package's
    provider maps them to the enum and refuses a value outside it on its path."""
    eng, plugin = running
    inputs = {
        "kubeconfig": "apiVersion: v1",
        "poolName": "refused",
        "location": "westeurope",
        "gpuLimit": 4,
        "sizes": ["Standard_NC4as_T4_v3"],
        "capacityTypes": ["spot", "reserved"],
    }
    error, found = _refused(plugin, eng, "NapGpuPool", "nap-capacity", inputs)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert found == [("capacityTypes[1]", "Invalid value 'reserved' for enum 'CapacityType'; allowed: on-demand, spot")]


CLUSTER_INPUTS: dict[str, Any] = {
    "clusterName": "aks-team",
    "resourceGroupName": "rg-team",
    "location": "westeurope",
    "kubernetesVersion": "1.36",
}


def test_a_cluster_without_the_deployers_principal_type_fails_construct_with_the_rules_message(
    running: tuple[Engine, Plugin],
) -> None:
    """Issue 20 defect 3: unset, pulumi-azure-native would send principalType 'User' (UnmatchedPrincipalType for a
    service principal): the package refuses it, on the schema's property path, with the rule's words."""
    eng, plugin = running
    error, found = _refused(plugin, eng, "AksGpuCluster", "nodeployer", CLUSTER_INPUTS)
    [finding] = deployer_principal_type(True, None)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert found == [("access.deployerPrincipalType", finding.message)]
    assert "Allowed: User (a person signed in with az login) or ServicePrincipal" in finding.message


def test_a_rapid_channel_past_the_operators_range_fails_construct_with_the_rules_message(
    running: tuple[Engine, Plugin],
) -> None:
    """Issue 20 defect 4: rapid moves a 1.36 cluster to 1.37 (today 2026-11-30) past GPU operator v26.7.0's 1.36."""
    eng, plugin = running
    inputs = {
        **CLUSTER_INPUTS,
        "access": {"deployerPrincipalType": "ServicePrincipal"},
        "autoUpgradeChannel": "rapid",
        "gpuPools": [
            {
                "name": "t4",
                "vmSize": "Standard_NC4as_T4_v3",
                "driver": "operator",
                "gpuOperator": {"installsDriver": True},
            }
        ],
    }
    error, found = _refused(plugin, eng, "AksGpuCluster", "rapid", inputs)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert [path for path, _ in found] == ["autoUpgradeChannel"]
    assert found[0][1].startswith("'rapid' moves this cluster to Kubernetes 1.37 today (2026-11-30)")
    assert "GPU operator v26.7.0 (NVIDIA's platform-support matrix) is validated up to 1.36" in found[0][1]
    assert found[0][1].endswith("Allowed today: none, patch, stable, node-image; or pin software validated on 1.37.")


def test_the_package_pool_is_the_pool_spec_field_for_field() -> None:
    """The schema's ``GpuPool`` input is checked against the spec (:class:`rules.specs.AksGpuPool`): each key is a spec
    field of the same name (``driver`` is ``driver_skipped`` as a mode), and a spec field the package leaves out is
    one the cluster, a stack file or the rules fill in."""
    from dataclasses import fields

    from component_package.inputs import GpuPool
    from rules.specs import AksGpuPool

    spec_fields = {f.name for f in fields(AksGpuPool)}
    renamed = {"driver": "driver_skipped", "exemptions": "exempt_rules"}
    package_keys = set(typing.get_type_hints(GpuPool))
    assert {renamed.get(k, k) for k in package_keys} <= spec_fields
    # ssh_access: a stack file's cluster.sshAccess (not yet a package input)
    not_in_package = {"conflicting_sharing", "external_device_plugin", "kaito_addon", "ssh_access"}
    assert spec_fields - {renamed.get(k, k) for k in package_keys} == not_in_package
