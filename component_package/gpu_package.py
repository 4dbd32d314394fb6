"""The Pulumi component package ``azure-gpu-platform``: this project's components for every Pulumi language.

Other teams add the package with ``pulumi package add`` and get a generated SDK (TypeScript, Go, C#, Java, Python) or
use it from Pulumi YAML (``docs/component-package.md``). The Pulumi CLI starts this directory's ``__main__.py`` as a
provider plugin; :func:`serve` hosts the components below with the Python SDK's component provider
(``pulumi.provider.experimental``), which infers the package schema from the annotations in this module: the Args
``TypedDict`` of each component's ``__init__`` (the inputs; docstrings become descriptions), the ``pulumi.Output``
class attributes (the outputs) and the ``Enum`` types.

Every class here is a thin, schema-facing layer over the project's components (``components/``): it maps its Args to
the component's own typed Args (:class:`~components.gpu_node_pool.GpuPoolSpec`,
:class:`~components.aks_cluster.AksGpuClusterArgs`, :class:`~components.gpu_operator.GpuOperatorArgs`,
:class:`~components.kaito.KaitoWorkspaceArgs`, :class:`~components.databricks.DatabricksGpuClusterArgs`,
:class:`~components.nap_pool.NapGpuPoolArgs`) and constructs that component as its child. The Args check themselves
with the rules (``rules/``), so a value the rules refuse fails at construction with the rules' message, as it does
from Python; :class:`GpuPackageProvider` returns it to the engine as an input-properties error naming the property
(``pool.vmSize``), not as a stack trace.

Enum values are taken from the constants and types the rules and components use (OS SKUs, MIG profiles, sharing
modes, data security modes, the Karpenter facts' capacity types, image families and consolidation policies, ...), never
written again here.

This module must not use ``from __future__ import annotations``: the schema is inferred from the annotation objects.
``pulumi_databricks`` is imported only when a ``DatabricksGpuCluster`` is constructed.
"""

import re
import sys
import typing
from collections.abc import Iterable, Mapping
from dataclasses import replace
from enum import Enum, StrEnum
from typing import Any, NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s
from pulumi.errors import InputPropertiesError, InputPropertyError, InputPropertyErrorDetails
from pulumi.provider import main as provider_main
from pulumi.provider.experimental.analyzer import ComponentDefinition, PropertyDefinition, TypeDefinition
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.experimental.util import camel_case
from pulumi.provider.provider import ConstructResult
from pulumi.provider.server import ComponentInitError

from components import aks_cluster, databricks, device_plugin, gpu_node_pool, gpu_operator, kaito, nap_pool
from components.contract import Scheduling
from components.contract import Toleration as ContractToleration
from components.validation import InvalidArgsError
from gpu_catalog import MIG_PROFILES
from gpu_catalog.lifecycle import default_gpu_operator_version
from gpu_catalog.node_disks import node_disks
from rules import Finding
from rules.aks import LINUX_OS_SKUS, WINDOWS_OS_SKUS
from rules.databricks import CLASSIC_PREVIEW, DEDICATED_MODES
from rules.hardening import (
    NETWORK_DATAPLANES,
    NETWORK_POLICIES,
    ApiServer,
    default_encryption_at_host,
    default_os_disk_type,
)
from rules.karpenter import resolve_sizes
from rules.sizes import DEFAULT_FLOOR
from stack_config.models import ClusterAccessConfig, ClusterConfig, GpuPoolConfig
from stack_config.nap import DisruptionBudgetConfig

PACKAGE_NAME = "azure-gpu-platform"
"""The package name: the first part of every type token (``azure-gpu-platform:index:GpuNodePool``) and the name of the
generated SDKs. The project's own component tokens (``azure-gpu-platform:components:*``) use the same package name."""
NAMESPACE = "azure-gpu-platform"
"""The publisher namespace the generated SDKs are named under."""
VERSION = "0.1.0"
"""The package version (the schema's ``version``). Raise it, and tag the repository ``v<version>``, for a release."""


# ---------------------------------------------------------------------------------------------------------- enums


def _member_name(value: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", value)
    return re.sub(r"[^A-Za-z0-9]+", "_", spaced).strip("_").upper()


def _literal_values(annotation: Any) -> tuple[str, ...]:
    """The strings of a ``Literal[...]`` annotation (inside ``Optional`` or a union with ``None``)."""
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(v) for v in typing.get_args(annotation))
    return tuple(v for arg in typing.get_args(annotation) if arg is not type(None) for v in _literal_values(arg))


def _model_field(model: Any, name: str) -> tuple[str, ...]:
    return _literal_values(model.model_fields[name].annotation)


def _dataclass_field(cls: type, name: str) -> tuple[str, ...]:
    return _literal_values(typing.get_type_hints(cls)[name])


def _enum(name: str, values: Iterable[str], doc: str) -> Any:
    """A string enum of the schema: one member per value (``timeSlicing`` → ``TIME_SLICING``)."""
    members = [(_member_name(v), v) for v in values]
    enum = StrEnum(name, members, module=__name__)
    enum.__doc__ = doc
    return enum


if typing.TYPE_CHECKING:  # the type checker sees string enums; the schema's members are built below

    class OsType(StrEnum): ...

    class OsSku(StrEnum): ...

    class DriverMode(StrEnum): ...

    class MigProfile(StrEnum): ...

    class SharingMode(StrEnum): ...

    class MigStrategy(StrEnum): ...

    class SkuTier(StrEnum): ...

    class SupportPlan(StrEnum): ...

    class AutoUpgradeChannel(StrEnum): ...

    class NodeOsUpgradeChannel(StrEnum): ...

    class PrincipalType(StrEnum): ...

    class DataSecurityMode(StrEnum): ...

    class ComputeKind(StrEnum): ...

    class CapacityType(StrEnum): ...

    class ImageFamily(StrEnum): ...

    class ConsolidationPolicy(StrEnum): ...

    class BudgetReason(StrEnum): ...

    class OsDiskType(StrEnum): ...

    class NetworkDataplane(StrEnum): ...

    class NetworkPolicy(StrEnum): ...

