"""Every dated fact, applied wherever its subject appears (issue 27): one test per cell of the matrix in
``docs/dated-facts.md`` (fact × place), each with a concrete input past the fact's date and the refusal it gets.

The suite pins today to 2026-11-30 (tests/conftest.py). The facts used: Kubernetes 1.33 ended 2026-07-31
(``aks_kubernetes.json``); GPU operator v25.10.1 is End of Support (``gpu_operator.json``); Windows Server 2022 ends
with Kubernetes 1.36 and Ubuntu 22.04 takes no new pools from 2027-06-30 (``aks_node_os.json``); Standard_NC6s_v3
retired 2025-09-30 (``catalog.json``); Databricks Runtime 13.3 ended 2026-08-22 (``databricks.json``); the KAITO
add-on has a version for Kubernetes 1.33–1.36 and none for 1.37 (``kaito_addon.json``).
"""

from __future__ import annotations

import copy
from datetime import date
from typing import Any

import pytest

from components.aks_cluster import AksGpuClusterArgs, ClusterAccess
from components.databricks import DatabricksGpuClusterArgs
from components.gpu_node_pool import GpuPoolSpec, PoolDevicePlugin, PoolGpuOperator
from components.kaito import KaitoWorkspaceArgs
from components.nap_pool import NapGpuPoolArgs
from components.validation import InvalidArgsError
from exports.azure_policy import allowed_sizes
from exports.databricks_policy import allowed_node_types, cluster_policy_definition
from gpu_catalog.clock import TODAY_ENV
from gpu_catalog.device_plugins import load_device_plugin_facts
from gpu_catalog.lifecycle import default_gpu_operator_version
from policies.aks_kaito_addon_version import POLICY as KAITO_ADDON_POLICY
from policies.aks_kubernetes_version_supported import POLICY as K8S_POLICY
from policies.aks_node_os_supported import POLICY as NODE_OS_POLICY
from policies.databricks_gpu_node_types import POLICY as DBX_NODE_POLICY
from policies.databricks_gpu_runtime import POLICY as DBX_RUNTIME_POLICY
from policies.gpu_operator_platform_supported import POLICY as OPERATOR_POLICY
from policies.gpu_size_not_retired import POLICY as RETIRED_POLICY
from policies.kaito_workspace_instance_type import POLICY as KAITO_POLICY
from stack_config import StackConfigError, validate_stack_config
from tests.components.harness import stack_config
from tests.components.test_deployable import T4, config
from tests.exports.databricks_policy_eval import violations
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    DATABRICKS_CLUSTER,
    DATABRICKS_GPU,
    GPU_POOL,
    HELM_RELEASE,
    KAITO_WORKSPACE,
    KAITO_WS,
    MANAGED_CLUSTER,
    OPERATOR_RELEASE,
    run_policy,
    run_stack_policy,
    with_,
)
from tests.policies.test_karpenter_node_pools import NODE_POOL, SKU_NAME, with_requirements

ENDED_K8S = "1.33"
ENDED_OPERATOR = "v25.10.1"
RETIRED = "Standard_NC6s_v3"
ENDED_RUNTIME = "13.3.x-gpu-ml-scala2.12"
WINDOWS_ENDS = "is not supported on Kubernetes 1.37: AKS supports it up to 1.36"
K8S_ENDED = "can no longer be created on AKS"
SIZE_RETIRED = "was retired by Microsoft on 2025-09-30"
RUNTIME_ENDED = "Databricks Runtime 13.3 reached its end of support on 2026-08-22"
OPERATOR_ENDED = "End of Support"
DEVICE_PLUGIN = PoolDevicePlugin(load_device_plugin_facts().chart.version)
CI_ACCESS = ClusterAccess(deployer_principal_type="ServicePrincipal")


