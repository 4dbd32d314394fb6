"""``gpuNodePools``: GPU capacity from AKS node auto-provisioning (Karpenter), from zero to a GPU limit.

Each entry becomes a Karpenter ``NodePool`` and its ``AKSNodeClass`` (:mod:`components.nap_pool`); any entry turns
node auto-provisioning on for the cluster (``nodeProvisioningProfile.mode: Auto``). The allowed sizes are resolved
through the GPU catalog (:func:`rules.karpenter.resolve_sizes`) into one ``karpenter.azure.com/sku-name`` ``In`` list,
so every size Karpenter may choose passed the size rules here, in the component and in the policy pack.

Each entry parses into its spec (:meth:`GpuNodePoolConfig.spec`, :class:`rules.specs.NapGpuNodePool`). Its checks
(:func:`stack_config.checks.nap_problems`: the spec's checklist, :func:`rules.checklists.nap_gpu_pool`, plus what only
a whole stack file can get wrong: ``limits.nodes``, half a disruption budget, a name written twice): names unique
across ``gpuPools`` and ``gpuNodePools`` (both feed the pool label), sizes, driver mode against the GPU operator,
sharing, taints, labels, and NAP's own limits on the rest of the cluster (no autoscaling or Windows agent pools,
``gpu_catalog/facts/karpenter.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import Field

from gpu_catalog.karpenter import load_karpenter_facts
from rules.aks import DriverMode
from rules.karpenter import (
    DEFAULT_CAPACITY_TYPES,
    DEFAULT_CONSOLIDATE_AFTER,
    DEFAULT_CONSOLIDATION_POLICY,
    BudgetReason,
)
from rules.specs import NapGpuNodePool, PoolDevicePlugin, PoolGpuOperator

from .base import StrictModel, empty_section, worded
from .sharing import SharingConfig

FACTS = load_karpenter_facts()

ImageFamily = Literal["Ubuntu", "Ubuntu2204", "Ubuntu2404", "AzureLinux"]
"""AKSNodeClass ``imageFamily`` (karpenter-provider-azure v1.14.2 CRD; a test keeps it equal to the facts file)."""
CapacityType = Literal["on-demand", "spot"]
ConsolidationPolicy = Literal["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"]
"""Literal types for the JSON schema; tests/rules/test_karpenter.py keeps all three equal to the facts' enums."""
Duration = Annotated[str, worded(r"^(([0-9]+(s|m|h))+|Never)$", "must be a duration like '5m', '1h30m' or 'Never'")]


class NapLimitsConfig(StrictModel):
    """``gpuNodePools[i].limits``: how much the NodePool may create."""

    gpus: Annotated[int, Field(ge=1, le=10000)]
    """``spec.limits["nvidia.com/gpu"]``: the most GPUs the pool's nodes may hold together (required: no unbounded
    GPU spend)."""
    nodes: int | None = None
    """Refused: AKS documents ``limits.nodes`` for static NodePools (``replicas``) only."""