else:
    OsType = _enum(
        "OsType", _dataclass_field(gpu_node_pool.GpuPoolSpec, "os"), "The operating system of a GPU pool's nodes."
    )
    OsSku = _enum(
        "OsSku", (*LINUX_OS_SKUS, *WINDOWS_OS_SKUS), "The node OS image (Linux SKUs on Linux, Windows on Windows)."
    )
    DriverMode = _enum(
        "DriverMode",
        _model_field(GpuPoolConfig, "driver"),
        "Who installs the NVIDIA driver: `aks` (AKS, `gpuProfile.driver: Install`) or `operator` (the GPU "
        "operator; AKS skips its driver, `gpuProfile.driver: None`).",
    )
    MigProfile = _enum("MigProfile", MIG_PROFILES, "AKS GPU instance profile (MIG) of A100/H100/H200 sizes.")
    SharingMode = _enum(
        "SharingMode",
        _dataclass_field(gpu_node_pool.GpuSharing, "mode"),
        "How the GPU operator's device plugin shares a GPU: time-slicing or MPS.",
    )
    MigStrategy = _enum(
        "MigStrategy",
        _literal_values(gpu_node_pool.MigStrategy),
        "How MIG slices are advertised: `single` as `nvidia.com/gpu`, `mixed` as `nvidia.com/mig-<profile>`.",
    )
    SkuTier = _enum("SkuTier", _model_field(ClusterConfig, "skuTier"), "The AKS pricing tier.")
    OsDiskType = _enum(
        "OsDiskType", _model_field(GpuPoolConfig, "osDiskType"), "The nodes' OS disk: `Ephemeral` or `Managed`."
    )
    NetworkDataplane = _enum("NetworkDataplane", NETWORK_DATAPLANES, "The network dataplane (Azure CNI overlay).")
    NetworkPolicy = _enum("NetworkPolicy", NETWORK_POLICIES, "The network policy engine (it must suit the dataplane).")
    SupportPlan = _enum("SupportPlan", _model_field(ClusterConfig, "supportPlan"), "The AKS Kubernetes support plan.")
    AutoUpgradeChannel = _enum(
        "AutoUpgradeChannel", _model_field(ClusterConfig, "autoUpgradeChannel"), "The cluster's auto-upgrade channel."
    )
    NodeOsUpgradeChannel = _enum(
        "NodeOsUpgradeChannel", _model_field(ClusterConfig, "nodeOsUpgradeChannel"), "The nodes' OS upgrade channel."
    )
    PrincipalType = _enum(
        "PrincipalType",
        _model_field(ClusterAccessConfig, "deployerPrincipalType"),
        "The kind of identity that runs `pulumi up`.",
    )
    DataSecurityMode = _enum(
        "DataSecurityMode",
        DEDICATED_MODES,
        "Dedicated access: `SINGLE_USER` (a user) or `DATA_SECURITY_MODE_DEDICATED` (a group, with `kind`).",
    )
    ComputeKind = _enum("ComputeKind", (CLASSIC_PREVIEW,), "The request shape of group-dedicated compute.")
    CapacityType = _enum(
        "CapacityType",
        nap_pool.FACTS.capacity_types,
        "`karpenter.sh/capacity-type` of the nodes NAP creates (NAP prefers spot when both are allowed).",
    )
    ImageFamily = _enum("ImageFamily", nap_pool.FACTS.image_families, "The AKSNodeClass `imageFamily` (node OS image).")
    ConsolidationPolicy = _enum(
        "ConsolidationPolicy",
        nap_pool.FACTS.consolidation_policies,
        "Which nodes Karpenter consolidates: `WhenEmpty` removes only nodes without workload pods.",
    )
    BudgetReason = _enum(
        "BudgetReason",
        _literal_values(typing.get_args(DisruptionBudgetConfig.model_fields["reasons"].annotation)[0]),
        "The disruption reason a budget limits.",
    )


# ---------------------------------------------------------------------------------------------------- input types


class Sharing(TypedDict):
    """GPU sharing on a pool, rendered by the GPU operator's device plugin."""

    mode: SharingMode
    """Time-slicing or MPS (not both)."""
    replicas: int
    """Workloads per physical GPU."""
    rename_by_default: NotRequired[bool]
    """Advertise the shared GPUs as `nvidia.com/gpu.shared`."""


class PoolGpuOperator(TypedDict):
    """The NVIDIA GPU operator running on the pool's cluster, as the pool sees it."""

    installs_driver: bool
    """The operator installs driver and toolkit (`driver.enabled`): true when some pool it manages skips the AKS
    driver."""
    version: NotRequired[str]
    """Chart version; default: the release the project pins (`gpu_catalog/facts/gpu_operator.json`)."""
    mig_strategy: NotRequired[MigStrategy]
    """How MIG slices are advertised; default `single`."""


class PoolDevicePlugin(TypedDict):
    """NVIDIA's nvidia-device-plugin chart on the pool's cluster (the `NvidiaDevicePlugin` component), as the pool sees
    it. Without it and without `gpuOperator`, the pool takes the cluster's own device plugin on trust."""

    version: NotRequired[str]
    """Chart version; default: the one the project pins (`gpu_catalog/facts/device_plugins.json`)."""
    mig_strategy: NotRequired[MigStrategy]
    """How AKS-partitioned MIG slices are advertised; default `single`."""


class GpuPool(TypedDict):
    """One AKS GPU node pool. Checked at construction with the project's rules (size, name, MIG, sharing, driver,
    autoscaling, taints, labels)."""

    name: str
    """Logical pool name: lowercase letters and digits, starting with a letter; at most 12 characters on Linux, 6 on
    Windows. The `azure-gpu-platform/pool` node label and the child resource's name."""
    vm_size: str
    """The GPU VM size (e.g. `Standard_NC24ads_A100_v4`): a current, AKS-supported size at or above the GPU floor."""
    azure_name: NotRequired[str]
    """The agent pool's name in Azure; default: `name`. Give a new name when changing a create-time field (size, OS,
    MIG profile, driver, taints, zones, spot, max pods) so the new pool is created before the old one is deleted."""
    os: NotRequired[OsType]
    """Default `Linux`."""
    os_sku: NotRequired[OsSku]
    """Default: AKS's default for the OS."""
    count: NotRequired[int]
    """Nodes of a fixed-size pool; the initial node count of an autoscaling one. Default 1."""
    min_count: NotRequired[int]
    """Autoscaling lower bound (at least 1 when the GPU operator manages the pool: Azure/AKS #2832)."""
    max_count: NotRequired[int]
    """Setting it turns the cluster autoscaler on."""
    driver: NotRequired[DriverMode]
    """Who installs the NVIDIA driver; default `aks`. `operator` needs `gpuOperator` with `installsDriver`."""
    mig_profile: NotRequired[MigProfile]
    """MIG partitioning (A100/H100/H200 sizes)."""
    sharing: NotRequired[Sharing]
    """Time-slicing or MPS through the GPU operator."""
    taints: NotRequired[list[str]]
    """Node taints; default `nvidia.com/gpu=present:NoSchedule`."""
    labels: NotRequired[dict[str, str]]
    """Node labels of your own (the pool, GPU model, device-plugin and MIG labels are added)."""
    zones: NotRequired[list[str]]
    """Availability zones."""
    spot: NotRequired[bool]
    """Spot VMs (evicted with delete)."""
    max_pods: NotRequired[int]
    """Maximum pods per node (Azure CNI Overlay's default: 250)."""
    encryption_at_host: NotRequired[bool]
    """Encryption at host (needs the subscription feature `Microsoft.Compute/EncryptionAtHost`); default: on where the
    catalog sources the size's support, otherwise off; refused on a size without it."""
    os_disk_type: NotRequired[OsDiskType]
    """Default `Ephemeral` where the size supports it and its temp disk holds the 128 GiB OS disk, else `Managed`."""
    orchestrator_version: NotRequired[str]
    """The nodes' Kubernetes version; default: the control plane's."""
    tags: NotRequired[dict[str, str]]
    """Azure tags (`gpu-pool: <name>` is added)."""
    gpu_operator: NotRequired[PoolGpuOperator]
    device_plugin: NotRequired[PoolDevicePlugin]
    """The NVIDIA GPU operator on the cluster, when one runs: it manages every Linux GPU pool."""
    gpu_floor: NotRequired[str]
    """The smallest GPU size allowed (policy `gpu-size-minimum`); default `Standard_NC6s_v3`."""


class SystemPool(TypedDict):
    """The cluster's inline System-mode pool (never a GPU size)."""

    vm_size: NotRequired[str]
    """Default `Standard_D4ds_v5`."""
    count: NotRequired[int]
    """At least 2 nodes; default 2."""
    zones: NotRequired[list[str]]
    """Availability zones."""
    os_sku: NotRequired[OsSku]
    """Default `AzureLinux`."""
    only_critical_addons: NotRequired[bool]
    """Taint the pool `CriticalAddonsOnly=true:NoSchedule`."""
    encryption_at_host: NotRequired[bool]
    """As on a GPU pool; default: on where the size's support is sourced, otherwise off."""
    os_disk_type: NotRequired[OsDiskType]
    """As on a GPU pool; default `Ephemeral` where the size supports it."""
    max_pods: NotRequired[int]
    """Default 250."""


