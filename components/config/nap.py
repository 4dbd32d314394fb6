"""``gpuNodePools``: GPU capacity from AKS node auto-provisioning (Karpenter), from zero to a GPU limit.

Each entry becomes a Karpenter ``NodePool`` and its ``AKSNodeClass`` (:mod:`components.nap_pool`); any entry turns
node auto-provisioning on for the cluster (``nodeProvisioningProfile.mode: Auto``). The allowed sizes are resolved
through the GPU catalog (:func:`rules.karpenter.resolve_sizes`) into one ``karpenter.azure.com/sku-name`` ``In`` list,
so every size Karpenter may choose passed the size rules here, in the component and in the policy pack.

Checks only a whole stack file can make (:func:`nap_problems`, registered in ``checks.EXTRA_CHECKS``): names unique
across ``gpuPools`` and ``gpuNodePools`` (both feed the pool label), sizes, driver mode against the GPU operator,
sharing, taints, labels, and NAP's own limits on the rest of the cluster (no autoscaling or Windows agent pools,
``gpu_catalog/facts/karpenter.json``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from gpu_catalog import default_catalog
from gpu_catalog.karpenter import load_karpenter_facts
from gpu_catalog.problems import Problem, key_path
from rules import Finding
from rules import aks as rules_aks
from rules.aks import driver_install, gpu_sharing, pool_taints
from rules.karpenter import (
    DEFAULT_CAPACITY_TYPES,
    DEFAULT_CONSOLIDATE_AFTER,
    DEFAULT_CONSOLIDATION_POLICY,
    AgentPoolFacts,
    nap_agent_pools,
    resolve_sizes,
)
from rules.lifecycle import check_operator_platform
from rules.node_stack import DEVICE_PLUGIN_CHART, GPU_OPERATOR, node_stack_findings, pool_node_stack

from ..config_base import StrictModel
from ..kube_names import label_value_problem, node_label_key_problem
from .models import SharingConfig, worded

if TYPE_CHECKING:
    from .models import StackConfig

FACTS = load_karpenter_facts()

ImageFamily = Literal["Ubuntu", "Ubuntu2204", "Ubuntu2404", "AzureLinux"]
"""AKSNodeClass ``imageFamily`` (karpenter-provider-azure v1.14.2 CRD; a test keeps it equal to the facts file)."""
CapacityType = Literal["on-demand", "spot"]
ConsolidationPolicy = Literal["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"]
"""Literal types for the JSON schema; tests/rules/test_karpenter.py keeps all three equal to the facts' enums."""
Duration = Annotated[str, worded(r"^(([0-9]+(s|m|h))+|Never)$", "must be a duration like '5m', '1h30m' or 'Never'")]
IMAGE_FAMILY_OS_SKU = {"Ubuntu": "Ubuntu", "Ubuntu2204": "Ubuntu2204", "Ubuntu2404": "Ubuntu"}
"""imageFamily → the os SKU the GPU operator's platform facts know (``Ubuntu`` covers 22.04 and 24.04); AzureLinux
stays itself and is refused there (NVIDIA does not validate the operator on Azure Linux)."""
RESTRICTED_LABEL_DOMAINS = ("karpenter.sh", "karpenter.azure.com", "kubernetes.azure.com")
"""Label domains a NodePool's template labels may not use (the NodePool CRD's validation rules)."""


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
    reasons: list[Literal["Underutilized", "Empty", "Drifted"]] = Field(default_factory=list)


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
    driver: Literal["operator", "aks"] | None = None
    """``operator``: AKSNodeClass ``gpu.mode: None`` (the GPU operator installs the driver); ``aks``: ``Driver``.
    Defaults to ``operator`` when ``gpuOperator.enabled``, otherwise ``aks``."""
    sharing: SharingConfig | None = None
    taints: list[str] | None = None
    """Defaults as a GPU pool's (:meth:`StackConfig.pool_taints`)."""
    labels: dict[str, str] = Field(default_factory=dict)
    imageFamily: ImageFamily | None = None
    """Unset: AKS's default for the Kubernetes version (Ubuntu 24.04 from 1.34)."""
    osDiskSizeGB: Annotated[int, Field(ge=30, le=2048)] | None = None
    disruption: DisruptionConfig = DisruptionConfig()
    expireAfter: Duration | None = None
    """Replace nodes after this long (Karpenter's default 720h when unset)."""
    weight: Annotated[int, Field(ge=1, le=100)] | None = None

    @property
    def sharing_mode(self) -> Literal["none", "timeSlicing", "mps"]:
        return self.sharing.mode if self.sharing is not None else "none"


def nap_driver(cfg: StackConfig, pool: GpuNodePoolConfig) -> Literal["operator", "aks"]:
    """Resolved driver mode of a NAP pool (see :attr:`GpuNodePoolConfig.driver`)."""
    if pool.driver is not None:
        return pool.driver
    return "operator" if cfg.gpuOperator.enabled else "aks"


def _at(at: str, found: list[Finding]) -> list[Problem]:
    return [Problem(f"{at}.{f.field}" if f.field else at, f.message) for f in found]


