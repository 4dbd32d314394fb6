"""``GpuNodePool``: one AKS GPU node pool as a separate ``AgentPool`` resource.

``GpuNodePool(name, GpuNodePoolArgs(pool=GpuPoolSpec(...), resource_group_name=..., cluster_name=...))``. A
:class:`GpuPoolSpec` is the resolved pool (every value as the ``AgentPool`` gets it); it checks itself when it is
built, with the rules the stack config and the policy pack apply: the catalog's size rules (NVv4, known, retired,
the GPU floor, AKS support), MIG-capable sizes, AMD GPUs, the GPU operator's validated platforms
(:mod:`gpu_catalog`), Windows GPU pools, who installs the driver and the operator's autoscaling minimum
(:mod:`rules.aks`), node label syntax (:mod:`rules.kube_names`). A wrong spec raises
:class:`~components.validation.InvalidArgsError` with the rule's message before anything is registered. Checks only
a stack file has (name pattern, counts, versions against the control plane, sharing combinations) stay in
``stack_config/``.

The pool's contract entry (:class:`~components.contract.GpuPoolContract`: scheduling, tolerations, resource name)
is computed once, here, and read by the output contract and the GPU operator's values.

Azure pool names and replacement
--------------------------------
VM size, OS, MIG profile, driver mode and taints (and, in AKS, zones, spot priority and max pods) can only be set
when a pool is created: changing one means a new pool. A stack file's pool therefore gets the Azure name
``<prefix><suffix>`` (:func:`stack_config.azure_pool_name`, passed in :attr:`GpuPoolSpec.azure_name`), where the
suffix is a short, stable hash of the pool's logical name and those create-time fields. Change one and the name
changes; Pulumi replaces the ``AgentPool`` *create-before-delete* (the default, ``delete_before_replace=False``): the
new pool comes up under its new name while the old one still serves, and the old pool is deleted afterwards.
Changing anything else (counts, labels, orchestrator version) keeps the name and updates in place. The Pulumi
resource name stays the logical pool name, so URNs never change.

Linux pool names: ≤12 lowercase letters and digits, starting with a letter (prefix ≤8 + 4 hex characters).
Windows pool names: ≤6 (prefix ≤3 + 3 hex characters).
"""

from __future__ import annotations

import re
from dataclasses import InitVar, dataclass, fields
from datetime import date

import pulumi
from pulumi_azure_native import containerservice

from gpu_catalog import GpuSize, clock, default_catalog
from gpu_catalog.node_disks import node_disks
from rules import Finding
from rules.hardening import DEFAULT_OS_DISK_GIB, encryption_at_host_unverified
from rules.network import UpgradeSettings
from rules.node_stack import (
    EXTERNAL,
    GPU_RESOURCE,
    NodeStack,
    advisories,
    mig_instance,
    node_stack_findings,
    refused,
)
from rules.specs import AksGpuPool
from rules.specs.keys import key_fields

from .contract import GpuPoolContract, Scheduling, Toleration
from .pool_scheduling import (
    POOL_LABEL,
    SPOT_TAINT,
    GpuSharing,
    MigStrategy,
    PoolDevicePlugin,
    PoolGpuOperator,
    SharedPool,
    base_node_labels,
    shared_scheduling,
    taint_tolerations,
)
from .validation import refuse_findings

TYPE_TOKEN = "azure-gpu-platform:components:GpuNodePool"
COMPONENT = "GpuNodePool"

GPU_MODEL_LABEL = "azure-gpu-platform/gpu-model"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
"""The GPU operator's MIG manager partitions a node's GPUs into the layout this label names (``all-3g.40gb``: every
GPU split into 3g.40gb instances). NVIDIA/gpu-operator v26.7.0 ``assets/state-mig-manager/0400_configmap.yaml`` and
the MIG manager's hardware-generated configs name layouts ``all-<profile>``; without the label the operator sets
``all-disabled`` on MIG-capable nodes (``controllers/nodelabeling_controller.go``)."""
_FIELDS = {
    "sharing.timeSlicing.replicas": "sharing",
    "sharing.mps.replicas": "sharing",
    **key_fields(AksGpuPool),  # vmSize → vm_size, driver → driver_skipped, …
}
"""A rule's field (a stack file's key) → the :class:`GpuPoolSpec` field; the others have the same name."""


