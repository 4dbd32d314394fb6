"""The package's ``NapGpuPool`` component over :class:`components.nap_pool.NapGpuPool`.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

from typing import Any, NotRequired, TypedDict

import pulumi

from component_package.args import checked, plain, pool_plugin_kwargs, present
from component_package.enums import BudgetReason, CapacityType, ConsolidationPolicy, DriverMode, ImageFamily
from component_package.inputs import PoolDevicePlugin, PoolGpuOperator, Sharing
from component_package.kubernetes import kubernetes_provider
from component_package.outputs import PoolScheduling, scheduling_output
from component_package.package import PACKAGE_NAME
from components import gpu_node_pool, nap_pool
from rules.specs import NAP_GPU_NODE_POOL_FIELDS


class DisruptionBudget(TypedDict):
    """A Karpenter disruption budget: how many of the pool's nodes may be disrupted at once."""

    nodes: str
    """A node count (`1`) or a percentage (`10%`)."""
    schedule: NotRequired[str]
    """Cron schedule when the budget applies (with `duration`)."""
    duration: NotRequired[str]
    """How long the budget applies after each `schedule` (`8h`, `1h30m`)."""
    reasons: NotRequired[list[BudgetReason]]
    """The disruption reasons the budget limits; default: all."""


class NapDisruption(TypedDict):
    """When Karpenter removes the pool's nodes (how the pool scales back to zero)."""

    consolidation_policy: NotRequired[ConsolidationPolicy]
    """Default `WhenEmpty`: only nodes without workload pods are removed, running inference is never repacked."""
    consolidate_after: NotRequired[str]
    """How long a node stays empty before it is removed (`5m`, `1h`, `Never`); default `5m`."""
    budgets: NotRequired[list[DisruptionBudget]]
    """Disruption budgets."""


class NapGpuPoolArgs(TypedDict):
    """A Karpenter GPU NodePool on a cluster with node auto-provisioning (NAP) on. Checked at construction with the
    project's rules (every allowed size, GPU limit, driver mode, sharing, taints, capacity types, image family,
    consolidation policy)."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig for the cluster (e.g. `AksGpuCluster.kubeconfig`); NAP must be on for the cluster."""
    pool_name: str
    """The NodePool's and AKSNodeClass's name, and the value of the `azure-gpu-platform/pool` node label."""
    location: str
    """The cluster's Azure region (the zone values are `<location>-<zone>`)."""
    gpu_limit: int
    """`spec.limits["nvidia.com/gpu"]`: the most GPUs the pool's nodes may hold together (no unbounded GPU spend)."""
    sizes: NotRequired[list[str]]
    """GPU sizes Karpenter may choose (`karpenter.azure.com/sku-name`); each must pass the size rules."""
    series: NotRequired[list[str]]
    """Size series (`NCads_A100_v4`): every deployable catalog size of the series."""
    gpu_models: NotRequired[list[str]]
    """GPU models (`A100`, `T4`): every deployable catalog size with that GPU."""
    capacity_types: NotRequired[list[CapacityType]]
    """Default `on-demand`."""
    zones: NotRequired[list[str]]
    """Availability zones (`1`, `2`, `3`)."""
    driver: NotRequired[DriverMode]
    """Who installs the NVIDIA driver; default `operator` (AKSNodeClass `gpu.mode: None`) when `gpuOperator` installs
    drivers, else `aks` (`gpu.mode: Driver`); `operator` needs `gpuOperator` with `installsDriver`."""
    sharing: NotRequired[Sharing]
    """Time-slicing or MPS through the GPU operator."""
    taints: NotRequired[list[str]]
    """Node taints; default `nvidia.com/gpu=present:NoSchedule` (with `kaitoAddon`, a taint the add-on's device
    plugin does not tolerate)."""
    labels: NotRequired[dict[str, str]]
    """Node labels of your own (the pool label, and the device-plugin label of a shared pool, are added)."""
    image_family: NotRequired[ImageFamily]
    """Default: AKS's default for the Kubernetes version."""
    os_disk_size_gb: NotRequired[int]
    """OS disk size in GB; default: the AKSNodeClass's."""
    disruption: NotRequired[NapDisruption]
    """When Karpenter removes nodes; default `WhenEmpty` after `5m`."""
    expire_after: NotRequired[str]
    """Replace nodes after this long; default: Karpenter's."""
    weight: NotRequired[int]
    """The NodePool's priority among NodePools (1-100)."""
    tags: NotRequired[dict[str, str]]
    """Azure tags of the VMs NAP creates (AKSNodeClass `tags`)."""
    gpu_operator: NotRequired[PoolGpuOperator]
    device_plugin: NotRequired[PoolDevicePlugin]
    """The NVIDIA GPU operator on the cluster, when one runs: it manages the pool's nodes."""
    gpu_floor: NotRequired[str]
    """The smallest GPU size allowed (policy `gpu-size-minimum`); default `Standard_NC6s_v3`."""
    kaito_addon: NotRequired[bool]
    """The cluster runs the KAITO add-on: the default taint is then one its device plugin does not tolerate."""


