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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import pulumi
from pulumi_azure_native import containerservice

from gpu_catalog import GpuSize, canonical_mig_profile, clock, default_catalog
from gpu_catalog.lifecycle import LTS_SUPPORT_PLAN, LTS_TIER, load_operator_facts
from gpu_catalog.node_disks import node_disks
from rules import Finding
from rules.aks import (
    DEFAULT_GPU_TAINT,
)
from rules.checklists import AksGpuPoolFacts, aks_gpu_pool
from rules.hardening import DEFAULT_OS_DISK_GIB, SshAccess, encryption_at_host_unverified
from rules.lifecycle import check_kubernetes_version, check_operator_platform
from rules.node_os import pool_node_os_problem
from rules.node_stack import (
    DEVICE_PLUGIN_CHART,
    EXTERNAL,
    GPU_OPERATOR,
    GPU_RESOURCE,
    NodeStack,
    advisories,
    mig_instance,
    pool_node_stack,
    refused,
)
from rules.sizes import DEFAULT_FLOOR

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
    rule_sharing,
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
    "vmSize": "vm_size",
    "osSku": "os_sku",
    "driver": "driver_skipped",
    "migProfile": "mig_profile",
    "minCount": "min_count",
    "orchestratorVersion": "orchestrator_version",
    "encryptionAtHost": "encryption_at_host",
    "osDiskType": "os_disk_type",
}
"""A rule's field (a stack file's key) → the :class:`GpuPoolSpec` field; the others have the same name."""


