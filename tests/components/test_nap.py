"""gpuNodePools (node auto-provisioning): stack config refusals, the NodePool and AKSNodeClass as the engine sees them,
the cluster's NAP switch, the GPU operator managing the nodes, the contract."""

from __future__ import annotations

from typing import Any

import pytest

from components.contract import parse_contract
from components.nap_pool import NapGpuPoolArgs
from components.validation import InvalidArgsError
from stack_config import StackConfigError, validate_stack_config
from tests.components.harness import HELM_RELEASE, MANAGED_CLUSTER, merged, run_main

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass"
STACK_FILE = "stacks/Pulumi.dev.yaml"
INFER: dict[str, Any] = {
    "name": "infer",
    "sizes": ["Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3"],
    "limits": {"gpus": 4},
    "sharing": {"timeSlicing": {"replicas": 2}},
}
BASE: dict[str, Any] = {
    "environment": "dev",
    "location": "westeurope",
    "gpuOperator": {"enabled": True},
    "gpuPools": [{"name": "a100", "vmSize": "Standard_NC24ads_A100_v4", "count": 1}],
    "gpuNodePools": [INFER],
}


def config(**top: Any) -> dict[str, Any]:
    return merged(BASE, **top)


def problems(**top: Any) -> list[str]:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(config(**top), stack_file=STACK_FILE)
    return [line.strip() for line in str(err.value).splitlines()[1:]]


# -- stack config ------------------------------------------------------------------------------------------------------


def test_the_baseline_validates_and_turns_nap_on() -> None:
    cfg = validate_stack_config(config(), stack_file=STACK_FILE)
    assert cfg.node_auto_provisioning
    assert cfg.operator_installs_driver  # the NAP pool's driver defaults to the operator's


@pytest.mark.parametrize("bad", ["Standard_NV32as_v4", "Standard_NC6s_v3"])
def test_a_bad_size_alone_or_among_good_ones_is_refused_naming_it(bad: str) -> None:
    for sizes in ([bad], ["Standard_NC4as_T4_v3", bad]):
        found = problems(gpuNodePools=[{**INFER, "sizes": sizes}])
        index = len(sizes) - 1
        assert found, sizes
        assert all(line.startswith(f"{STACK_FILE}: gpuNodePools[0].sizes[{index}]: {bad}") for line in found), found


def test_the_nvv4_and_retired_messages() -> None:
    found = problems(gpuNodePools=[{**INFER, "sizes": ["Standard_NV32as_v4", "Standard_NC6s_v3"]}])
    assert found[0] == (
        f"{STACK_FILE}: gpuNodePools[0].sizes[0]: Standard_NV32as_v4 is an NVv4 size (partial AMD Radeon Instinct "
        "MI25): AKS does not support the NVv4 series and its GPU has no CUDA. Use an NVIDIA size such as "
        "Standard_NC4as_T4_v3 (inference) or Standard_NC24ads_A100_v4 (training); for graphics use "
        "Standard_NV36ads_A10_v5."
    )
    assert found[-1].startswith(
        f"{STACK_FILE}: gpuNodePools[0].sizes[1]: Standard_NC6s_v3 (NVIDIA Tesla V100 16 GiB) was retired by "
        "Microsoft on 2025-09-30"
    )


def test_a_gpu_limit_is_required_and_node_limits_are_refused_with_the_reason() -> None:
    found = problems(gpuNodePools=[{k: v for k, v in INFER.items() if k != "limits"}])
    assert found == [f"{STACK_FILE}: gpuNodePools[0].limits: required key is missing."]
    found = problems(gpuNodePools=[{**INFER, "limits": {"gpus": 4, "nodes": 2}}])
    assert found == [
        f"{STACK_FILE}: gpuNodePools[0].limits.nodes: AKS documents limits.nodes for static NodePools (replicas) "
        "only (articles/aks/node-auto-provisioning-node-pools.md); bound this pool with limits.gpus."
    ]


def test_nap_refuses_autoscaling_and_windows_agent_pools_with_the_reason() -> None:
    pools = [
        {"name": "a100", "vmSize": "Standard_NC24ads_A100_v4", "minCount": 1, "maxCount": 2},
    ]
    [line] = problems(gpuPools=pools)
    assert line.startswith(f"{STACK_FILE}: gpuPools[0].maxCount: pool 'a100' autoscales, and gpuNodePools turn node ")
    assert "fixed-size agent pools can still be created but autoscaling ones cannot" in line
    # the same pool is fine without NAP
    validate_stack_config(config(gpuPools=pools, gpuNodePools=[]), stack_file=STACK_FILE)


