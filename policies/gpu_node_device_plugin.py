"""gpu-node-device-plugin: every GPU node of the stack gets exactly one NVIDIA device plugin (raw resources too).

The stack's GPU pools (azure-native AgentPools and ``ManagedCluster.agentPoolProfiles`` with a GPU size, Linux and
Windows, and Karpenter NodePools that explicitly admit GPU sizes) become :class:`rules.node_stack.GpuNode` values; the
device-plugin DaemonSets of their cluster are read back from the stack: Helm releases of ``gpu-operator`` and
``nvidia-device-plugin`` (their values, with the charts' defaults when unset), raw ``apps/v1`` DaemonSets whose image
is NVIDIA's ``k8s-device-plugin``, the KAITO add-on's DaemonSet on a ManagedCluster with
``aiToolchainOperatorProfile.enabled``, and AKS's Windows plugin. Then :func:`rules.node_stack.node_stack_findings`,
the rule the stack config and the components call, decides.

Clusters: a Helm release or a Kubernetes DaemonSet does not say which cluster it runs on (its provider does, and the
engine does not send the provider's kubeconfig to a policy). With one cluster in the stack (one ManagedCluster, or
only AgentPools naming one cluster) every release and DaemonSet applies to it. With several, a finding is reported
only when it holds whichever cluster the releases run on; otherwise the pool is reported as not checked, with the
reason. A fleet stack (every ManagedCluster tagged ``fleet-member``) says it: each member's pools, releases and
DaemonSets (by tag, provider, parent or ``<member>-`` name prefix) are judged apart, as one cluster.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast

import yaml
from pulumi_policy import PolicyResource, ReportViolation, Severity, StackValidationArgs

from gpu_catalog import MIG_GEOMETRY, GpuSize, default_catalog
from rules.karpenter import (
    REQUIREMENTS_PATH,
    SKU_GPU_COUNT,
    SKU_GPU_MANUFACTURER,
    SKU_GPU_NAME,
    read_requirements,
)
from rules.node_stack import (
    DECLARE_EXTERNAL,
    DEVICE_PLUGIN_CHART,
    EXTERNAL_PLUGIN_LABEL,
    EXTERNAL_PLUGIN_VALUE,
    GPU_OPERATOR,
    MISSING,
    OPERATOR_DEFAULT_TOLERATION,
    SPOT_TAINT,
    GpuNode,
    MigStrategy,
    PluginDaemonSet,
    Sharing,
    Toleration,
    chart_daemonset,
    external_daemonset,
    kaito_addon_daemonset,
    mig_instance,
    node_stack,
    node_stack_findings,
    operator_daemonset,
    windows_daemonset,
)
from rules.resource_types import is_agent_pool, is_karpenter_node_pool, is_managed_cluster

from ._fleet import member_groups
from ._karpenter import allowed_sizes
from ._meta import MANDATORY, GpuStackPolicy
from ._resources import (
    UNKNOWN,
    Review,
    as_bool,
    get,
    is_gpu_pool,
    is_unknown,
    pools_of,
    props_of,
    shared_reading,
)
from ._specs import wire_pool
from ._stack import _ScopedReview

NAME = "gpu-node-device-plugin"
OUTSIDE_STACK = "devicePluginOutsideStack"
"""``gpu-node-device-plugin-missing``'s config key: a device plugin is installed outside this stack."""

HELM_V3_RELEASE: Final = "kubernetes:helm.sh/v3:Release"
HELM_V4_CHART: Final = "kubernetes:helm.sh/v4:Chart"
DAEMONSET: Final = "kubernetes:apps/v1:DaemonSet"
PLUGIN_IMAGE: Final = "k8s-device-plugin"