@dataclass(frozen=True)
class GpuPoolSpec:
    """One GPU pool, resolved: every value as the ``AgentPool`` gets it. Checks itself when built (module docstring)."""

    name: str
    """Logical pool name: the Pulumi resource name's suffix and the ``azure-gpu-platform/pool`` node label."""
    vm_size: str
    azure_name: str | None = None
    """The agent pool's name in Azure; ``None``: :attr:`name`. A stack file's pool gets a name that changes with its
    create-time fields (module docstring)."""
    os: Literal["Linux", "Windows"] = "Linux"
    os_sku: str | None = None
    """``None``: AKS's default for the OS."""
    count: int = 1
    """Nodes of a fixed-size pool; the initial node count of an autoscaling one."""
    min_count: int | None = None
    """Autoscaling lower bound (with :attr:`max_count`)."""
    max_count: int | None = None
    """Setting it turns the cluster autoscaler on."""
    driver_skipped: bool = False
    """AKS skips its NVIDIA driver install (``gpuProfile.driver: None``): the GPU operator installs the driver."""
    mig_profile: str | None = None
    """AKS ``gpuInstanceProfile`` (``MIG3g``); the operator's MIG manager partitions pools whose driver it installs."""
    sharing: GpuSharing | None = None
    taints: tuple[str, ...] = (DEFAULT_GPU_TAINT,)
    labels: Mapping[str, str] = field(default_factory=dict)
    """Node labels of your own (the pool, GPU model, device-plugin and MIG labels are added)."""
    zones: tuple[str, ...] = ()
    spot: bool = False
    max_pods: int | None = None
    """``None``: AKS's default (Azure CNI Overlay: 250); a stack file's pool always states it."""
    encryption_at_host: bool = False
    """Needs the subscription feature ``Microsoft.Compute/EncryptionAtHost``; refused on a size the catalog says lacks
    it (:func:`rules.hardening.node_hardening`)."""
    os_disk_type: str = "Managed"
    """``Ephemeral`` (the size's temp disk must hold the :data:`rules.hardening.DEFAULT_OS_DISK_GIB` GiB OS disk) or
    ``Managed``."""
    orchestrator_version: str | None = None
    """The nodes' Kubernetes version; ``None``: the control plane's."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Azure tags (``gpu-pool: <name>`` is added)."""
    gpu_operator: PoolGpuOperator | None = None
    """The NVIDIA GPU operator on the cluster; ``None``: none runs."""
    device_plugin: PoolDevicePlugin | None = None
    """The nvidia-device-plugin chart on the cluster (when the GPU operator is off); ``None``: none runs."""
    external_device_plugin: bool = False
    """A device plugin installed outside this program serves the pool (neither the operator nor the chart is on the
    cluster): the node-stack rule then takes its word for it instead of refusing a pool with no plugin."""
    kaito_addon: bool = False
    """The cluster runs the KAITO add-on, whose own device-plugin DaemonSet lands on every node whose taints it
    tolerates (``gpu_catalog/facts/device_plugins.json``)."""
    gpu_floor: str = DEFAULT_FLOOR
    """The smallest GPU size allowed (policy ``gpu-size-minimum``)."""
    exempt_rules: tuple[str, ...] = ()
    """Size rules an active exemption (stack ``exemptions``, :mod:`rules.exemptions`) waives for this pool."""
    ssh_access: SshAccess | None = None
    """``securityProfile.sshAccess`` (``Disabled``: no SSH on the nodes); ``None``: AKS's default, ``LocalUser``."""

    def __post_init__(self) -> None:
        if self.mig_profile is not None:  # AKS reads enum strings case-insensitively: send its own spelling
            object.__setattr__(self, "mig_profile", canonical_mig_profile(self.mig_profile) or self.mig_profile)
        refuse_findings(COMPONENT, self.name, refused(pool_findings(self)), _FIELDS)

    @property
    def autoscaling(self) -> bool:
        return self.max_count is not None

    @property
    def operator_managed(self) -> bool:
        """The GPU operator manages the pool (device plugin, labels, MIG): every Linux pool of a cluster it runs on."""
        return self.gpu_operator is not None and self.os == "Linux"

    @property
    def manager(self) -> str | None:
        """The device plugin the platform deploys for the pool: the GPU operator's (it manages every Linux pool of
        its cluster) or the nvidia-device-plugin chart's (Linux pools, when the operator is off); ``None`` on
        Windows, where AKS brings its own."""
        if self.os != "Linux":
            return None
        if self.gpu_operator is not None:
            return GPU_OPERATOR
        if self.device_plugin is not None:
            return DEVICE_PLUGIN_CHART
        return EXTERNAL if self.external_device_plugin else None

    @property
    def mig_strategy(self) -> MigStrategy:
        """The MIG strategy of the pool's device plugin."""
        if self.gpu_operator is not None:
            return self.gpu_operator.mig_strategy
        return self.device_plugin.mig_strategy if self.device_plugin is not None else "single"

    def node_stack(self, size: GpuSize) -> NodeStack:
        """The software stack of the pool's nodes (:mod:`rules.node_stack`): which device plugins land on them and
        what they advertise."""
        return pool_node_stack(
            self.name,
            os=self.os,
            gpus=int(size.gpu_count),
            whole_gpu_memory_gib=size.whole_gpu_memory_gib,
            taints=self.taints,
            spot=self.spot,
            sharing=rule_sharing(self.sharing),
            driver_skipped=self.driver_skipped,
            mig_profile=self.mig_profile,
            manager=self.manager,
            mig_strategy=self.mig_strategy,
            kaito_addon=self.kaito_addon,
        )

    @property
    def mig_partitioned_by_operator(self) -> bool:
        """Who partitions a MIG pool. AKS does (``gpuInstanceProfile``) only when it installs the driver:
        Azure/AgentBaker ``cse_main.sh`` runs ``ensureMigPartition`` inside the ``GPU_NODE &&
        skip_nvidia_driver_install != true`` branch. Pools whose driver the operator installs (``gpuProfile.driver:
        None``) are partitioned by the operator's MIG manager through :data:`MIG_CONFIG_LABEL` instead."""
        return self.mig_profile is not None and self.driver_skipped

    @property
    def checklist(self) -> AksGpuPoolFacts:
        """The pool as its checklist (:func:`rules.checklists.aks_gpu_pool`) sees it."""
        return AksGpuPoolFacts(
            name=self.name,
            vm_size=self.vm_size,
            os=self.os,
            os_sku=self.os_sku,
            kubernetes_version=self.orchestrator_version,
            autoscaling=self.autoscaling,
            min_count=self.min_count,
            max_count=self.max_count,
            driver_skipped=self.driver_skipped,
            mig_profile=self.mig_profile,
            sharing=rule_sharing(self.sharing),
            taints=self.taints,
            labels=self.labels,
            encryption_at_host=self.encryption_at_host,
            os_disk_type=self.os_disk_type,
            spot=self.spot,
            gpu_floor=self.gpu_floor,
            exempt_rules=self.exempt_rules,
            operator=self.gpu_operator.facts if self.gpu_operator is not None else None,
            manager=self.manager,
            mig_strategy=self.mig_strategy,
            kaito_addon=self.kaito_addon,
            missing_plugin_fix=_fix(self),
        )