def test_one_line_per_problem_for_names_drivers_labels_and_sizes() -> None:
    pool = {
        "name": "a100",
        "gpuModels": ["P100"],
        "limits": {"gpus": 2},
        "driver": "operator",
        "labels": {"karpenter.azure.com/team": "ml"},
    }
    assert problems(gpuOperator={"enabled": False}, gpuNodePools=[pool]) == [
        f"{STACK_FILE}: gpuNodePools[0].name: 'a100' is already used by gpuPools[0]: pool names label the nodes "
        "workloads select, so they are unique across gpuPools and gpuNodePools.",
        f"{STACK_FILE}: gpuNodePools[0].gpuModels[0]: 'P100' names no catalog size. Known: A10, A100, GB200, GB300, "
        "H100, H200, MI300X, RTXPRO6000BSE, T4, V620, V710.",
        f"{STACK_FILE}: gpuNodePools[0].driver: the pool skips the AKS driver install, but no NVIDIA GPU operator "
        "runs on its cluster, so nothing installs a driver and GPU pods stay Pending. Deploy the GPU operator, or "
        "keep the AKS driver.",
        f'{STACK_FILE}: gpuNodePools[0].labels["karpenter.azure.com/team"]: the NodePool CRD restricts the label '
        "domain 'karpenter.azure.com'.",
    ]


def test_unknown_keys_and_enums_are_refused() -> None:
    found = problems(gpuNodePools=[{**INFER, "imageFamily": "Ubuntu2604", "capacityTypes": ["reserved"]}])
    assert any(
        line.startswith(f"{STACK_FILE}: gpuNodePools[0].imageFamily:") and "AzureLinux" in line for line in found
    )
    assert any(line.startswith(f"{STACK_FILE}: gpuNodePools[0].capacityTypes[0]:") and "spot" in line for line in found)


# -- components, as the engine sees them -------------------------------------------------------------------------------


def test_node_pool_and_node_class_inputs() -> None:
    run = run_main(config(gpuNodePools=[{**INFER, "zones": ["1", "2"], "imageFamily": "Ubuntu2404"}]))
    assert run.error is None, run.error
    node_class = run.one(NODE_CLASS)
    assert node_class.name == "nap-infer-nodeclass"
    assert node_class.inputs["apiVersion"] == "karpenter.azure.com/v1beta1"
    assert node_class.inputs["metadata"]["name"] == "infer"
    assert node_class.inputs["spec"]["gpu"] == {"mode": "None"}  # the GPU operator installs the driver
    assert node_class.inputs["spec"]["imageFamily"] == "Ubuntu2404"
    pool = run.one(NODE_POOL)
    spec = pool.inputs["spec"]
    assert pool.inputs["apiVersion"] == "karpenter.sh/v1"
    assert spec["template"]["spec"]["requirements"] == [
        {"key": "karpenter.azure.com/sku-name", "operator": "In", "values": INFER["sizes"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["westeurope-1", "westeurope-2"]},
    ]
    assert spec["template"]["spec"]["nodeClassRef"] == {
        "group": "karpenter.azure.com",
        "kind": "AKSNodeClass",
        "name": "infer",
    }
    assert spec["template"]["spec"]["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert spec["template"]["metadata"]["labels"] == {
        "azure-gpu-platform/pool": "infer",
        "nvidia.com/device-plugin.config": "infer",
    }
    assert spec["limits"] == {"nvidia.com/gpu": "8"}  # 4 GPUs x 2 replicas: the units Karpenter counts
    assert spec["disruption"] == {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5m"}
    assert node_class.urn in pool.dependencies
    cluster = run.one(MANAGED_CLUSTER).inputs
    assert cluster["nodeProvisioningProfile"] == {"mode": "Auto", "defaultNodePools": "Auto"}


def test_the_gpu_operator_tolerates_and_shares_the_nap_nodes() -> None:
    run = run_main(config(gpuNodePools=[{**INFER, "taints": ["sku=gpu:NoSchedule"]}]))
    assert run.error is None, run.error
    values = run.one(HELM_RELEASE).inputs["values"]
    assert {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"} in values["daemonsets"][
        "tolerations"
    ]
    assert "infer" in values["devicePlugin"]["config"]["data"]
    assert "timeSlicing" in values["devicePlugin"]["config"]["data"]["infer"]
    assert values["driver"] == {"enabled": True}


def test_without_gpu_node_pools_the_cluster_has_no_nap_and_no_karpenter_resources() -> None:
    run = run_main(config(gpuNodePools=[]))
    assert run.error is None, run.error
    assert "nodeProvisioningProfile" not in run.one(MANAGED_CLUSTER).inputs
    assert run.of_type(NODE_POOL) == [] and run.of_type(NODE_CLASS) == []


def test_the_contract_exports_each_node_pools_scheduling() -> None:
    run = run_main(config())
    assert run.error is None, run.error
    contract = parse_contract(run.outputs)
    infer = contract.node_pool("infer")
    assert infer.node_pool == "infer"
    assert infer.sizes == INFER["sizes"]
    assert infer.max_gpus == 4
    assert infer.driver == "operator"
    assert infer.scheduling.node_selector == {"azure-gpu-platform/pool": "infer"}
    assert [t.to_dict() for t in infer.scheduling.tolerations] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "effect": "NoSchedule", "value": "present"}
    ]
    assert infer.scheduling.resource_name == "nvidia.com/gpu"
    assert (infer.scheduling.sharing, infer.scheduling.replicas, infer.scheduling.allocatable_per_node) == (
        "timeSlicing",
        2,
        2,
    )
    assert run.outputs["gpuNodePools"]["infer"]["minNodes"] == 0
    assert run.outputs["contractVersion"] == "1"  # additive: the version stays