def stack_problems(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(data, stack_file="stacks/Pulumi.dev.yaml")
    return {p.path: p.message for p in err.value.problems}


def args_refusal(build: Any) -> str:
    with pytest.raises(InvalidArgsError) as err:
        build()
    return str(err.value)


def staging() -> dict[str, Any]:
    from stack_config.loading import config_from_stack_yaml

    return config_from_stack_yaml(stack_config("staging"))


def prod() -> dict[str, Any]:
    from stack_config.loading import config_from_stack_yaml

    return config_from_stack_yaml(stack_config("prod"))


# ------------------------------------------------------------------------ Kubernetes version end of life


def test_k8s_stack_config_cluster_and_pool() -> None:
    data = config(gpuPools=[{**T4, "orchestratorVersion": ENDED_K8S}])
    found = stack_problems(data)
    assert K8S_ENDED in found["gpuPools[0].orchestratorVersion"]
    data = config(gpuPools=[T4])
    data.setdefault("cluster", {})["kubernetesVersion"] = ENDED_K8S
    assert K8S_ENDED in stack_problems(data)["cluster.kubernetesVersion"]


def test_k8s_component_args_cluster_and_pool() -> None:
    def cluster(version: str, *pools: GpuPoolSpec) -> AksGpuClusterArgs:
        return AksGpuClusterArgs(
            cluster_name="aks", resource_group_name="rg", location="westeurope", kubernetes_version=version,
            access=CI_ACCESS, gpu_pools=pools,
        )  # fmt: skip

    message = args_refusal(lambda: cluster(ENDED_K8S))
    assert "kubernetes_version: Kubernetes 1.33" in message and K8S_ENDED in message
    # A pool alone is refused when no cluster could take it, not even under long-term support (1.29: LTS ended
    # 2026-04) ...
    message = args_refusal(lambda: GpuPoolSpec(name="t4", vm_size=T4["vmSize"], orchestrator_version="1.29"))
    assert "orchestrator_version: Kubernetes 1.29" in message and K8S_ENDED in message
    # ... and a 1.33 pool (creatable under LTS) by its cluster, which has no LTS.
    pool = GpuPoolSpec(name="t4", vm_size=T4["vmSize"], orchestrator_version=ENDED_K8S, device_plugin=DEVICE_PLUGIN)
    message = args_refusal(lambda: cluster("1.36", pool))
    assert "t4: Kubernetes 1.33" in message and K8S_ENDED in message


def test_k8s_policy_pack_raw_cluster_and_pool() -> None:
    outcome = run_stack_policy(
        K8S_POLICY,
        [
            (MANAGED_CLUSTER, "aks", with_(CLUSTER, kubernetesVersion="1.36")),
            (AGENT_POOL, "pool", with_(GPU_POOL, orchestratorVersion=ENDED_K8S)),
        ],
    )
    assert [v.split(": ", 2)[:2] for v in outcome.violations] == [["pool", "orchestratorVersion"]]
    assert K8S_ENDED in outcome.violations[0]


# ------------------------------------------------------------------------ GPU operator release end of support


def test_operator_stack_config() -> None:
    data = config(
        gpuPools=[{**T4, "orchestratorVersion": "1.35"}], gpuOperator={"enabled": True, "version": ENDED_OPERATOR}
    )
    data.setdefault("cluster", {})["kubernetesVersion"] = "1.35"
    assert any(OPERATOR_ENDED in m for m in stack_problems(data).values())


def test_operator_component_args() -> None:
    message = args_refusal(
        lambda: GpuPoolSpec(
            name="a100",
            vm_size="Standard_NC24ads_A100_v4",
            driver_skipped=True,
            os_sku="Ubuntu",
            orchestrator_version="1.35",  # validated for v25.10.1: its end of support is what refuses it
            gpu_operator=PoolGpuOperator(version=ENDED_OPERATOR, installs_driver=True),
        )
    )
    assert OPERATOR_ENDED in message


def test_operator_policy_pack_raw_release() -> None:
    outcome = run_stack_policy(
        OPERATOR_POLICY,
        [
            (MANAGED_CLUSTER, "aks", with_(CLUSTER, kubernetesVersion="1.35")),
            (AGENT_POOL, "pool", with_(GPU_POOL, orchestratorVersion="1.35")),
            (HELM_RELEASE, "gpu-operator", with_(OPERATOR_RELEASE, version=ENDED_OPERATOR)),
        ],
    )
    assert outcome.violations and all(OPERATOR_ENDED in v for v in outcome.violations)


def test_operator_nap_pools_stack_config() -> None:
    nap = {"name": "infer", "gpuModels": ["T4"], "limits": {"gpus": 2}}
    data = config(gpuPools=[], gpuNodePools=[nap], gpuOperator={"enabled": True, "version": ENDED_OPERATOR})
    data.setdefault("cluster", {})["kubernetesVersion"] = "1.35"
    found = stack_problems(data)
    assert any(k.startswith(("gpuNodePools[0]", "gpuOperator")) and OPERATOR_ENDED in m for k, m in found.items())


def test_operator_nap_component_args() -> None:
    """``NapGpuPoolArgs`` with the cluster's version: the operator's validated platforms for its image family."""

    def nap(version: str) -> NapGpuPoolArgs:
        return NapGpuPoolArgs(
            name="infer",
            sizes=(T4["vmSize"],),
            gpu_limit=2,
            location="westeurope",
            image_family="Ubuntu2404",
            gpu_operator=PoolGpuOperator(version, installs_driver=False),
            kubernetes_version="1.35",
        )

    nap(default_gpu_operator_version())  # the pinned operator: fine
    message = args_refusal(lambda: nap(ENDED_OPERATOR))
    assert "image_family" in message and OPERATOR_ENDED in message


# ------------------------------------------------------------------------ node OS end of support


def test_node_os_stack_config() -> None:
    data = config(gpuPools=[{**T4, "name": "win", "os": "Windows", "orchestratorVersion": "1.37"}])
    data.setdefault("cluster", {})["kubernetesVersion"] = "1.37"
    assert any(WINDOWS_ENDS in m for m in stack_problems(data).values())


def test_node_os_component_args() -> None:
    message = args_refusal(
        lambda: GpuPoolSpec(name="win", vm_size=T4["vmSize"], os="Windows", orchestrator_version="1.37")
    )
    assert "os_sku" in message and WINDOWS_ENDS in message


def test_node_os_policy_pack_raw_pool() -> None:
    windows = with_(GPU_POOL, osType="Windows", osSKU="Windows2022", orchestratorVersion=None)
    outcome = run_stack_policy(
        NODE_OS_POLICY, [(MANAGED_CLUSTER, "aks", with_(CLUSTER, kubernetesVersion="1.37")), (AGENT_POOL, "w", windows)]
    )
    assert len(outcome.violations) == 1 and WINDOWS_ENDS in outcome.violations[0]


def test_node_os_nap_image_family_stack_config(monkeypatch: pytest.MonkeyPatch) -> None:
    data = staging()
    data["gpuNodePools"][0]["imageFamily"] = "Ubuntu2204"
    data["gpuPools"][0]["osSku"] = "Ubuntu2204"  # one OS version for the operator's driver
    validate_stack_config(data, stack_file="stacks/Pulumi.staging.yaml")  # before the date: fine
    monkeypatch.setenv(TODAY_ENV, "2027-06-30")
    found = stack_problems(data)
    assert "AKS creates no new node pools with it from 2027-06-30" in found["gpuNodePools[0].imageFamily"]


def test_node_os_nap_component_args(monkeypatch: pytest.MonkeyPatch) -> None:
    """``NapGpuPoolArgs.image_family`` on its ``kubernetes_version``: the same checklist entry as the stack config's
    ``gpuNodePools[].imageFamily`` (above), with the same message."""

    def nap() -> NapGpuPoolArgs:
        return NapGpuPoolArgs(
            name="infer",
            sizes=(T4["vmSize"],),
            gpu_limit=2,
            location="westeurope",
            image_family="Ubuntu2204",
            device_plugin=DEVICE_PLUGIN,
            kubernetes_version="1.35",
        )

    nap()  # before the date: fine
    monkeypatch.setenv(TODAY_ENV, "2027-06-30")
    message = args_refusal(nap)
    assert "image_family" in message and "AKS creates no new node pools with it from 2027-06-30" in message


# ------------------------------------------------------------------------ retired GPU sizes


def test_retired_stack_config_pool_nap_kaito_databricks() -> None:
    data = prod()
    data["gpuPools"][0]["vmSize"] = RETIRED
    data["kaito"]["workspaces"][0]["instanceType"] = RETIRED
    data["databricks"]["clusters"][0]["nodeTypeId"] = RETIRED
    found = stack_problems(data)
    for key in ("gpuPools[0].vmSize", "kaito.workspaces[0].instanceType", "databricks.clusters[0].nodeTypeId"):
        assert SIZE_RETIRED in found[key], key
    nap = staging()
    nap["gpuNodePools"][0] = {k: v for k, v in nap["gpuNodePools"][0].items() if k != "gpuModels"} | {
        "sizes": [RETIRED]
    }
    assert SIZE_RETIRED in stack_problems(nap)["gpuNodePools[0].sizes[0]"]


def test_retired_component_args_pool_kaito_databricks() -> None:
    pool = args_refusal(lambda: GpuPoolSpec(name="v100", vm_size=RETIRED, device_plugin=DEVICE_PLUGIN))
    assert SIZE_RETIRED in pool
    kaito = args_refusal(
        lambda: KaitoWorkspaceArgs(
            workspace_name="phi",
            preset="phi-4-mini-instruct",
            instance_type=RETIRED,
            match_labels={"apps": "phi"},
            kubernetes_version="1.36",
            addon_enabled=True,
        )
    )
    assert SIZE_RETIRED in kaito
    dbx = args_refusal(
        lambda: DatabricksGpuClusterArgs(
            cluster_name="ml", node_type_id=RETIRED, num_workers=1, single_user_name="a@b.c"
        )
    )
    assert SIZE_RETIRED in dbx


def test_retired_policy_pack_raw_pool_nodepool_kaito_databricks() -> None:
    assert SIZE_RETIRED in run_policy(RETIRED_POLICY, AGENT_POOL, with_(GPU_POOL, vmSize=RETIRED)).violations[0]
    profiles = with_(CLUSTER, agentPoolProfiles=[{**CLUSTER["agentPoolProfiles"][0], "vmSize": RETIRED}])
    assert SIZE_RETIRED in run_policy(RETIRED_POLICY, MANAGED_CLUSTER, profiles).violations[0]
    nodepool = with_requirements({"key": SKU_NAME, "operator": "In", "values": [RETIRED]})
    assert SIZE_RETIRED in run_policy(RETIRED_POLICY, NODE_POOL, nodepool).violations[0]
    ws = copy.deepcopy(KAITO_WS)
    ws["resource"]["instanceType"] = RETIRED
    assert SIZE_RETIRED in run_policy(RETIRED_POLICY, KAITO_WORKSPACE, ws).violations[0]  # the size rules' policy
    assert run_policy(KAITO_POLICY, KAITO_WORKSPACE, ws).violations  # and the preset no longer fits it
    dbx = with_(DATABRICKS_GPU, nodeTypeId=RETIRED, driverNodeTypeId=RETIRED)
    assert [v.split(": ")[0] for v in run_policy(RETIRED_POLICY, DATABRICKS_CLUSTER, dbx).violations] == [
        "nodeTypeId",
        "driverNodeTypeId",
    ]
    assert all(SIZE_RETIRED in v for v in run_policy(RETIRED_POLICY, DATABRICKS_CLUSTER, dbx).violations)
    assert run_policy(DBX_NODE_POLICY, DATABRICKS_CLUSTER, dbx).violations  # not offered by Databricks either


def test_retired_exports_azure_and_databricks_policy() -> None:
    assert RETIRED not in allowed_sizes()
    assert "Standard_NC4as_T4_v3" in allowed_sizes()
    assert RETIRED not in allowed_node_types()
    assert "Standard_NC4as_T4_v3" in allowed_node_types()


# ------------------------------------------------------------------------ Databricks runtime end of support


def test_runtime_stack_config() -> None:
    data = prod()
    data["databricks"]["clusters"][0]["sparkVersion"] = ENDED_RUNTIME
    assert RUNTIME_ENDED in stack_problems(data)["databricks.clusters[0].sparkVersion"]


def test_runtime_component_args() -> None:
    message = args_refusal(
        lambda: DatabricksGpuClusterArgs(
            cluster_name="ml",
            node_type_id="Standard_NC24ads_A100_v4",
            num_workers=1,
            single_user_name="a@b.c",
            spark_version=ENDED_RUNTIME,
        )
    )
    assert "spark_version" in message and RUNTIME_ENDED in message


def test_runtime_policy_pack_raw_cluster() -> None:
    ok = run_policy(DBX_RUNTIME_POLICY, DATABRICKS_CLUSTER, DATABRICKS_GPU)
    assert ok.violations == []
    ended = run_policy(DBX_RUNTIME_POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkVersion=ENDED_RUNTIME))
    assert len(ended.violations) == 1 and RUNTIME_ENDED in ended.violations[0]