def pool_findings(pool: GpuPoolSpec) -> list[Finding]:
    """Every guard rail the pool breaks: its checklist (:func:`rules.checklists.aks_gpu_pool`, the one the stack
    config runs), the GPU operator's validated platforms for the pool's version and OS image, and the pool's own
    version and node OS against today (a cluster's Args check the version against its control plane); today is
    :func:`gpu_catalog.clock.today`, read once."""
    today = clock.today()
    found = aks_gpu_pool(pool.checklist, today=today) + _operator_platform(pool)
    if pool.orchestrator_version is not None:  # a version AKS creates no pools on, even under long-term support
        ended = check_kubernetes_version(
            pool.orchestrator_version, today=today, tier=LTS_TIER, support_plan=LTS_SUPPORT_PLAN
        )
        found += [Finding("orchestratorVersion", ended.message)] if ended is not None else []
        os_problem = pool_node_os_problem(pool.os, pool.os_sku, pool.orchestrator_version, today)
        found += [Finding("osSku", os_problem)] if os_problem is not None else []
    return found


def _fix(pool: GpuPoolSpec) -> str:
    return (
        "Enable the GPU operator or the nvidia-device-plugin chart for the pool, or declare a device plugin installed "
        "outside this program (GitOps, kubectl, another stack) with external_device_plugin=True."
        if pool.os == "Linux"
        else "Keep the AKS driver on the Windows pool (AKS then installs its DirectX device plugin)."
    )


def _operator_platform(pool: GpuPoolSpec) -> list[Finding]:
    """The GPU operator release is validated (NVIDIA's matrix) for the pool's Kubernetes version and OS image."""
    op = pool.gpu_operator
    if op is None or not pool.operator_managed or pool.orchestrator_version is None or pool.os_sku is None:
        return []
    facts = load_operator_facts()
    problem = check_operator_platform(op.version, pool.orchestrator_version, pool.os_sku, facts)
    if problem is None:
        return []
    return [Finding("osSku" if pool.os_sku not in facts.os_images else "gpu_operator", problem)]


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:63].rstrip("-")


def mig_profile_name(pool: GpuPoolSpec, size: GpuSize) -> str:
    """NVIDIA's name of a pool's MIG instance (``MIG3g`` on an A100 80GB → ``3g.40gb``)."""
    if pool.mig_profile is None:
        raise ValueError(f"pool {pool.name} has no migProfile")
    return mig_instance(pool.mig_profile, size.whole_gpu_memory_gib)[0]


def plugin_resource(pool: GpuPoolSpec, size: GpuSize) -> str:
    """What the pool's device plugin advertises before sharing (``nvidia.com/gpu``; a MIG pool under the mixed
    strategy: ``nvidia.com/mig-<profile>``): the resource its sharing config replicates."""
    if pool.mig_profile is None or pool.mig_strategy == "single":
        return GPU_RESOURCE
    return f"nvidia.com/mig-{mig_profile_name(pool, size)}"


def pool_tolerations(pool: GpuPoolSpec) -> list[Toleration]:
    out = taint_tolerations(pool.taints)
    if pool.spot:
        out.append(SPOT_TAINT)
    return out


def pool_node_labels(pool: GpuPoolSpec, size: GpuSize) -> dict[str, str]:
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


def pool_scheduling(pool: GpuPoolSpec, stack: NodeStack) -> Scheduling:
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


def pool_contract(pool: GpuPoolSpec, size: GpuSize, scheduling: Scheduling) -> GpuPoolContract:
    return GpuPoolContract(
        name=pool.name,
        azure_name=pool.azure_name or pool.name,
        vm_size=size.name,
        gpu_model=size.gpu_model,
        gpus_per_node=max(int(size.gpu_count), 1),
        os=pool.os,
        driver="operator" if pool.driver_skipped else "aks",
        scheduling=scheduling,
        mig_profile=pool.mig_profile,
        spot=pool.spot,
        min_count=pool.min_count,
        max_count=pool.max_count,
        count=None if pool.autoscaling else pool.count,
    )


@dataclass(frozen=True)
class GpuNodePoolArgs:
    """A GPU pool and the cluster it joins."""

    pool: GpuPoolSpec
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

    pool: GpuPoolSpec
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
            gpu_profile=containerservice.GPUProfileArgs(driver="None" if pool.driver_skipped else "Install"),
            # AKS partitions only pools whose driver it installs; the operator's MIG manager does the others.
            gpu_instance_profile=None if pool.mig_partitioned_by_operator else pool.mig_profile,
            node_taints=list(pool.taints),
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
        unverified = encryption_at_host_unverified(pool.vm_size, node_disks(pool.vm_size), pool.encryption_at_host)
        for finding in [*advisories(pool_findings(pool)), *unverified]:
            pulumi.log.warn(f"{COMPONENT} '{pool.name}': {finding.message}", resource=self)
        self.register_outputs({"azureName": self.azure_name, "agentPoolId": self.agent_pool.id})
