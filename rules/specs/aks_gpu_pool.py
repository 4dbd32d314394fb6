"""The AKS GPU agent pool, defined once: its fields, every default resolved here, and its whole checklist.

``AksGpuPool(name=..., vm_size=..., ...)`` is the pool every door builds: the stack config parses ``gpuPools[i]``
into it (:func:`stack_config.specs.gpu_pool`), the Python API constructs it (``components.gpu_node_pool.GpuPoolSpec``
is this spec refusing its findings at construction), the component package maps its ``GpuPool`` inputs to it
(``component_package/args.py``). A field left out gets the same default whichever door it came in by (the defaults
below, resolved in ``__post_init__``); after construction every resolved field holds the value the ``AgentPool``
gets.

Resolved defaults (each from the catalog or the facts):

- ``os_sku``: ``Ubuntu`` on Linux (the GPU operator's validated OS), ``Windows2022`` on Windows
  (:data:`rules.node_os.DEFAULT_OS_SKU`);
- ``driver_skipped``: the GPU operator installs the driver (``gpuProfile.driver: None``) on a Linux pool of a cluster
  whose operator installs drivers, AKS otherwise;
- ``min_count``: 1 when autoscaling; ``count``: the autoscaling lower bound, or 1;
- ``taints``: :data:`rules.aks.DEFAULT_GPU_TAINT`, or :data:`rules.node_stack.KAITO_SAFE_TAINT` on a cluster with the
  KAITO add-on (whose device plugin would land on the pool otherwise);
- ``max_pods``: :func:`rules.hardening.default_max_pods`, :data:`rules.hardening.DEFAULT_MAX_PODS` (250, Azure CNI
  Overlay) on Linux, :data:`rules.hardening.WINDOWS_MAX_PODS` (110) on Windows;
- ``encryption_at_host`` and ``os_disk_type``: from the catalog's ``nodeDisks``
  (:func:`rules.hardening.default_encryption_at_host`, :func:`rules.hardening.default_os_disk_type`).

The checklist (:meth:`AksGpuPool.findings`, ``today`` passed in): :func:`rules.checklists.aks_gpu_pool`, the pool's
node OS against its Kubernetes version (:meth:`AksGpuPool.node_os_findings`), the GPU operator's validated platforms
(:meth:`AksGpuPool.operator_platform_findings`) and the pool's version against AKS's calendar under long-term support
(:meth:`AksGpuPool.version_findings`; the stack config checks it against the cluster's own tier instead). Fields are
named as in a stack file (``vmSize``, ``osSku``, ``gpuOperator``); each caller maps them to its own key paths.

Pure: no Pulumi import, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import date
from typing import Literal

from gpu_catalog import MIG_PROFILES, GpuSize, canonical_mig_profile
from gpu_catalog.lifecycle import LTS_SUPPORT_PLAN, LTS_TIER, load_operator_facts
from gpu_catalog.node_disks import node_disks

from .. import Finding
from ..aks import DEFAULT_GPU_TAINT, LINUX_OS_SKUS, WINDOWS_OS_SKUS
from ..checklists import AksGpuPoolFacts, aks_gpu_pool
from ..hardening import (
    SshAccess,
    default_encryption_at_host,
    default_max_pods,
    default_os_disk_type,
)
from ..lifecycle import check_kubernetes_version, check_operator_platform
from ..limits import MAX_NODES_PER_NODE_POOL, MAX_PODS_PER_NODE
from ..network import UpgradeSettings
from ..node_os import DEFAULT_OS_SKU, pool_node_os_problem
from ..node_stack import (
    KAITO_SAFE_TAINT,
    NodeStack,
    Sharing,
)
from ..sizes import DEFAULT_FLOOR
from .keys import key
from .pool_software import MigStrategy, PoolDevicePlugin, PoolGpuOperator, pool_manager, pool_mig_strategy


@dataclass(frozen=True)
class AksGpuPool:
    """One AKS GPU agent pool: every field a door may set, every default resolved once (module docstring)."""

    name: str = field(
        metadata=key(
            "Logical pool name: lowercase letters and digits, starting with a letter; at most 12 characters on Linux, "
            "6 on Windows. The `azure-gpu-platform/pool` node label and the child resource's name.",
            min_length=1,
            create_time=True,
        )
    )
    """Logical pool name: the Pulumi resource name's suffix and the ``azure-gpu-platform/pool`` node label."""
    vm_size: str = field(
        metadata=key(
            "The GPU VM size (e.g. `Standard_NC24ads_A100_v4`): a current, AKS-supported size at or above the GPU "
            "floor.",
            create_time=True,
        )
    )
    azure_name: str | None = field(
        default=None,
        metadata=key(
            "The agent pool's name in Azure; default: `name`. Give a new name when changing a create-time field "
            "(size, OS, MIG profile, driver, taints, zones, spot, max pods) so the new pool is created before the old "
            "one is deleted.",
            stack=False,
        ),
    )
    """The agent pool's name in Azure; ``None``: :attr:`name`. A stack file's pool gets a name that changes with its
    create-time fields (``stack_config.azure_pool_name``)."""
    os: Literal["Linux", "Windows"] = field(
        default="Linux", metadata=key("Default `Linux`.", enum="OsType", create_time=True)
    )
    os_sku: str | None = field(
        default=None,
        metadata=key("Default `Ubuntu` on Linux, `Windows2022` on Windows.", values=(*LINUX_OS_SKUS, *WINDOWS_OS_SKUS)),
    )
    """``None``: ``Ubuntu`` on Linux, ``Windows2022`` on Windows."""
    count: int | None = field(
        default=None,
        metadata=key(
            "Nodes of a fixed-size pool; the initial node count of an autoscaling one. Default: `minCount` when "
            "autoscaling, else 1.",
            ge=0,
            le=MAX_NODES_PER_NODE_POOL,
        ),
    )
    """Nodes of a fixed-size pool; the initial node count of an autoscaling one. ``None``: :attr:`min_count` when
    autoscaling, else 1."""
    min_count: int | None = field(
        default=None,
        metadata=key(
            "Autoscaling lower bound (at least 1 when the GPU operator manages the pool: Azure/AKS #2832); default 1.",
            ge=0,
            le=MAX_NODES_PER_NODE_POOL,
        ),
    )
    """Autoscaling lower bound (with :attr:`max_count`); ``None``: 1 when autoscaling."""
    max_count: int | None = field(
        default=None,
        metadata=key("Setting it turns the cluster autoscaler on.", ge=1, le=MAX_NODES_PER_NODE_POOL),
    )
    """Setting it turns the cluster autoscaler on."""
    driver_skipped: bool | None = field(
        default=None,
        metadata=key(
            "Who installs the NVIDIA driver; default `operator` on a Linux pool whose `gpuOperator` installs drivers, "
            "else `aks`. `operator` needs `gpuOperator` with `installsDriver`.",
            name="driver",
            translated=True,
            create_time=True,
        ),
    )
    """AKS skips its NVIDIA driver install (``gpuProfile.driver: None``): the GPU operator installs the driver.
    ``None``: skipped on a Linux pool of a cluster whose GPU operator installs drivers. The doors take it as a driver
    mode (``driver: operator`` / ``aks``)."""
    mig_profile: str | None = field(
        default=None,
        metadata=key("MIG partitioning (A100/H100/H200 sizes).", values=MIG_PROFILES, create_time=True),
    )
    """AKS ``gpuInstanceProfile`` (``MIG3g``); the operator's MIG manager partitions pools whose driver it installs."""
    sharing: Sharing | None = field(
        default=None, metadata=key("Time-slicing or MPS through the GPU operator.", translated=True)
    )
    conflicting_sharing: bool = False
    """Both time-slicing and MPS were asked for (a stack file can write both; :attr:`sharing` holds the MPS one)."""
    taints: tuple[str, ...] | None = field(
        default=None,
        metadata=key(
            "Node taints; default `nvidia.com/gpu=present:NoSchedule` (in an `AksGpuCluster` with the KAITO add-on, a "
            "taint the add-on's device plugin does not tolerate).",
            create_time=True,
        ),
    )
    """``None``: the GPU taint, or on a cluster with the KAITO add-on a key its device plugin does not tolerate."""
    labels: Mapping[str, str] = field(
        default_factory=dict,
        metadata=key("Node labels of your own (the pool, GPU model, device-plugin and MIG labels are added)."),
    )
    """Node labels of your own (the pool, GPU model, device-plugin and MIG labels are added)."""
    spot: bool = field(default=False, metadata=key("Spot VMs (evicted with delete).", create_time=True))
    zones: tuple[Literal["1", "2", "3"], ...] = field(default=(), metadata=key("Availability zones.", create_time=True))
    max_pods: int | None = field(
        default=None,
        metadata=key(
            "Maximum pods per node; default 250 (Azure CNI Overlay's default) on Linux, 110 on Windows.",
            ge=10,
            le=MAX_PODS_PER_NODE,
            create_time=True,
        ),
    )
    """``None``: 250 (Azure CNI Overlay's default) on Linux, 110 on Windows."""
    encryption_at_host: bool | None = field(
        default=None,
        metadata=key(
            "Encryption at host (needs the subscription feature `Microsoft.Compute/EncryptionAtHost`); default: on "
            "where the catalog sources the size's support, otherwise off; refused on a size without it.",
            create_time=True,
        ),
    )
    """Needs the subscription feature ``Microsoft.Compute/EncryptionAtHost``; refused on a size the catalog says lacks
    it. ``None``: on where the catalog sources the size's support."""
    os_disk_type: Literal["Ephemeral", "Managed"] | None = field(
        default=None,
        metadata=key(
            "Default `Ephemeral` where the size supports it and its temp disk holds the 128 GiB OS disk, else "
            "`Managed`.",
            create_time=True,
        ),
    )
    """``Ephemeral`` (the size's temp disk must hold the 128 GiB OS disk) or ``Managed``. ``None``: ``Ephemeral``
    where the catalog says it fits."""
    scale_down_mode: Literal["Delete", "Deallocate"] | None = field(
        default=None,
        metadata=key(
            "How scale-down removes nodes: `Delete` or `Deallocate` (the VMs stop and keep their OS disk and cached "
            "images, still billed for the disks; a scale-up starts them first). `Deallocate` needs "
            "`osDiskType: Managed`. Default: not sent (AKS deletes).",
        ),
    )
    """``scaleDownMode`` (REST API 2025-09-01 ``ScaleDownMode``); ``None``: not sent, AKS's ``Delete``. AKS does not
    support ``Deallocate`` with an ephemeral OS disk (:meth:`scale_down_findings`)."""
    orchestrator_version: str | None = field(
        default=None,
        metadata=key("The nodes' Kubernetes version; default: the control plane's.", kind="kubernetes_version"),
    )
    """The nodes' Kubernetes version; ``None``: the control plane's."""
    tags: Mapping[str, str] = field(default_factory=dict, metadata=key("Azure tags (`gpu-pool: <name>` is added)."))
    """Azure tags (``gpu-pool: <name>`` is added)."""
    gpu_operator: PoolGpuOperator | None = field(
        default=None,
        metadata=key(
            "The NVIDIA GPU operator on the cluster, when one runs: it manages every Linux GPU pool.",
            stack=False,
            translated=True,
        ),
    )
    """The NVIDIA GPU operator on the cluster; ``None``: none runs."""
    device_plugin: PoolDevicePlugin | None = field(
        default=None,
        metadata=key(
            "NVIDIA's nvidia-device-plugin chart on the cluster, when the GPU operator is off: it serves the Linux GPU "
            "pools whose driver AKS installs. Neither it nor `gpuOperator`: the cluster's own device plugin is taken "
            "on trust.",
            stack=False,
            translated=True,
        ),
    )
    """The nvidia-device-plugin chart on the cluster (when the GPU operator is off); ``None``: none runs."""
    external_device_plugin: bool = False
    """A device plugin installed outside this program serves the pool (neither the operator nor the chart is on the
    cluster): the node-stack rule then takes its word for it instead of refusing a pool with no plugin."""
    kaito_addon: bool = False
    """The cluster runs the KAITO add-on, whose own device-plugin DaemonSet lands on every node whose taints it
    tolerates (``gpu_catalog/facts/device_plugins.json``)."""
    gpu_floor: str = field(
        default=DEFAULT_FLOOR,
        metadata=key(
            "The smallest GPU size allowed (policy `gpu-size-minimum`); default `Standard_NC6s_v3`.", stack=False
        ),
    )
    """The smallest GPU size allowed (policy ``gpu-size-minimum``)."""
    exempt_rules: tuple[str, ...] = field(
        default=(),
        metadata=key(
            "Size rules waived for this pool until a date, each with a reason and an owner (`docs/exemptions.md`): "
            "an active exemption lets a pool through that `gpu-size-*` rule; an expired one waives nothing.",
            name="exemptions",
            stack=False,
            translated=True,
        ),
    )
    """Size rules an active exemption (:mod:`rules.exemptions`) waives for this pool: a stack file's ``exemptions`` that
    name the pool's AgentPool, the component package's pool ``exemptions``; the Python API passes the rule names."""
    vnet_subnet_id: str | None = field(
        default=None,
        metadata=key("The node subnet's resource id (`vnetSubnetID`); default: the cluster's.", kind="subnet_id"),
    )
    """The node subnet's resource id (``vnetSubnetID``); ``None``: the cluster's (an AKS-managed VNet, or in a stack
    file the system pool's)."""
    pod_subnet_id: str | None = field(
        default=None,
        metadata=key("Azure CNI flat mode: the pods' subnet id (`podSubnetID`).", kind="subnet_id"),
    )
    """Azure CNI flat mode: the pods' subnet id (``podSubnetID``)."""
    upgrade: UpgradeSettings | None = field(
        default=None, metadata=key("`upgradeSettings`; default: AKS's.", translated=True)
    )
    """``upgradeSettings`` (``None``: AKS's defaults, a surge of one node); each surge node is a GPU VM
    (``docs/landing-zone.md``)."""
    ssh_access: SshAccess | None = None
    """``securityProfile.sshAccess`` (``Disabled``: no SSH on the nodes, Microsoft's built-in definition
    28257686-…); ``None``: AKS's default, ``LocalUser`` (a stack file's ``cluster.sshAccess`` sets every pool's)."""

    def __post_init__(self) -> None:
        resolved = _defaults(self)
        for name, value in resolved.items():
            object.__setattr__(self, name, value)

    # ----------------------------------------------------------------------------------------------- derived facts

    @property
    def autoscaling(self) -> bool:
        return self.max_count is not None

    @property
    def operator_managed(self) -> bool:
        """The GPU operator manages the pool (device plugin, labels, MIG): every Linux pool of a cluster it runs on."""
        return self.gpu_operator is not None and self.os == "Linux"

    @property
    def node_taints(self) -> tuple[str, ...]:
        """:attr:`taints`, resolved (typed for callers)."""
        return self.taints or ()

    @property
    def skips_driver(self) -> bool:
        """:attr:`driver_skipped`, resolved (typed for callers)."""
        return bool(self.driver_skipped)

    @property
    def manager(self) -> str | None:
        """The device plugin the platform deploys for the pool: the GPU operator's (it manages every Linux pool of
        its cluster) or the nvidia-device-plugin chart's (Linux pools, when the operator is off); ``None`` on
        Windows, where AKS brings its own."""
        if self.os != "Linux":
            return None
        return pool_manager(self.gpu_operator, self.device_plugin, self.external_device_plugin)

    @property
    def mig_strategy(self) -> MigStrategy:
        """The MIG strategy of the pool's device plugin."""
        return pool_mig_strategy(self.gpu_operator, self.device_plugin)

    @property
    def mig_partitioned_by_operator(self) -> bool:
        """Who partitions a MIG pool. AKS does (``gpuInstanceProfile``) only when it installs the driver:
        Azure/AgentBaker ``cse_main.sh`` runs ``ensureMigPartition`` inside the ``GPU_NODE &&
        skip_nvidia_driver_install != true`` branch. Pools whose driver the operator installs (``gpuProfile.driver:
        None``) are partitioned by the operator's MIG manager through the ``nvidia.com/mig.config`` label instead."""
        return self.mig_profile is not None and self.skips_driver

    def node_stack(self, size: GpuSize) -> NodeStack:
        """The software stack of the pool's nodes (:mod:`rules.node_stack`): which device plugins land on them and
        what they advertise."""
        return self.checklist.node_stack(size)

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
            driver_skipped=self.skips_driver,
            mig_profile=self.mig_profile,
            sharing=self.sharing,
            conflicting_sharing=self.conflicting_sharing,
            taints=self.node_taints,
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
            missing_plugin_fix=(
                "Enable the GPU operator or the nvidia-device-plugin chart for the pool, or declare a device plugin "
                "installed outside this program (GitOps, kubectl, another stack) with external_device_plugin=True."
                if self.os == "Linux"
                else "Keep the AKS driver on the Windows pool (AKS then installs its DirectX device plugin)."
            ),
        )

    # ----------------------------------------------------------------------------------------------- the checklist

    def findings(self, *, today: date) -> list[Finding]:
        """Every guard rail the pool breaks on ``today``: its checklist, its node OS, the GPU operator's validated
        platforms and its version under long-term support (module docstring)."""
        return [
            *self.checklist_findings(today=today),
            *self.operator_platform_findings(),
            *self.version_findings(today=today),
            *self.node_os_findings(today=today),
            *self.upgrade_findings(),
        ]

    def scale_down_findings(self) -> list[Finding]:
        """``Deallocate`` keeps the stopped VMs' OS disks, which an ephemeral OS disk (on the VM's temp disk) cannot:
        AKS refuses it (azure-aks-docs ``articles/aks/scale-down-mode.md``, Limitations)."""
        if self.scale_down_mode != "Deallocate" or self.os_disk_type != "Ephemeral":
            return []
        return [
            Finding(
                "scaleDownMode",
                f"Deallocate is not supported with an ephemeral OS disk (osDiskType Ephemeral, written or the "
                f"catalog's default for {self.vm_size}): a deallocated node keeps its OS disk, which an ephemeral one "
                "on the VM's temp disk cannot. Allowed: Deallocate with osDiskType Managed, or Delete.",
            )
        ]

    def upgrade_findings(self) -> list[Finding]:
        """``upgradeSettings`` in the API's shapes and ranges (:func:`rules.network.upgrade_settings`)."""
        if self.upgrade is None:
            return []
        return [Finding(f"upgrade.{f.field}", f.message) for f in self.upgrade.findings()]

    def checklist_findings(self, *, today: date) -> list[Finding]:
        """:func:`rules.checklists.aks_gpu_pool` over the pool: size, MIG, sharing, driver, taints, labels,
        hardening, what runs on its nodes; and the spec's own field rules (:meth:`scale_down_findings`)."""
        return [*aks_gpu_pool(self.checklist, today=today), *self.scale_down_findings()]

    def version_findings(self, *, today: date) -> list[Finding]:
        """The pool's own version, one AKS creates no pools on even under long-term support (a cluster checks it
        against its own tier and support plan; the stack config does too)."""
        if self.orchestrator_version is None:
            return []
        ended = check_kubernetes_version(
            self.orchestrator_version, today=today, tier=LTS_TIER, support_plan=LTS_SUPPORT_PLAN
        )
        return [Finding("orchestratorVersion", ended.message)] if ended is not None else []

    def node_os_findings(self, *, today: date) -> list[Finding]:
        """The pool's OS version against its Kubernetes minor and ``today`` (``gpu_catalog/facts/aks_node_os.json``),
        on ``osSku``; a pool on the control plane's version (``orchestrator_version`` ``None``) is checked by its
        cluster."""
        if self.orchestrator_version is None:
            return []
        problem = pool_node_os_problem(self.os, self.os_sku, self.orchestrator_version, today)
        return [Finding("osSku", problem)] if problem is not None else []

    def operator_platform_findings(self) -> list[Finding]:
        """NVIDIA validates the GPU operator release for the pool's Kubernetes version and OS image (a pool the
        operator manages, on a known version): on ``osSku`` when NVIDIA validates no release on that OS image, else
        on ``gpuOperator``."""
        op = self.gpu_operator
        if op is None or not self.operator_managed or self.orchestrator_version is None or self.os_sku is None:
            return []
        facts = load_operator_facts()
        problem = check_operator_platform(op.version, self.orchestrator_version, self.os_sku, facts)
        if problem is None:
            return []
        return [Finding("osSku" if self.os_sku not in facts.os_images else "gpuOperator", problem)]