def test_args_refuse_a_bad_size_before_registering() -> None:
    with pytest.raises(InvalidArgsError) as err:
        NapGpuPoolArgs(name="bad", sizes=("Standard_NC4as_T4_v3", "Standard_NV32as_v4"), gpu_limit=4, location="x")
    assert "sizes[1]: Standard_NV32as_v4 is an NVv4 size" in str(err.value)


def test_disruption_budgets_reach_the_node_pool() -> None:
    budgets = [{"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h", "reasons": ["Empty"]}, {"nodes": "1"}]
    run = run_main(config(gpuNodePools=[{**INFER, "disruption": {"budgets": budgets}}]))
    assert run.error is None, run.error
    assert run.one(NODE_POOL).inputs["spec"]["disruption"]["budgets"] == [
        {"nodes": "0", "reasons": ["Empty"], "schedule": "0 9 * * mon-fri", "duration": "8h"},
        {"nodes": "1"},
    ]
    [line] = problems(gpuNodePools=[{**INFER, "disruption": {"budgets": [{"nodes": "1", "schedule": "@daily"}]}}])
    assert (
        line
        == f"{STACK_FILE}: gpuNodePools[0].disruption.budgets[0]: schedule and duration are set together or not at all."
    )


def test_the_operator_is_not_validated_on_azure_linux_nap_nodes() -> None:
    # (The operator-driver OS rule also names the Ubuntu A100 pool beside the Azure Linux NodePool.)
    assert problems(gpuNodePools=[{**INFER, "imageFamily": "AzureLinux"}])[-1:] == [
        f"{STACK_FILE}: gpuNodePools[0].imageFamily: osSku AzureLinux is not an OS NVIDIA validates the GPU operator "
        "on (its matrix lists Ubuntu, RHEL, RHCOS and Rocky; no Azure Linux): GPU pools the operator manages need "
        "osSku Ubuntu or Ubuntu2204."
    ]


def test_agent_pools_and_node_pools_share_the_sharing_arithmetic() -> None:
    from components.gpu_node_pool import GpuSharing, shared_scheduling, taint_tolerations

    mps = shared_scheduling("nvidia.com/gpu", GpuSharing(mode="mps", replicas=3, rename_by_default=True))
    assert (mps.resource_name, mps.replicas, mps.mps_active_thread_percentage, mps.mode) == (
        "nvidia.com/gpu.shared",
        3,
        33,
        "mps",
    )
    plain = shared_scheduling("nvidia.com/mig-3g.40gb", None)
    assert (plain.resource_name, plain.replicas, plain.mps_active_thread_percentage, plain.mode) == (
        "nvidia.com/mig-3g.40gb",
        1,
        None,
        "none",
    )
    [equal, exists] = taint_tolerations(["nvidia.com/gpu=present:NoSchedule", "dedicated:NoExecute", "bad"])
    expected = ("nvidia.com/gpu", "Equal", "present", "NoSchedule")
    assert (equal.key, equal.operator, equal.value, equal.effect) == expected
    assert (exists.key, exists.operator, exists.effect) == ("dedicated", "Exists", "NoExecute")
