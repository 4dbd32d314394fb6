"""``GpuNodePool``: one AKS GPU node pool as a separate ``AgentPool`` resource.

Validation at construction uses :func:`components.config.pool_problems`, which calls the catalog checks the
policy pack calls: a bad size fails here with the pack's own message, before anything is registered.

Azure pool names and replacement
--------------------------------
VM size, OS, MIG profile, driver mode and taints (and, in AKS, zones, spot priority and max pods) can only be set
when a pool is created: changing one means a new pool. The Azure pool name is therefore
``<prefix><suffix>``, where the suffix is a short, stable hash of the pool's logical name and those create-time
fields. Change one and the name changes; Pulumi replaces the ``AgentPool`` *create-before-delete* (the default,
``delete_before_replace=False``): the new pool comes up under its new name while the old one still serves, and the
old pool is deleted afterwards. Changing anything else (counts, labels, orchestrator version) keeps the name and
updates in place. The Pulumi resource name stays the logical pool name, so URNs never change.

Linux pool names: ≤12 lowercase letters and digits, starting with a letter (prefix ≤8 + 4 hex characters).
Windows pool names: ≤6 (prefix ≤3 + 3 hex characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pulumi
from pulumi_azure_native import containerservice

from gpu_catalog import default_catalog

from .config import (
    GpuOperatorConfig,
    GpuPoolConfig,
    StackConfig,
    StackConfigError,
    azure_pool_name,
    parse_taint,
    pool_problems,
    stack_file_name,
)
from .contract import GpuPoolContract, Scheduling, Toleration

TYPE_TOKEN = "azure-gpu-platform:components:GpuNodePool"

POOL_LABEL = "azure-gpu-platform/pool"
"""Node label carrying the logical pool name: stable across replacements (the Azure name is not)."""
GPU_MODEL_LABEL = "azure-gpu-platform/gpu-model"
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
"""The GPU operator's device plugin picks its named config (time-slicing/MPS) from this node label."""
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
"""The GPU operator's MIG manager partitions a node's GPUs into the layout this label names (``all-3g.40gb``: every
GPU split into 3g.40gb instances). NVIDIA/gpu-operator v26.7.0 ``assets/state-mig-manager/0400_configmap.yaml`` and
the MIG manager's hardware-generated configs name layouts ``all-<profile>``; without the label the operator sets
``all-disabled`` on MIG-capable nodes (``controllers/nodelabeling_controller.go``)."""
SPOT_TAINT = Toleration(
    key="kubernetes.azure.com/scalesetpriority", operator="Equal", value="spot", effect="NoSchedule"
)
"""AKS adds this taint to every spot pool."""

_MIG_SLICES = {"MIG1g": (1, 7, 1), "MIG2g": (2, 3, 2), "MIG3g": (3, 2, 4), "MIG4g": (4, 1, 4), "MIG7g": (7, 1, 8)}
"""profile → (compute slices, instances per GPU, memory eighths): NVIDIA's A100/H100/H200 MIG geometry."""


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:63].rstrip("-")


def mig_profile_name(pool: GpuPoolConfig) -> str:
    """NVIDIA's name of a pool's MIG instance (``MIG3g`` on an A100 80GB → ``3g.40gb``)."""
    if pool.migProfile is None:
        raise ValueError(f"pool {pool.name} has no migProfile")
    size = default_catalog()[pool.vmSize]
    g, _, eighths = _MIG_SLICES[pool.migProfile]
    memory = int(size.whole_gpu_memory_gib / 8 * eighths + 0.5)
    return f"{g}g.{memory}gb"


def mig_config_name(pool: GpuPoolConfig) -> str:
    """The GPU operator MIG manager layout for a pool: every GPU split into the pool's profile."""
    return f"all-{mig_profile_name(pool)}"


def mig_partitioned_by_operator(cfg: StackConfig, pool: GpuPoolConfig) -> bool:
    """Who partitions a MIG pool. AKS does (``gpuInstanceProfile``) only when it installs the driver: Azure/AgentBaker
    ``cse_main.sh`` runs ``ensureMigPartition`` inside the ``GPU_NODE && skip_nvidia_driver_install != true``
    branch. Pools whose driver the operator installs (``gpuProfile.driver: None``) are partitioned by the operator's
    MIG manager through :data:`MIG_CONFIG_LABEL` instead."""
    return pool.migProfile is not None and cfg.pool_driver(pool) == "operator"


def mig_resource_name(pool: GpuPoolConfig, operator: GpuOperatorConfig) -> str:
    """What the device plugin advertises for a MIG pool (``nvidia.com/gpu`` under the single strategy)."""
    if pool.migProfile is None or operator.migStrategy == "single":
        return "nvidia.com/gpu"
    return f"nvidia.com/mig-{mig_profile_name(pool)}"


def pool_tolerations(pool: GpuPoolConfig) -> list[Toleration]:
    out: list[Toleration] = []
    for taint in pool.taints:
        parsed = parse_taint(taint)
        if parsed is None:
            continue
        key, value, effect = parsed
        if value:
            out.append(Toleration(key=key, operator="Equal", value=value, effect=effect))
        else:
            out.append(Toleration(key=key, operator="Exists", effect=effect))
    if pool.spot:
        out.append(SPOT_TAINT)
    return out


