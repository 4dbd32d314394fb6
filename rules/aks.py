"""AKS GPU node pool and cluster guard rails, over facts the stack config and the policies both build.

Facts are plain values, already resolved by the caller: a stack file's defaults applied (a pool without
``orchestratorVersion`` runs the cluster's version), or a resource's properties read (values unknown during a preview
are the policy's business: it reports them before it builds facts). Field names in findings are the stack file's
(``driver``, ``minCount``, ``orchestratorVersion``, ``name``); a policy maps them to the resource's properties with
:data:`POOL_PROPERTIES`.

Sources: AKS docs (MicrosoftDocs/azure-aks-docs) ``use-windows-gpu.md`` (Windows GPU pools: Kubernetes 1.29+, the
AKS driver), ``create-node-pools.md`` (Windows pool names ≤ 6 characters, Linux ≤ 12), ``cost-analysis.md``
(Standard or Premium tier), ``ai-toolchain-operator.md`` (KAITO needs the OIDC issuer); Azure/AKS #2832 (the
autoscaler cannot scale a pool from zero on labels or resources that appear only once a node runs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from gpu_catalog.catalog import is_gpu_size
from gpu_catalog.lifecycle import (
    DEFAULT_SUPPORT_PLAN,
    LTS_SUPPORT_PLAN,
    LTS_TIER,
    minor_of,
    minor_tuple,
    supported_minors,
)

from . import Finding

DEFAULT_GPU_TAINT = "nvidia.com/gpu=present:NoSchedule"
"""Tolerated by the GPU operator's daemonsets by default and by AKS's ExtendedResourceToleration admission plugin
for pods requesting ``nvidia.com/gpu``."""

MIN_WINDOWS_GPU_KUBERNETES = (1, 29)
"""Windows GPU node pools need Kubernetes 1.29 or later."""

WINDOWS_POOL_NAME_MAX = 6
LINUX_POOL_NAME_MAX = 12
POOL_NAME_RE = re.compile(r"^[a-z][a-z0-9]*$")
LINUX_OS_SKUS: tuple[str, ...] = ("Ubuntu", "Ubuntu2204", "AzureLinux", "AzureLinux3")
WINDOWS_OS_SKUS: tuple[str, ...] = ("Windows2022",)
_TAINT_RE = re.compile(
    r"^(?P<key>[A-Za-z0-9]([A-Za-z0-9._/-]{0,251}[A-Za-z0-9])?)(=(?P<value>[A-Za-z0-9._-]{0,63}))?"
    r":(?P<effect>NoSchedule|PreferNoSchedule|NoExecute)$"
)

AUTOSCALER_SCALE_FROM_ZERO_ISSUE = "Azure/AKS #2832"

SkuTier = Literal["Free", "Standard", "Premium"]
"""The AKS pricing tiers (``sku.tier``): the stack config's ``skuTier`` and the package's ``SkuTier``."""

PAID_TIERS: tuple[str, ...] = ("Standard", "Premium")
"""AKS tiers the cost analysis add-on runs on."""

SupportPlan = Literal["KubernetesOfficial", "AKSLongTermSupport"]
"""The AKS Kubernetes support plans (``supportPlan``; the first is the default, the second LTS on the Premium tier):
the stack config's ``supportPlan`` and the package's ``SupportPlan``."""

DriverMode = Literal["operator", "aks"]
"""Who installs a GPU pool's NVIDIA driver: the GPU operator (AKS skips its own, ``driver_skipped``) or AKS: the
stack config's ``driver`` and the package's ``DriverMode``."""

POOL_PROPERTIES: dict[str, tuple[str, ...]] = {
    "driver": ("gpuProfile", "driver"),
    "minCount": ("minCount",),
    "orchestratorVersion": ("orchestratorVersion",),
    "name": ("name",),
    "taints": ("nodeTaints",),
}
"""A pool fact's field → the AgentPool (or agentPoolProfiles entry) property it comes from."""