@dataclass(frozen=True)
class GpuPoolSpec(AksGpuPool):
    """One GPU pool from Python: the pool's spec (:class:`rules.specs.AksGpuPool`: its fields and their defaults,
    resolved once), refusing its findings when built (module docstring). ``today`` dates the checks; ``None``: read
    :func:`gpu_catalog.clock.today` once (the platform build passes its own day)."""

    today: InitVar[date | None] = None

    def __post_init__(self, today: date | None) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        super().__post_init__()
        refuse_findings(COMPONENT, self.name, refused(self.findings(today=today or clock.today())), _FIELDS)

    @classmethod
    def of(cls, spec: AksGpuPool, *, today: date | None = None) -> GpuPoolSpec:
        """A spec built elsewhere (the stack config's), checked as a component's pool."""
        if isinstance(spec, GpuPoolSpec):
            return spec
        return cls(**{f.name: getattr(spec, f.name) for f in fields(AksGpuPool)}, today=today)


def pool_findings(pool: AksGpuPool, *, today: date) -> list[Finding]:
    """Every guard rail the pool breaks on ``today`` (:meth:`rules.specs.AksGpuPool.findings`)."""
    return pool.findings(today=today)


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:63].rstrip("-")


def mig_profile_name(pool: AksGpuPool, size: GpuSize) -> str:
    """NVIDIA's name of a pool's MIG instance (``MIG3g`` on an A100 80GB → ``3g.40gb``)."""
    if pool.mig_profile is None:
        raise ValueError(f"pool {pool.name} has no migProfile")
    return mig_instance(pool.mig_profile, size.whole_gpu_memory_gib)[0]


def plugin_resource(pool: AksGpuPool, size: GpuSize) -> str:
    """What the pool's device plugin advertises before sharing (``nvidia.com/gpu``; a MIG pool under the mixed
    strategy: ``nvidia.com/mig-<profile>``): the resource its sharing config replicates."""
    if pool.mig_profile is None or pool.mig_strategy == "single":
        return GPU_RESOURCE
    return f"nvidia.com/mig-{mig_profile_name(pool, size)}"


def pool_tolerations(pool: AksGpuPool) -> list[Toleration]:
    out = taint_tolerations(pool.node_taints)
    if pool.spot:
        out.append(SPOT_TAINT)
    return out


def pool_node_labels(pool: AksGpuPool, size: GpuSize) -> dict[str, str]:
    labels = base_node_labels(
        pool.labels,
        pool.name,
        plugin_managed=pool.manager is not None,
        sharing=pool.sharing,
        external_plugin=pool.manager == EXTERNAL,
    )
    labels[GPU_MODEL_LABEL] = _slug(size.gpu_model)
    if pool.mig_partitioned_by_operator:
        labels[MIG_CONFIG_LABEL] = f"all-{mig_profile_name(pool, size)}"
    return labels


def pool_scheduling(pool: AksGpuPool, stack: NodeStack) -> Scheduling:
    """Node selector, tolerations and the resource a pod requests to land on this pool, read off the pool's node
    stack (what its one device plugin advertises)."""
    shared = shared_scheduling(GPU_RESOURCE, pool.sharing)
    advertised = stack.advertised[0] if stack.advertised else None
    return Scheduling(
        node_selector={POOL_LABEL: pool.name},
        tolerations=pool_tolerations(pool),
        resource_name=advertised.resource if advertised is not None else GPU_RESOURCE,
        sharing=shared.mode,
        replicas=shared.replicas,
        mps_active_thread_percentage=shared.mps_active_thread_percentage,
        allocatable_per_node=advertised.per_node if advertised is not None else 0,
        device_plugin=stack.plugins[0].plugin if len(stack.plugins) == 1 else None,
    )


def pool_contract(pool: AksGpuPool, size: GpuSize, scheduling: Scheduling) -> GpuPoolContract:
    return GpuPoolContract(
        name=pool.name,
        azure_name=pool.azure_name or pool.name,
        vm_size=size.name,
        gpu_model=size.gpu_model,
        gpus_per_node=max(int(size.gpu_count), 1),
        os=pool.os,
        driver="operator" if pool.skips_driver else "aks",
        scheduling=scheduling,
        mig_profile=pool.mig_profile,
        spot=pool.spot,
        min_count=pool.min_count,
        max_count=pool.max_count,
        count=None if pool.autoscaling else pool.count,
    )


def upgrade_settings_args(upgrade: UpgradeSettings | None) -> containerservice.AgentPoolUpgradeSettingsArgs | None:
    """``upgradeSettings`` as sent (``None``: not sent, AKS's defaults)."""
    if upgrade is None:
        return None
    return containerservice.AgentPoolUpgradeSettingsArgs(
        max_surge=upgrade.max_surge,
        max_unavailable=upgrade.max_unavailable,
        drain_timeout_in_minutes=upgrade.drain_timeout_minutes,
        node_soak_duration_in_minutes=upgrade.node_soak_minutes,
    )


@dataclass(frozen=True)
class GpuNodePoolArgs:
    """A GPU pool and the cluster it joins."""

    pool: AksGpuPool
    resource_group_name: pulumi.Input[str]
    cluster_name: pulumi.Input[str]
    version_owned_by_channel: bool = False
    """The cluster's auto-upgrade channel moves the minor (``stable``, ``rapid``): drift on the pool's
    ``orchestratorVersion`` is ignored (:data:`CHANNEL_OWNED_POOL_PROPERTIES`)."""


