"""The NAP (Karpenter) GPU NodePool, defined once: its fields, every default resolved here, and its whole checklist.

``NapGpuNodePool(name=..., sizes=..., gpu_limit=..., location=..., ...)`` is the NodePool every door builds: the
stack config parses ``gpuNodePools[i]`` into it (:meth:`stack_config.nap.GpuNodePoolConfig.spec`, with what the
stack adds in :func:`stack_config.specs.nap_pool`), the Python API constructs it (``components.nap_pool.
NapGpuPoolArgs`` is this spec refusing its findings at construction), the component package maps its ``NapGpuPool``
inputs to it (``component_package/nap_gpu_pool.py``). A field left out gets the same default whichever door it came
in by.

Resolved defaults (each from the facts):

- ``driver_skipped``: the GPU operator installs the driver (AKSNodeClass ``gpu.mode: None``) when the cluster's
  operator installs drivers, AKS otherwise (:func:`rules.specs.pool_defaults`, an agent pool's rule);
- ``taints``: :data:`rules.aks.DEFAULT_GPU_TAINT`, or :data:`rules.node_stack.KAITO_SAFE_TAINT` on a cluster with the
  KAITO add-on;
- ``sharing``: the rules' own :class:`~rules.node_stack.Sharing` (a caller's checked subclass is copied);
- the sizes Karpenter may choose (:meth:`NapGpuNodePool.allowed_sizes`): ``sizes`` as written plus every deployable
  catalog size of ``series`` and ``gpu_models``, cheapest first (:func:`rules.karpenter.resolve_sizes`; which sizes are
  deployable depends on the day, so it takes ``today``).

The checklist (:meth:`NapGpuNodePool.findings`, ``today`` passed in) is :func:`rules.checklists.nap_gpu_pool`: sizes,
GPU limit, Karpenter enums, driver, sharing, taints, labels, the image family's node OS and the operator's validated
platforms against the Kubernetes version, what runs on its nodes. Fields are named as in a stack file
(``sizes[0]``, ``imageFamily``, ``limits``); each caller maps them to its own key paths.

Pure: no Pulumi import, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date
from typing import Any

from .. import Finding
from ..checklists import NapGpuPoolFacts, nap_gpu_pool
from ..karpenter import (
    DEFAULT_CAPACITY_TYPES,
    DEFAULT_CONSOLIDATE_AFTER,
    DEFAULT_CONSOLIDATION_POLICY,
    resolve_sizes,
)
from ..node_stack import Sharing
from ..sizes import DEFAULT_FLOOR
from .aks_gpu_pool import pool_defaults
from .pool_software import MigStrategy, PoolDevicePlugin, PoolGpuOperator, pool_manager, pool_mig_strategy

MISSING_PLUGIN_FIX = (
    "Enable the GPU operator or the nvidia-device-plugin chart for the NodePool, or declare a device plugin installed "
    "outside this program (GitOps, kubectl, another stack) with external_device_plugin=True."
)


@dataclass(frozen=True)
class NapGpuNodePool:
    """One NAP GPU NodePool and its AKSNodeClass: every field a door may set, every default resolved once (module
    docstring)."""

    name: str
    """The NodePool's and AKSNodeClass's name, and the value of the ``azure-gpu-platform/pool`` label."""
    sizes: tuple[str, ...]
    """``karpenter.azure.com/sku-name`` values as written (each must pass the size rules)."""
    gpu_limit: int
    """``spec.limits["nvidia.com/gpu"]``: the most GPUs the pool's nodes may hold together."""
    location: str
    """The cluster's region (zone values are ``<location>-<zone>``)."""
    capacity_types: tuple[str, ...] = DEFAULT_CAPACITY_TYPES
    zones: tuple[str, ...] = ()
    driver_skipped: bool | None = None
    """``gpu.mode: None``: the GPU operator installs the driver. ``None``: skipped when the cluster's GPU operator
    installs drivers."""
    sharing: Sharing | None = None
    taints: tuple[str, ...] | None = None
    """``None``: the GPU taint, or on a cluster with the KAITO add-on a key its device plugin does not tolerate."""
    labels: Mapping[str, str] = field(default_factory=dict)
    image_family: str | None = None
    """AKSNodeClass ``imageFamily``; ``None``: AKS's default for the Kubernetes version."""
    os_disk_size_gb: int | None = None
    consolidation_policy: str = DEFAULT_CONSOLIDATION_POLICY
    consolidate_after: str = DEFAULT_CONSOLIDATE_AFTER
    budgets: Sequence[Mapping[str, Any]] = ()
    """Disruption budgets as the NodePool takes them (``nodes``, ``reasons``, ``schedule``, ``duration``)."""
    expire_after: str | None = None
    weight: int | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    """Azure tags of the VMs NAP creates (AKSNodeClass ``tags``)."""
    gpu_operator: PoolGpuOperator | None = None
    device_plugin: PoolDevicePlugin | None = None
    """The nvidia-device-plugin chart on the cluster (when the GPU operator is off)."""
    external_device_plugin: bool = False
    """A device plugin installed outside this program serves the NodePool."""
    kaito_addon: bool = False
    """The cluster runs the KAITO add-on (its device-plugin DaemonSet lands where it tolerates the taints)."""
    gpu_floor: str = DEFAULT_FLOOR
    kubernetes_version: str | None = None
    """The cluster's Kubernetes version (NAP nodes run the control plane's): with it, the image family's node OS end
    of support and the operator's validated platforms are checked."""
    series: tuple[str, ...] = ()
    """``karpenter.azure.com/sku-series`` values (``NCas_T4_v3``): every deployable catalog size of the series."""
    gpu_models: tuple[str, ...] = ()
    """``karpenter.azure.com/sku-gpu-name`` values (``T4``): every deployable catalog size with that GPU."""
    conflicting_sharing: bool = False
    """Both time-slicing and MPS were asked for (a stack file can write both; :attr:`sharing` holds the MPS one)."""

    def __post_init__(self) -> None:
        driver, taints = pool_defaults(self.gpu_operator, "Linux", self.kaito_addon)
        if self.driver_skipped is None:
            object.__setattr__(self, "driver_skipped", driver)
        if self.taints is None:
            object.__setattr__(self, "taints", taints)
        sharing = self.sharing
        if sharing is not None and type(sharing) is not Sharing:  # a caller's subclass (the Python API's checked one)
            object.__setattr__(self, "sharing", Sharing(sharing.mode, sharing.replicas, sharing.rename_by_default))

    # ----------------------------------------------------------------------------------------------- derived facts

    @property
    def node_taints(self) -> tuple[str, ...]:
        """:attr:`taints`, resolved (typed for callers)."""
        return self.taints or ()

    @property
    def operator_managed(self) -> bool:
        return self.gpu_operator is not None

    @property
    def manager(self) -> str | None:
        """The device plugin the platform deploys for the pool's nodes: the GPU operator's, the chart's, or one
        declared external (``None``: none)."""
        return pool_manager(self.gpu_operator, self.device_plugin, self.external_device_plugin)

    @property
    def mig_strategy(self) -> MigStrategy:
        """The MIG strategy of the pool's device plugin."""
        return pool_mig_strategy(self.gpu_operator, self.device_plugin)

    @property
    def gpu_mode(self) -> str:
        """AKSNodeClass ``gpu.mode``."""
        return "None" if self.driver_skipped else "Driver"

    def allowed_sizes(self, *, today: date) -> tuple[str, ...]:
        """The ``sku-name`` values the NodePool allows on ``today``: :attr:`sizes`, plus the deployable sizes of
        :attr:`series` and :attr:`gpu_models`, cheapest first."""
        resolved, _ = resolve_sizes(self.sizes, self.series, self.gpu_models, floor=self.gpu_floor, today=today)
        return tuple(resolved)

    @property
    def checklist(self) -> NapGpuPoolFacts:
        """The NodePool as its checklist (:func:`rules.checklists.nap_gpu_pool`) sees it."""
        operator = self.gpu_operator
        return NapGpuPoolFacts(
            name=self.name,
            sizes=self.sizes,
            series=self.series,
            gpu_models=self.gpu_models,
            gpu_limit=self.gpu_limit,
            capacity_types=self.capacity_types,
            image_family=self.image_family,
            consolidation_policy=self.consolidation_policy,
            driver_skipped=bool(self.driver_skipped),
            sharing=self.sharing,
            conflicting_sharing=self.conflicting_sharing,
            taints=self.node_taints,
            labels=self.labels,
            gpu_floor=self.gpu_floor,
            operator=operator.facts if operator is not None else None,
            operator_version=operator.version if operator is not None else None,
            kubernetes_version=self.kubernetes_version,
            manager=self.manager,
            mig_strategy=self.mig_strategy,
            kaito_addon=self.kaito_addon,
            missing_plugin_fix=MISSING_PLUGIN_FIX,
        )

    def findings(self, *, today: date) -> list[Finding]:
        """Every guard rail the NodePool breaks on ``today``: :func:`rules.checklists.nap_gpu_pool` (module
        docstring)."""
        return nap_gpu_pool(self.checklist, today=today)


NAP_GPU_NODE_POOL_FIELDS: frozenset[str] = frozenset(f.name for f in fields(NapGpuNodePool))
"""The spec's field names: a door maps its keys onto them (a package's ``image_family``, a stack file's
``imageFamily``)."""