CHART_DEFAULT_TOLERATIONS: Final = (
    Toleration("CriticalAddonsOnly", "Exists"),
    Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule"),
)
"""The nvidia-device-plugin chart's default ``tolerations`` (NVIDIA/k8s-device-plugin v0.20.0 values.yaml)."""
GPU_PRESENT_LABEL: Final = "nvidia.com/gpu.present"
"""The chart's default affinity also accepts nodes with this label ``true`` (besides node-feature-discovery's)."""
OPERATOR_DEFAULT_MIG_STRATEGY: Final[MigStrategy] = "single"
"""NVIDIA/gpu-operator values.yaml ``mig.strategy``."""
_MIG_STRATEGIES: Final = ("none", "single", "mixed")
_GPU_LABEL_KEYS: Final = (SKU_GPU_NAME, SKU_GPU_MANUFACTURER, SKU_GPU_COUNT)

Terms = tuple[Mapping[str, tuple[str, ...]], ...]
"""Node-affinity terms (ORed); each maps a label to its allowed values (``In``, ANDed)."""


# --------------------------------------------------------------------------------------------------- reading


def _chart_name(chart: Any) -> str | None:
    if not isinstance(chart, str):
        return None
    return chart.rstrip("/").rsplit("/", 1)[-1].lower()


def _tolerations(raw: Any) -> tuple[Toleration, ...]:
    return tuple(Toleration.from_wire(t) for t in raw if isinstance(t, dict)) if isinstance(raw, list) else ()


def _mig_strategy(value: Any, default: MigStrategy) -> MigStrategy:
    if isinstance(value, str) and value.lower() in _MIG_STRATEGIES:
        return cast(MigStrategy, value.lower())
    return default


def _sharing(text: Any) -> Sharing | None:
    """The sharing of one device-plugin config file (``version: v1``; ``sharing.timeSlicing`` / ``sharing.mps``)."""
    try:
        doc = yaml.safe_load(text) if isinstance(text, str) else text
    except yaml.YAMLError:
        return None
    sharing = doc.get("sharing") if isinstance(doc, dict) else None
    if not isinstance(sharing, dict):
        return None
    for mode in ("timeSlicing", "mps"):
        body = sharing.get(mode)
        if not isinstance(body, dict):
            continue
        resources = body.get("resources")
        replicas = [r.get("replicas") for r in resources if isinstance(r, dict)] if isinstance(resources, list) else []
        counts = [int(r) for r in replicas if isinstance(r, int | float) and r >= 1]
        if counts:
            rename = as_bool(body.get("renameByDefault")) or False
            return Sharing(cast(Literal["timeSlicing", "mps"], mode), counts[0], rename)
    return None


def _configs(raw: Any) -> dict[str, Sharing | None]:
    return {str(k): _sharing(v) for k, v in raw.items()} if isinstance(raw, dict) else {}


