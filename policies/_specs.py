"""The pool spec (:class:`rules.specs.AksGpuPool`) built from an AKS pool's wire props, partially: the pack judges a
raw ``AgentPool`` or ``agentPoolProfiles`` entry with the defaults the platform's doors resolve (the OS SKU of an
``osType``, who installs the driver), read once per pool and request.

Only the fields the pack's policies read are taken, and only known values (a policy reports an unknown field before
it asks for the spec); what AKS itself defaults differently from the spec is given as AKS does: a pool without
``nodeTaints`` has none (the spec would add the GPU taint), a pool without ``gpuProfile.driver`` gets AKS's driver.
Read: ``agentPoolName`` / ``name``, the size(s), ``osType``, ``osSKU``, ``gpuProfile.driver``, ``nodeTaints``,
``nodeLabels``, ``gpuInstanceProfile`` (in AKS's spelling, as the spec resolves it), ``scaleSetPriority``.

The same for a KAITO Workspace (:func:`wire_workspace`, :class:`rules.specs.KaitoGpuWorkspace`), a Databricks
cluster (:func:`wire_databricks`, :class:`rules.specs.DatabricksGpuCompute`) and an AKS ManagedCluster
(:func:`wire_cluster`, :class:`rules.specs.AksCluster`): one mapping from the wire props per
deployable, built once per resource and request (:func:`policies._resources.derived`) and shared by the policies that
judge it, each of which still states the values it needs that are unknown during a preview before it asks the spec.
"""

from __future__ import annotations

from typing import Any, Final

from gpu_catalog.kaito_presets import KAITO_DEFAULT_COUNT
from rules.databricks import (
    CLASSIC_PREVIEW,
    PROFILE_KEY,
    TASK_GPU_AMOUNT,
    DatabricksCluster,
    gpu_settings,
    is_single_node_profile,
)
from rules.hardening import IMAGE_CLEANER_DEFAULT_HOURS
from rules.kaito import WORKSPACE_PROPERTIES
from rules.specs import AksCluster, AksGpuPool, DatabricksGpuCompute, KaitoGpuWorkspace

from ._resources import UNKNOWN, Pool, as_bool, derived, get


def wire_pool(pool: Pool) -> AksGpuPool:
    """``pool``'s props as the spec (module docstring); built once per :class:`~policies._resources.Pool` (the pools
    are shared by the policies of one request)."""
    spec = pool.spec
    if spec is None:
        spec = _build(pool)
        object.__setattr__(pool, "_spec", spec)
    return spec