def test_runtime_exports_databricks_cluster_policy() -> None:
    """The exported cluster policy admits only the releases supported on its ``today``: the ended 13.3 (both key
    shapes) is refused, and 15.4 leaves on its end-of-support date (2027-08-19)."""
    policy = cluster_policy_definition()
    gpu = {
        "spark_version": "17.3.x-gpu-ml-scala2.13",
        "node_type_id": "Standard_NC24ads_A100_v4",
        "data_security_mode": "SINGLE_USER",
        "single_user_name": "a@b.c",
        "custom_tags": {"cost-center": "ml"},
    }
    assert violations(policy, gpu) == {}
    for ended in (ENDED_RUNTIME, "13.3.x-scala2.12"):
        assert list(violations(policy, {**gpu, "spark_version": ended})) == ["spark_version"]
    lts_15 = {**gpu, "spark_version": "15.4.x-gpu-ml-scala2.12"}
    assert violations(cluster_policy_definition(today=date(2027, 8, 18)), lts_15) == {}
    assert list(violations(cluster_policy_definition(today=date(2027, 8, 19)), lts_15)) == ["spark_version"]


# ------------------------------------------------------------------------ KAITO add-on version per Kubernetes minor


def test_kaito_addon_stack_config() -> None:
    data = staging()
    data["cluster"]["kubernetesVersion"] = "1.37"
    data["cluster"]["autoUpgradeChannel"] = "patch"
    found = stack_problems(data)
    assert "1.37" in found["cluster.kubernetesVersion"] and "add-on" in found["cluster.kubernetesVersion"]