@dataclass(frozen=True, slots=True)
class GpuPool:
    """One GPU node pool as the rules see it."""

    name: str | None
    vm_size: str
    os: Literal["Linux", "Windows"] = "Linux"
    kubernetes_version: str | None = None
    """The version the pool runs (its own, else the control plane's); ``None`` when nothing says."""
    driver_skipped: bool = False
    """AKS skips its driver install (``gpuProfile.driver: None``)."""
    autoscaling: bool = False
    min_count: int | None = None
    taints: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GpuOperator:
    """The NVIDIA GPU operator running on the pools' cluster: its ``driver.enabled`` and ``toolkit.enabled`` values."""

    driver_enabled: bool = True
    toolkit_enabled: bool = True

    @property
    def on_aks_driver(self) -> bool:
        """Runs on top of the AKS driver: neither driver nor container toolkit installed by the operator."""
        return not self.driver_enabled and not self.toolkit_enabled


@dataclass(frozen=True, slots=True)
class Cluster:
    """The cluster settings the cluster rules read."""

    tier: str | None = None
    """``Free``, ``Standard`` or ``Premium``; ``None`` when unset (AKS's default, Free)."""
    cost_analysis: bool = False
    kaito_addon: bool = False
    oidc_issuer: bool = False
    support_plan: str | None = None
    """``KubernetesOfficial`` or ``AKSLongTermSupport``; ``None`` when unset (the former)."""
    workload_identity: bool = False


# --------------------------------------------------------------------------------------------------- pools


def parse_taint(taint: str) -> tuple[str, str | None, str] | None:
    """``key=value:Effect`` → ``(key, value, effect)``; ``None`` when malformed."""
    m = _TAINT_RE.match(taint)
    if not m:
        return None
    return m.group("key"), m.group("value"), m.group("effect")


def pool_name(name: str, os: str) -> list[Finding]:
    """An AKS pool name: lowercase letters and digits, starting with a letter; at most 12 on Linux (Windows:
    :func:`windows_pool_name`)."""
    found: list[Finding] = []
    if not POOL_NAME_RE.match(name):
        found.append(Finding("name", f"{name!r}: pool names are lowercase letters and digits, starting with a letter."))
    if os == "Linux" and len(name) > LINUX_POOL_NAME_MAX:
        found.append(
            Finding(
                "name",
                f"{name!r} has {len(name)} characters: AKS limits Linux pool names to {LINUX_POOL_NAME_MAX}. "
                f"Use at most {LINUX_POOL_NAME_MAX}.",
            )
        )
    return found


def pool_os_sku(os: str, os_sku: str) -> list[Finding]:
    """The OS SKU belongs to the pool's OS."""
    windows = os == "Windows"
    if windows and not os_sku.startswith("Windows"):
        return [Finding("osSku", f"{os_sku} is a Linux OS SKU; allowed for Windows: {', '.join(WINDOWS_OS_SKUS)}.")]
    if not windows and os_sku.startswith("Windows"):
        return [Finding("osSku", f"{os_sku} is a Windows OS SKU; allowed for Linux: {', '.join(LINUX_OS_SKUS)}.")]
    return []


def pool_taints(taints: tuple[str, ...]) -> list[Finding]:
    """Every taint is ``key=value:Effect`` with a Kubernetes effect."""
    return [
        Finding(
            f"taints[{j}]",
            f"{taint!r} is not a taint: use key=value:Effect with Effect NoSchedule, PreferNoSchedule or NoExecute "
            f"(default {DEFAULT_GPU_TAINT}).",
        )
        for j, taint in enumerate(taints)
        if parse_taint(taint) is None
    ]