def nap_pool_problems(cfg: StackConfig, index: int, pool: GpuNodePoolConfig) -> list[Problem]:
    """Every cross-field problem of one ``gpuNodePools`` entry."""
    at = f"gpuNodePools[{index}]"
    problems: list[Problem] = []
    sizes, found = resolve_sizes(pool.sizes, pool.series, pool.gpuModels, floor=cfg.usable_gpu_floor)
    problems += _at(at, found)
    if not (pool.sizes or pool.series or pool.gpuModels):
        problems.append(Problem(at, "name the GPU sizes Karpenter may choose: sizes, series or gpuModels."))
    if pool.limits.nodes is not None:
        problems.append(
            Problem(
                f"{at}.limits.nodes",
                "AKS documents limits.nodes for static NodePools (replicas) only "
                "(articles/aks/node-auto-provisioning-node-pools.md); bound this pool with limits.gpus.",
            )
        )
    operator = cfg.gpu_operator_facts
    taints = tuple(cfg.pool_taints(pool))
    facts = rules_aks.GpuPool(
        name=pool.name,
        vm_size=sizes[0] if sizes else "",
        driver_skipped=nap_driver(cfg, pool) == "operator",
        taints=taints,
    )
    problems += _at(at, driver_install(facts, operator))
    if pool.sharing is not None:
        problems += _at(
            at,
            gpu_sharing(
                facts,
                time_slicing=pool.sharing.timeSlicing is not None,
                mps=pool.sharing.mps is not None,
                mig_profile=None,
                mig_strategy=cfg.plugin_mig_strategy,
            ),
        )
    taint_problems = pool_taints(taints)
    problems += _at(at, taint_problems)
    catalog = default_catalog()
    known = [s for s in (catalog.lookup(n) for n in sizes) if s is not None]
    if known and not taint_problems:
        smallest = min(known, key=lambda s: max(int(s.gpu_count), 1))
        stack = pool_node_stack(
            pool.name,
            os="Linux",
            gpus=int(smallest.gpu_count),
            whole_gpu_memory_gib=smallest.whole_gpu_memory_gib,
            taints=taints,
            sharing=pool.sharing.node_sharing if pool.sharing is not None else None,
            driver_skipped=nap_driver(cfg, pool) == "operator",
            manager=GPU_OPERATOR if cfg.gpuOperator.enabled else DEVICE_PLUGIN_CHART,
            mig_strategy=cfg.plugin_mig_strategy,
            kaito_addon=cfg.kaito_addon,
        )
        problems += [Problem(f"{at}.taints", f.message) for f in node_stack_findings(stack)]
    if cfg.gpuOperator.enabled:  # the operator manages every NAP GPU node: NVIDIA must validate its OS
        os_sku = IMAGE_FAMILY_OS_SKU.get(pool.imageFamily or "Ubuntu", pool.imageFamily or "Ubuntu")
        problem = check_operator_platform(cfg.gpuOperator.version, cfg.cluster.kubernetesVersion, os_sku)
        if problem is not None:
            problems.append(Problem(f"{at}.imageFamily", problem))
    for key, value in pool.labels.items():
        path = f"{at}.{key_path(['labels', key])}"
        domain = key.split("/", 1)[0] if "/" in key else ""
        restricted = next((d for d in RESTRICTED_LABEL_DOMAINS if domain.endswith(d)), None)
        if restricted is not None:
            problems.append(Problem(path, f"the NodePool CRD restricts the label domain {restricted!r}."))
        for problem in (node_label_key_problem(key), label_value_problem(value)):
            if problem is not None:
                problems.append(Problem(path, problem))
    for j, budget in enumerate(pool.disruption.budgets):
        if (budget.schedule is None) != (budget.duration is None):
            problems.append(
                Problem(f"{at}.disruption.budgets[{j}]", "schedule and duration are set together or not at all.")
            )
    return problems


def nap_problems(cfg: StackConfig) -> list[Problem]:
    """Every problem of ``gpuNodePools`` and of what node auto-provisioning refuses elsewhere in the stack."""
    if not cfg.gpuNodePools:
        return []
    problems: list[Problem] = []
    owners = {p.name: f"gpuPools[{i}]" for i, p in enumerate(cfg.gpuPools)}
    for i, pool in enumerate(cfg.gpuNodePools):
        if pool.name in owners:
            problems.append(
                Problem(
                    f"gpuNodePools[{i}].name",
                    f"{pool.name!r} is already used by {owners[pool.name]}: pool names label the nodes workloads "
                    "select, so they are unique across gpuPools and gpuNodePools.",
                )
            )
        owners.setdefault(pool.name, f"gpuNodePools[{i}]")
        problems += nap_pool_problems(cfg, i, pool)
    agent_pools = [AgentPoolFacts(p.name, p.autoscaling, p.os) for p in cfg.gpuPools]
    for f in nap_agent_pools(agent_pools):
        index, _, field = f.field.partition(".")
        problems.append(Problem(f"gpuPools[{index}].{field}", f.message))
    return problems