def test_kaito_addon_component_args() -> None:
    message = args_refusal(
        lambda: KaitoWorkspaceArgs(
            workspace_name="phi",
            preset="phi-4-mini-instruct",
            instance_type="Standard_NC24ads_A100_v4",
            match_labels={"apps": "phi"},
            kubernetes_version="1.37",
            addon_enabled=True,
        )
    )
    assert "1.37" in message and "add-on" in message


def test_kaito_addon_policy_pack() -> None:
    """A raw KAITO add-on cluster's minor with the Workspaces beside it (aks-kaito-addon-version)."""
    workspace = ("kubernetes:kaito.sh/v1beta1:Workspace", "phi", {"resource": {"instanceType": T4["vmSize"]}})
    on = with_(CLUSTER, kubernetesVersion="1.36")
    assert run_stack_policy(KAITO_ADDON_POLICY, [(MANAGED_CLUSTER, "aks", on), workspace]).violations == []
    old = with_(CLUSTER, kubernetesVersion="1.33")
    [message] = run_stack_policy(KAITO_ADDON_POLICY, [(MANAGED_CLUSTER, "aks", old), workspace]).violations
    assert message.startswith("aks: kubernetesVersion: ") and "add-on 0.4.5" in message


def test_node_os_policy_pack_raw_aks_node_class(monkeypatch: pytest.MonkeyPatch) -> None:
    """A raw AKSNodeClass's imageFamily on the stack's ManagedCluster's version (aks-node-os-supported)."""
    node_class = {
        "apiVersion": "karpenter.azure.com/v1beta1",
        "kind": "AKSNodeClass",
        "spec": {"imageFamily": "Ubuntu2204"},
    }
    resources = [
        (MANAGED_CLUSTER, "aks", with_(CLUSTER, kubernetesVersion="1.36")),
        ("kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass", "infer", node_class),
    ]
    assert run_stack_policy(NODE_OS_POLICY, resources).violations == []
    monkeypatch.setenv(TODAY_ENV, "2027-06-30")
    [message] = run_stack_policy(NODE_OS_POLICY, resources).violations
    assert (
        message.startswith("infer: spec.imageFamily: ")
        and "AKS creates no new node pools with it from 2027-06-30" in message
    )


def test_operator_policy_pack_raw_nap_node_pool() -> None:
    """A raw GPU NodePool's AKSNodeClass on the cluster's version (gpu-operator-platform-supported)."""
    node_class = {"metadata": {"name": "infer"}, "spec": {"imageFamily": "Ubuntu2404"}}
    outcome = run_stack_policy(
        OPERATOR_POLICY,
        [
            (MANAGED_CLUSTER, "aks", with_(CLUSTER, kubernetesVersion="1.35")),
            ("kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass", "infer-class", node_class),
            (NODE_POOL, "infer", with_requirements({"key": SKU_NAME, "operator": "In", "values": [T4["vmSize"]]})),
            (HELM_RELEASE, "gpu-operator", with_(OPERATOR_RELEASE, version=ENDED_OPERATOR)),
        ],
    )
    assert len(outcome.violations) == 1 and outcome.violations[0].startswith("infer: spec.template.spec.nodeClassRef")
    assert OPERATOR_ENDED in outcome.violations[0]