def mig_pool(pool: GpuPool, mig_profile: str | None) -> list[Finding]:
    """A MIG profile only on Linux. Whether a device plugin then advertises the MIG devices is the node-stack rule's
    (:func:`rules.node_stack.node_stack_findings`): the GPU operator's, or the nvidia-device-plugin chart on a pool
    AKS partitions."""
    if mig_profile is None or pool.os != "Windows":
        return []
    return [Finding("migProfile", "MIG profiles are not supported on Windows GPU pools.")]


def gpu_sharing(
    pool: GpuPool,
    *,
    time_slicing: bool,
    mps: bool,
    mig_profile: str | None,
    mig_strategy: str = "single",
) -> list[Finding]:
    """Time-slicing or MPS: one of them, rendered by the pool's NVIDIA device plugin (the GPU operator's or the
    nvidia-device-plugin chart's, both Linux only), MPS neither on MIG devices nor with the mixed MIG strategy (the
    device plugin refuses both at start-up)."""
    found: list[Finding] = []
    if time_slicing and mps:
        found.append(
            Finding(
                "sharing",
                "timeSlicing and mps are mutually exclusive (the device plugin applies one sharing strategy per "
                "node). Keep one of them.",
            )
        )
    if mps and mig_strategy == "mixed":
        found.append(
            Finding(
                "sharing.mps",
                "MPS sharing cannot run with migStrategy 'mixed': the NVIDIA device plugin refuses that combination "
                "at start-up (k8s-device-plugin cmd/nvidia-device-plugin/main.go), so the pool would advertise no "
                "GPUs. Allowed: migStrategy 'single' with MPS, or timeSlicing with 'mixed'.",
            )
        )
    if mps and mig_profile is not None:
        found.append(
            Finding(
                "sharing.mps",
                f"MPS cannot be combined with MIG (migProfile {mig_profile}): the NVIDIA device plugin does "
                "not support MPS on MIG devices. Use timeSlicing, or remove migProfile.",
            )
        )
    if (time_slicing or mps) and pool.os == "Windows":
        found.append(
            Finding(
                "sharing",
                "GPU sharing is rendered by the NVIDIA device plugin (GPU operator or nvidia-device-plugin chart), "
                "which runs on Linux only: Windows GPU nodes use AKS's DirectX device plugin.",
            )
        )
    return found


SHARING_MIN_REPLICAS = 2
"""Sharing one GPU between fewer than two workloads shares nothing."""

TIME_SLICING_MAX_REPLICAS = 64
"""The platform's ceiling for time-slicing replicas: every replica is a full-memory context on one GPU, so beyond 64
the per-workload share of a GPU is too small to run anything (NVIDIA sets no hard limit)."""

MPS_MAX_REPLICAS = 48
"""An MPS server serves at most 48 clients per GPU (Volta and later)."""


def sharing_replicas(mode: str, replicas: int) -> list[Finding]:
    """Time-slicing or MPS replicas (workloads per GPU) within what the device plugin can serve: at least 2, at most
    :data:`TIME_SLICING_MAX_REPLICAS` (time-slicing) or :data:`MPS_MAX_REPLICAS` (MPS)."""
    if mode not in ("timeSlicing", "mps"):
        return []
    most = MPS_MAX_REPLICAS if mode == "mps" else TIME_SLICING_MAX_REPLICAS
    if SHARING_MIN_REPLICAS <= replicas <= most:
        return []
    return [
        Finding(
            f"sharing.{mode}.replicas",
            f"{replicas} workloads per GPU is outside what {mode} serves. Allowed: {SHARING_MIN_REPLICAS}..{most}.",
        )
    ]