def _affinity_terms(affinity: Any) -> Terms | None:
    """The required node-affinity terms (``In`` expressions; other operators are not modelled); ``None`` when the
    manifest sets none."""
    terms = get(affinity, "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    if not isinstance(terms, list) or not terms:
        return None
    out: list[dict[str, tuple[str, ...]]] = []
    for term in terms:
        selector: dict[str, tuple[str, ...]] = {}
        for expr in get(term, "matchExpressions") or []:
            if isinstance(expr, dict) and expr.get("operator") == "In" and isinstance(expr.get("key"), str):
                selector[expr["key"]] = tuple(str(v) for v in expr.get("values") or [])
        out.append(selector)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Plugin:
    """A device-plugin DaemonSet read from the stack; node affinity resolved per node (its terms are ORed)."""

    source: str
    """The resource that brings it (``gpu-operator`` Helm release ``op``), for messages."""
    daemonset: PluginDaemonSet
    terms: Terms | None = None
    node_selector: Mapping[str, str] = field(default_factory=dict)

    def for_node(self, node: GpuNode) -> PluginDaemonSet:
        if self.terms is None and not self.node_selector:
            return self.daemonset
        selector: dict[str, tuple[str, ...]] = {k: (v,) for k, v in self.node_selector.items()}
        if self.terms is not None:
            matching = [t for t in self.terms if all(node.labels.get(k) in v for k, v in t.items())]
            selector.update(matching[0] if matching else self.terms[0])
        return PluginDaemonSet(
            self.daemonset.plugin,
            self.daemonset.tolerations,
            selector,
            self.daemonset.os,
            self.daemonset.mig_strategy,
            self.daemonset.configs,
            self.daemonset.default_config,
        )


def _operator(resource: PolicyResource, values: dict[str, Any], review: Review) -> _Plugin | None:
    name = resource.name
    enabled = get(values, "devicePlugin", "enabled")
    tolerations = get(values, "daemonsets", "tolerations")
    strategy = get(values, "mig", "strategy")
    data = get(values, "devicePlugin", "config", "data")
    read = {
        "devicePlugin.enabled": enabled,
        "daemonsets.tolerations": tolerations,
        "mig.strategy": strategy,
        "devicePlugin.config.data": data,
    }
    unknown = [path for path, value in read.items() if value is UNKNOWN]
    for path in unknown:
        review.unknown_field(f"{name}: values.{path}")
    if unknown or as_bool(enabled) is False:
        return None
    tols = _tolerations(tolerations) if tolerations is not None else (OPERATOR_DEFAULT_TOLERATION,)
    ds = operator_daemonset(tols, _mig_strategy(strategy, OPERATOR_DEFAULT_MIG_STRATEGY), _configs(data))
    return _Plugin(f"gpu-operator Helm release '{name}'", ds)


def _chart(resource: PolicyResource, values: dict[str, Any], review: Review) -> _Plugin | None:
    name = resource.name
    fields = {k: get(values, k) for k in ("tolerations", "affinity", "nodeSelector", "migStrategy")}
    fields["config.map"] = get(values, "config", "map")
    fields["gfd.enabled"] = get(values, "gfd", "enabled")
    fields["nfd.enabled"] = get(values, "nfd", "enabled")
    unknown = [k for k, v in fields.items() if v is UNKNOWN]
    for key in unknown:
        review.unknown_field(f"{name}: values.{key}")
    if unknown:
        return None
    raw_tols = fields["tolerations"]
    tols = _tolerations(raw_tols) if raw_tols is not None else CHART_DEFAULT_TOLERATIONS
    terms = _affinity_terms(fields["affinity"])
    if terms is None:  # the chart's default affinity: node-feature-discovery's NVIDIA label, or gpu.present=true
        nfd = as_bool(fields["nfd.enabled"])
        nfd = as_bool(fields["gfd.enabled"]) if nfd is None else nfd
        terms = None if nfd else ({GPU_PRESENT_LABEL: ("true",)},)
    selector = fields["nodeSelector"]
    ds = chart_daemonset(tols, None, _mig_strategy(fields["migStrategy"], "none"), _configs(fields["config.map"]))
    node_selector = {str(k): str(v) for k, v in selector.items()} if isinstance(selector, dict) else {}
    return _Plugin(f"nvidia-device-plugin Helm release '{name}'", ds, terms, node_selector)


def _raw_daemonset(resource: PolicyResource, props: Any, review: Review) -> _Plugin | None:
    name = resource.name
    pod = get(props, "spec", "template", "spec")
    if pod is UNKNOWN:
        review.unknown_field(f"{name}: spec.template.spec")
        return None
    containers = get(pod, "containers")
    if containers is UNKNOWN:
        review.unknown_field(f"{name}: spec.template.spec.containers")
        return None
    plugin = None
    for i, container in enumerate(containers if isinstance(containers, list) else []):
        image = get(container, "image")
        if image is UNKNOWN:
            review.unknown_field(f"{name}: spec.template.spec.containers[{i}].image")
            return None
        if isinstance(image, str) and PLUGIN_IMAGE in image:
            plugin = container
    if plugin is None:
        return None
    tolerations, affinity, selector = get(pod, "tolerations"), get(pod, "affinity"), get(pod, "nodeSelector")
    for key, value in (("tolerations", tolerations), ("affinity", affinity), ("nodeSelector", selector)):
        if value is UNKNOWN:
            review.unknown_field(f"{name}: spec.template.spec.{key}")
            return None
    strategy: Any = None
    for env in get(plugin, "env") or []:
        if isinstance(env, dict) and env.get("name") == "MIG_STRATEGY":
            strategy = env.get("value")
    for arg in get(plugin, "args") or []:
        if isinstance(arg, str) and arg.startswith("--mig-strategy="):
            strategy = arg.split("=", 1)[1]
    ds = PluginDaemonSet(DEVICE_PLUGIN_CHART, _tolerations(tolerations), None, "Linux", _mig_strategy(strategy, "none"))
    node_selector = {str(k): str(v) for k, v in selector.items()} if isinstance(selector, dict) else {}
    return _Plugin(f"DaemonSet '{name}'", ds, _affinity_terms(affinity), node_selector)


# --------------------------------------------------------------------------------------------------- pools


ClusterKey = tuple[str, str]


def _key(props: Any) -> ClusterKey | None:
    """The cluster a ManagedCluster is, or an AgentPool names: resource group and name, lower-cased."""
    group, name = get(props, "resourceGroupName"), get(props, "resourceName")
    return (group.lower(), name.lower()) if isinstance(group, str) and isinstance(name, str) else None


@dataclass(frozen=True, slots=True)
class _Node:
    resource: PolicyResource
    path: str
    node: GpuNode
    cluster: ClusterKey | None
    """The pool's cluster (``None``: a NodePool, which names none)."""
    driver_skipped: bool = False

    @property
    def where(self) -> str:
        return f"{self.resource.name}: {self.path}" if self.path else self.resource.name


def _nvidia_size(pool: Any) -> GpuSize | None:
    """The pool's first NVIDIA catalog size (``pool``: :class:`policies._resources.Pool`); ``None`` for an AMD pool
    (AMD's device plugin, not NVIDIA's) and for sizes the catalog does not know (``gpu-size-known`` refuses them)."""
    cat = default_catalog()
    for _, value in pool.size_values():
        size = cat.lookup(value) if isinstance(value, str) else None
        if size is not None and size.gpu_vendor == "NVIDIA":
            return size
    return None


def _aks_node(resource: PolicyResource, pool: Any, cluster: ClusterKey | None, review: Review) -> _Node | None:
    """The GpuNode of one AKS pool (``pool``: :class:`policies._resources.Pool`); ``None`` when a field is unknown
    or the pool has no NVIDIA size."""
    size = _nvidia_size(pool)
    if size is None:
        return None
    fields = {k: pool.get(k) for k in ("osType", "nodeTaints", "nodeLabels", "scaleSetPriority", "gpuInstanceProfile")}
    fields["gpuProfile.driver"] = pool.get("gpuProfile", "driver")
    unknown = [k for k, v in fields.items() if v is UNKNOWN]
    for key in unknown:
        review.unknown_field(f"{resource.name}: {pool.path(*key.split('.'))}")
    if unknown:
        return None
    spec = wire_pool(pool)  # the pool as its spec: OS, taints, labels, MIG profile in AKS's spelling, driver
    memory = size.whole_gpu_memory_gib
    mig = mig_instance(spec.mig_profile, memory) if spec.mig_profile in MIG_GEOMETRY else None
    node = GpuNode(
        where=f"{pool.label(resource.name)} ({pool.size_label})",
        os=spec.os,
        gpus=max(int(size.gpu_count), 1),
        taints=(*spec.node_taints, *((SPOT_TAINT,) if spec.spot else ())),
        labels=dict(spec.labels),
        driver="aks",
        mig=mig,
    )
    return _Node(resource, pool.prefix, node, cluster, spec.skips_driver)


def _nodepool_node(resource: PolicyResource, props: Any, review: Review) -> _Node | None:
    """A Karpenter NodePool that explicitly admits GPU sizes (a GPU size named in an ``In`` list, or a requirement
    on a GPU label): its template's taints and labels."""
    reqs, unknown = read_requirements(props, is_unknown)
    sizes, _ = allowed_sizes(props)
    cat = default_catalog()
    named = [cat.lookup(n.size) for n in sizes.named]
    gpu_named = [s for s in named if s is not None and s.gpu_vendor == "NVIDIA"]
    admitted = [s for s in (cat.lookup(n) for n in sizes.admitted) if s is not None and s.gpu_vendor == "NVIDIA"]
    explicit = bool(gpu_named) or (any(r.key in _GPU_LABEL_KEYS for r in reqs) and bool(admitted))
    for path in unknown:
        review.unknown_field(f"{resource.name}: {path}")
    if unknown or not explicit:
        return None
    template = get(props, *REQUIREMENTS_PATH[:2])
    raw_taints, labels = get(template, "spec", "taints"), get(template, "metadata", "labels")
    for key, value in (("spec.template.spec.taints", raw_taints), ("spec.template.metadata.labels", labels)):
        if value is UNKNOWN:
            review.unknown_field(f"{resource.name}: {key}")
            return None
    taints: list[str] = []
    for t in raw_taints or []:
        if isinstance(t, dict) and isinstance(t.get("key"), str) and isinstance(t.get("effect"), str):
            value = t.get("value")
            taints.append(f"{t['key']}{'=' + value if isinstance(value, str) and value else ''}:{t['effect']}")
    smallest = gpu_named[0] if gpu_named else admitted[0]
    gpus = max(int(smallest.gpu_count), 1)
    pool_name = get(props, "metadata", "name")
    node = GpuNode(
        where=f"NodePool '{pool_name if isinstance(pool_name, str) else resource.name}'",
        os="Linux",
        gpus=gpus,
        taints=tuple(taints),
        labels={str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {},
    )
    return _Node(resource, "spec.template", node, None)


# --------------------------------------------------------------------------------------------------- the policy


def _plugins_of(resource: PolicyResource, props: Any, review: Review) -> _Plugin | None:
    rtype = resource.resource_type
    if rtype == DAEMONSET:
        return _raw_daemonset(resource, props, review)
    if rtype not in (HELM_V3_RELEASE, HELM_V4_CHART):
        return None
    chart = get(props, "chart")
    if chart is UNKNOWN:
        review.unknown_field(f"{resource.name}: chart")
        return None
    name = _chart_name(chart)
    # a v4 Chart of nvidia-device-plugin renders its DaemonSet into the stack: that DaemonSet is read instead
    if name not in (GPU_OPERATOR, DEVICE_PLUGIN_CHART) or (name == DEVICE_PLUGIN_CHART and rtype == HELM_V4_CHART):
        return None
    values = get(props, "values")
    if values is UNKNOWN:
        review.unknown_field(f"{resource.name}: values")
        return None
    values = values if isinstance(values, dict) else {}
    return _operator(resource, values, review) if name == GPU_OPERATOR else _chart(resource, values, review)


Group = Literal["refused", "missing"]
"""What a verdict belongs to: two plugins or a MIG strategy that advertises nothing (``refused``: this policy,
mandatory), or no plugin of the stack landing (``missing``: ``gpu-node-device-plugin-missing``, advisory)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One outcome of the shared reading: a violation on ``urn``, or a pool that was not checked (``urn`` ``None``)."""

    group: Group
    message: str
    urn: str | None


MISSING_FIX = (
    "Deploy the NVIDIA GPU operator or the nvidia-device-plugin chart for these nodes. "
    + DECLARE_EXTERNAL
    + " (AgentPool nodeLabels, a NodePool's spec.template.metadata.labels), or set the policy config "
    f"gpu-node-device-plugin-missing.{OUTSIDE_STACK}: true for the whole stack."
)


def _findings(node: GpuNode, daemonsets: Iterable[PluginDaemonSet], group: Group) -> list[str]:
    found = node_stack_findings(node_stack(node, daemonsets), fix=MISSING_FIX)
    return [f.message for f in found if (f.kind == MISSING) == (group == "missing")]


def _relevant(rtype: str) -> bool:
    return (
        is_managed_cluster(rtype)
        or is_agent_pool(rtype)
        or is_karpenter_node_pool(rtype)
        or rtype in (HELM_V3_RELEASE, HELM_V4_CHART, DAEMONSET)
    )


def _read(resources: Sequence[PolicyResource], review: Review) -> tuple[Verdict, ...]:
    """The verdicts both policies report: in a fleet stack (:func:`policies._fleet.member_groups`) each member's
    pools, releases and DaemonSets apart, as one cluster; otherwise the stack as a whole."""
    groups = member_groups(resources, _relevant)
    if groups is None:
        return _read_cluster(resources, review)
    verdicts = [v for group in groups.values() for v in _read_cluster(group, review)]
    return () if review.unknown else tuple(verdicts)


def _read_cluster(resources: Sequence[PolicyResource], review: Review) -> tuple[Verdict, ...]:
    """Every GPU node of ``resources`` and the device plugins that land on it."""
    clusters: dict[ClusterKey | None, bool] = {}
    """Cluster → its KAITO add-on is on; key ``None``: a ManagedCluster that names no resource group / name."""
    managed = 0
    nodes: list[_Node] = []
    plugins: list[_Plugin] = []
    operator_installs_driver = False
    pool_owners: set[ClusterKey] = set()
    for resource in resources:
        rtype = resource.resource_type
        if is_managed_cluster(rtype) or is_agent_pool(rtype):
            props = props_of(resource)
            key = _key(props)
            if is_managed_cluster(rtype):
                kaito = get(props, "aiToolchainOperatorProfile", "enabled")
                if kaito is UNKNOWN:
                    review.unknown_field(f"{resource.name}: aiToolchainOperatorProfile.enabled")
                clusters[key] = clusters.get(key) or as_bool(kaito) is True
                managed += 1
            elif key is not None:
                pool_owners.add(key)
            scoped = _ScopedReview(review, resource.name)
            for pool in pools_of(resource, scoped):
                if pool.get("osType") is UNKNOWN:
                    scoped.unknown_field(pool.path("osType"))
                elif is_gpu_pool(pool, scoped):
                    built = _aks_node(resource, pool, key, review)
                    if built is not None:
                        nodes.append(built)
        elif is_karpenter_node_pool(rtype):
            built = _nodepool_node(resource, props_of(resource), review)
            if built is not None:
                nodes.append(built)
        elif rtype in (HELM_V3_RELEASE, HELM_V4_CHART, DAEMONSET):
            props = props_of(resource)
            plugin = _plugins_of(resource, props, review)
            if plugin is not None:
                plugins.append(plugin)
                if plugin.daemonset.plugin == GPU_OPERATOR:
                    operator_installs_driver |= as_bool(get(props, "values", "driver", "enabled")) is not False
    if review.unknown:
        return ()
    outside_pools = pool_owners - set(clusters) if None not in clusters else set()
    count = max(managed, len(clusters)) + len(outside_pools)
    return tuple(
        _judge(
            nodes=nodes,
            plugins=plugins,
            clusters=clusters,
            count=count,
            operator_installs_driver=operator_installs_driver,
        )
    )


def _judge(
    *,
    nodes: Sequence[_Node],
    plugins: Sequence[_Plugin],
    clusters: Mapping[ClusterKey | None, bool],
    count: int,
    operator_installs_driver: bool,
) -> Iterable[Verdict]:
    """``count``: the AKS clusters of the stack (ManagedClusters, and clusters AgentPools name that are not in it).
    Each group is judged apart: with several clusters, a finding holds only when it holds whichever cluster the
    releases run on; otherwise the pool is not checked for that group."""
    single = count <= 1
    any_kaito = any(clusters.values())
    windows, kaito, external = windows_daemonset(), kaito_addon_daemonset(), external_daemonset()
    for item in nodes:
        node = item.node
        if item.driver_skipped:
            node = GpuNode(node.where, node.os, node.gpus, node.taints, node.labels,
                           "operator" if operator_installs_driver else "none", node.mig)  # fmt: skip
        own = [p.for_node(node) for p in plugins]
        if single:
            cluster_kaito = any_kaito
        elif item.cluster in clusters:
            cluster_kaito = bool(clusters[item.cluster])
        else:
            cluster_kaito = None  # a NodePool, or a pool of a cluster outside the stack
        # AKS's Windows plugin only on Windows nodes: a Linux node's message lists no plugin that could never land;
        # a plugin declared outside the stack only on nodes that carry the declaration label
        base = [
            *([windows] if node.os == "Windows" else []),
            *([external] if node.labels.get(EXTERNAL_PLUGIN_LABEL) == EXTERNAL_PLUGIN_VALUE else []),
            *([kaito] if cluster_kaito else []),
        ]
        maybe_kaito = [kaito] if cluster_kaito is None and any_kaito else []
        for group in cast(tuple[Group, ...], ("refused", "missing")):
            upper = _findings(node, [*own, *base, *maybe_kaito], group)
            lower = upper if single else _findings(node, base, group)
            if upper == lower:
                yield from (Verdict(group, f"{item.where}: {message}", item.resource.urn) for message in upper)
            else:
                yield Verdict(
                    group,
                    f"{item.where}: this stack has {count} AKS clusters, and which cluster its device-plugin "
                    f"releases and DaemonSets ({', '.join(p.source for p in plugins) or 'none'}) run on is not "
                    "visible to the pack, so "
                    + (
                        "whether a device plugin lands on these GPU nodes"
                        if group == "missing"
                        else "whether at most one device plugin lands on these GPU nodes"
                    )
                    + " was not checked",
                    None,
                )


def report(args: StackValidationArgs, report_violation: ReportViolation, group: Group) -> None:
    """Report the shared reading's verdicts of ``group`` (the reading runs once per request for both policies)."""
    review = Review(report_violation, args)
    resources = list(args.resources)
    verdicts = shared_reading(NAME, lambda r: _read(resources, r), review)
    for verdict in verdicts:
        if verdict.group != group:
            continue
        if verdict.urn is None:
            review.not_checked(verdict.message)
        else:
            review.violation(verdict.message, verdict.urn)
    review.finish()


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    report(args, report_violation, "refused")


POLICY = GpuStackPolicy(
    name=NAME,
    what="No GPU node pool of the stack (AKS pools, Windows too, and GPU NodePools) gets two device plugins, and the "
    "one it gets advertises its MIG devices: the GPU operator's, the nvidia-device-plugin chart's, a raw "
    "k8s-device-plugin DaemonSet, the KAITO add-on's, AKS's on Windows, or one declared as installed outside the "
    f"stack (node label {EXTERNAL_PLUGIN_LABEL}={EXTERNAL_PLUGIN_VALUE}).",
    why="With two device plugins on a node (the KAITO add-on's beside the operator's) whichever registers last "
    "decides what the node advertises, and its MIG / sharing configuration silently disappears; a MIG node whose "
    "plugin runs with migStrategy none advertises no GPU. Both are seen in the stack itself. No plugin in the stack "
    "is not evidence of none on the cluster: gpu-node-device-plugin-missing (advisory) reports it.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "aks", "device-plugin", "gpu-operator", "kaito"],
    fix="Run one device plugin per node: the GPU operator or the nvidia-device-plugin chart, not both; on a KAITO "
    "add-on cluster taint the pool with a key the add-on's DaemonSet does not tolerate "
    "(azure-gpu-platform/gpu=present:NoSchedule); give MIG pools migStrategy single or mixed.",
)