NAP_PATHS = {
    "driver_skipped": "driver",
    "name": "poolName",
    "consolidation_policy": "disruption.consolidationPolicy",
    "consolidate_after": "disruption.consolidateAfter",
    "budgets": "disruption.budgets",
}
"""A :class:`~rules.specs.NapGpuNodePool` field → the package property it comes from (other fields: the field in
camelCase)."""

_TRANSLATED = frozenset({"gpu_limit", "sharing", "gpu_operator", "device_plugin"})
"""``NapGpuPool`` keys that are spec fields but arrive in another shape (the others are the spec field itself, lists
as tuples: a new NodePool key needs no line here)."""


def nap_pool_args(args: NapGpuPoolArgs) -> nap_pool.NapGpuPoolArgs:
    """A package NodePool as the component's :class:`~components.nap_pool.NapGpuPoolArgs`, the NodePool's spec
    (:class:`rules.specs.NapGpuNodePool`): the schema's keys are the spec's fields (``tests/package/test_provider.py``
    checks it), ``sizes``, ``series`` and ``gpu_models`` as written (the spec resolves them as from a stack file);
    raises :class:`InvalidArgsError` with the rules' messages."""
    keys = (k for k in args if k in NAP_GPU_NODE_POOL_FIELDS and k not in _TRANSLATED)
    kwargs: dict[str, Any] = {
        key: tuple(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value
        for key, value in present(args, *keys).items()
    }
    kwargs["name"] = args["pool_name"]
    # Unset (an engine that sends no gpuLimit): refused by the rules, with their message, as a 0 is from Python.
    kwargs["gpu_limit"] = plain(args.get("gpu_limit")) or 0
    kwargs.setdefault("sizes", ())
    driver = args.get("driver")
    if driver is not None:
        kwargs["driver_skipped"] = plain(driver) == "operator"  # the GPU operator installs the driver
    sharing = args.get("sharing")
    if sharing is not None:
        kwargs["sharing"] = gpu_node_pool.GpuSharing(**present(sharing, "mode", "replicas", "rename_by_default"))
    kwargs |= pool_plugin_kwargs(args)
    disruption = args.get("disruption")
    if disruption is not None:
        kwargs |= present(disruption, "consolidation_policy", "consolidate_after")
        kwargs["budgets"] = tuple(
            present(b, "nodes", "schedule", "duration", "reasons") for b in disruption.get("budgets") or []
        )
    return nap_pool.NapGpuPoolArgs(**kwargs)


class NapGpuPool(pulumi.ComponentResource):
    """GPU nodes from AKS node auto-provisioning: a Karpenter `NodePool` (`karpenter.sh/v1`) and its `AKSNodeClass`
    (`karpenter.azure.com/v1beta1`) that create GPU nodes from zero, up to a GPU limit, when a pod that selects and
    tolerates the pool is pending. Every size the NodePool allows passed the project's size rules. Outputs the pool's
    scheduling data (node selector, tolerations, resource name)."""

    node_pool: pulumi.Output[str]
    """The NodePool's name (nodes carry `karpenter.sh/nodepool: <nodePool>`)."""
    sizes: pulumi.Output[list[str]]
    """The sizes Karpenter may choose (`karpenter.azure.com/sku-name` values), cheapest first."""
    gpu_models: pulumi.Output[list[str]]
    """The GPU models of those sizes."""
    capacity_types: pulumi.Output[list[str]]
    """`on-demand` and/or `spot`."""
    driver: pulumi.Output[str]
    """Who installs the NVIDIA driver: `aks` or `operator`."""
    gpu_limit: pulumi.Output[int]
    """The most GPUs the pool's nodes may hold together."""
    scheduling: pulumi.Output[PoolScheduling]
    """How a workload lands on the pool: node selector, tolerations, the resource to request (`allocatablePerNode`:
    what the smallest allowed size advertises)."""

    def __init__(self, name: str, args: NapGpuPoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        pool_args = checked(lambda: nap_pool_args(args), paths=NAP_PATHS)
        super().__init__(f"{PACKAGE_NAME}:index:NapGpuPool", name, None, opts)
        provider = kubernetes_provider(name, args["kubeconfig"], self)
        pool = nap_pool.NapGpuPool(name, pool_args, opts=pulumi.ResourceOptions(parent=self), provider=provider)
        contract = pool.contract
        self.node_pool = pulumi.Output.from_input(contract.node_pool)
        self.sizes = pulumi.Output.from_input(list(contract.sizes))
        self.gpu_models = pulumi.Output.from_input(list(contract.gpu_models))
        self.capacity_types = pulumi.Output.from_input(list(contract.capacity_types))
        self.driver = pulumi.Output.from_input(contract.driver)
        self.gpu_limit = pulumi.Output.from_input(contract.max_gpus)
        self.scheduling = pulumi.Output.from_input(scheduling_output(contract.scheduling))
        self.register_outputs({"nodePool": self.node_pool, "gpuLimit": self.gpu_limit})