class ApiServerAccess(TypedDict):
    """Who may reach the Kubernetes API server: authorized IPv4 CIDRs, or a private cluster (not both)."""

    authorized_ip_ranges: NotRequired[list[str]]
    """At most 200 IPv4 CIDRs (network addresses, e.g. `203.0.113.0/24`)."""
    private_cluster: NotRequired[bool]
    """A private API server endpoint: `pulumi up` must then run inside the cluster's network."""


class ClusterAccess(TypedDict):
    """Who gets AKS RBAC Cluster Admin on the Kubernetes API (local accounts are always disabled)."""

    grant_deployer: NotRequired[bool]
    """Grant the identity running `pulumi up`; default true."""
    deployer_principal_type: NotRequired[PrincipalType]
    """What the identity running `pulumi up` is: `User`, or `ServicePrincipal` (a service principal or managed
    identity, as in CI). Required while `grantDeployer` is true (the default): unset, pulumi-azure-native sends
    `User` and ARM refuses a service principal's assignment with `UnmatchedPrincipalType`."""
    propagation_wait_seconds: NotRequired[int]
    """How long Kubernetes resources wait after the role assignments (0: not at all); default 300."""


class Toleration(TypedDict):
    """A Kubernetes toleration."""

    key: str
    """The taint key."""
    operator: str
    """`Equal` or `Exists`."""
    effect: str
    """`NoSchedule`, `PreferNoSchedule` or `NoExecute`."""
    value: NotRequired[str]
    """The taint value (with `Equal`)."""


class SharedPool(TypedDict):
    """A pool whose GPUs the operator's device plugin shares."""

    resource_name: str
    """What the device plugin advertises before sharing (`nvidia.com/gpu`, `nvidia.com/mig-3g.40gb`)."""
    sharing: Sharing
    """The pool's sharing."""


class DatabricksAutoscale(TypedDict):
    """Autoscaling bounds of a Databricks cluster's workers."""

    min_workers: int
    """Lower bound."""
    max_workers: int
    """Upper bound."""


# --------------------------------------------------------------------------------------------------- output types


class SchedulingToleration(TypedDict):
    """A toleration a pod needs to land on the pool."""

    key: str
    """The taint key."""
    operator: str
    """`Equal` or `Exists`."""
    effect: str
    """The taint effect."""
    value: str | None
    """The taint value (with `Equal`)."""


class PoolScheduling(TypedDict):
    """How a workload lands on a pool: put these in the pod spec (the output contract's `scheduling`)."""

    node_selector: dict[str, str]
    """The pod's node selector."""
    tolerations: list[SchedulingToleration]
    """The pod's tolerations."""
    resource_name: str
    """Extended resource to request: `nvidia.com/gpu`, `nvidia.com/gpu.shared` or `nvidia.com/mig-<g>g.<m>gb`."""
    sharing: str
    """`none`, `timeSlicing` or `mps`."""
    replicas: int
    """Time-slicing/MPS replicas per physical GPU (1 without sharing)."""
    mps_active_thread_percentage: int | None
    """For MPS pools: the `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` each workload gets."""
    allocatable_per_node: int
    """How many `resourceName` units one node advertises."""
    device_plugin: str | None
    """The one device plugin on the nodes: `gpu-operator`, `nvidia-device-plugin`, `aks-windows`, or `external` (the
    cluster's own, taken on trust); `None` when the rules found none or two (the component then refuses)."""


class GpuPoolInfo(TypedDict):
    """A GPU pool's output-contract entry."""

    azure_name: str
    """The agent pool's name in Azure."""
    vm_size: str
    """The VM size."""
    gpu_model: str
    """The GPU model."""
    gpus_per_node: int
    """Whole GPUs per node."""
    os: str
    """`Linux` or `Windows`."""
    driver: str
    """Who installs the NVIDIA driver: `aks` or `operator`."""
    mig_profile: str | None
    """The MIG profile."""
    spot: bool
    """Spot VMs."""
    min_count: int | None
    """Autoscaling lower bound."""
    max_count: int | None
    """Autoscaling upper bound."""
    count: int | None
    """Nodes of a fixed-size pool."""
    scheduling: PoolScheduling
    """How a workload lands on the pool."""


# ----------------------------------------------------------------------------------------------- Args → typed Args


class ArgsRefusedError(Exception):
    """A component's Args break a guard rail: the rules' message, and each finding on its schema property path."""

    def __init__(self, error: InvalidArgsError, prefix: str = "", paths: Mapping[str, str] | None = None) -> None:
        super().__init__(str(error))
        self.message = str(error)
        paths = paths or {}
        self.errors: list[InputPropertyErrorDetails] = [
            {"property_path": f"{prefix}{paths.get(f.field, camel_case(f.field))}", "reason": f.message}
            for f in error.findings
        ]


def _plain(value: Any) -> Any:
    """An input as the typed Args take it: enum members as their values, and integers as ``int``. Numbers arrive as
    doubles; the SDK's input mapping (3.272) converts an ``integer`` property and then overwrites the conversion with
    the double, and every number of this schema is an integer."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _present(args: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """The keys that are set, enum members as their values: the typed Args' defaults apply to the others."""
    return {k: _plain(args[k]) for k in keys if args.get(k) is not None}


def _pool_plugin_kwargs(args: Mapping[str, Any]) -> dict[str, Any]:
    """``gpu_operator`` / ``device_plugin`` as the pool specs take them: the operator, the chart, or (neither given)
    the cluster's own device plugin taken on trust (docs/component-package.md)."""
    operator = args.get("gpu_operator")
    if operator is not None:
        return {"gpu_operator": _pool_operator(operator)}
    chart = args.get("device_plugin")
    if chart is not None:
        plugin = _present(chart, "version", "mig_strategy")
        plugin.setdefault("version", device_plugin.CHART.version)
        return {"device_plugin": gpu_node_pool.PoolDevicePlugin(**plugin)}
    return {"external_device_plugin": True}


def _pool_operator(operator: PoolGpuOperator) -> gpu_node_pool.PoolGpuOperator:
    """The operator as a pool sees it; the chart version defaults to the release the project pins (as documented)."""
    kwargs = _present(operator, "version", "installs_driver", "mig_strategy")
    kwargs.setdefault("version", default_gpu_operator_version())
    return gpu_node_pool.PoolGpuOperator(**kwargs)


def pool_spec(pool: GpuPool) -> gpu_node_pool.GpuPoolSpec:
    """A package pool as the component's :class:`~components.gpu_node_pool.GpuPoolSpec` (raises
    :class:`InvalidArgsError` with the rules' messages)."""
    kwargs = _present(
        pool,
        "name",
        "vm_size",
        "azure_name",
        "os",
        "os_sku",
        "count",
        "min_count",
        "max_count",
        "mig_profile",
        "spot",
        "max_pods",
        "orchestrator_version",
        "gpu_floor",
        "encryption_at_host",
        "os_disk_type",
    )
    disks = node_disks(str(kwargs.get("vm_size", "")))
    kwargs.setdefault("encryption_at_host", default_encryption_at_host(disks))
    kwargs.setdefault("os_disk_type", default_os_disk_type(disks))
    driver = pool.get("driver")
    if driver is not None:
        kwargs["driver_skipped"] = _plain(driver) == "operator"  # the GPU operator installs the driver
    sharing = pool.get("sharing")
    if sharing is not None:
        kwargs["sharing"] = gpu_node_pool.GpuSharing(**_present(sharing, "mode", "replicas", "rename_by_default"))
    for key in ("taints", "zones"):
        value = pool.get(key)
        if value is not None:
            kwargs[key] = tuple(value)
    for key in ("labels", "tags"):
        value = pool.get(key)
        if value is not None:
            kwargs[key] = dict(value)
    kwargs |= _pool_plugin_kwargs(pool)
    return gpu_node_pool.GpuPoolSpec(**kwargs)