def pool_node_labels(cfg: StackConfig, pool: GpuPoolConfig) -> dict[str, str]:
    size = default_catalog()[pool.vmSize]
    labels = dict(pool.labels)
    labels[POOL_LABEL] = pool.name
    labels[GPU_MODEL_LABEL] = _slug(size.gpu_model)
    if cfg.operator_manages(pool) and pool.sharing_mode != "none":
        labels[DEVICE_PLUGIN_CONFIG_LABEL] = pool.name
    if mig_partitioned_by_operator(cfg, pool):
        labels[MIG_CONFIG_LABEL] = mig_config_name(pool)
    return labels


def pool_scheduling(cfg: StackConfig, pool: GpuPoolConfig) -> Scheduling:
    """Node selector, tolerations and the resource a pod requests to land on this pool."""
    size = default_catalog()[pool.vmSize]
    gpus = max(int(size.gpu_count), 1)
    per_gpu = 1
    resource = "nvidia.com/gpu"
    if pool.migProfile is not None:
        resource = mig_resource_name(pool, cfg.gpuOperator)
        per_gpu = _MIG_SLICES[pool.migProfile][1]
    replicas = 1
    mps_pct: int | None = None
    if pool.sharing is not None and pool.sharing_mode != "none":
        replicas = pool.sharing.replicas
        if pool.sharing.rename_by_default:
            resource = f"{resource}.shared"
        if pool.sharing_mode == "mps":
            mps_pct = 100 // replicas
    return Scheduling(
        node_selector={POOL_LABEL: pool.name},
        tolerations=pool_tolerations(pool),
        resource_name=resource,
        sharing=pool.sharing_mode,
        replicas=replicas,
        mps_active_thread_percentage=mps_pct,
        allocatable_per_node=gpus * per_gpu * replicas,
    )


def pool_contract(cfg: StackConfig, pool: GpuPoolConfig) -> GpuPoolContract:
    size = default_catalog()[pool.vmSize]
    driver = cfg.pool_driver(pool)
    return GpuPoolContract(
        name=pool.name,
        azure_name=azure_pool_name(pool, driver),
        vm_size=size.name,
        gpu_model=size.gpu_model,
        gpus_per_node=max(int(size.gpu_count), 1),
        os=pool.os,
        driver=driver,
        scheduling=pool_scheduling(cfg, pool),
        mig_profile=pool.migProfile,
        spot=pool.spot,
        min_count=pool.effective_min_count,
        max_count=pool.maxCount,
        count=None if pool.autoscaling else pool.effective_count,
    )


@dataclass(frozen=True)
class GpuNodePoolArgs:
    stack: StackConfig
    """The whole (validated) stack config: pool rules depend on the cluster and the GPU operator."""
    index: int
    """Position in ``gpuPools`` (for key paths in messages)."""
    resource_group_name: pulumi.Input[str]
    cluster_name: pulumi.Input[str]
    after: pulumi.Resource | None = None
    """The previous GPU pool's AgentPool: AKS rejects concurrent agent-pool operations (409), so pools are chained."""

    @property
    def pool(self) -> GpuPoolConfig:
        return self.stack.gpuPools[self.index]


class GpuNodePool(pulumi.ComponentResource):
    """A GPU ``AgentPool`` (User mode) with driver mode, MIG, taints, labels and autoscaling from the config."""

    agent_pool: containerservice.AgentPool
    azure_name: str
    contract: GpuPoolContract

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        problems = pool_problems(args.stack, args.index, args.pool)
        if problems:
            raise StackConfigError(problems, stack_file_name())
        super().__init__(TYPE_TOKEN, name, None, opts)
        pool = args.pool
        cfg = args.stack
        driver = cfg.pool_driver(pool)
        self.azure_name = azure_pool_name(pool, driver)
        self.contract = pool_contract(cfg, pool)
        size = default_catalog()[pool.vmSize]

        self.agent_pool = containerservice.AgentPool(
            name,
            resource_group_name=args.resource_group_name,
            resource_name_=args.cluster_name,
            agent_pool_name=self.azure_name,
            mode="User",
            type="VirtualMachineScaleSets",
            vm_size=size.name,
            os_type=pool.os,
            os_sku=pool.effective_os_sku,
            count=pool.effective_count,
            gpu_profile=containerservice.GPUProfileArgs(driver="None" if driver == "operator" else "Install"),
            # AKS partitions only pools whose driver it installs; the operator's MIG manager does the others.
            gpu_instance_profile=None if mig_partitioned_by_operator(cfg, pool) else pool.migProfile,
            node_taints=list(pool.taints),
            node_labels=pool_node_labels(cfg, pool),
            orchestrator_version=cfg.pool_kubernetes_version(pool),
            availability_zones=list(pool.zones) or None,
            max_pods=pool.maxPods,
            enable_node_public_ip=False,
            tags={**cfg.cluster.tags, **pool.tags, "gpu-pool": pool.name, "environment": cfg.environment},
            enable_auto_scaling=pool.autoscaling,
            min_count=pool.effective_min_count,
            max_count=pool.maxCount,
            scale_set_priority="Spot" if pool.spot else None,
            scale_set_eviction_policy="Delete" if pool.spot else None,
            spot_max_price=-1.0 if pool.spot else None,
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[args.after] if args.after is not None else None,
                # The cluster autoscaler owns the node count of an autoscaling pool.
                ignore_changes=["count"] if pool.autoscaling else None,
                delete_before_replace=False,
            ),
        )
        self.register_outputs({"azureName": self.azure_name, "agentPoolId": self.agent_pool.id})
