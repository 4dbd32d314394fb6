"""Components used from Python without a stack file: typed Args that refuse, with the rules' own messages, what the
stack config refuses, before anything is registered; Args built once from a stack file (composition/wiring.py); each
pool's contract entry computed once."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

import components.gpu_node_pool
from components.aks_cluster import AksGpuCluster, AksGpuClusterArgs, ClusterAccess, SystemPoolSpec
from components.gpu_node_pool import GpuNodePool, GpuNodePoolArgs, GpuPoolSpec
from components.gpu_operator import GpuOperatorArgs, operator_values
from components.pool_scheduling import GpuSharing, PoolDevicePlugin, PoolGpuOperator, SharedPool
from components.validation import InvalidArgsError
from composition.wiring import aks_cluster_args, platform_tags
from gpu_catalog.device_plugins import load_device_plugin_facts
from rules.aks import windows_pool_name
from rules.node_stack import Sharing
from rules.sizes import check_gpu_size
from stack_config import StackConfigError, validate_stack_config
from tests.components.harness import AGENT_POOL, Run, run_program, run_stack, stack_config
from tests.conftest import TODAY

CHART_VERSION = load_device_plugin_facts().chart.version

T4 = "Standard_NC4as_T4_v3"
OPERATOR = PoolGpuOperator(version="v26.7.0", installs_driver=True)


def run_pool(**spec: Any) -> Run:
    """One GpuNodePool written in Python (no stack file, no cluster component); the spec is built in the program."""

    def program() -> None:
        # As the stack config wires it: without the GPU operator, the platform's nvidia-device-plugin chart serves it.
        pool = GpuPoolSpec(**{"device_plugin": PoolDevicePlugin(CHART_VERSION), **spec})
        GpuNodePool(f"aks-{pool.name}", GpuNodePoolArgs(pool=pool, resource_group_name="rg", cluster_name="aks"))

    return run_program(program, config={})


def refused(run: Run) -> InvalidArgsError:
    assert isinstance(run.error, InvalidArgsError), run.error
    assert run.records == [], "nothing may be registered"
    return run.error


CI_ACCESS = ClusterAccess(deployer_principal_type="ServicePrincipal")
"""The deployer is a service principal (CI), as the shipped staging and prod stacks say."""


def stack_problems(stack: dict[str, Any]) -> list[tuple[str, str]]:
    """The stack config's problems (key path, message) for a stack file's keys."""
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(
            {"environment": "dev", "location": "westeurope", **stack}, stack_file="stacks/Pulumi.dev.yaml"
        )
    return [(p.path, p.message) for p in err.value.problems]


# ----------------------------------------------------------------------------------- a pool without a stack file


def test_a_seven_character_windows_pool_name_is_refused_with_the_rules_message() -> None:
    error = refused(
        run_pool(name="wingpus", vm_size=T4, os="Windows", os_sku="Windows2022", orchestrator_version="1.36")
    )
    [rule] = windows_pool_name("wingpus")
    assert [(f.field, f.message) for f in error.findings] == [("name", rule.message)]
    assert str(error) == (
        "GpuNodePool 'wingpus': invalid arguments (1 problem; nothing was registered):\n  name: " + rule.message
    )
    # The stack file refuses the same pool with the same words.
    windows = {"name": "wingpus", "os": "Windows", "vmSize": T4}
    assert ("gpuPools[0].name", rule.message) in stack_problems({"gpuPools": [windows]})


def test_a_bad_size_is_refused_with_the_catalogs_messages() -> None:
    error = refused(run_pool(name="amd", vm_size="Standard_NV32as_v4"))
    catalog = [f.message for f in check_gpu_size("Standard_NV32as_v4", today=TODAY)]
    assert catalog and catalog[0].startswith("Standard_NV32as_v4 is an NVv4 size")
    assert [(f.field, f.message) for f in error.findings] == [("vm_size", m) for m in catalog]
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(
            {
                "environment": "dev",
                "location": "westeurope",
                "gpuPools": [{"name": "amd", "vmSize": "Standard_NV32as_v4"}],
            },
            stack_file="stacks/Pulumi.dev.yaml",
        )
    assert [p.message for p in err.value.problems if p.path == "gpuPools[0].vmSize"] == catalog


@pytest.mark.parametrize(
    ("spec", "stack", "key"),
    [
        # Not a GPU size at all.
        (
            {"vm_size": "Standard_D4s_v5"},
            {"gpuPools": [{"name": "t4", "vmSize": "Standard_D4s_v5"}]},
            "gpuPools[0].vmSize",
        ),
        # MIG on a size that cannot be partitioned.
        (
            {"mig_profile": "MIG3g"},
            {"gpuPools": [{"name": "t4", "vmSize": T4, "migProfile": "MIG3g"}]},
            "gpuPools[0].migProfile",
        ),
        # Two drivers on one node: the operator installs one (for another pool) and this pool keeps AKS's.
        (
            {"gpu_operator": OPERATOR, "os_sku": "Ubuntu", "driver_skipped": False},
            {
                "gpuOperator": {"enabled": True},
                "gpuPools": [{"name": "other", "vmSize": T4}, {"name": "t4", "vmSize": T4, "driver": "aks"}],
            },
            "gpuPools[1].driver",
        ),
        # The operator cannot see the labels of a pool scaled to zero.
        (
            {"gpu_operator": OPERATOR, "driver_skipped": True, "min_count": 0, "max_count": 2, "count": 0},
            {
                "gpuOperator": {"enabled": True},
                "gpuPools": [{"name": "t4", "vmSize": T4, "minCount": 0, "maxCount": 2}],
            },
            "gpuPools[0].minCount",
        ),
        (
            {"min_count": 3, "max_count": 2, "count": 3},
            {"gpuPools": [{"name": "t4", "vmSize": T4, "minCount": 3, "maxCount": 2}]},
            "gpuPools[0].minCount",
        ),
        # Stack-file checks that are guard rails on the pool too (rules/aks.py): malformed taint, OS SKU of the other
        # OS, a name AKS refuses. (MIG and sharing without the GPU operator are served by the nvidia-device-plugin
        # chart now: tests/components/test_node_stack.py.)
        (
            {"taints": ("gpu:NoSchedul",)},
            {"gpuPools": [{"name": "t4", "vmSize": T4, "taints": ["gpu:NoSchedul"]}]},
            "gpuPools[0].taints[0]",
        ),
        (
            {"os_sku": "Windows2022"},
            {"gpuPools": [{"name": "t4", "vmSize": T4, "osSku": "Windows2022"}]},
            "gpuPools[0].osSku",
        ),
        (
            {"name": "T4"},
            {"gpuPools": [{"name": "T4", "vmSize": T4}]},
            "gpuPools[0].name",
        ),
        # A node label AKS reserves.
        (
            {"labels": {"kubernetes.azure.com/mode": "x"}},
            {"gpuPools": [{"name": "t4", "vmSize": T4, "labels": {"kubernetes.azure.com/mode": "x"}}]},
            'gpuPools[0].labels["kubernetes.azure.com/mode"]',
        ),
    ],
)
def test_pool_args_and_the_stack_config_refuse_with_the_same_message(
    spec: dict[str, Any], stack: dict[str, Any], key: str
) -> None:
    [finding] = refused(run_pool(**{"name": "t4", "vm_size": T4, **spec})).findings
    found = stack_problems(stack)
    [message] = [m for path, m in found if path == key]
    # A label finding also names the label (the stack file names it in the key path).
    assert finding.message in (message, f"kubernetes.azure.com/mode: {message}")


def test_a_pool_written_in_python_registers_what_its_spec_says() -> None:
    spec: dict[str, Any] = {
        "name": "t4",
        "vm_size": T4,
        "min_count": 1,
        "max_count": 3,
        "spot": True,
        "gpu_operator": OPERATOR,
        "driver_skipped": True,
        "sharing": GpuSharing(mode="timeSlicing", replicas=4),
    }
    pools: list[GpuNodePool] = []

    def program() -> None:
        # As the stack config wires it: without the GPU operator, the platform's nvidia-device-plugin chart serves it.
        pool = GpuPoolSpec(**{"device_plugin": PoolDevicePlugin(CHART_VERSION), **spec})
        pools.append(GpuNodePool("t4", GpuNodePoolArgs(pool=pool, resource_group_name="rg", cluster_name="aks")))

    run = run_program(program, config={})
    assert run.error is None, run.error
    inputs = run.one(AGENT_POOL).inputs
    assert inputs["agentPoolName"] == "t4"  # no stack file: the name itself
    assert inputs["gpuProfile"] == {"driver": "None"}
    assert inputs["nodeLabels"]["nvidia.com/device-plugin.config"] == "t4"
    # The spec's defaults, the stack file's: Ubuntu and 250 pods; no version (the control plane's).
    assert (inputs["osSKU"], inputs["maxPods"]) == ("Ubuntu", 250.0) and "orchestratorVersion" not in inputs
    assert inputs["tags"] == {"gpu-pool": "t4"}
    [pool] = pools
    assert pool.contract.scheduling.resource_name == "nvidia.com/gpu"
    assert pool.contract.scheduling.allocatable_per_node == 4
    assert pool.shared == SharedPool("nvidia.com/gpu", Sharing("timeSlicing", 4))


# ----------------------------------------------------------------------------------------------- the cluster


def test_a_cluster_refuses_its_pools_before_registering_anything() -> None:
    def program() -> None:
        bad = GpuPoolSpec(name="amd", vm_size="Standard_NV32as_v4")
        args = AksGpuClusterArgs("aks-gpu-dev", "rg-gpu-dev", "westeurope", "1.36", gpu_pools=[bad])
        AksGpuCluster("aks", args)

    error = refused(run_program(program, config={}))
    assert error.component == "GpuNodePool"


def test_cluster_args_refuse_cost_analysis_on_the_free_tier_with_the_rules_message() -> None:
    with pytest.raises(InvalidArgsError) as err:
        AksGpuClusterArgs("aks", "rg", "westeurope", "1.36", sku_tier="Free", cost_analysis=True, access=CI_ACCESS)
    [finding] = err.value.findings
    assert finding.field == "sku_tier"
    found = stack_problems({"cluster": {"skuTier": "Free", "costAnalysis": True}})
    assert ("cluster.skuTier", finding.message) in found


def test_cluster_args_refuse_what_the_stack_file_refuses_with_the_same_words() -> None:
    """Workload identity without the OIDC issuer, a GPU system pool, a GPU pool ahead of the control plane."""
    pool = GpuPoolSpec(
        name="t4", vm_size=T4, orchestrator_version="1.37", device_plugin=PoolDevicePlugin(CHART_VERSION)
    )
    with pytest.raises(InvalidArgsError) as err:
        AksGpuClusterArgs(
            "aks",
            "rg",
            "westeurope",
            "1.36",
            oidc_issuer=False,
            workload_identity=True,
            system_pool=SystemPoolSpec(vm_size=T4),
            gpu_pools=[pool],
        )
    by_field = {f.field: f.message for f in err.value.findings}
    found = dict(
        stack_problems(
            {
                "cluster": {"oidcIssuer": False, "workloadIdentity": True, "systemPool": {"vmSize": T4}},
                "gpuPools": [{"name": "t4", "vmSize": T4, "orchestratorVersion": "1.37"}],
            }
        )
    )
    assert by_field["workload_identity"] == found["cluster.workloadIdentity"]
    assert by_field["system_pool"] == f"vmSize: {found['cluster.systemPool.vmSize']}"
    assert by_field["gpu_pools"] == f"t4: {found['gpuPools[0].orchestratorVersion']}"


# ---------------------------------------------------------------------------------------- built from stack files


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_args_built_from_every_stack_pass_their_own_checks(stack: str) -> None:
    from stack_config import config_from_stack_yaml

    cfg = validate_stack_config(config_from_stack_yaml(stack_config(stack)), stack_file=f"stacks/Pulumi.{stack}.yaml")
    args = aks_cluster_args(cfg, platform_tags(cfg))
    assert [p.name for p in args.gpu_pools] == [p.name for p in cfg.gpuPools]
    assert all(p.azure_name for p in args.gpu_pools)


def test_each_pool_contract_is_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    tolerations: list[str] = []
    contract = components.gpu_node_pool.pool_contract
    pool_tolerations = components.gpu_node_pool.pool_tolerations

    def counting_contract(pool: GpuPoolSpec, *args: Any) -> Any:
        calls.append(pool.name)
        return contract(pool, *args)

    def counting_tolerations(pool: GpuPoolSpec) -> Any:
        tolerations.append(pool.name)
        return pool_tolerations(pool)

    monkeypatch.setattr(components.gpu_node_pool, "pool_contract", counting_contract)
    monkeypatch.setattr(components.gpu_node_pool, "pool_tolerations", counting_tolerations)
    run = run_stack("prod")
    assert run.error is None, run.error
    pools = [r.inputs["nodeLabels"]["azure-gpu-platform/pool"] for r in run.of_type(AGENT_POOL)]
    assert sorted(calls) == sorted(pools) == sorted(tolerations)
    assert set(run.outputs["gpuPools"]) == set(pools)


# ------------------------------------------------------------------------------------------------- the operator


def test_operator_values_come_from_its_args() -> None:
    shared = SharedPool("nvidia.com/mig-3g.40gb", GpuSharing(mode="timeSlicing", replicas=2, rename_by_default=True))
    values = operator_values(
        GpuOperatorArgs(version="v26.7.0", mig_strategy="mixed", installs_driver=False, shared_pools={"a100": shared})
    )
    assert values["driver"] == values["toolkit"] == {"enabled": False}
    assert values["mig"] == {"strategy": "mixed"}
    a100 = yaml.safe_load(values["devicePlugin"]["config"]["data"]["a100"])
    assert a100["sharing"] == {
        "timeSlicing": {"renameByDefault": True, "resources": [{"name": "nvidia.com/mig-3g.40gb", "replicas": 2}]}
    }


def test_an_ubuntu_only_size_on_azure_linux_is_refused_by_the_args() -> None:
    """The checklist the stack config runs refuses a GB300 pool on AzureLinux (AKS's GPU registry: Ubuntu only)."""
    error = refused(run_pool(name="gb300", vm_size="Standard_ND128isr_GB300_v6", os_sku="AzureLinux"))
    [finding] = [f for f in error.findings if f.field == "os_sku"]
    assert finding.message.startswith(
        "Standard_ND128isr_GB300_v6 runs on Ubuntu node pools only (AKS's GPU registry: Azure/karpenter-provider-azure"
    )