class DisruptionBudgetConfig(StrictModel):
    nodes: Annotated[str, worded(r"^((100|[0-9]{1,2})%|[0-9]+)$", "must be a node count or a percentage like '10%'")]
    schedule: str | None = None
    """Cron schedule when the budget applies (needs ``duration``)."""
    duration: (
        Annotated[str, worded(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$", "must be a duration like '8h' or '1h30m'")]
        | None
    ) = None
    reasons: list[BudgetReason] = Field(default_factory=list)


class DisruptionConfig(StrictModel):
    """``gpuNodePools[i].disruption``: when Karpenter removes nodes (scale back to zero)."""

    consolidationPolicy: ConsolidationPolicy = DEFAULT_CONSOLIDATION_POLICY
    """``WhenEmpty`` (default): only nodes without workload pods are removed, so running inference is never evicted
    to repack it."""
    consolidateAfter: Duration = DEFAULT_CONSOLIDATE_AFTER
    budgets: list[DisruptionBudgetConfig] = Field(default_factory=list)


class GpuNodePoolConfig(StrictModel):
    """``gpuNodePools[i]``: one Karpenter NodePool of GPU nodes that NAP creates on demand (from zero)."""

    name: Annotated[
        str,
        worded(
            r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$",
            "must be lowercase letters, digits and '-', starting with a letter, ≤40 characters",
        ),
    ]
    """Names the NodePool and AKSNodeClass, and is the value of the pool label workloads select."""
    sizes: list[str] = Field(default_factory=list)
    """GPU sizes Karpenter may choose (each must pass the size rules)."""
    series: list[str] = Field(default_factory=list)
    """``karpenter.azure.com/sku-series`` values (``NCas_T4_v3``): every deployable catalog size of the series."""
    gpuModels: list[str] = Field(default_factory=list)
    """``karpenter.azure.com/sku-gpu-name`` values (``T4``, ``A100``): every deployable catalog size with that GPU."""
    capacityTypes: Annotated[list[CapacityType], Field(min_length=1)] = Field(
        default_factory=lambda: list(DEFAULT_CAPACITY_TYPES)
    )
    """``karpenter.sh/capacity-type``; NAP prefers spot when both are allowed."""
    zones: list[Literal["1", "2", "3"]] = Field(default_factory=list)
    limits: NapLimitsConfig
    driver: DriverMode | None = None
    """``operator``: AKSNodeClass ``gpu.mode: None`` (the GPU operator installs the driver); ``aks``: ``Driver``.
    Defaults to ``operator`` when ``gpuOperator.enabled``, otherwise ``aks``."""
    sharing: SharingConfig | None = None
    taints: list[str] | None = None
    """Defaults as a GPU pool's (:meth:`StackConfig.pool_taints`)."""
    labels: dict[str, str] = Field(default_factory=dict)
    imageFamily: ImageFamily | None = None
    """Unset: AKS's default for the Kubernetes version (Ubuntu 24.04 from 1.34)."""
    osDiskSizeGB: Annotated[int, Field(ge=30, le=2048)] | None = None
    disruption: DisruptionConfig = empty_section()
    expireAfter: Duration | None = None
    """Replace nodes after this long (Karpenter's default 720h when unset)."""
    weight: Annotated[int, Field(ge=1, le=100)] | None = None

    @property
    def sharing_mode(self) -> Literal["none", "timeSlicing", "mps"]:
        return self.sharing.mode if self.sharing is not None else "none"

    def spec(
        self,
        *,
        location: str,
        gpu_operator: PoolGpuOperator | None,
        device_plugin: PoolDevicePlugin | None,
        kaito_addon: bool,
        gpu_floor: str,
        kubernetes_version: str,
        tags: Mapping[str, str],
    ) -> NapGpuNodePool:
        """The entry as its spec: the keys as written, camelCase to the spec's fields (the spec resolves the driver
        and the taints it leaves out), with what the stack gives it (its cluster's region, software, version,
        GPU floor and tags)."""
        sharing = self.sharing
        disruption = self.disruption
        return NapGpuNodePool(
            name=self.name,
            sizes=tuple(self.sizes),
            series=tuple(self.series),
            gpu_models=tuple(self.gpuModels),
            gpu_limit=self.limits.gpus,
            location=location,
            capacity_types=tuple(self.capacityTypes),
            zones=tuple(self.zones),
            driver_skipped=self.driver == "operator" if self.driver is not None else None,
            sharing=sharing.node_sharing if sharing is not None else None,
            conflicting_sharing=sharing is not None and sharing.mps is not None and sharing.timeSlicing is not None,
            taints=tuple(self.taints) if self.taints is not None else None,
            labels=dict(self.labels),
            image_family=self.imageFamily,
            os_disk_size_gb=self.osDiskSizeGB,
            consolidation_policy=disruption.consolidationPolicy,
            consolidate_after=disruption.consolidateAfter,
            budgets=tuple(
                {"nodes": b.nodes, **({"reasons": list(b.reasons)} if b.reasons else {})}
                | ({"schedule": b.schedule, "duration": b.duration} if b.schedule is not None else {})
                for b in disruption.budgets
            ),
            expire_after=self.expireAfter,
            weight=self.weight,
            tags={**tags, "gpu-node-pool": self.name},
            gpu_operator=gpu_operator,
            device_plugin=device_plugin,
            kaito_addon=kaito_addon,
            gpu_floor=gpu_floor,
            kubernetes_version=kubernetes_version,
        )