def windows_gpu_pool(pool: GpuPool, *, today: date) -> list[Finding]:
    """gpu-windows-pool: a Windows GPU pool keeps the AKS driver, runs Kubernetes ≥ 1.29, has a name ≤ 6.

    An unset (or empty) version is the control plane's: accepted while every version AKS creates ``today`` meets the
    minimum."""
    if pool.os != "Windows":
        return []
    found: list[Finding] = []
    if pool.driver_skipped:
        found.append(
            Finding(
                "driver",
                "a Windows GPU pool must keep the AKS driver install: the NVIDIA GPU operator does not support "
                "Windows nodes, so nothing else would install a driver and the pool would have no usable GPU.",
            )
        )
    lowest = ".".join(str(n) for n in MIN_WINDOWS_GPU_KUBERNETES)
    version = pool.kubernetes_version or None  # ARM reads "" (as Microsoft's examples write it) as unset
    if version is None:
        # Unset: the pool runs the control plane's version (AKS's default for a new cluster), which is a version AKS
        # creates today (aks-kubernetes-version-supported checks every explicit one). Refuse only if such a version
        # can still be older than the Windows GPU minimum.
        older = [m for m in supported_minors(today, lts=True) if minor_tuple(m) < MIN_WINDOWS_GPU_KUBERNETES]
        if older:
            found.append(
                Finding(
                    "orchestratorVersion",
                    f"not set, so the pool runs the control plane's version, and AKS still creates {', '.join(older)} "
                    f"(older than the minimum {lowest} for Windows GPU node pools). Set it to {lowest} or later.",
                )
            )
    else:
        minor = minor_of(version)
        if minor is None:
            found.append(Finding("orchestratorVersion", f"{version!r} is not a Kubernetes version like 1.36.2."))
        elif minor_tuple(minor) < MIN_WINDOWS_GPU_KUBERNETES:
            found.append(
                Finding(
                    "orchestratorVersion",
                    f"Windows GPU node pools need Kubernetes {lowest} or later (AKS), and this pool runs {version}. "
                    f"Allowed: {lowest} or later.",
                )
            )
    if pool.name is not None:
        found.extend(windows_pool_name(pool.name))
    return found


def windows_pool_name(name: str) -> list[Finding]:
    """Any Windows node pool (GPU or not): a name of at most 6 characters."""
    if len(name) <= WINDOWS_POOL_NAME_MAX:
        return []
    return [
        Finding(
            "name",
            f"'{name}' has {len(name)} characters: AKS limits Windows node pool names to {WINDOWS_POOL_NAME_MAX} "
            f"(Windows computer names are derived from it). Use at most {WINDOWS_POOL_NAME_MAX}, e.g. "
            f"'{name[:WINDOWS_POOL_NAME_MAX]}'.",
        )
    ]


def autoscale_bounds(min_count: int | None, max_count: int | None) -> list[Finding]:
    """An autoscaling pool's lower bound is not above its upper bound."""
    if min_count is None or max_count is None or min_count <= max_count:
        return []
    return [Finding("minCount", f"minCount {min_count} is greater than maxCount {max_count}.")]


def operator_autoscale_min_count(pool: GpuPool, operator: GpuOperator | None) -> list[Finding]:
    """gpu-operator-autoscale-min-count: an autoscaling Linux GPU pool the GPU operator manages keeps ≥ 1 node."""
    if operator is None or pool.os != "Linux" or not pool.autoscaling:
        return []
    if pool.min_count is not None and pool.min_count >= 1:
        return []
    shown = "not set" if pool.min_count is None else str(pool.min_count)
    return [
        Finding(
            "minCount",
            f"must be ≥ 1 for an autoscaling GPU pool the GPU operator manages (it is {shown}): at 0 nodes the cluster "
            "autoscaler cannot see the labels and resources the operator adds (nvidia.com/gpu.present, shared and "
            f"MIG resource names), so pending GPU pods never trigger a scale-up ({AUTOSCALER_SCALE_FROM_ZERO_ISSUE}). "
            "Allowed: 1..maxCount. For GPU nodes that scale from zero, use a node auto-provisioning pool "
            "(gpuNodePools, docs/nap.md): Karpenter creates nodes from the pending pod's nvidia.com/gpu request, "
            "with or without the operator.",
        )
    ]