def _build(pool: Pool) -> AksGpuPool:
    os_type, sku = pool.get("osType"), pool.get("osSKU")
    driver, taints, name = pool.get("gpuProfile", "driver"), pool.get("nodeTaints"), pool.name
    labels, profile, priority = pool.get("nodeLabels"), pool.get("gpuInstanceProfile"), pool.get("scaleSetPriority")
    return AksGpuPool(
        name=name if isinstance(name, str) else pool.prefix,
        vm_size=pool.size_label,
        os="Windows" if isinstance(os_type, str) and os_type.lower() == "windows" else "Linux",
        os_sku=sku if isinstance(sku, str) and sku else None,  # None: the spec resolves the OS type's default
        driver_skipped=isinstance(driver, str) and driver.lower() == "none",
        taints=tuple(t for t in taints if isinstance(t, str)) if isinstance(taints, list) else (),
        labels={str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {},
        mig_profile=profile if isinstance(profile, str) and profile else None,  # the spec canonicalises it
        spot=isinstance(priority, str) and priority.lower() == "spot",
    )


# ------------------------------------------------------------------------------------------------ KAITO Workspace


def workspace_spec(resource: Any) -> KaitoGpuWorkspace:
    """The Workspace ``resource`` as its spec (:func:`wire_workspace`), built once per request and shared by the
    KAITO policies."""
    return derived(resource, _WORKSPACE, wire_workspace)


def wire_workspace(props: Any) -> KaitoGpuWorkspace:
    """A ``kubernetes:kaito.sh/…:Workspace``'s props as the workspace spec, partially: ``metadata.name``,
    ``resource.instanceType``, ``resource.count``, ``inference.preset.name`` and its ``modelAccessSecret`` (the
    spec resolves the catalog's and the preset table's spelling). Values not set, or unknown during a preview, are
    left out as the rules read "not set" (``""`` for the instance type and the preset; a policy reports an unknown
    field before it asks); a count that is not a number ≥ 1 is KAITO's default. The cluster's add-on and Kubernetes
    version are not the Workspace's (aks-kaito-addon-version judges the cluster): the spec gets the placeholders the
    stack config gives a workspace checked apart from its cluster, and the pack never runs its whole checklist."""
    name = get(props, "metadata", "name")
    size, count = _ws(props, "instanceType"), _ws(props, "count")
    preset, secret = _ws(props, "preset"), _ws(props, "modelAccessSecret")
    return KaitoGpuWorkspace(
        workspace_name=name if isinstance(name, str) else "",
        preset=preset if isinstance(preset, str) else "",
        instance_type=size if isinstance(size, str) else "",
        count=int(count) if isinstance(count, int | float) and count >= 1 else KAITO_DEFAULT_COUNT,
        model_access_secret=secret if isinstance(secret, str) else None,
        kubernetes_version="",
        addon_enabled=True,
    )


def _ws(props: Any, field: str) -> Any:
    return get(props, *WORKSPACE_PROPERTIES[field])


_WORKSPACE: Final = "kaito-workspace-spec"


# --------------------------------------------------------------------------------------------- Databricks cluster


def text(value: Any) -> str | None:
    """A string property as the Databricks facts take it: ``None`` when absent, unknown or not a string."""
    return value if isinstance(value, str) else None


def wire_databricks(props: Any) -> DatabricksGpuCompute:
    """A ``databricks:index/cluster:Cluster``'s props as the cluster spec, partially: the request's fields the
    resource names, and the resource's own words (:func:`databricks_words`) as the spec's ``written``, which the
    Databricks rules judge (:attr:`~rules.specs.DatabricksGpuCompute.judged`). Built for a cluster with a GPU node
    type (``policies/_databricks.py``); the pack calls the rules one per policy, never the spec's whole checklist."""
    words = databricks_words(props)
    name = get(props, "clusterName")
    return DatabricksGpuCompute(
        cluster_name=name if isinstance(name, str) else "",
        node_type_id=words.node_type or "",
        driver_node_type_id=words.driver_node_type,
        single_user_name=words.single_user_name or "",
        spark_version=words.spark_version or "",
        kind=words.kind,
        use_ml_runtime=words.use_ml_runtime,
        data_security_mode=words.data_security_mode or "",
        single_node=words.single_node,
        custom_image=words.custom_image,
        written=words,
    )


def databricks_words(props: Any) -> DatabricksCluster:
    """A cluster resource's props as the Databricks rules read them: strings as written (``None`` when absent,
    unknown or not a string), ``useMlRuntime`` only when ``true``, a ``kind`` unknown during a preview as
    ``CLASSIC_PREVIEW`` (checked at ``pulumi up``), single-node compute only when known to be, the ``sparkConf`` GPU
    keys (an unknown value's key included) and ``spark.task.resource.gpu.amount`` as written (unknown: not set)."""
    kind, image = get(props, "kind"), get(props, "dockerImage", "url")
    conf = spark_conf(props)
    known_conf: dict[str, Any] = conf if isinstance(conf, dict) else {}
    raw = known_conf.get(TASK_GPU_AMOUNT)
    return DatabricksCluster(
        node_type=text(get(props, "nodeTypeId")),
        driver_node_type=text(get(props, "driverNodeTypeId")),
        spark_version=text(get(props, "sparkVersion")),
        use_ml_runtime=get(props, "useMlRuntime") is True,
        kind=CLASSIC_PREVIEW if kind is UNKNOWN else text(kind),
        custom_image=(text(image) or str(image)) if image else None,  # UNKNOWN is falsy: not set
        runtime_engine=text(get(props, "runtimeEngine")),
        data_security_mode=text(get(props, "dataSecurityMode")),
        single_user_name=text(get(props, "singleUserName")),
        single_node=is_single_node(props) is True,
        gpu_settings=gpu_settings(known_conf),
        gpu_amount=None if raw is None or raw is UNKNOWN else raw if isinstance(raw, str | int | float) else str(raw),
    )


def has_kind(props: Any) -> bool | Any:
    """Whether the request uses ``kind: CLASSIC_PREVIEW``; UNKNOWN when ``kind`` is."""
    kind = get(props, "kind")
    if kind is UNKNOWN:
        return UNKNOWN
    return isinstance(kind, str) and kind.upper() == CLASSIC_PREVIEW


def spark_conf(props: Any) -> dict[str, Any] | Any:
    """``sparkConf`` (``{}`` when absent or not an object; UNKNOWN when unknown)."""
    conf = get(props, "sparkConf")
    return conf if conf is UNKNOWN or isinstance(conf, dict) else {}


def is_single_node(props: Any) -> bool | Any:
    """Single-node (driver-only) compute; UNKNOWN when that depends on an unknown value."""
    single = get(props, "isSingleNode")
    if single is UNKNOWN:
        return UNKNOWN
    if single is True:
        return True
    conf = spark_conf(props)
    if conf is UNKNOWN:
        return UNKNOWN
    if is_single_node_profile(conf.get(PROFILE_KEY)):
        return True
    workers = get(props, "numWorkers")
    autoscale = get(props, "autoscale")
    if workers is UNKNOWN or autoscale is UNKNOWN:
        return UNKNOWN
    return autoscale is None and (workers is None or workers == 0)


# ---------------------------------------------------------------------------------------------------- AKS cluster


def cluster_spec(resource: Any) -> AksCluster:
    """The ManagedCluster ``resource`` as its spec (:func:`wire_cluster`), built once per request and shared by the
    cluster policies that read it."""
    return derived(resource, _CLUSTER, wire_cluster)


def wire_cluster(props: Any) -> AksCluster:
    """An ``azure-native:containerservice:ManagedCluster``'s props as the cluster spec, partially: its name, resource
    group, location and Kubernetes version (``""`` when not set), and the switches the cluster policies judge, each
    as AKS reads it where the spec's default differs (off unless ``true``: the KAITO add-on, the OIDC issuer,
    ``apiServerAccessProfile.disableRunCommand``, Image Cleaner) and Image Cleaner's ``intervalHours`` (the spec's
    default when not a number). A policy reports an unknown switch before it asks; the tier stays the
    cost-analysis policy's own reading (the spec resolves ``Standard``, and an unset tier is worded apart)."""
    cleaner = get(props, "securityProfile", "imageCleaner")
    hours = get(cleaner, "intervalHours") if isinstance(cleaner, dict) else None
    return AksCluster(
        cluster_name=_str(get(props, "resourceName")),
        resource_group_name=_str(get(props, "resourceGroupName")),
        location=_str(get(props, "location")),
        kubernetes_version=_str(get(props, "kubernetesVersion")),
        kaito_addon=as_bool(get(props, "aiToolchainOperatorProfile", "enabled")) is True,
        oidc_issuer=as_bool(get(props, "oidcIssuerProfile", "enabled")) is True,
        disable_run_command=as_bool(get(props, "apiServerAccessProfile", "disableRunCommand")) is True,
        image_cleaner=isinstance(cleaner, dict) and as_bool(cleaner.get("enabled")) is True,
        image_cleaner_interval_hours=int(hours)
        if isinstance(hours, int | float) and not isinstance(hours, bool)
        else IMAGE_CLEANER_DEFAULT_HOURS,
    )


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


_CLUSTER: Final = "aks-cluster-spec"
