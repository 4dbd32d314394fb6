"""What runs on each GPU node, and what a pod can request there: one model of a GPU node's software stack.

A pod that requests ``nvidia.com/gpu`` (a MIG slice, a shared replica) runs only when its node has, at once, a
driver, **exactly one** NVIDIA device plugin, the sharing / MIG configuration that plugin reads, and taints that keep
the wrong DaemonSets off. No single resource shows this: it is a property of the combination of a node (its OS, GPUs,
taints, labels, MIG layout, who installs its driver) and the device-plugin DaemonSets of its cluster (their
tolerations and node selection). This module is that combination, over plain values; the stack config, the
components and the policy pack build the values from their own input and call :func:`node_stack_findings`.

Who brings a device plugin (facts and sources: ``gpu_catalog/facts/device_plugins.json``):

- **the NVIDIA GPU operator** (:data:`GPU_OPERATOR`): its device plugin runs on every Linux node with an NVIDIA GPU
  (node-feature-discovery labels it) whose taints the operator's daemonsets tolerate;
- **NVIDIA's ``nvidia-device-plugin`` Helm chart** (:data:`DEVICE_PLUGIN_CHART`), the path AKS's own GPU guidance
  describes for Linux pools whose driver AKS installs (AKS installs the driver only, never a device plugin): it runs
  on the nodes its affinity selects and whose taints it tolerates;
- **the AKS KAITO add-on** (:data:`KAITO_ADDON`), which deploys its own NVIDIA device plugin DaemonSet (KAITO
  v0.6.0), tolerating what the facts record;
- **AKS itself on Windows GPU nodes** (:data:`AKS_WINDOWS`): AKS installs the driver and its DirectX device plugin.

What a node advertises follows from the one plugin that lands on it: the MIG strategy (``single``: every MIG
instance as ``nvidia.com/gpu``; ``mixed``: ``nvidia.com/mig-<g>g.<m>gb``), then the sharing config the node's
``nvidia.com/device-plugin.config`` label selects (time-slicing or MPS replicas; ``renameByDefault`` appends
``.shared``). No Pulumi import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from gpu_catalog import MIG_GEOMETRY, GpuSize
from gpu_catalog.device_plugins import load_device_plugin_facts

from . import Finding
from .aks import parse_taint

FACTS = load_device_plugin_facts()

GPU_OPERATOR = "gpu-operator"
DEVICE_PLUGIN_CHART = "nvidia-device-plugin"
KAITO_ADDON = "kaito-addon"
AKS_WINDOWS = "aks-windows"
EXTERNAL = "external"
"""A device plugin installed outside the program that says so (it serves the pool; the model trusts that)."""

PLUGIN_TITLES: dict[str, str] = {
    GPU_OPERATOR: "the NVIDIA GPU operator's device plugin",
    DEVICE_PLUGIN_CHART: "the nvidia-device-plugin chart",
    KAITO_ADDON: "the KAITO add-on's device plugin",
    AKS_WINDOWS: "AKS's Windows GPU device plugin",
    EXTERNAL: "the device plugin installed outside this program",
}

GPU_RESOURCE = FACTS.gpu_resource
"""``nvidia.com/gpu``: what an NVIDIA device plugin advertises for a whole GPU."""
DEVICE_PLUGIN_CONFIG_LABEL = FACTS.config_label
"""``nvidia.com/device-plugin.config``: the node label a device plugin picks its named config by."""
DEFAULT_CONFIG = "default"
"""The name of the config a node without the label (or with an unknown value) falls back to."""

MigStrategy = Literal["none", "single", "mixed"]
SharingMode = Literal["timeSlicing", "mps"]


def mig_instance(profile: str, whole_gpu_memory_gib: float) -> tuple[str, int]:
    """NVIDIA's name of one MIG instance of ``profile`` on a GPU of that memory, and how many fit on one GPU
    (``MIG3g`` on an A100 80GB → ``("3g.40gb", 2)``)."""
    g, per_gpu, eighths = MIG_GEOMETRY[profile]
    return f"{g}g.{int(whole_gpu_memory_gib / 8 * eighths + 0.5)}gb", per_gpu


_NVIDIA_MIG_NAME = re.compile(r"^(?:nvidia\.com/)?(?:mig-)?(\d)g\.(\d+)gb$", re.IGNORECASE)


def nvidia_mig_hint(value: str, size: GpuSize | None) -> str | None:
    """When ``value`` is NVIDIA's name of a MIG instance (``1g.10gb``), what AKS calls the profile that gives it on
    ``size`` (``MIG1g``), in words for a refusal; ``None`` when ``value`` is not such a name. AKS's
    ``gpuInstanceProfile`` takes only its own names (``MIG1g`` … ``MIG7g``)."""
    m = _NVIDIA_MIG_NAME.match(value.strip())
    if m is None:
        return None
    profile = f"MIG{m.group(1)}g"
    if profile not in MIG_GEOMETRY:
        return None
    head = f"{value!r} is NVIDIA's name of a MIG instance; AKS's gpuInstanceProfile names the profile"
    if size is None or not size.aks_mig:
        return f"{head}: write {profile} (the {m.group(1)}g profile)."
    name, per_gpu = mig_instance(profile, size.whole_gpu_memory_gib)
    gives = f"on {size.name} {profile} gives {per_gpu} × {name} per GPU, {per_gpu * size.gpu_count} per node"
    if name.lower() == f"{m.group(1)}g.{m.group(2)}gb":
        return f"{head}: write {profile} ({gives})."
    return f"{head}, and {gives}, not {value}: write {profile} for {name}."


# --------------------------------------------------------------------------------------------------- the model


@dataclass(frozen=True, slots=True)
class Toleration:
    """A Kubernetes toleration (``key`` ``None`` with ``Exists``: every taint; ``effect`` ``None``: every effect)."""

    key: str | None
    operator: Literal["Equal", "Exists"] = "Equal"
    value: str | None = None
    effect: str | None = None

    def tolerates(self, key: str, value: str | None, effect: str) -> bool:
        """Kubernetes semantics (core/v1 ``Toleration.ToleratesTaint``)."""
        if self.effect and self.effect != effect:
            return False
        if self.operator == "Exists":
            return self.key is None or self.key in ("", key)
        return self.key == key and (self.value or "") == (value or "")

    @classmethod
    def from_wire(cls, raw: Mapping[str, Any]) -> Toleration:
        """A toleration as a manifest or Helm value writes it (camelCase keys; ``operator`` defaults to Equal)."""
        operator = "Exists" if raw.get("operator") == "Exists" else "Equal"
        key, value, effect = raw.get("key"), raw.get("value"), raw.get("effect")
        return cls(
            key=key if isinstance(key, str) else None,
            operator=operator,
            value=value if isinstance(value, str) else None,
            effect=effect if isinstance(effect, str) and effect else None,
        )

    def to_wire(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.key:
            out["key"] = self.key
        out["operator"] = self.operator
        if self.value is not None and self.operator == "Equal":
            out["value"] = self.value
        if self.effect:
            out["effect"] = self.effect
        return out


def taint_tolerations(taints: Iterable[str]) -> tuple[Toleration, ...]:
    """What tolerates exactly these taints (``key=value:Effect`` → Equal; ``key:Effect`` → Exists)."""
    out: list[Toleration] = []
    for taint in taints:
        parsed = parse_taint(taint)
        if parsed is None:
            continue
        key, value, effect = parsed
        tol = Toleration(key, "Equal", value, effect) if value else Toleration(key, "Exists", None, effect)
        if tol not in out:
            out.append(tol)
    return tuple(out)


def untolerated(taints: Iterable[str], tolerations: Sequence[Toleration]) -> list[str]:
    """The node's NoSchedule / NoExecute taints none of ``tolerations`` tolerates (PreferNoSchedule never keeps a
    DaemonSet pod off)."""
    out: list[str] = []
    for taint in taints:
        parsed = parse_taint(taint)
        if parsed is None:
            continue
        key, value, effect = parsed
        if effect == "PreferNoSchedule":
            continue
        if not any(t.tolerates(key, value, effect) for t in tolerations):
            out.append(taint)
    return out


@dataclass(frozen=True, slots=True)
class Sharing:
    """A device-plugin sharing config: time-slicing or MPS replicas of each GPU."""

    mode: SharingMode
    replicas: int
    rename_by_default: bool = False


@dataclass(frozen=True, slots=True)
class PluginDaemonSet:
    """One NVIDIA device-plugin DaemonSet of a cluster, as its manifest or Helm values place it."""

    plugin: str
    """:data:`GPU_OPERATOR`, :data:`DEVICE_PLUGIN_CHART`, :data:`KAITO_ADDON` or :data:`AKS_WINDOWS`."""
    tolerations: tuple[Toleration, ...]
    node_selector: Mapping[str, tuple[str, ...]] | None = None
    """Label → allowed values (node affinity ``In``, all of them required); ``None``: every GPU node of its OS."""
    os: Literal["Linux", "Windows"] = "Linux"
    mig_strategy: MigStrategy = "none"
    configs: Mapping[str, Sharing | None] = field(default_factory=dict)
    """Named configs (``nvidia.com/device-plugin.config`` values) → their sharing (``None``: no sharing)."""
    default_config: str | None = DEFAULT_CONFIG

    def excluded_by(self, node: GpuNode) -> str | None:
        """Why this DaemonSet's pods do not run on ``node`` (``None``: they do)."""
        if node.os != self.os:
            return f"it runs on {self.os} nodes only"
        for label, values in (self.node_selector or {}).items():
            if node.labels.get(label) not in values:
                return f"its node affinity needs the label {label} in {', '.join(values)}"
        missed = untolerated(node.taints, self.tolerations)
        if missed:
            return f"it does not tolerate the taint {', '.join(missed)}"
        return None

    def sharing_for(self, node: GpuNode) -> Sharing | None:
        """The sharing config the node's ``nvidia.com/device-plugin.config`` label selects (else the default)."""
        chosen = node.labels.get(DEVICE_PLUGIN_CONFIG_LABEL)
        if chosen is not None and chosen in self.configs:
            return self.configs[chosen]
        if self.default_config is not None:
            return self.configs.get(self.default_config)
        return None


