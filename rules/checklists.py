"""One checklist per deployable: every rule a thing must pass, written once.

A checklist is a function over the deployable's facts (defaults resolved by the caller) returning every
:class:`~rules.Finding` of every rule that applies to it, with fields named as a stack file names them (``vmSize``,
``sharing.mps.replicas``, ``labels.<key>``, ``modelAccessTokenConfig``, ``numWorkers``). Its callers only build the
facts and map the fields to their own key paths:

- the stack config (:mod:`stack_config.checks`, :mod:`stack_config.nap`, :mod:`stack_config.kaito`,
  :mod:`stack_config.databricks`) → ``gpuPools[1].vmSize``, ``kaito.workspaces[0].instanceType``;
- the component Args (``GpuPoolSpec``, ``NapGpuPoolArgs``, ``KaitoWorkspaceArgs``, ``DatabricksGpuClusterArgs`` in
  ``components/``) → the Args field (``vm_size``, ``model_access_token_config``, ``num_workers``);
- the component package (``component_package/``), through the component Args.

The checklists: :func:`aks_gpu_pool` (an AKS GPU agent pool), :func:`nap_gpu_pool` (a NAP NodePool),
:func:`aks_cluster` (the cluster's own settings), :func:`kaito_workspace` (a KAITO Workspace, with
:func:`kaito_cluster` for the add-on; in :mod:`rules.checklists_kaito`) and :func:`databricks_cluster` (a Databricks
GPU cluster; in :mod:`rules.checklists_databricks`).

The policy pack runs the same rules one policy each (a policy's id names its rule: ``policies/RULES.md`` lists,
per policy, the rule function it calls and the checklist entry that holds it; ``docs/architecture.md`` has the
policy → rule → checklist table). What only a stack file can get wrong (``count`` written together with
``minCount``, a pool version against the control plane, duplicate names across a list, a token config value missing
from the Pulumi config) stays in the stack config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from gpu_catalog import default_catalog
from gpu_catalog.karpenter import load_karpenter_facts
from gpu_catalog.node_disks import node_disks
from gpu_catalog.problems import key_path

from . import Finding
from .aks import (
    Cluster,
    GpuOperator,
    GpuPool,
    autoscale_bounds,
    cost_analysis_tier,
    driver_install,
    gpu_sharing,
    kaito_requires_oidc,
    lts_needs_premium,
    mig_pool,
    operator_autoscale_min_count,
    pool_name,
    pool_os_sku,
    pool_taints,
    sharing_replicas,
    windows_gpu_pool,
    workload_identity_needs_oidc,
)
from .checklists_databricks import DatabricksClusterFacts, databricks_cluster
from .checklists_kaito import KaitoWorkspaceFacts, kaito_cluster, kaito_workspace
from .hardening import node_hardening
from .karpenter import GPU_RESOURCE, gpu_nodepool_limits, resolve_sizes
from .kube_names import label_value_problem, node_label_key_problem
from .lifecycle import check_operator_platform
from .node_os import image_family_problem
from .node_stack import KAITO_ADDON, Sharing, node_stack_findings, pool_node_stack
from .sizes import DEFAULT_FLOOR, check_amd_features, check_gpu_size, check_is_gpu_size, check_mig_profile


@dataclass(frozen=True)
class AksGpuPoolFacts:
    """An AKS GPU agent pool as its checklist sees it: every value as the ``AgentPool`` gets it, plus what the
    cluster runs beside it (the GPU operator, the device plugin, the KAITO add-on)."""

    name: str
    vm_size: str
    os: Literal["Linux", "Windows"] = "Linux"
    os_sku: str | None = None
    """``None``: AKS's default for the OS (not checked)."""
    kubernetes_version: str | None = None
    """The nodes' Kubernetes version; ``None``: the control plane's."""
    autoscaling: bool = False
    min_count: int | None = None
    max_count: int | None = None
    driver_skipped: bool = False
    mig_profile: str | None = None
    sharing: Sharing | None = None
    conflicting_sharing: bool = False
    """Both time-slicing and MPS were asked for (a stack file can write both; :attr:`sharing` holds the MPS one)."""
    taints: tuple[str, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    encryption_at_host: bool | None = None
    """``None``: not written (the size's sourced default applies)."""
    os_disk_type: str | None = None
    spot: bool = False
    gpu_floor: str = DEFAULT_FLOOR
    exempt_rules: tuple[str, ...] = ()
    operator: GpuOperator | None = None
    """The GPU operator on the cluster; ``None``: none runs."""
    manager: str | None = None
    """The device plugin the platform deploys for the pool (:data:`rules.node_stack.GPU_OPERATOR`, the chart's, an
    external one) or ``None``."""
    mig_strategy: Literal["single", "mixed"] = "single"
    kaito_addon: bool = False
    missing_plugin_fix: str | None = None
    """What the caller's user changes when no device plugin lands (appended to that finding's message)."""

    @property
    def operator_manages(self) -> bool:
        """The GPU operator manages every Linux GPU pool of a cluster it runs on."""
        return self.operator is not None and self.os == "Linux"

    @property
    def facts(self) -> GpuPool:
        """The pool as the single AKS rules see it."""
        return GpuPool(
            name=self.name,
            vm_size=self.vm_size,
            os=self.os,
            kubernetes_version=self.kubernetes_version,
            driver_skipped=self.driver_skipped,
            autoscaling=self.autoscaling,
            min_count=self.min_count,
            taints=self.taints,
        )


def aks_gpu_pool(pool: AksGpuPoolFacts, *, today: date) -> list[Finding]:
    """Every guard rail an AKS GPU pool breaks on ``today``: its size (GPU floor, NVv4, known, retired), MIG, AMD,
    autoscaling with the operator, OS SKU, Windows, who installs the driver, GPU sharing and its replicas, taints,
    labels, node hardening, and what runs on its nodes (exactly one device plugin, something a pod can request)."""
    found: list[Finding] = list(pool_name(pool.name, pool.os))
    not_gpu = check_is_gpu_size(pool.vm_size)
    if not_gpu is not None:
        found.append(Finding("vmSize", not_gpu.message))
    else:
        found += [
            Finding("vmSize", f.message)
            for f in check_gpu_size(pool.vm_size, floor=pool.gpu_floor, today=today, exempt=pool.exempt_rules)
        ]
    mig = check_mig_profile(pool.vm_size, pool.mig_profile, today=today)
    if mig is not None:
        found.append(Finding("migProfile", mig.message))
    facts = pool.facts
    found += mig_pool(facts, pool.mig_profile)
    sharing_mode = pool.sharing.mode if pool.sharing is not None else "none"
    found += [
        Finding(key, f.message)
        for key, f in check_amd_features(
            pool.vm_size,
            nvidia_operator=pool.operator_manages,
            aks_driver=not pool.driver_skipped,
            sharing=sharing_mode,
            os_sku=pool.os_sku if pool.os == "Linux" else None,
        )
    ]
    if pool.autoscaling:
        found += autoscale_bounds(pool.min_count or 0, pool.max_count)
    found += operator_autoscale_min_count(facts, pool.operator)
    if pool.os_sku is not None:
        found += pool_os_sku(pool.os, pool.os_sku)
    found += windows_gpu_pool(facts, today=today)
    found += driver_install(facts, pool.operator)
    if pool.sharing is not None:
        found += sharing_replicas(pool.sharing.mode, pool.sharing.replicas)
        found += gpu_sharing(
            facts,
            time_slicing=pool.sharing.mode == "timeSlicing" or pool.conflicting_sharing,
            mps=pool.sharing.mode == "mps",
            mig_profile=pool.mig_profile,
            mig_strategy=pool.mig_strategy,
        )
    taint_findings = pool_taints(pool.taints)
    found += taint_findings
    found += label_findings(pool.labels)
    found += node_hardening(
        pool.vm_size,
        node_disks(pool.vm_size),
        encryption_at_host=pool.encryption_at_host,
        os_disk_type=pool.os_disk_type,
    )
    size = default_catalog().lookup(pool.vm_size)
    if size is not None and mig is None and not taint_findings:
        stack = pool_node_stack(
            pool.name,
            os=pool.os,
            gpus=int(size.gpu_count),
            whole_gpu_memory_gib=size.whole_gpu_memory_gib,
            taints=pool.taints,
            spot=pool.spot,
            sharing=pool.sharing,
            driver_skipped=pool.driver_skipped,
            mig_profile=pool.mig_profile,
            manager=pool.manager,
            mig_strategy=pool.mig_strategy,
            kaito_addon=pool.kaito_addon,
        )
        where = "taints" if any(p.plugin == KAITO_ADDON for p in stack.plugins) else ""
        found += [Finding(where or f.field, f.message) for f in node_stack_findings(stack, fix=pool.missing_plugin_fix)]
    return found


def label_findings(labels: Mapping[str, str]) -> list[Finding]:
    """Node labels a Kubernetes API server accepts (key and value), each on ``labels.<key>``."""
    found: list[Finding] = []
    for key, value in labels.items():
        where = key_path(["labels", key])
        found += [
            Finding(where, problem)
            for problem in (node_label_key_problem(key), label_value_problem(value))
            if problem is not None
        ]
    return found


@dataclass(frozen=True)
class NapGpuPoolFacts:
    """A node auto-provisioning (Karpenter) GPU NodePool as its checklist sees it."""

    name: str
    sizes: tuple[str, ...] = ()
    """``karpenter.azure.com/sku-name`` values as written."""
    series: tuple[str, ...] = ()
    """``sku-series`` values (a stack file can name sizes by series)."""
    gpu_models: tuple[str, ...] = ()
    """``sku-gpu-name`` values."""
    gpu_limit: int = 1
    """``spec.limits["nvidia.com/gpu"]``."""
    capacity_types: tuple[str, ...] = ()
    image_family: str | None = None
    consolidation_policy: str | None = None
    driver_skipped: bool = False
    sharing: Sharing | None = None
    conflicting_sharing: bool = False
    taints: tuple[str, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    gpu_floor: str = DEFAULT_FLOOR
    operator: GpuOperator | None = None
    operator_version: str | None = None
    """The GPU operator's chart version when it runs (it manages every NAP GPU node: NVIDIA must validate the OS)."""
    kubernetes_version: str | None = None
    """The control plane's version (NAP nodes run it): with it, the ``imageFamily``'s node OS end of support
    (:func:`rules.node_os.image_family_problem`) and, with ``operator_version``, the operator's validated
    platforms."""
    manager: str | None = None
    mig_strategy: Literal["single", "mixed"] = "single"
    kaito_addon: bool = False
    missing_plugin_fix: str | None = None

    @property
    def facts(self) -> GpuPool:
        return GpuPool(
            name=self.name,
            vm_size=self.sizes[0] if self.sizes else "",
            driver_skipped=self.driver_skipped,
            taints=self.taints,
        )


NAP_RESTRICTED_LABEL_DOMAINS = ("karpenter.sh", "karpenter.azure.com", "kubernetes.azure.com")
"""Label domains a NodePool's template labels may not use (the NodePool CRD's validation rules)."""

IMAGE_FAMILY_OS_SKU = {"Ubuntu": "Ubuntu", "Ubuntu2204": "Ubuntu2204", "Ubuntu2404": "Ubuntu"}
"""An AKSNodeClass ``imageFamily`` → the OS image the GPU operator's validated platforms name (``Ubuntu`` covers 22.04
and 24.04); AzureLinux stays itself and is refused there (NVIDIA does not validate the operator on Azure Linux)."""


def nap_operator_platform_problem(
    operator_version: str, kubernetes_version: str, image_family: str | None
) -> str | None:
    """Whether NVIDIA validates the GPU operator ``operator_version`` on NAP nodes of ``image_family`` (``None``: AKS's
    default, Ubuntu) on ``kubernetes_version`` (:func:`rules.lifecycle.check_operator_platform` through
    :data:`IMAGE_FAMILY_OS_SKU`): the NAP checklist and ``gpu-operator-platform-supported`` on a raw NodePool's
    AKSNodeClass."""
    image = image_family or "Ubuntu"
    return check_operator_platform(operator_version, kubernetes_version, IMAGE_FAMILY_OS_SKU.get(image, image))


def nap_gpu_pool(pool: NapGpuPoolFacts, *, today: date) -> list[Finding]:
    """Every guard rail a NAP GPU NodePool breaks: its sizes (each through the size rules), its GPU limit, the
    Karpenter enums, who installs the driver, GPU sharing and its replicas, taints, labels, the image family's node
    OS against the Kubernetes version and ``today`` (``gpu_catalog/facts/aks_node_os.json``), the GPU operator's
    validated OS, and what runs on its nodes (exactly one device plugin, for the smallest size it may choose)."""
    facts = load_karpenter_facts()
    sizes, found = resolve_sizes(pool.sizes, pool.series, pool.gpu_models, floor=pool.gpu_floor, today=today)
    if not (pool.sizes or pool.series or pool.gpu_models):
        found.append(Finding("", "name the GPU sizes Karpenter may choose: sizes, series or gpuModels."))
    found += gpu_nodepool_limits({GPU_RESOURCE: pool.gpu_limit} if pool.gpu_limit >= 1 else {}, gpu=True)
    for key, values, allowed in (
        ("capacityTypes", pool.capacity_types, facts.capacity_types),
        ("imageFamily", (pool.image_family,) if pool.image_family else (), facts.image_families),
        (
            "consolidationPolicy",
            (pool.consolidation_policy,) if pool.consolidation_policy else (),
            facts.consolidation_policies,
        ),
    ):
        found += [
            Finding(key, f"{v!r} is not allowed; allowed: {', '.join(allowed)}.") for v in values if v not in allowed
        ]
    nap_facts = GpuPool(
        name=pool.name, vm_size=sizes[0] if sizes else "", driver_skipped=pool.driver_skipped, taints=pool.taints
    )
    found += driver_install(nap_facts, pool.operator)
    if pool.sharing is not None:
        found += sharing_replicas(pool.sharing.mode, pool.sharing.replicas)
        found += gpu_sharing(
            nap_facts,
            time_slicing=pool.sharing.mode == "timeSlicing" or pool.conflicting_sharing,
            mps=pool.sharing.mode == "mps",
            mig_profile=None,
            mig_strategy=pool.mig_strategy,
        )
    taint_findings = pool_taints(pool.taints)
    found += taint_findings
    known = [s for s in (default_catalog().lookup(n) for n in sizes) if s is not None]
    if known and not taint_findings:
        smallest = min(known, key=lambda s: max(int(s.gpu_count), 1))
        stack = pool_node_stack(
            pool.name,
            os="Linux",
            gpus=int(smallest.gpu_count),
            whole_gpu_memory_gib=smallest.whole_gpu_memory_gib,
            taints=pool.taints,
            sharing=pool.sharing,
            driver_skipped=pool.driver_skipped,
            manager=pool.manager,
            mig_strategy=pool.mig_strategy,
            kaito_addon=pool.kaito_addon,
        )
        found += [Finding("taints", f.message) for f in node_stack_findings(stack, fix=pool.missing_plugin_fix)]
    if pool.image_family and pool.kubernetes_version is not None:
        os_problem = image_family_problem(pool.image_family, pool.kubernetes_version, today)
        if os_problem is not None:
            found.append(Finding("imageFamily", os_problem))
    if pool.operator_version is not None and pool.kubernetes_version is not None:
        problem = nap_operator_platform_problem(pool.operator_version, pool.kubernetes_version, pool.image_family)
        if problem is not None:
            found.append(Finding("imageFamily", problem))
    for key in pool.labels:
        domain = key.split("/", 1)[0] if "/" in key else ""
        restricted = next((d for d in NAP_RESTRICTED_LABEL_DOMAINS if domain.endswith(d)), None)
        if restricted is not None:
            found.append(
                Finding(key_path(["labels", key]), f"the NodePool CRD restricts the label domain {restricted!r}.")
            )
    found += label_findings(pool.labels)
    return found


def aks_cluster(cluster: Cluster, *, today: date) -> list[Finding]:
    """The rules over an AKS cluster's own settings on ``today`` (tier, support plan, cost analysis, the KAITO add-on,
    OIDC and workload identity; none of them depends on the day yet, but the checklists all take it, so a dated
    cluster rule needs no new parameter); the stack config and ``AksGpuClusterArgs`` add what they alone know
    (versions against today and the upgrade channel, the system pool, access, hardening)."""
    return [
        *lts_needs_premium(cluster),
        *cost_analysis_tier(cluster),
        *kaito_requires_oidc(cluster),
        *workload_identity_needs_oidc(cluster),
    ]


__all__ = [
    "IMAGE_FAMILY_OS_SKU",
    "NAP_RESTRICTED_LABEL_DOMAINS",
    "AksGpuPoolFacts",
    "DatabricksClusterFacts",
    "KaitoWorkspaceFacts",
    "NapGpuPoolFacts",
    "aks_cluster",
    "aks_gpu_pool",
    "databricks_cluster",
    "kaito_cluster",
    "kaito_workspace",
    "label_findings",
    "nap_gpu_pool",
    "nap_operator_platform_problem",
]