def driver_install(pool: GpuPool, operator: GpuOperator | None) -> list[Finding]:
    """gpu-operator-driver-mode and gpu-driver-skipped-needs-operator: exactly one thing installs the driver of a
    Linux GPU pool — AKS, or the GPU operator."""
    if pool.os != "Linux":
        return []
    if operator is None:
        if not pool.driver_skipped:
            return []
        return [
            Finding(
                "driver",
                "the pool skips the AKS driver install, but no NVIDIA GPU operator runs on its cluster, so nothing "
                "installs a driver and GPU pods stay Pending. Deploy the GPU operator, or keep the AKS driver.",
            )
        ]
    if not operator.on_aks_driver and not pool.driver_skipped:
        return [
            Finding(
                "driver",
                "the pool keeps the AKS driver while the GPU operator also installs one: two drivers on one node fail "
                "(the operator's driver pod crash-loops and the GPUs stay unallocatable). Skip the AKS driver on the "
                "pool (create-time only: the pool is replaced), or run the operator with driver.enabled=false and "
                "toolkit.enabled=false.",
            )
        ]
    if not operator.driver_enabled and pool.driver_skipped:
        return [
            Finding(
                "driver",
                "the pool skips the AKS driver and the GPU operator runs with driver.enabled=false, so nothing "
                "installs a GPU driver and the GPUs are unusable. Let the operator install it, or keep the AKS driver.",
            )
        ]
    return []


def gpu_pool_tainted(pool: GpuPool) -> list[Finding]:
    """gpu-pool-tainted: a GPU pool carries a NoSchedule (or NoExecute) taint."""
    if any(t.endswith((":NoSchedule", ":NoExecute")) for t in pool.taints):
        return []
    return [
        Finding(
            "taints",
            "no NoSchedule taint, so any pod can be scheduled onto the GPU nodes and hold them (and block "
            f"scale-down). Add the taint {DEFAULT_GPU_TAINT}: the GPU operator's daemonsets tolerate it by default and "
            "AKS adds the toleration to pods that request nvidia.com/gpu. Taints are create-time only (the pool is "
            "replaced).",
        )
    ]


LEGACY_SKIP_DRIVER_TAG = "SkipGPUDriverInstall"
"""The node-pool tag AKS stopped honouring on 2025-08-14 (with ``--skip-gpu-driver-install``)."""


def legacy_skip_driver_tag(tags: dict[str, object]) -> list[Finding]:
    """gpu-driver-no-legacy-skip-tag: no ``SkipGPUDriverInstall`` tag on a GPU pool (AKS ignores it now)."""
    return [
        Finding(
            f"tags.{key}",
            f"the legacy {key} tag, which AKS stopped honouring on 2025-08-14 (as it did --skip-gpu-driver-install): "
            'the pool gets the AKS GPU driver anyway. Remove the tag and set gpuProfile.driver: "None" instead.',
        )
        for key in tags
        if key.lower() == LEGACY_SKIP_DRIVER_TAG.lower()
    ]


# --------------------------------------------------------------------------------------------------- cluster


def cost_analysis_tier(cluster: Cluster) -> list[Finding]:
    """aks-cost-analysis-requires-paid-tier: the cost analysis add-on needs the Standard or Premium tier."""
    if not cluster.cost_analysis:
        return []
    if cluster.tier is not None and cluster.tier.lower() in (t.lower() for t in PAID_TIERS):
        return []
    shown = f"'{cluster.tier}'" if cluster.tier is not None else "not set (Free)"
    return [
        Finding(
            "tier",
            f"cost analysis is on but the cluster tier is {shown}: AKS offers the cost analysis add-on only on the "
            f"{' and '.join(PAID_TIERS)} tiers and rejects the cluster otherwise. Allowed: {', '.join(PAID_TIERS)}; "
            "or turn cost analysis off.",
        )
    ]