def pool_defaults(operator: PoolGpuOperator | None, os: str, kaito_addon: bool) -> tuple[bool, tuple[str, ...]]:
    """The driver and taint defaults every GPU pool shares (an agent pool, a NAP NodePool): the driver is skipped on
    a Linux pool of a cluster whose GPU operator installs drivers; the taint is the GPU taint, or on a cluster with the
    KAITO add-on a key its device plugin does not tolerate."""
    skipped = operator is not None and operator.installs_driver and os == "Linux"
    return skipped, (KAITO_SAFE_TAINT if kaito_addon else DEFAULT_GPU_TAINT,)


AKS_GPU_POOL_FIELDS: frozenset[str] = frozenset(f.name for f in fields(AksGpuPool))
"""The spec's field names: a door maps its keys onto them (a stack file's ``osDiskType`` is ``os_disk_type``)."""


def _defaults(pool: AksGpuPool) -> dict[str, object]:
    """The resolved value of every field the pool left at ``None`` (module docstring), and the MIG profile in AKS's
    own spelling (AKS reads enum strings case-insensitively), the sharing as the rules' own type."""
    out: dict[str, object] = {}
    sharing = pool.sharing
    if sharing is not None and type(sharing) is not Sharing:  # a caller's subclass (the Python API's checked one)
        out["sharing"] = Sharing(sharing.mode, sharing.replicas, sharing.rename_by_default)
    if pool.mig_profile is not None:
        out["mig_profile"] = canonical_mig_profile(pool.mig_profile) or pool.mig_profile
    if pool.os_sku is None:
        out["os_sku"] = DEFAULT_OS_SKU.get(pool.os, DEFAULT_OS_SKU["Linux"])
    driver, taints = pool_defaults(pool.gpu_operator, pool.os, pool.kaito_addon)
    if pool.driver_skipped is None:
        out["driver_skipped"] = driver
    autoscaling = pool.max_count is not None
    min_count = pool.min_count if pool.min_count is not None or not autoscaling else 1
    out["min_count"] = min_count
    if pool.count is None:
        out["count"] = (min_count or 0) if autoscaling else 1
    if pool.taints is None:
        out["taints"] = taints
    if pool.max_pods is None:
        out["max_pods"] = default_max_pods(pool.os)
    disks = node_disks(pool.vm_size)
    if pool.encryption_at_host is None:
        out["encryption_at_host"] = default_encryption_at_host(disks)
    if pool.os_disk_type is None:
        out["os_disk_type"] = default_os_disk_type(disks)
    return out