def _checked(build: typing.Callable[[], Any], prefix: str = "", paths: Mapping[str, str] | None = None) -> Any:
    try:
        return build()
    except InvalidArgsError as error:
        raise ArgsRefusedError(error, prefix, paths) from error


# ---------------------------------------------------------------------------------------------------- components


class GpuNodePoolArgs(TypedDict):
    """A GPU pool and the existing AKS cluster it joins."""

    resource_group_name: pulumi.Input[str]
    """The cluster's resource group."""
    cluster_name: pulumi.Input[str]
    """The AKS cluster's name."""
    pool: GpuPool
    """The pool."""


class GpuNodePool(pulumi.ComponentResource):
    """One AKS GPU node pool (a User-mode `AgentPool`) on an existing cluster, guard-railed by the project's rules: the
    GPU size (known, current, AKS-supported, not NVv4, at or above the GPU floor), the pool name, MIG, sharing, driver
    mode, autoscaling and taints. Outputs the pool's scheduling data (node selector, tolerations, resource name)."""

    azure_name: pulumi.Output[str]
    """The agent pool's name in Azure."""
    agent_pool_id: pulumi.Output[str]
    """The agent pool's Azure resource ID."""
    vm_size: pulumi.Output[str]
    """The VM size, as the catalog spells it."""
    gpu_model: pulumi.Output[str]
    """The GPU model."""
    gpus_per_node: pulumi.Output[int]
    """Whole GPUs per node."""
    driver: pulumi.Output[str]
    """Who installs the NVIDIA driver: `aks` or `operator`."""
    scheduling: pulumi.Output[PoolScheduling]
    """How a workload lands on the pool: node selector, tolerations, the resource to request."""

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = _checked(lambda: pool_spec(args["pool"]), "pool.")
        super().__init__(f"{PACKAGE_NAME}:index:GpuNodePool", name, None, opts)
        pool = gpu_node_pool.GpuNodePool(
            name,
            gpu_node_pool.GpuNodePoolArgs(
                pool=spec, resource_group_name=args["resource_group_name"], cluster_name=args["cluster_name"]
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        contract = pool.contract
        self.azure_name = pulumi.Output.from_input(pool.azure_name)
        self.agent_pool_id = pool.agent_pool.id
        self.vm_size = pulumi.Output.from_input(contract.vm_size)
        self.gpu_model = pulumi.Output.from_input(contract.gpu_model)
        self.gpus_per_node = pulumi.Output.from_input(contract.gpus_per_node)
        self.driver = pulumi.Output.from_input(contract.driver)
        self.scheduling = pulumi.Output.from_input(_scheduling(contract.scheduling))
        self.register_outputs({"azureName": self.azure_name, "agentPoolId": self.agent_pool_id})


def _scheduling(sched: Scheduling) -> PoolScheduling:
    """The output contract's scheduling data as the schema's :class:`PoolScheduling`."""
    return {
        "node_selector": dict(sched.node_selector),
        "tolerations": [typing.cast(SchedulingToleration, t.to_dict()) for t in sched.tolerations],
        "resource_name": sched.resource_name,
        "sharing": sched.sharing,
        "replicas": sched.replicas,
        "mps_active_thread_percentage": sched.mps_active_thread_percentage,
        "allocatable_per_node": sched.allocatable_per_node,
        "device_plugin": sched.device_plugin,
    }


class AksGpuClusterArgs(TypedDict):
    """An AKS cluster with secure defaults and its GPU pools."""

    cluster_name: str
    """The AKS cluster's name (also its DNS prefix)."""
    resource_group_name: str
    """The resource group (created unless `createResourceGroup` is false)."""
    location: str
    """The Azure region."""
    kubernetes_version: str
    """A version AKS creates today (`1.36` or `1.36.2`), checked against the release calendar."""
    create_resource_group: NotRequired[bool]
    """False: the resource group exists already. Default true."""
    sku_tier: NotRequired[SkuTier]
    """Default `Standard`."""
    support_plan: NotRequired[SupportPlan]
    """Default `KubernetesOfficial`; `AKSLongTermSupport` needs tier `Premium`."""
    system_pool: NotRequired[SystemPool]
    """The inline System pool."""
    access: NotRequired[ClusterAccess]
    """Who gets Cluster Admin on the Kubernetes API. The deployer is granted by default, so give its
    `deployerPrincipalType` (or `grantDeployer: false`)."""
    admin_group_object_ids: NotRequired[list[str]]
    """Entra ID groups granted Cluster Admin through Azure RBAC."""
    auto_upgrade_channel: NotRequired[AutoUpgradeChannel]
    """Default `stable`. `stable` and `rapid` own the Kubernetes version (drift on it is ignored) and are refused when
    they can move the cluster past the pinned GPU operator's or KAITO add-on's validated minor; a patch pin
    (`1.36.2`) needs `none` or `node-image`."""
    node_os_upgrade_channel: NotRequired[NodeOsUpgradeChannel]
    """Default `NodeImage`."""
    oidc_issuer: NotRequired[bool]
    """The OIDC issuer (workload identity, KAITO); default true."""
    workload_identity: NotRequired[bool]
    """Default true."""
    cost_analysis: NotRequired[bool]
    """The cost analysis add-on (needs tier Standard or Premium)."""
    kaito_addon: NotRequired[bool]
    """The KAITO (AI toolchain operator) add-on (needs the OIDC issuer)."""
    protect: NotRequired[bool]
    """Protect the cluster and a resource group it creates from deletion."""
    tags: NotRequired[dict[str, str]]
    """Azure tags."""
    gpu_pools: NotRequired[list[GpuPool]]
    """GPU pools, created one after another in this order (AKS refuses concurrent agent-pool operations)."""
    api_server: NotRequired[ApiServerAccess]
    """Authorized IP ranges or a private cluster; neither: the API server is open to the internet (a warning)."""
    network_dataplane: NotRequired[NetworkDataplane]
    """Default `azure`; `cilium` with network policy `cilium` is AKS's recommendation."""
    network_policy: NotRequired[NetworkPolicy]
    """Default `none` (a warning)."""
    container_insights: NotRequired[bool]
    """Container Insights (`omsagent`) to `logAnalyticsWorkspaceId` or to a workspace the component creates."""
    log_analytics_workspace_id: NotRequired[str]
    """An existing Log Analytics workspace's resource id."""
    secrets_store: NotRequired[bool]
    """The Key Vault Secrets Store CSI add-on with secret rotation."""
    secret_rotation_poll_interval: NotRequired[str]
    """Default `2m`."""


class AksGpuCluster(pulumi.ComponentResource):
    """An AKS cluster with secure defaults (Entra ID + Azure RBAC, local accounts disabled, OIDC issuer, workload
    identity, no node public IPs) and its guard-railed GPU pools, chained one after another."""

    cluster_name: pulumi.Output[str]
    """The AKS cluster's name."""
    cluster_id: pulumi.Output[str]
    """The cluster's Azure resource ID."""
    resource_group_name: pulumi.Output[str]
    """The cluster's resource group."""
    oidc_issuer_url: pulumi.Output[str | None]
    """The OIDC issuer URL (for workload identity federated credentials)."""
    kubeconfig: pulumi.Output[str]
    """Secret: the user kubeconfig (exec plugin `kubelogin`; local accounts are disabled)."""
    gpu_pools: pulumi.Output[dict[str, GpuPoolInfo]]
    """Each GPU pool's output-contract entry, with its scheduling data, by pool name."""

    def __init__(self, name: str, args: AksGpuClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        specs = [_checked(lambda p=p: pool_spec(p), f"gpuPools[{i}].") for i, p in enumerate(args.get("gpu_pools", []))]
        cluster_args = _checked(lambda: aks_cluster.AksGpuClusterArgs(**_cluster_kwargs(args, specs)))
        super().__init__(f"{PACKAGE_NAME}:index:AksGpuCluster", name, None, opts)
        cluster = aks_cluster.AksGpuCluster(name, cluster_args, opts=pulumi.ResourceOptions(parent=self))
        self.cluster_name = cluster.cluster_name
        self.cluster_id = cluster.cluster_id
        self.resource_group_name = cluster.resource_group_name
        self.oidc_issuer_url = cluster.oidc_issuer_url
        self.kubeconfig = cluster.kubeconfig
        # Values of a map are passed on as they are (not renamed): the contract's own camelCase form is the schema's.
        pools: dict[str, Any] = {p.pool.name: p.contract.to_dict() for p in cluster.pools}
        self.gpu_pools = pulumi.Output.from_input(typing.cast(dict[str, GpuPoolInfo], pools))
        self.register_outputs({"clusterName": self.cluster_name, "clusterId": self.cluster_id})


def _cluster_kwargs(args: AksGpuClusterArgs, specs: list[gpu_node_pool.GpuPoolSpec]) -> dict[str, Any]:
    kwargs = _present(
        args,
        "cluster_name",
        "resource_group_name",
        "location",
        "kubernetes_version",
        "create_resource_group",
        "sku_tier",
        "support_plan",
        "auto_upgrade_channel",
        "node_os_upgrade_channel",
        "oidc_issuer",
        "workload_identity",
        "cost_analysis",
        "kaito_addon",
        "protect",
        "tags",
        "network_dataplane",
        "network_policy",
        "container_insights",
        "log_analytics_workspace_id",
        "secrets_store",
        "secret_rotation_poll_interval",
    )
    api = args.get("api_server")
    if api is not None:
        kwargs["api_server"] = ApiServer(
            tuple(api.get("authorized_ip_ranges", [])), bool(api.get("private_cluster", False))
        )
    system = args.get("system_pool") or SystemPool()
    sp = _present(
        system, "vm_size", "count", "os_sku", "only_critical_addons", "encryption_at_host", "os_disk_type", "max_pods"
    )
    zones = system.get("zones")
    if zones is not None:
        sp["zones"] = tuple(zones)
    disks = node_disks(str(sp.get("vm_size", aks_cluster.SystemPoolSpec.vm_size)))
    sp.setdefault("encryption_at_host", default_encryption_at_host(disks))
    sp.setdefault("os_disk_type", default_os_disk_type(disks))
    kwargs["system_pool"] = aks_cluster.SystemPoolSpec(**sp)
    access = args.get("access")
    if access is not None:
        kwargs["access"] = aks_cluster.ClusterAccess(
            **_present(access, "grant_deployer", "deployer_principal_type", "propagation_wait_seconds")
        )
    groups = args.get("admin_group_object_ids")
    if groups is not None:
        kwargs["admin_group_object_ids"] = tuple(groups)
    kwargs["gpu_pools"] = tuple(specs)
    return kwargs


def _kubernetes_provider(name: str, kubeconfig: pulumi.Input[str], parent: pulumi.Resource) -> k8s.Provider:
    """A Kubernetes provider for the cluster the kubeconfig reaches (AKS user kubeconfigs need `kubelogin`)."""
    return k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig, opts=pulumi.ResourceOptions(parent=parent))


def _release_pools(
    args: Mapping[str, Any],
) -> tuple[dict[str, gpu_node_pool.SharedPool], tuple[ContractToleration, ...]]:
    """``shared_pools`` and ``tolerations`` of a device-plugin release (the operator's or the chart's) as the components
    take them."""
    shared = {
        pool: gpu_node_pool.SharedPool(
            resource_name=sp["resource_name"],
            sharing=gpu_node_pool.GpuSharing(**_present(sp["sharing"], "mode", "replicas", "rename_by_default")),
        )
        for pool, sp in (args.get("shared_pools") or {}).items()
    }
    return shared, tuple(ContractToleration.from_dict(_plain(t)) for t in args.get("tolerations") or [])


class GpuOperatorArgs(TypedDict):
    """The NVIDIA GPU operator release and the values derived from the pools it manages."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig for the cluster (e.g. `AksGpuCluster.kubeconfig`)."""
    version: NotRequired[str]
    """Chart version; default: the release the project pins (`gpu_catalog/facts/gpu_operator.json`)."""
    namespace: NotRequired[str]
    """Default `gpu-operator`."""
    mig_strategy: NotRequired[MigStrategy]
    """Default `single`."""
    dcgm_exporter: NotRequired[bool]
    """The DCGM metrics exporter; default true."""
    installs_driver: NotRequired[bool]
    """`driver.enabled` and `toolkit.enabled`: false when the pools keep the AKS driver. Default true."""
    mig_manager: NotRequired[bool]
    """The MIG manager partitions the pools whose driver the operator installs; default false."""
    shared_pools: NotRequired[dict[str, SharedPool]]
    """Pool name → its device-plugin sharing config (selected by the pool's `nvidia.com/device-plugin.config`)."""
    tolerations: NotRequired[list[Toleration]]
    """The managed pools' tolerations (a pool's `scheduling.tolerations`)."""


class GpuOperator(pulumi.ComponentResource):
    """The NVIDIA GPU operator Helm release (chart `gpu-operator` from NVIDIA's NGC repository, pinned version) with
    per-pool time-slicing/MPS configs and daemonset tolerations for the GPU pools' taints."""

    version: pulumi.Output[str]
    """The chart version."""
    namespace: pulumi.Output[str]
    """The release's namespace."""

    def __init__(self, name: str, args: GpuOperatorArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        kwargs = _present(
            args, "version", "namespace", "mig_strategy", "dcgm_exporter", "installs_driver", "mig_manager"
        )
        shared, tolerations = _release_pools(args)
        operator_args = gpu_operator.GpuOperatorArgs(**kwargs, shared_pools=shared, tolerations=tolerations)
        super().__init__(f"{PACKAGE_NAME}:index:GpuOperator", name, None, opts)
        provider = _kubernetes_provider(name, args["kubeconfig"], self)
        operator = gpu_operator.GpuOperator(
            name, operator_args, opts=pulumi.ResourceOptions(parent=self), provider=provider
        )
        self.version = pulumi.Output.from_input(operator.version)
        self.namespace = pulumi.Output.from_input(operator.namespace)
        self.register_outputs({"version": self.version, "namespace": self.namespace})


class NvidiaDevicePluginArgs(TypedDict):
    """NVIDIA's nvidia-device-plugin chart for GPU pools the GPU operator does not manage (AKS installs the driver
    only): affinity on the pools' `azure-gpu-platform/pool` label, their tolerations, one config per sharing pool."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig for the cluster (e.g. `AksGpuCluster.kubeconfig`)."""
    pools: list[str]
    """The logical names of the pools it serves (their nodes carry `azure-gpu-platform/pool: <name>`)."""
    version: NotRequired[str]
    """Chart version; the only one the facts cover (`gpu_catalog/facts/device_plugins.json`)."""
    namespace: NotRequired[str]
    """Default `nvidia-device-plugin` (the chart refuses `default`)."""
    mig_strategy: NotRequired[MigStrategy]
    """Default `single`."""
    shared_pools: NotRequired[dict[str, SharedPool]]
    """Pool name → its sharing config (selected by the pool's `nvidia.com/device-plugin.config`)."""
    tolerations: NotRequired[list[Toleration]]
    """The served pools' tolerations (a pool's `scheduling.tolerations`)."""
    gpu_feature_discovery: NotRequired[bool]
    """gpu-feature-discovery (with node-feature-discovery): needed for MPS and AKS-partitioned MIG. Default false."""


class NvidiaDevicePlugin(pulumi.ComponentResource):
    """The nvidia-device-plugin Helm release (chart `nvidia-device-plugin` from NVIDIA's repository, pinned)."""

    version: pulumi.Output[str]
    """The chart version."""
    namespace: pulumi.Output[str]
    """The release's namespace."""

    def __init__(self, name: str, args: NvidiaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        kwargs = _present(args, "version", "namespace", "mig_strategy", "gpu_feature_discovery")
        shared, tolerations = _release_pools(args)
        plugin_args = device_plugin.NvidiaDevicePluginArgs(
            pools=tuple(str(p) for p in args.get("pools") or []), **kwargs, shared_pools=shared, tolerations=tolerations
        )
        super().__init__(f"{PACKAGE_NAME}:index:NvidiaDevicePlugin", name, None, opts)
        provider = _kubernetes_provider(name, args["kubeconfig"], self)
        plugin = device_plugin.NvidiaDevicePlugin(
            name, plugin_args, opts=pulumi.ResourceOptions(parent=self), provider=provider
        )
        self.version = pulumi.Output.from_input(plugin.version)
        self.namespace = pulumi.Output.from_input(plugin.namespace)
        self.register_outputs({"version": self.version, "namespace": self.namespace})


class KaitoWorkspaceArgs(TypedDict):
    """One model KAITO serves, on a cluster whose KAITO add-on is on."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig for the cluster (e.g. `AksGpuCluster.kubeconfig`)."""
    workspace_name: str
    """The Workspace's name, which KAITO gives the model's Service (a DNS label)."""
    preset: str
    """KAITO preset (`inference.preset.name`), e.g. `phi-4-mini-instruct`; checked against the add-on's preset table."""
    instance_type: str
    """GPU size of the nodes KAITO provisions: a size KAITO supports that holds the model."""
    match_labels: dict[str, str]
    """Labels of the nodes KAITO provisions and selects."""
    kubernetes_version: str
    """The cluster's Kubernetes version: it decides the KAITO add-on version AKS runs."""
    addon_enabled: bool
    """The cluster's KAITO add-on is on (the Workspace CRD exists only with it)."""
    count: NotRequired[int]
    """How many nodes KAITO provisions; default: the Workspace CRD's."""
    namespace: NotRequired[str]
    """Default `default`."""
    model_access_secret: NotRequired[str]
    """The Secret (key `HF_TOKEN`) a preset downloaded at run time reads its Hugging Face token from."""
    model_access_token_config: NotRequired[str]
    """Full config key (`kaito:hfToken`) of the secret value the Secret is created from."""
    gpu_floor: NotRequired[str]
    """The smallest GPU size allowed; default `Standard_NC6s_v3`."""


def _check_token_config(args: kaito.KaitoWorkspaceArgs) -> None:
    """The secret config value the model-access Secret is made of is set (the component reads it; read it here
    first so that a missing value is refused before anything is registered)."""
    key = args.model_access_token_config
    if args.model_access_secret is None or key is None:
        return
    try:
        kaito.read_token_config(key)
    except kaito.ModelAccessError as error:
        finding = Finding("model_access_token_config", str(error))
        raise ArgsRefusedError(InvalidArgsError(kaito.COMPONENT, args.workspace_name, [finding])) from error


class KaitoWorkspace(pulumi.ComponentResource):
    """A KAITO model workspace (`kaito.sh/v1beta1` Workspace) and, for presets downloaded at run time, its model-access
    Secret. Deleting it leaves the GPU nodes KAITO provisioned behind (see the project's KAITO docs)."""

    workspace_name: pulumi.Output[str]
    """The Workspace's name."""
    namespace: pulumi.Output[str]
    """The Workspace's namespace."""
    service_host: pulumi.Output[str]
    """In-cluster DNS name of the model's Service."""
    port: pulumi.Output[int]
    """The Service's port."""
    endpoint: pulumi.Output[str]
    """OpenAI-compatible chat endpoint inside the cluster."""

    def __init__(self, name: str, args: KaitoWorkspaceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        kwargs = _present(
            args,
            "workspace_name",
            "preset",
            "instance_type",
            "match_labels",
            "kubernetes_version",
            "addon_enabled",
            "count",
            "namespace",
            "model_access_secret",
            "model_access_token_config",
            "gpu_floor",
        )
        ws_args = _checked(lambda: kaito.KaitoWorkspaceArgs(**kwargs))
        _check_token_config(ws_args)
        super().__init__(f"{PACKAGE_NAME}:index:KaitoWorkspace", name, None, opts)
        provider = _kubernetes_provider(name, args["kubeconfig"], self)
        ws = kaito.KaitoWorkspace(name, ws_args, opts=pulumi.ResourceOptions(parent=self), provider=provider)
        self.workspace_name = pulumi.Output.from_input(ws.contract.workspace)
        self.namespace = pulumi.Output.from_input(ws.contract.namespace)
        self.service_host = pulumi.Output.from_input(ws.contract.service)
        self.port = pulumi.Output.from_input(ws.contract.port)
        self.endpoint = pulumi.Output.from_input(ws.contract.endpoint)
        self.register_outputs({"endpoint": self.endpoint})


class DatabricksGpuClusterArgs(TypedDict):
    """One Databricks GPU cluster in an existing Azure Databricks workspace."""

    workspace_url: pulumi.Input[str]
    """The workspace, `https://adb-<workspace-id>.<n>.azuredatabricks.net`; the Databricks provider authenticates
    as the Databricks SDK does (Azure CLI, managed identity, `ARM_*`/`DATABRICKS_*` variables)."""
    cluster_name: str
    """The cluster's name."""
    node_type_id: str
    """A GPU node type Azure Databricks offers (e.g. `Standard_NC24ads_A100_v4`)."""
    single_user_name: str
    """The principal of the dedicated-access cluster: a user's e-mail, or a group's name with `kind`."""
    spark_version: NotRequired[str]
    """A GPU ML runtime key (default `17.3.x-gpu-ml-scala2.13`); with `kind`, the DBR release."""
    driver_node_type_id: NotRequired[str]
    """Default: the workers' node type."""
    kind: NotRequired[ComputeKind]
    """`CLASSIC_PREVIEW`: the request shape of group-dedicated compute."""
    use_ml_runtime: NotRequired[bool]
    """With `kind`: Databricks picks the GPU ML runtime."""
    data_security_mode: NotRequired[DataSecurityMode]
    """Default `SINGLE_USER`."""
    single_node: NotRequired[bool]
    """Driver-only compute (no workers, no GPU scheduling)."""
    num_workers: NotRequired[int]
    """Fixed worker count."""
    autoscale: NotRequired[DatabricksAutoscale]
    """Autoscaling bounds."""
    autotermination_minutes: NotRequired[int]
    """Minutes of inactivity before the cluster terminates."""
    spark_conf: NotRequired[dict[str, str]]
    """GPU scheduling (`spark.task.resource.gpu.amount`) or the single-node profile."""
    custom_image: NotRequired[str]
    """A Databricks Container Services image (needs a standard runtime)."""
    tags: NotRequired[dict[str, str]]
    """Custom tags."""
    gpu_floor: NotRequired[str]
    """The smallest GPU size allowed; default `Standard_NC6s_v3`."""


class DatabricksGpuCluster(pulumi.ComponentResource):
    """A Databricks GPU cluster: GPU ML runtime, GPU node types from the project's catalog, dedicated access with its
    principal, Photon off, autotermination."""

    cluster_id: pulumi.Output[str]
    """The cluster's ID."""
    url: pulumi.Output[str]
    """The cluster's URL."""

    def __init__(self, name: str, args: DatabricksGpuClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        kwargs = _present(
            args,
            "cluster_name",
            "node_type_id",
            "single_user_name",
            "spark_version",
            "driver_node_type_id",
            "kind",
            "use_ml_runtime",
            "data_security_mode",
            "single_node",
            "num_workers",
            "autotermination_minutes",
            "spark_conf",
            "custom_image",
            "tags",
            "gpu_floor",
        )
        autoscale = args.get("autoscale")
        if autoscale is not None:
            kwargs["autoscale"] = databricks.DatabricksAutoscale(**_present(autoscale, "min_workers", "max_workers"))
        cluster_args = _checked(lambda: databricks.DatabricksGpuClusterArgs(**kwargs))
        super().__init__(f"{PACKAGE_NAME}:index:DatabricksGpuCluster", name, None, opts)
        import pulumi_databricks  # only a Databricks cluster pays for the package's import

        provider = pulumi_databricks.Provider(
            f"{name}-provider", host=args["workspace_url"], opts=pulumi.ResourceOptions(parent=self)
        )
        cluster = databricks.DatabricksGpuCluster(
            name, cluster_args, opts=pulumi.ResourceOptions(parent=self), provider=provider
        )
        self.cluster_id = cluster.cluster_id
        self.url = cluster.url
        self.register_outputs({"clusterId": self.cluster_id})


class DisruptionBudget(TypedDict):
    """A Karpenter disruption budget: how many of the pool's nodes may be disrupted at once."""

    nodes: str
    """A node count (`1`) or a percentage (`10%`)."""
    schedule: NotRequired[str]
    """Cron schedule when the budget applies (with `duration`)."""
    duration: NotRequired[str]
    """How long the budget applies after each `schedule` (`8h`, `1h30m`)."""
    reasons: NotRequired[list[BudgetReason]]
    """The disruption reasons the budget limits; default: all."""


class NapDisruption(TypedDict):
    """When Karpenter removes the pool's nodes (how the pool scales back to zero)."""

    consolidation_policy: NotRequired[ConsolidationPolicy]
    """Default `WhenEmpty`: only nodes without workload pods are removed, running inference is never repacked."""
    consolidate_after: NotRequired[str]
    """How long a node stays empty before it is removed (`5m`, `1h`, `Never`); default `5m`."""
    budgets: NotRequired[list[DisruptionBudget]]
    """Disruption budgets."""


class NapGpuPoolArgs(TypedDict):
    """A Karpenter GPU NodePool on a cluster with node auto-provisioning (NAP) on. Checked at construction with the
    project's rules (every allowed size, GPU limit, driver mode, sharing, taints, capacity types, image family,
    consolidation policy)."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig for the cluster (e.g. `AksGpuCluster.kubeconfig`); NAP must be on for the cluster."""
    pool_name: str
    """The NodePool's and AKSNodeClass's name, and the value of the `azure-gpu-platform/pool` node label."""
    location: str
    """The cluster's Azure region (the zone values are `<location>-<zone>`)."""
    gpu_limit: int
    """`spec.limits["nvidia.com/gpu"]`: the most GPUs the pool's nodes may hold together (no unbounded GPU spend)."""
    sizes: NotRequired[list[str]]
    """GPU sizes Karpenter may choose (`karpenter.azure.com/sku-name`); each must pass the size rules."""
    series: NotRequired[list[str]]
    """Size series (`NCads_A100_v4`): every deployable catalog size of the series."""
    gpu_models: NotRequired[list[str]]
    """GPU models (`A100`, `T4`): every deployable catalog size with that GPU."""
    capacity_types: NotRequired[list[CapacityType]]
    """Default `on-demand`."""
    zones: NotRequired[list[str]]
    """Availability zones (`1`, `2`, `3`)."""
    driver: NotRequired[DriverMode]
    """Who installs the NVIDIA driver; default `aks` (AKSNodeClass `gpu.mode: Driver`); `operator` (`gpu.mode:
    None`) needs `gpuOperator` with `installsDriver`."""
    sharing: NotRequired[Sharing]
    """Time-slicing or MPS through the GPU operator."""
    taints: NotRequired[list[str]]
    """Node taints; default `nvidia.com/gpu=present:NoSchedule`."""
    labels: NotRequired[dict[str, str]]
    """Node labels of your own (the pool label, and the device-plugin label of a shared pool, are added)."""
    image_family: NotRequired[ImageFamily]
    """Default: AKS's default for the Kubernetes version."""
    os_disk_size_gb: NotRequired[int]
    """OS disk size in GB; default: the AKSNodeClass's."""
    disruption: NotRequired[NapDisruption]
    """When Karpenter removes nodes; default `WhenEmpty` after `5m`."""
    expire_after: NotRequired[str]
    """Replace nodes after this long; default: Karpenter's."""
    weight: NotRequired[int]
    """The NodePool's priority among NodePools (1-100)."""
    tags: NotRequired[dict[str, str]]
    """Azure tags of the VMs NAP creates (AKSNodeClass `tags`)."""
    gpu_operator: NotRequired[PoolGpuOperator]
    device_plugin: NotRequired[PoolDevicePlugin]
    """The NVIDIA GPU operator on the cluster, when one runs: it manages the pool's nodes."""
    gpu_floor: NotRequired[str]
    """The smallest GPU size allowed (policy `gpu-size-minimum`); default `Standard_NC6s_v3`."""


NAP_PATHS = {
    "driver_skipped": "driver",
    "name": "poolName",
    "consolidation_policy": "disruption.consolidationPolicy",
    "consolidate_after": "disruption.consolidateAfter",
    "budgets": "disruption.budgets",
}
"""A :class:`~components.nap_pool.NapGpuPoolArgs` field → the package property it comes from (other fields: the
field in camelCase)."""


def nap_pool_args(args: NapGpuPoolArgs) -> nap_pool.NapGpuPoolArgs:
    """A package NodePool as the component's :class:`~components.nap_pool.NapGpuPoolArgs`: ``sizes``, ``series`` and
    ``gpu_models`` resolved through the catalog as the stack config resolves ``gpuNodePools`` (raises
    :class:`InvalidArgsError` with the rules' messages)."""
    kwargs = _present(args, "location", "image_family", "os_disk_size_gb", "expire_after", "weight", "gpu_floor")
    kwargs["name"] = args["pool_name"]
    # Unset (an engine that sends no gpuLimit): refused by the rules, with their message, as a 0 is from Python.
    kwargs["gpu_limit"] = _plain(args.get("gpu_limit")) or 0
    for key in ("capacity_types", "zones", "taints"):
        value = args.get(key)
        if value is not None:
            kwargs[key] = tuple(_plain(value))
    for key in ("labels", "tags"):
        value = args.get(key)
        if value is not None:
            kwargs[key] = dict(value)
    driver = args.get("driver")
    if driver is not None:
        kwargs["driver_skipped"] = _plain(driver) == "operator"  # the GPU operator installs the driver
    sharing = args.get("sharing")
    if sharing is not None:
        kwargs["sharing"] = gpu_node_pool.GpuSharing(**_present(sharing, "mode", "replicas", "rename_by_default"))
    kwargs |= _pool_plugin_kwargs(args)
    disruption = args.get("disruption")
    if disruption is not None:
        kwargs |= _present(disruption, "consolidation_policy", "consolidate_after")
        kwargs["budgets"] = tuple(
            _present(b, "nodes", "schedule", "duration", "reasons") for b in disruption.get("budgets") or []
        )
    sizes = [str(s) for s in args.get("sizes") or []]
    floor = str(kwargs.get("gpu_floor", DEFAULT_FLOOR))
    resolved, found = resolve_sizes(sizes, args.get("series") or [], args.get("gpu_models") or [], floor=floor)
    selectors = [
        Finding(f.field.replace("gpuModels", "gpu_models", 1), f.message) for f in found if f.field[:5] != "sizes"
    ]
    named = {s.lower() for s in sizes}
    try:
        # The sizes as written first: a size the rules refuse is named at its index in `sizes`, as from Python.
        nap_pool.NapGpuPoolArgs(sizes=(*sizes, *(s for s in resolved if s.lower() not in named)), **kwargs)
    except InvalidArgsError as error:
        if not selectors:
            raise
        raise InvalidArgsError(nap_pool.COMPONENT, kwargs["name"], [*error.findings, *selectors]) from error
    if selectors:
        raise InvalidArgsError(nap_pool.COMPONENT, kwargs["name"], selectors)
    return nap_pool.NapGpuPoolArgs(sizes=tuple(resolved), **kwargs)  # cheapest first, as from a stack file


class NapGpuPool(pulumi.ComponentResource):
    """GPU nodes from AKS node auto-provisioning: a Karpenter `NodePool` (`karpenter.sh/v1`) and its `AKSNodeClass`
    (`karpenter.azure.com/v1beta1`) that create GPU nodes from zero, up to a GPU limit, when a pod that selects and
    tolerates the pool is pending. Every size the NodePool allows passed the project's size rules. Outputs the pool's
    scheduling data (node selector, tolerations, resource name)."""

    node_pool: pulumi.Output[str]
    """The NodePool's name (nodes carry `karpenter.sh/nodepool: <nodePool>`)."""
    sizes: pulumi.Output[list[str]]
    """The sizes Karpenter may choose (`karpenter.azure.com/sku-name` values), cheapest first."""
    gpu_models: pulumi.Output[list[str]]
    """The GPU models of those sizes."""
    capacity_types: pulumi.Output[list[str]]
    """`on-demand` and/or `spot`."""
    driver: pulumi.Output[str]
    """Who installs the NVIDIA driver: `aks` or `operator`."""
    gpu_limit: pulumi.Output[int]
    """The most GPUs the pool's nodes may hold together."""
    scheduling: pulumi.Output[PoolScheduling]
    """How a workload lands on the pool: node selector, tolerations, the resource to request (`allocatablePerNode`:
    what the smallest allowed size advertises)."""

    def __init__(self, name: str, args: NapGpuPoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        pool_args = _checked(lambda: nap_pool_args(args), paths=NAP_PATHS)
        super().__init__(f"{PACKAGE_NAME}:index:NapGpuPool", name, None, opts)
        provider = _kubernetes_provider(name, args["kubeconfig"], self)
        pool = nap_pool.NapGpuPool(name, pool_args, opts=pulumi.ResourceOptions(parent=self), provider=provider)
        contract = pool.contract
        self.node_pool = pulumi.Output.from_input(contract.node_pool)
        self.sizes = pulumi.Output.from_input(list(contract.sizes))
        self.gpu_models = pulumi.Output.from_input(list(contract.gpu_models))
        self.capacity_types = pulumi.Output.from_input(list(contract.capacity_types))
        self.driver = pulumi.Output.from_input(contract.driver)
        self.gpu_limit = pulumi.Output.from_input(contract.max_gpus)
        self.scheduling = pulumi.Output.from_input(_scheduling(contract.scheduling))
        self.register_outputs({"nodePool": self.node_pool, "gpuLimit": self.gpu_limit})


COMPONENTS: list[type[pulumi.ComponentResource]] = [
    AksGpuCluster,
    GpuNodePool,
    GpuOperator,
    NvidiaDevicePlugin,
    KaitoWorkspace,
    DatabricksGpuCluster,
    NapGpuPool,
]
"""The components the package hosts (the schema's resources)."""

RULE_CHECKED_INPUTS: dict[str, tuple[str, ...]] = {"NapGpuPool": ("gpuLimit",)}
"""Required inputs whose absence the rules refuse themselves: the schema requires them (the SDKs and Pulumi YAML ask
for them), and an engine that sends none gets the rules' message, as Python does, not a generic "missing input"."""


# ------------------------------------------------------------------------------------------------------ provider


class GpuPackageProvider(ComponentProvider):
    """The SDK's component provider, with three changes: Args the rules refuse come back to the engine as an
    input-properties error (``InvalidArgument``: the rules' message, and each finding on its property path) instead
    of a generic error carrying a Python stack trace; a missing input the rules check themselves
    (:data:`RULE_CHECKED_INPUTS`) reaches the rules; arrays of enums are mapped item by item to the enum."""

    def map_inputs(self, inputs: pulumi.Inputs, component_def: ComponentDefinition) -> pulumi.Inputs:
        missing = {k for k in RULE_CHECKED_INPUTS.get(component_def.name, ()) if inputs.get(k) is None}
        if missing:
            props = {k: replace(p, optional=True) if k in missing else p for k, p in component_def.inputs.items()}
            component_def = replace(component_def, inputs=props)
        return super().map_inputs(inputs, component_def)

    def map_input_properties(
        self,
        inputs: pulumi.Inputs,
        properties: dict[str, PropertyDefinition],
        mapping: dict[str, str],
        component_name: str,
        property_path: str,
    ) -> pulumi.Inputs:
        """The SDK's mapping, plus arrays of enums (``capacityTypes``): the SDK (3.272) maps each item of an array of
        a named type as an object, which turns an enum string into ``{}``; here each item becomes the enum member,
        and a value outside the enum is refused on its path (``capacityTypes[1]``)."""
        enum_lists = {k: t for k, p in properties.items() if (t := self._enum_items(p)) is not None}
        rest = {k: p for k, p in properties.items() if k not in enum_lists}
        out = dict(super().map_input_properties(inputs, rest, mapping, component_name, property_path))
        for key, enum_def in enum_lists.items():
            path = f"{property_path}.{key}" if property_path else key
            value = inputs.get(key) if isinstance(inputs, dict) else None
            if value is None:
                if not properties[key].optional:
                    raise InputPropertyError(path, f"Missing required input '{path}' on '{component_name}'")
                continue
            items = value if isinstance(value, list) else [value]
            members = []
            for i, item in enumerate(items):
                try:
                    members.append(enum_def.python_type(item))
                except ValueError as error:
                    allowed = ", ".join(str(v.value) for v in enum_def.enum or [])
                    raise InputPropertyError(
                        f"{path}[{i}]", f"Invalid value {item!r} for enum '{enum_def.name}'; allowed: {allowed}"
                    ) from error
            out[mapping[key]] = members
        return out

    def _enum_items(self, prop: PropertyDefinition) -> TypeDefinition | None:
        """The enum type of an array property's items, if they are one of this package's enums."""
        if prop.items is None or not prop.items.ref:
            return None
        type_def = self.get_type_definition(prop.items)
        return type_def if type_def is not None and type_def.enum else None

    def construct(
        self,
        name: str,
        resource_type: str,
        inputs: pulumi.Inputs,
        options: pulumi.ResourceOptions | None = None,
    ) -> ConstructResult:
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as error:
            if isinstance(error.inner, ArgsRefusedError):
                raise InputPropertiesError(error.inner.message, error.inner.errors) from error.inner
            raise


def provider() -> GpuPackageProvider:
    """The provider: the schema is inferred here, from this module's annotations."""
    return GpuPackageProvider(COMPONENTS, PACKAGE_NAME, NAMESPACE, VERSION)


def serve(args: list[str] | None = None) -> None:
    """Serve the provider over gRPC: the first stdout line is the port (what
    ``pulumi.provider.experimental.component_provider_host`` does, with :class:`GpuPackageProvider`). ``args``: the
    engine address and the engine's flags."""
    provider_main(provider(), sys.argv[1:] if args is None else args)