def workload_identity_needs_oidc(cluster: Cluster) -> list[Finding]:
    """Workload identity federates through the cluster's OIDC issuer (the KAITO add-on turns the issuer on)."""
    if not cluster.workload_identity or cluster.oidc_issuer or cluster.kaito_addon:
        return []
    return [Finding("workloadIdentity", "workload identity needs the OIDC issuer: set oidcIssuer: true.")]


def system_pool_size(vm_size: str) -> list[Finding]:
    """The system pool runs cluster add-ons on an Azure size that is not a GPU size."""
    found: list[Finding] = []
    if is_gpu_size(vm_size):
        found.append(
            Finding(
                "vmSize",
                f"{vm_size} is a GPU size: the system pool runs cluster add-ons only; GPU capacity goes in gpuPools. "
                "Use a general-purpose size such as Standard_D4ds_v5.",
            )
        )
    if not re.match(r"^Standard_[A-Za-z0-9_]+$", vm_size):
        found.append(Finding("vmSize", f"{vm_size!r} is not an Azure VM size name."))
    return found


MAX_NODE_POOL_SKEW = 3
"""The control plane may be up to three minors ahead of its node pools, never behind (AKS, from Kubernetes 1.28:
MicrosoftDocs/azure-aks-docs articles/aks/supported-kubernetes-versions.md, 'version skew')."""


def pool_version_skew(version: str, control_plane: str) -> list[Finding]:
    """A node pool's Kubernetes version is the control plane's or at most three minors older."""
    pool_minor, cluster_minor = minor_of(version), minor_of(control_plane)
    if pool_minor is None or cluster_minor is None:
        return []
    (pool_major, pool_rest), (cp_major, cp_rest) = minor_tuple(pool_minor), minor_tuple(cluster_minor)
    if (pool_major, pool_rest) > (cp_major, cp_rest):
        return [
            Finding(
                "orchestratorVersion",
                f"{version} is newer than the control plane (cluster.kubernetesVersion {control_plane}): AKS never "
                f"runs node pools ahead of the control plane. Allowed: {cluster_minor} or up to {MAX_NODE_POOL_SKEW} "
                "minors older.",
            )
        ]
    if pool_major == cp_major and cp_rest - pool_rest > MAX_NODE_POOL_SKEW:
        return [
            Finding(
                "orchestratorVersion",
                f"{version} is {cp_rest - pool_rest} minors behind the control plane ({control_plane}): AKS allows "
                f"node pools at most {MAX_NODE_POOL_SKEW} minors behind. Allowed: "
                f"{cp_major}.{cp_rest - MAX_NODE_POOL_SKEW} to {cluster_minor}.",
            )
        ]
    return []


def lts_needs_premium(cluster: Cluster) -> list[Finding]:
    """Long-term support (supportPlan AKSLongTermSupport) is only available on the Premium tier."""
    if cluster.support_plan != LTS_SUPPORT_PLAN or (cluster.tier or "").lower() == LTS_TIER.lower():
        return []
    return [
        Finding(
            "supportPlan",
            f"{LTS_SUPPORT_PLAN} (long-term support) is only available on the {LTS_TIER} tier, and the tier is "
            f"{cluster.tier or 'not set (Free)'}. Set the tier to {LTS_TIER}, or the support plan to "
            f"{DEFAULT_SUPPORT_PLAN}.",
        )
    ]


def kaito_requires_oidc(cluster: Cluster) -> list[Finding]:
    """aks-kaito-requires-oidc: the KAITO add-on needs the cluster's OIDC issuer."""
    if not cluster.kaito_addon or cluster.oidc_issuer:
        return []
    return [
        Finding(
            "oidcIssuer",
            "the KAITO add-on is on but the OIDC issuer is off: KAITO's controllers authenticate to Azure with "
            "workload identity, which needs the cluster's OIDC issuer, so AKS rejects the cluster. Turn the OIDC "
            "issuer on.",
        )
    ]
