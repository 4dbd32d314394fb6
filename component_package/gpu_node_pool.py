"""The package's ``GpuNodePool`` component over :class:`components.gpu_node_pool.GpuNodePool`.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

from typing import TypedDict

import pulumi

from component_package.args import checked, pool_spec
from component_package.inputs import GpuPool
from component_package.outputs import PoolScheduling, scheduling_output
from component_package.package import PACKAGE_NAME
from components import gpu_node_pool


class GpuNodePoolArgs(TypedDict):
    """A GPU pool and the existing AKS cluster it joins."""

    resource_group_name: pulumi.Input[str]
    """The cluster's resource group."""
    cluster_name: pulumi.Input[str]
    """The AKS cluster's name."""
    pool: GpuPool
    """The pool."""


class GpuNodePool(pulumi.ComponentResource):
    """One AKS GPU node pool (a User-mode `AgentPool`) on an existing cluster, guard-railed by the project's rules: the
    GPU size (known, current, AKS-supported, not NVv4, at or above the GPU floor), the pool name, MIG, sharing, driver
    mode, autoscaling and taints. Outputs the pool's scheduling data (node selector, tolerations, resource name)."""

    azure_name: pulumi.Output[str]
    """The agent pool's name in Azure."""
    agent_pool_id: pulumi.Output[str]
    """The agent pool's Azure resource ID."""
    vm_size: pulumi.Output[str]
    """The VM size, as the catalog spells it."""
    gpu_model: pulumi.Output[str]
    """The GPU model."""
    gpus_per_node: pulumi.Output[int]
    """Whole GPUs per node."""
    driver: pulumi.Output[str]
    """Who installs the NVIDIA driver: `aks` or `operator`."""
    scheduling: pulumi.Output[PoolScheduling]
    """How a workload lands on the pool: node selector, tolerations, the resource to request."""

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = checked(lambda: pool_spec(args["pool"]), "pool.")
        super().__init__(f"{PACKAGE_NAME}:index:GpuNodePool", name, None, opts)
        pool = gpu_node_pool.GpuNodePool(
            name,
            gpu_node_pool.GpuNodePoolArgs(
                pool=spec, resource_group_name=args["resource_group_name"], cluster_name=args["cluster_name"]
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        contract = pool.contract
        self.azure_name = pulumi.Output.from_input(pool.azure_name)
        self.agent_pool_id = pool.agent_pool.id
        self.vm_size = pulumi.Output.from_input(contract.vm_size)
        self.gpu_model = pulumi.Output.from_input(contract.gpu_model)
        self.gpus_per_node = pulumi.Output.from_input(contract.gpus_per_node)
        self.driver = pulumi.Output.from_input(contract.driver)
        self.scheduling = pulumi.Output.from_input(scheduling_output(contract.scheduling))
        self.register_outputs({"azureName": self.azure_name, "agentPoolId": self.agent_pool_id})