@dataclass(frozen=True, slots=True)
class GpuNode:
    """The nodes of one GPU pool (an agent pool, a NAP NodePool, a KAITO workspace's nodes), as the model sees them."""

    where: str
    """How a message names the pool: ``gpuPools[0] (t4)``, ``AgentPool aks-t4``."""
    os: Literal["Linux", "Windows"]
    gpus: int
    """Physical GPUs per node (a fractional size counts as 1)."""
    taints: tuple[str, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    driver: Literal["aks", "operator", "none"] = "aks"
    """Who installs the NVIDIA driver."""
    mig: tuple[str, int] | None = None
    """The MIG layout the node's GPUs are partitioned into: (NVIDIA instance name ``3g.40gb``, instances per GPU)."""


@dataclass(frozen=True, slots=True)
class Advertised:
    """An extended resource a node advertises, and how many of it."""

    resource: str
    per_node: int


@dataclass(frozen=True, slots=True)
class NodeStack:
    """A GPU node with the device plugins that land on it and what it advertises."""

    node: GpuNode
    plugins: tuple[PluginDaemonSet, ...]
    excluded: tuple[tuple[str, str], ...]
    """(plugin, why it does not land) for the cluster's other device-plugin DaemonSets."""

    @property
    def plugin(self) -> PluginDaemonSet | None:
        """The one device plugin, when exactly one lands."""
        return self.plugins[0] if len(self.plugins) == 1 else None

    @property
    def sharing(self) -> Sharing | None:
        plugin = self.plugin
        return plugin.sharing_for(self.node) if plugin is not None else None

    @property
    def advertised(self) -> tuple[Advertised, ...]:
        """What the node advertises (empty unless exactly one plugin lands)."""
        plugin = self.plugin
        if plugin is None or self.node.driver == "none":
            return ()
        if plugin.plugin == AKS_WINDOWS:
            return (Advertised(FACTS.windows_resource, self.node.gpus),)
        resource, count = GPU_RESOURCE, self.node.gpus
        if self.node.mig is not None:
            if plugin.mig_strategy == "none":
                return ()
            name, per_gpu = self.node.mig
            count = self.node.gpus * per_gpu
            if plugin.mig_strategy == "mixed":
                resource = f"{FACTS.mig_resource_prefix}{name}"
        sharing = plugin.sharing_for(self.node)
        if sharing is not None:
            count *= sharing.replicas
            if sharing.rename_by_default:
                resource = f"{resource}.shared"
        return (Advertised(resource, count),)


def node_stack(node: GpuNode, daemonsets: Iterable[PluginDaemonSet]) -> NodeStack:
    """Which of the cluster's device-plugin DaemonSets land on the node."""
    landing: list[PluginDaemonSet] = []
    excluded: list[tuple[str, str]] = []
    for ds in daemonsets:
        why = ds.excluded_by(node)
        if why is None:
            landing.append(ds)
        else:
            excluded.append((ds.plugin, why))
    return NodeStack(node, tuple(landing), tuple(excluded))


# --------------------------------------------------------------------------------------------------- the rule

NodeStackKind = Literal["missing", "doubled", "mig-strategy"]
MISSING: NodeStackKind = "missing"
"""No device plugin of the program lands on the node. Advisory everywhere: a plugin installed outside the program
(GitOps such as Flux or Argo CD, kubectl, another stack) is invisible to it, so absence is no evidence."""
DOUBLED: NodeStackKind = "doubled"
"""Two device plugins land on the node: positive evidence, refused."""
MIG_STRATEGY: NodeStackKind = "mig-strategy"
"""The one plugin advertises no MIG device on a MIG-partitioned node: positive evidence, refused."""

EXTERNAL_PLUGIN_LABEL = "azure-gpu-platform/device-plugin"
EXTERNAL_PLUGIN_VALUE = "external"
"""The node label that declares a device plugin installed outside the program on a pool's nodes (AgentPool
``nodeLabels``, a Karpenter NodePool's ``spec.template.metadata.labels``): the policy pack then counts it as the
pool's plugin (:func:`external_daemonset`); ``GpuPoolSpec(external_device_plugin=True)`` sets it."""
DECLARE_EXTERNAL = (
    f"If a device plugin reaches these nodes from outside this program (GitOps such as Flux or Argo CD, kubectl, "
    f"another stack), declare it with the node label {EXTERNAL_PLUGIN_LABEL}={EXTERNAL_PLUGIN_VALUE} on the pool"
)


@dataclass(frozen=True, slots=True)
class NodeStackFinding(Finding):
    """A finding of :func:`node_stack_findings` with its kind: :data:`MISSING` is advisory (no refusal without
    positive evidence), :data:`DOUBLED` and :data:`MIG_STRATEGY` are refused."""

    kind: NodeStackKind = MISSING

    @property
    def advisory(self) -> bool:
        return self.kind == MISSING


def refused(found: Iterable[Finding]) -> list[Finding]:
    """The findings a caller refuses: every finding except an advisory node-stack one."""
    return [f for f in found if not (isinstance(f, NodeStackFinding) and f.advisory)]


def advisories(found: Iterable[Finding]) -> list[Finding]:
    """The advisory node-stack findings among ``found`` (a caller warns about them)."""
    return [f for f in found if isinstance(f, NodeStackFinding) and f.advisory]


def external_daemonset() -> PluginDaemonSet:
    """A device plugin declared as installed outside the program: it lands exactly on the nodes that carry
    :data:`EXTERNAL_PLUGIN_LABEL` = :data:`EXTERNAL_PLUGIN_VALUE` (what it tolerates and its MIG strategy are not
    known, so neither is judged)."""
    return PluginDaemonSet(
        EXTERNAL, (Toleration(None, "Exists"),), {EXTERNAL_PLUGIN_LABEL: (EXTERNAL_PLUGIN_VALUE,)}, "Linux", "single"
    )


def node_stack_findings(stack: NodeStack, *, fix: str | None = None) -> list[NodeStackFinding]:
    """gpu-node-device-plugin: every GPU node gets exactly one device plugin and advertises at least one GPU resource.
    Each finding carries its kind (:class:`NodeStackFinding`): none landing is advisory, two or a MIG strategy that
    advertises nothing are refused.

    ``fix``: what the caller's user changes (a stack key, a chart), appended to the message when nothing lands."""
    node = stack.node
    names = [PLUGIN_TITLES.get(p.plugin, p.plugin) for p in stack.plugins]
    if not stack.plugins:
        why = "; ".join(f"{PLUGIN_TITLES.get(p, p)}: {reason}" for p, reason in stack.excluded)
        return [
            NodeStackFinding(
                "",
                f"{node.where}: no NVIDIA device plugin runs on these GPU nodes"
                + (f" ({why})" if why else "")
                + f", so they advertise no {GPU_RESOURCE} and pods that request GPUs stay Pending. AKS installs the "
                "GPU driver only, never a device plugin (azure-aks-docs use-nvidia-gpu.md). "
                + (fix or "Deploy the NVIDIA GPU operator or the nvidia-device-plugin chart for these nodes."),
                MISSING,
            )
        ]
    if len(stack.plugins) > 1:
        kaito = any(p.plugin == KAITO_ADDON for p in stack.plugins)
        remedy = (
            f"Taint the pool with a key the KAITO add-on's DaemonSet does not tolerate (it tolerates "
            f"{', '.join(_shown(t) for t in KAITO_TOLERATIONS)}), e.g. {FACTS.kaito_safe_taint}, and let "
            "workloads tolerate it (the output contract lists the toleration)."
            if kaito
            else "Run one device plugin per node: the GPU operator or the nvidia-device-plugin chart, not both."
        )
        return [
            NodeStackFinding(
                "",
                f"{node.where}: {len(names)} NVIDIA device plugins land on these GPU nodes ({' and '.join(names)}): "
                f"each registers {GPU_RESOURCE} with the kubelet and whichever registers last decides what the node "
                "advertises, so its sharing and MIG configuration can silently disappear. " + remedy,
                DOUBLED,
            )
        ]
    if node.driver == "none":
        return []  # the driver rules (driver_install) say that nothing installs a driver
    plugin = stack.plugin
    if (
        plugin is not None
        and node.mig is not None
        and plugin.mig_strategy == "none"
        and plugin.plugin not in (AKS_WINDOWS, EXTERNAL)
    ):
        return [
            NodeStackFinding(
                "",
                f"{node.where}: the GPUs are partitioned into MIG {node.mig[0]} instances, but "
                f"{PLUGIN_TITLES.get(plugin.plugin, plugin.plugin)} runs with migStrategy none, which advertises no "
                "MIG device: pods get no usable GPU. Allowed: migStrategy single or mixed.",
                MIG_STRATEGY,
            )
        ]
    return []


def _shown(t: Toleration) -> str:
    key = t.key or "every key"
    if t.operator == "Equal":
        key = f"{key}={t.value or ''}"
    return f"{key}{' ' + t.effect if t.effect else ''}"


def describe(stack: NodeStack) -> str:
    """One line for a report: the device plugin and what the node advertises (``nvidia.com/gpu ×4 per node``)."""
    if not stack.plugins:
        return "no device plugin: advertises nothing"
    names = " + ".join(p.plugin for p in stack.plugins)
    if len(stack.plugins) > 1:
        return f"{names}: two device plugins"
    ads = ", ".join(f"{a.resource} ×{a.per_node} per node" for a in stack.advertised) or "nothing"
    return f"{names}: {ads}"


# --------------------------------------------------------------------------------------------------- DaemonSets

KAITO_TOLERATIONS = tuple(Toleration.from_wire(t) for t in FACTS.kaito_tolerations)
"""What the KAITO add-on's device-plugin DaemonSet tolerates (``gpu_catalog/facts/device_plugins.json``)."""
KAITO_SAFE_TAINT = FACTS.kaito_safe_taint
"""The default taint of GPU pools on a cluster that runs the KAITO add-on: its DaemonSet does not tolerate it."""


def kaito_addon_daemonset() -> PluginDaemonSet:
    """The KAITO add-on's device-plugin DaemonSet, as the facts record it."""
    return PluginDaemonSet(
        plugin=KAITO_ADDON,
        tolerations=KAITO_TOLERATIONS,
        node_selector=FACTS.kaito_node_selector,
        mig_strategy="none",
    )


def windows_daemonset() -> PluginDaemonSet:
    """AKS's device plugin on Windows GPU nodes (AKS installs the driver and the plugin)."""
    return PluginDaemonSet(plugin=AKS_WINDOWS, tolerations=(Toleration(None, "Exists"),), os="Windows")


def operator_daemonset(
    tolerations: Sequence[Toleration], mig_strategy: MigStrategy, configs: Mapping[str, Sharing | None]
) -> PluginDaemonSet:
    """The GPU operator's device plugin: every Linux NVIDIA node whose taints its daemonsets tolerate."""
    return PluginDaemonSet(GPU_OPERATOR, tuple(tolerations), None, "Linux", mig_strategy, dict(configs))


def chart_daemonset(
    tolerations: Sequence[Toleration],
    node_selector: Mapping[str, tuple[str, ...]] | None,
    mig_strategy: MigStrategy,
    configs: Mapping[str, Sharing | None],
) -> PluginDaemonSet:
    """The nvidia-device-plugin chart's DaemonSet."""
    return PluginDaemonSet(DEVICE_PLUGIN_CHART, tuple(tolerations), node_selector, "Linux", mig_strategy, dict(configs))


OPERATOR_DEFAULT_TOLERATION = Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule")
"""The toleration the GPU operator chart gives its daemonsets by default (NVIDIA/gpu-operator values.yaml
``daemonsets.tolerations``); the platform adds every managed pool's taints to it."""


def platform_node_stack(
    node: GpuNode,
    *,
    manager: str | None,
    mig_strategy: MigStrategy = "none",
    sharing: Sharing | None = None,
    kaito_addon: bool = False,
    operator_tolerations: Sequence[Toleration] = (),
) -> NodeStack:
    """The stack of one of the platform's own GPU pools: ``manager`` is the device plugin the platform deploys for it
    (:data:`GPU_OPERATOR` or :data:`DEVICE_PLUGIN_CHART`, configured to tolerate and select the pool's nodes and to
    serve ``sharing`` to them; ``None``: none), beside what else runs on the cluster — the KAITO add-on's DaemonSet
    (its own tolerations, from the facts) and AKS's Windows plugin.

    ``operator_tolerations``: what the GPU operator tolerates beyond the pool's own taints (the other pools'), for
    nodes the operator does not manage but may land on (a KAITO workspace's)."""
    own = taint_tolerations(node.taints)
    configs: dict[str, Sharing | None] = {DEFAULT_CONFIG: None}
    config_name = node.labels.get(DEVICE_PLUGIN_CONFIG_LABEL)
    if sharing is not None and config_name is not None:
        configs[config_name] = sharing
    daemonsets: list[PluginDaemonSet] = []
    if manager == GPU_OPERATOR:
        daemonsets.append(operator_daemonset((OPERATOR_DEFAULT_TOLERATION, *own), mig_strategy, configs))
    elif manager in (DEVICE_PLUGIN_CHART, EXTERNAL):
        ds = chart_daemonset(own, None, mig_strategy, configs)
        daemonsets.append(ds if manager == DEVICE_PLUGIN_CHART else replace(ds, plugin=EXTERNAL))
    elif operator_tolerations:
        daemonsets.append(operator_daemonset((OPERATOR_DEFAULT_TOLERATION, *operator_tolerations), mig_strategy, {}))
    if kaito_addon:
        daemonsets.append(kaito_addon_daemonset())
    daemonsets.append(windows_daemonset())
    return node_stack(node, daemonsets)


SPOT_TAINT = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
"""The taint AKS puts on every node of a spot pool."""


def pool_node_stack(
    where: str,
    *,
    os: Literal["Linux", "Windows"],
    gpus: int,
    whole_gpu_memory_gib: float,
    taints: Sequence[str],
    spot: bool = False,
    sharing: Sharing | None = None,
    driver_skipped: bool = False,
    mig_profile: str | None = None,
    manager: str | None,
    mig_strategy: MigStrategy = "single",
    kaito_addon: bool = False,
) -> NodeStack:
    """The node stack of one of the platform's pools from its settings (a stack file's, or a component's Args): the
    one function both build it with. The pool's sharing config is selected by its own name on the config label."""
    labels = {DEVICE_PLUGIN_CONFIG_LABEL: where} if sharing is not None and manager is not None else {}
    node = GpuNode(
        where=where,
        os=os,
        gpus=max(gpus, 1),
        taints=(*taints, *((SPOT_TAINT,) if spot else ())),
        labels=labels,
        driver="operator" if driver_skipped else "aks",
        mig=mig_instance(mig_profile, whole_gpu_memory_gib) if mig_profile in MIG_GEOMETRY else None,
    )
    return platform_node_stack(
        node,
        manager=manager,
        mig_strategy=mig_strategy if manager is not None else "none",
        sharing=sharing,
        kaito_addon=kaito_addon,
    )


# --------------------------------------------------------------------------------------------------- cluster-wide

OPERATOR_OS_SOURCE = (
    "NVIDIA/cloud-native-docs gpu-operator/getting-started.rst and gpu-driver-configuration.rst (ClusterPolicy: one "
    "OS version on every GPU node whose driver the operator installs; CPU-only nodes may run any OS; pre-installed "
    "drivers may differ); azure-aks-docs nvidia-gpu-operator.md"
)


def ubuntu_release(os_sku: str, kubernetes_minor: tuple[int, int]) -> str:
    """The OS version an AKS Linux OS SKU (or NAP image family) means on a Kubernetes minor: ``Ubuntu`` is 22.04 up
    to 1.33 and 24.04 from 1.34 (azure-aks-docs node-auto-provisioning-aksnodeclass.md); the others name it."""
    explicit = {"Ubuntu2204": "Ubuntu 22.04", "Ubuntu2404": "Ubuntu 24.04", "AzureLinux": "Azure Linux 3"}
    if os_sku in explicit:
        return explicit[os_sku]
    if os_sku == "Ubuntu":
        return "Ubuntu 24.04" if kubernetes_minor >= (1, 34) else "Ubuntu 22.04"
    return os_sku


def operator_driver_os_findings(pools: Mapping[str, str]) -> list[Finding]:
    """One OS version per GPU operator cluster, where it matters: the GPU nodes whose driver the operator installs
    (``pools``: where → OS version) must all run one OS version, because the operator's ClusterPolicy deploys a single
    driver container for them. CPU-only nodes (the Azure Linux system pool) and nodes with the AKS driver may differ:
    NVIDIA says so (:data:`OPERATOR_OS_SOURCE`). The AKS article states the restriction without that nuance; the
    project follows NVIDIA's documentation."""
    versions = sorted(set(pools.values()))
    if len(versions) <= 1:
        return []
    listed = "; ".join(f"{where}: {os}" for where, os in pools.items())
    return [
        Finding(
            "",
            f"the GPU operator installs the driver on GPU nodes of {len(versions)} OS versions ({listed}): its "
            "ClusterPolicy runs one driver container for every such node, so it supports one OS version only "
            f"({OPERATOR_OS_SOURCE}). Give these pools one osSku / imageFamily, or keep the AKS driver on them.",
        )
    ]


KAITO_NAP_EVIDENCE = (
    "KAITO v0.6.0 (the AKS add-on's version) creates karpenter.sh NodeClaims that reference the AKSNodeClass "
    "'default' without a group (pkg/utils/nodeclaim/nodeclaim.go), NAP creates its own AKSNodeClass 'default' "
    "(azure-aks-docs node-auto-provisioning-node-pools.md), and Karpenter from v1.1 refuses an empty nodeClassRef "
    "group in the shared NodeClaim CRD (kubernetes-sigs/karpenter PR #1818); neither AKS's nor KAITO's documentation "
    "says whether the add-on and NAP coexist"
)


def kaito_addon_with_nap(kaito_addon: bool, node_auto_provisioning: bool) -> list[Finding]:
    """Advisory: the KAITO add-on beside node auto-provisioning is unverified (:data:`KAITO_NAP_EVIDENCE`)."""
    if not (kaito_addon and node_auto_provisioning):
        return []
    return [
        Finding(
            "",
            "the KAITO add-on and node auto-provisioning (NAP) on one cluster are not documented to work together: "
            f"{KAITO_NAP_EVIDENCE}. Try it on a non-production cluster first, or serve models from a NAP NodePool "
            "instead of a KAITO workspace.",
        )
    ]


# --------------------------------------------------------------------------------------------------- GPU metrics

DCGM_OPERATOR = "gpu-operator-dcgm-exporter"
"""The GPU operator's own DCGM exporter (``dcgmExporter.enabled``): every Linux GPU node its daemonsets tolerate."""
DCGM_CHART = "dcgm-exporter"
"""NVIDIA's standalone ``dcgm-exporter`` chart, on the pools its affinity selects (``facts/gpu_monitoring.json``)."""

EXPORTER_TITLES: dict[str, str] = {
    DCGM_OPERATOR: "the GPU operator's DCGM exporter",
    DCGM_CHART: "the dcgm-exporter chart",
}


def metrics_exporters(
    node: GpuNode,
    *,
    operator: Sequence[Toleration] | None,
    chart: tuple[Sequence[Toleration], Mapping[str, tuple[str, ...]]] | None,
) -> NodeStack:
    """Which DCGM exporter DaemonSets land on ``node``, as a :class:`NodeStack` whose "plugins" are the exporters:
    ``operator``: the operator's exporter runs with these tolerations (``None``: no operator, or its exporter off);
    ``chart``: the standalone chart runs with these tolerations and node affinity (``None``: not deployed)."""
    daemonsets: list[PluginDaemonSet] = []
    if operator is not None:
        daemonsets.append(PluginDaemonSet(DCGM_OPERATOR, tuple(operator)))
    if chart is not None:
        daemonsets.append(PluginDaemonSet(DCGM_CHART, tuple(chart[0]), dict(chart[1])))
    return node_stack(node, daemonsets)


def metrics_exporter_findings(stack: NodeStack) -> list[Finding]:
    """gpu-node-metrics-exporter: with GPU monitoring on, every Linux GPU node runs exactly one DCGM exporter. None:
    its GPUs are invisible to the alerts and the dashboard. Two: both bind port 9400 on the node
    (the chart's ``service.port`` and the operator's exporter) and every GPU would be counted twice."""
    node = stack.node
    if node.os != "Linux":
        return []  # DCGM exporter runs on Linux only; Windows GPU pools are documented as not monitored
    names = [EXPORTER_TITLES.get(p.plugin, p.plugin) for p in stack.plugins]
    if not stack.plugins:
        why = "; ".join(f"{EXPORTER_TITLES.get(p, p)}: {reason}" for p, reason in stack.excluded)
        return [
            Finding(
                "",
                f"{node.where}: no DCGM exporter runs on these GPU nodes" + (f" ({why})" if why else "") + ", so "
                "their GPUs send no metrics and no GPU alert can fire for them. Allowed: the GPU operator with "
                "dcgmExporter enabled, or the dcgm-exporter chart for pools without the operator.",
            )
        ]
    if len(stack.plugins) > 1:
        return [
            Finding(
                "",
                f"{node.where}: {len(names)} DCGM exporters land on these GPU nodes ({' and '.join(names)}): each "
                "reports every GPU, so utilisation and idle alerts count each GPU twice. Run one: the operator's "
                "where the operator runs, the chart elsewhere.",
            )
        ]
    return []


def describe_exporter(stack: NodeStack) -> str:
    """One line for a report: the DCGM exporter on the node (``dcgm-exporter``, ``none``, ``two exporters``)."""
    if not stack.plugins:
        return "no DCGM exporter"
    only = stack.plugin
    if only is None:
        return " + ".join(p.plugin for p in stack.plugins) + ": two exporters"
    return only.plugin
