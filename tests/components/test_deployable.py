"""Issue 9, "deployable on real Azure today": versions, cluster access, MIG in both driver modes, MPS + mixed.

Today is pinned to 2026-11-30 (tests/conftest.py). Inputs are asserted as the engine receives them (camelCase).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from stack_config import StackConfigError, validate_stack_config
from tests.components.harness import (
    AGENT_POOL,
    CLIENT_CONFIG_INVOKE,
    DEPLOYER_OBJECT_ID,
    HELM_RELEASE,
    K8S_PROVIDER,
    MANAGED_CLUSTER,
    ROLE_ASSIGNMENT,
    SLEEP,
    SUBSCRIPTION_ID,
    run_main,
    with_ci_deployer,
)

A100 = {"name": "a100", "vmSize": "Standard_NC24ads_A100_v4", "migProfile": "MIG3g", "minCount": 1, "maxCount": 2}
T4 = {"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "minCount": 1, "maxCount": 2}
BASE: dict[str, Any] = {"environment": "dev", "location": "westeurope", "gpuPools": [T4]}
CLUSTER_ADMIN = (
    f"/subscriptions/{SUBSCRIPTION_ID}/providers/Microsoft.Authorization/roleDefinitions/"
    "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"
)
GROUP = "6f3c1a2b-0d4e-4f5a-9b8c-7d6e5f4a3b2c"


def config(**top: Any) -> dict[str, Any]:
    out = copy.deepcopy(BASE)
    out.update(copy.deepcopy(top))
    return with_ci_deployer(out)


def problems(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(data, stack_file="stacks/Pulumi.dev.yaml")
    return {p.path: p.message for p in err.value.problems}


def ok(run: Any) -> Any:
    assert run.error is None, run.error
    return run


# ------------------------------------------------------------------------------------------ Kubernetes versions


def test_removed_kubernetes_version_refused_with_its_dates() -> None:
    found = problems(config(cluster={"kubernetesVersion": "1.33"}))
    assert list(found) == ["cluster.kubernetesVersion"]
    assert found["cluster.kubernetesVersion"].startswith(
        "Kubernetes 1.33 can no longer be created on AKS: its end of life was 2026-07-31 (today is 2026-11-30)"
    )
    assert "1.36 (until 2027-06-30)" in found["cluster.kubernetesVersion"]


def test_lts_needs_premium_and_the_plan() -> None:
    lts = {"kubernetesVersion": "1.33", "skuTier": "Premium", "supportPlan": "AKSLongTermSupport"}
    cfg = validate_stack_config(config(cluster=lts, gpuPools=[]), stack_file="stacks/Pulumi.dev.yaml")
    assert cfg.cluster.supportPlan == "AKSLongTermSupport"
    found = problems(config(cluster={**lts, "skuTier": "Standard"}, gpuPools=[]))
    assert set(found) == {"cluster.kubernetesVersion", "cluster.supportPlan"}
    assert found["cluster.supportPlan"] == (
        "AKSLongTermSupport (long-term support) is only available on the Premium tier, and the tier is Standard. "
        "Set the tier to Premium, or the support plan to KubernetesOfficial."
    )


def test_lts_cluster_sends_its_support_plan() -> None:
    lts = {"kubernetesVersion": "1.33", "skuTier": "Premium", "supportPlan": "AKSLongTermSupport"}
    mc = ok(run_main(config(cluster=lts, gpuPools=[]))).one(MANAGED_CLUSTER).inputs
    assert (mc["kubernetesVersion"], mc["sku"], mc["supportPlan"]) == (
        "1.33",
        {"name": "Base", "tier": "Premium"},
        "AKSLongTermSupport",
    )


@pytest.mark.parametrize(
    ("version", "words"),
    [
        ("1.33", "Kubernetes 1.33 can no longer be created on AKS"),
        ("1.37", "1.37 is newer than the control plane (cluster.kubernetesVersion 1.36)"),
    ],
)
def test_pool_versions(version: str, words: str) -> None:
    found = problems(config(gpuPools=[{**T4, "orchestratorVersion": version}]))
    assert words in found["gpuPools[0].orchestratorVersion"]


def test_pool_skew_behind_the_control_plane() -> None:
    lts = {"kubernetesVersion": "1.36", "skuTier": "Premium", "supportPlan": "AKSLongTermSupport"}
    found = problems(config(cluster=lts, gpuPools=[{**T4, "orchestratorVersion": "1.32"}]))
    assert found["gpuPools[0].orchestratorVersion"] == (
        "1.32 is 4 minors behind the control plane (1.36): AKS allows node pools at most 3 minors behind. "
        "Allowed: 1.33 to 1.36."
    )
    ok_cfg = validate_stack_config(
        config(cluster=lts, gpuPools=[{**T4, "orchestratorVersion": "1.33"}]), stack_file="stacks/Pulumi.dev.yaml"
    )
    assert ok_cfg.gpuPools[0].orchestratorVersion == "1.33"


def test_old_gpu_operator_refused_for_the_cluster_version() -> None:
    found = problems(config(gpuOperator={"enabled": True, "version": "v25.3.4"}))
    assert found["gpuOperator.version"].startswith(
        "gpuPools[0] (t4): GPU operator v25.3.4 is not validated on Kubernetes 1.36"
    )


def test_operator_pool_on_azure_linux_refused() -> None:
    found = problems(config(gpuPools=[{**T4, "osSku": "AzureLinux"}], gpuOperator={"enabled": True}))
    assert found["gpuPools[0].osSku"].startswith("osSku AzureLinux is not an OS NVIDIA validates the GPU operator on")


# ------------------------------------------------------------------------------------------ cluster access


def test_deployer_and_admin_groups_get_cluster_admin_before_any_kubernetes_resource() -> None:
    run = ok(
        run_main(
            config(
                cluster={"adminGroupObjectIds": [GROUP], "access": {"deployerPrincipalType": "ServicePrincipal"}},
                gpuOperator={"enabled": True},
            )
        )
    )
    cluster = run.one(MANAGED_CLUSTER)
    assignments = {r.name: r for r in run.of_type(ROLE_ASSIGNMENT)}
    assert set(assignments) == {"aks-access-deployer", f"aks-access-group-{GROUP}"}
    deployer = assignments["aks-access-deployer"].inputs
    assert deployer == {
        "scope": "/mock/azure-native:containerservice:ManagedCluster/aks-cluster",
        "roleDefinitionId": CLUSTER_ADMIN,
        "principalId": DEPLOYER_OBJECT_ID,
        "principalType": "ServicePrincipal",
        "description": "Azure Kubernetes Service RBAC Cluster Admin for azure-gpu-platform (deployer)",
    }
    assert assignments[f"aks-access-group-{GROUP}"].inputs["principalId"] == GROUP
    assert assignments[f"aks-access-group-{GROUP}"].inputs["principalType"] == "Group"
    assert all(cluster.urn in a.dependencies for a in assignments.values())
    assert any(token == CLIENT_CONFIG_INVOKE for token, _ in run.invokes)

    wait = run.one(SLEEP)
    assert wait.inputs["createDuration"] == "300s"
    assert set(wait.dependencies) >= {a.urn for a in assignments.values()}
    assert set(wait.inputs["triggers"]) == {"deployer", f"group-{GROUP}"}

    # Every Kubernetes resource (and the provider they use) waits for the propagation.
    kubernetes = [r for r in run.records if r.type.startswith("kubernetes:")]
    assert [r.type for r in kubernetes] == [HELM_RELEASE]
    for resource in [*kubernetes, run.one(K8S_PROVIDER)]:
        assert wait.urn in resource.dependencies, resource.name


def test_access_granted_elsewhere() -> None:
    run = ok(run_main(config(cluster={"access": {"grantDeployer": False}}, gpuOperator={"enabled": True})))
    assert run.of_type(ROLE_ASSIGNMENT) == [] and run.of_type(SLEEP) == []
    assert run.one(MANAGED_CLUSTER).urn in run.one(HELM_RELEASE).dependencies


def test_propagation_wait_is_bounded() -> None:
    found = problems(config(cluster={"access": {"propagationWaitSeconds": 3600}}))
    assert "cluster.access.propagationWaitSeconds" in found


# ------------------------------------------------------------------------------------------ MIG


def _values(run: Any) -> dict[str, Any]:
    return run.one(HELM_RELEASE).inputs["values"]


def test_mig_pool_with_operator_driver_is_partitioned_by_the_mig_manager() -> None:
    run = ok(run_main(config(gpuPools=[A100], gpuOperator={"enabled": True, "migStrategy": "mixed"})))
    pool = run.one(AGENT_POOL).inputs
    assert pool["gpuProfile"] == {"driver": "None"}
    assert "gpuInstanceProfile" not in pool  # AgentBaker would not partition a driver-less node anyway
    assert pool["nodeLabels"]["nvidia.com/mig.config"] == "all-3g.40gb"
    values = _values(run)
    assert values["migManager"] == {"enabled": True}
    assert values["mig"] == {"strategy": "mixed"}
    assert run.outputs["gpuPools"]["a100"]["scheduling"]["resourceName"] == "nvidia.com/mig-3g.40gb"


def test_mig_pool_with_aks_driver_is_partitioned_by_aks() -> None:
    pool_cfg = {**A100, "driver": "aks"}
    run = ok(run_main(config(gpuPools=[pool_cfg], gpuOperator={"enabled": True, "migStrategy": "mixed"})))
    pool = run.one(AGENT_POOL).inputs
    assert pool["gpuProfile"] == {"driver": "Install"}
    assert pool["gpuInstanceProfile"] == "MIG3g"
    assert "nvidia.com/mig.config" not in pool["nodeLabels"]
    values = _values(run)
    # The MIG manager would label the node all-disabled and undo AKS's partitions: it stays off.
    assert values["migManager"] == {"enabled": False}
    assert values["driver"] == {"enabled": False}
    assert run.outputs["gpuPools"]["a100"]["scheduling"]["resourceName"] == "nvidia.com/mig-3g.40gb"
    default = yaml.safe_load(values["devicePlugin"]["config"]["data"]["default"])
    assert default["flags"] == {"migStrategy": "mixed"}


def test_mig_without_the_operator_is_served_by_the_device_plugin_chart() -> None:
    # Was refused ("a MIG pool needs gpuOperator.enabled"): AKS partitions the pool (it installs the driver) and the
    # nvidia-device-plugin chart advertises the MIG devices (azure-aks-docs gpu-multi-instance.md).
    cfg = validate_stack_config(config(gpuPools=[A100]), stack_file="stacks/Pulumi.dev.yaml")
    assert cfg.device_plugin_chart and cfg.pool_device_plugin(cfg.gpuPools[0]) == "nvidia-device-plugin"


def test_mixed_strategy_with_mps_refused() -> None:
    pool = {**T4, "sharing": {"mps": {"replicas": 4}}}
    found = problems(config(gpuPools=[pool, A100], gpuOperator={"enabled": True, "migStrategy": "mixed"}))
    assert list(found) == ["gpuPools[0].sharing.mps"]
    assert found["gpuPools[0].sharing.mps"].startswith(
        "MPS sharing cannot run with migStrategy 'mixed': the NVIDIA device plugin refuses"
    )


def test_cluster_component_refuses_a_removed_version_at_construction() -> None:
    # Built without a stack file: the cluster's Args run the lifecycle check before anything is registered.
    from components.aks_cluster import AksGpuCluster, AksGpuClusterArgs
    from components.validation import InvalidArgsError
    from tests.components.harness import run_program

    def program() -> None:
        args = AksGpuClusterArgs(
            cluster_name="aks-gpu-dev",
            resource_group_name="rg-gpu-dev",
            location="westeurope",
            kubernetes_version="1.33",
        )
        AksGpuCluster("aks", args)

    run = run_program(program, config={})
    assert isinstance(run.error, InvalidArgsError)
    assert run.records == []
    assert "AksGpuCluster 'aks-gpu-dev'" in str(run.error)
    assert "kubernetes_version: Kubernetes 1.33 can no longer be created on AKS" in str(run.error)