CHANNEL_OWNED_POOL_PROPERTIES: tuple[str, ...] = ("orchestratorVersion",)
"""The ``AgentPool`` input (wire name) an auto-upgrade channel that moves the minor owns (:mod:`rules.upgrade`)."""


class GpuNodePool(pulumi.ComponentResource):
    """A GPU ``AgentPool`` (User mode) with driver mode, MIG, taints, labels and autoscaling from its spec.

    ``after``: the resource the pool waits for (the previous GPU pool: AKS rejects concurrent agent-pool operations on
    one cluster with 409, so a cluster's pools are chained; ``AksGpuCluster`` passes ``aks_cluster.after(previous)``).
    """

    pool: AksGpuPool
    agent_pool: containerservice.AgentPool
    azure_name: str
    contract: GpuPoolContract
    """The pool's output-contract entry (computed once, here)."""
    shared: SharedPool | None
    """The device plugin's sharing config for this pool, when the platform's device plugin (GPU operator or chart)
    serves it and it shares its GPUs."""

    def __init__(
        self,
        name: str,
        args: GpuNodePoolArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        after: pulumi.Input[pulumi.Resource] | None = None,
    ) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        pool = args.pool
        self.pool = pool
        size = default_catalog()[pool.vm_size]
        self.azure_name = pool.azure_name or pool.name
        self.contract = pool_contract(pool, size, pool_scheduling(pool, pool.node_stack(size)))
        self.shared = (
            SharedPool(plugin_resource(pool, size), pool.sharing)
            if pool.manager is not None and pool.sharing is not None
            else None
        )

        self.agent_pool = containerservice.AgentPool(
            name,
            resource_group_name=args.resource_group_name,
            resource_name_=args.cluster_name,
            agent_pool_name=self.azure_name,
            mode="User",
            type="VirtualMachineScaleSets",
            vm_size=size.name,
            os_type=pool.os,
            os_sku=pool.os_sku,
            count=pool.count,
            gpu_profile=containerservice.GPUProfileArgs(driver="None" if pool.skips_driver else "Install"),
            # AKS partitions only pools whose driver it installs; the operator's MIG manager does the others.
            gpu_instance_profile=None if pool.mig_partitioned_by_operator else pool.mig_profile,
            node_taints=list(pool.node_taints),
            node_labels=pool_node_labels(pool, size),
            orchestrator_version=pool.orchestrator_version,
            availability_zones=list(pool.zones) or None,
            max_pods=pool.max_pods,
            enable_encryption_at_host=pool.encryption_at_host,
            os_disk_type=pool.os_disk_type,
            os_disk_size_gb=DEFAULT_OS_DISK_GIB,
            enable_node_public_ip=False,
            security_profile=containerservice.AgentPoolSecurityProfileArgs(ssh_access=pool.ssh_access)
            if pool.ssh_access is not None
            else None,
            tags={**pool.tags, "gpu-pool": pool.name},
            enable_auto_scaling=pool.autoscaling,
            min_count=pool.min_count,
            max_count=pool.max_count,
            scale_set_priority="Spot" if pool.spot else None,
            scale_set_eviction_policy="Delete" if pool.spot else None,
            spot_max_price=-1.0 if pool.spot else None,
            vnet_subnet_id=pool.vnet_subnet_id,
            pod_subnet_id=pool.pod_subnet_id,
            upgrade_settings=upgrade_settings_args(pool.upgrade),
            scale_down_mode=pool.scale_down_mode,
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[after] if after is not None else None,
                # The cluster autoscaler owns the node count of an autoscaling pool.
                ignore_changes=[
                    *(["count"] if pool.autoscaling else []),
                    *(CHANNEL_OWNED_POOL_PROPERTIES if args.version_owned_by_channel else ()),
                ]
                or None,
                delete_before_replace=False,
            ),
        )
        missing = node_stack_findings(pool.node_stack(size), fix=pool.checklist.missing_plugin_fix)
        for finding in [
            *advisories(missing),  # no device plugin of this program: a warning, never a refusal
            *encryption_at_host_unverified(pool.vm_size, node_disks(pool.vm_size), bool(pool.encryption_at_host)),
        ]:
            pulumi.log.warn(f"{COMPONENT} '{pool.name}': {finding.message}", resource=self)
        self.register_outputs({"azureName": self.azure_name, "agentPoolId": self.agent_pool.id})


__all__ = [  # the pool types this module re-exports for the Python API (its own names are public too)
    "GpuSharing",
    "MigStrategy",
    "PoolDevicePlugin",
    "PoolGpuOperator",
]
