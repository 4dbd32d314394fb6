"""The output contract other teams build on, and a typed consumer for it: the package ``agp_contract``, installable on
its own (``pip install "git+https://github.com/<org>/azure-gpu-platform@<ref>#subdirectory=agp_contract"``; its only
dependency is ``pulumi``). The platform imports it through :mod:`components.contract`.

A platform stack exports a versioned set of outputs (``contractVersion`` first). Consumers do not read raw stack
outputs: they use :class:`PlatformStackReference`, which wraps ``pulumi.StackReference`` and returns typed
objects (:class:`PlatformContract`, :class:`GpuPoolContract`, :class:`Scheduling`), and refuses a stack that
speaks another contract version.

Contract version ``"1"`` (additive changes keep the version; renaming or removing a key bumps it):

===================== ===========================================================================================
output                what
===================== ===========================================================================================
``contractVersion``   ``"1"``
``environment``       ``dev`` / ``staging`` / ``prod`` ...
``location``          Azure region
``resourceGroupName`` resource group of the cluster
``clusterName``       AKS cluster name; ``clusterId`` its Azure resource id
``kubernetesVersion`` the cluster's Kubernetes version (as configured)
``oidcIssuerUrl``     OIDC issuer URL (for workload identity federated credentials)
``kubeconfig``        **secret**: user kubeconfig (exec plugin ``kubelogin``; local accounts are disabled)
``gpuPools``          ``{<pool name>: {azureName, vmSize, gpuModel, gpusPerNode, os, driver, migProfile,``
                      ``spot, minCount, maxCount, count, scheduling: {nodeSelector, tolerations, resourceName,``
                      ``sharing, replicas, mpsActiveThreadPercentage, allocatablePerNode, devicePlugin}}}``:
                      ``resourceName`` × ``allocatablePerNode`` is what one node advertises, read off the node's
                      software stack (``rules/node_stack.py``); ``devicePlugin`` the one plugin that serves it
``gpuNodePools``      ``{<pool name>: {nodePool, sizes, gpuModels, capacityTypes, driver, maxGpus, minNodes: 0,``
                      ``scheduling: {...as above}}}``: node auto-provisioning (Karpenter) GPU NodePools, from zero
                      nodes to ``maxGpus``; the autoscaler ``minCount ≥ 1`` rule does not apply to them
                      (``allocatablePerNode``: what the smallest allowed size advertises)
``gpuOperatorVersion`` chart version of the NVIDIA GPU operator, or ``null`` when it is not installed
``devicePluginVersion`` chart version of NVIDIA's nvidia-device-plugin (deployed when the operator is off), or
                      ``null`` (added in version 1: additive)
``kaitoWorkspaces``   ``{<workspace>: {workspace, namespace, preset, instanceType, count, service, port, endpoint}}``:
                      the in-cluster Service KAITO serves each model on (OpenAI-compatible ``endpoint``)
``network``           ``{apiServer: public|private, outboundType, networkMode, podCidr, serviceCidr, privateDnsZone,``
                      ``subnets: {<pool>: <node subnet id>}, podSubnets: {<pool>: <pod subnet id>}}``: where the
                      cluster sits (``system`` is the system pool); ``outboundType`` is AKS's default
                      ``loadBalancer`` when the stack states none (added in version 1: additive)
``databricks``        ``{workspaceUrl, clusters: {<name>: {clusterId, nodeTypeId, driverNodeTypeId, gpusPerWorker,``
                      ``workload, tasksPerGpu, sparkVersion}}, clusterPolicyId}``, or ``null`` without Databricks;
                      ``clusterPolicyId``: the GPU cluster policy (``databricks.clusterPolicy``) other teams' clusters
                      can use, ``null`` without one (added in version 1: additive)
===================== ===========================================================================================

A **fleet stack** (one stack holding an Azure Kubernetes Fleet Manager fleet, ``docs/fleet.md``; added in version 1:
additive, a single-cluster stack exports none of these) exports ``contractVersion`` and, instead of one cluster's keys:

===================== ===========================================================================================
``fleet``             the fleet view: ``{name, fleetId, location, hub, members: {<member>: {region, group,``
                      ``kubernetesVersion, labels, pools: [{name, vmSize, gpuResources, maxNodes}]}},``
                      ``groups: {<group>: [members]},``
                      ``regions: {<region>: [members]}, requestable: {<resource name>: {<member>: [vmSizes]}}}``:
                      where each GPU extended resource can be requested, on which sizes (:class:`FleetContract`)
``members``           ``{<member>: <the single-cluster contract above, without contractVersion and kubeconfig>}``
``memberKubeconfigs`` **secret**: ``{<member>: <user kubeconfig>}``
===================== ===========================================================================================

No Pulumi provider imports here: only ``pulumi`` itself.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeVar

import pulumi

CONTRACT_VERSION = "1"

SharingMode = Literal["none", "timeSlicing", "mps"]
T = TypeVar("T")

FLEET_KEYS: tuple[str, ...] = ("contractVersion", "fleet", "members")
"""The non-secret outputs of a fleet stack (``memberKubeconfigs`` is read separately, as a secret)."""

_SCALAR_KEYS: tuple[str, ...] = (
    "contractVersion",
    "environment",
    "location",
    "resourceGroupName",
    "clusterName",
    "clusterId",
    "kubernetesVersion",
    "oidcIssuerUrl",
    "gpuPools",
    "gpuNodePools",
    "gpuOperatorVersion",
    "devicePluginVersion",
    "kaitoWorkspaces",
    "databricks",
    "network",
    "monitoringWorkspaceId",
    "alertActionGroupId",
)
"""Every non-secret output of the contract (``kubeconfig`` is read separately, as a secret)."""


class ContractError(ValueError):
    """The referenced stack does not export a contract this helper understands."""


# --------------------------------------------------------------------------------------------------------------------
# The wire form, written once: each entry's dataclass fields are its keys (camelCase of the field name). A field's
# metadata says where it differs: WIRE_NAME_ONLY (the entry's name is its key in the enclosing map, not a field of it),
# READ_DEFAULT (the value a consumer assumes when an older stack does not export the key), OMIT_NONE (left out when
# unset). Types decide the conversion on read: str / int / bool are coerced, optional ints become int or None, other
# optionals and Literals are taken as they are, lists and maps are read leniently (absent = empty), nested entries
# through their own from_dict.

WIRE_NAME_ONLY: Final = "wire-name-only"
READ_DEFAULT: Final = "read-default"
OMIT_NONE: Final = "omit-none"


def wire_key(field_name: str) -> str:
    """The wire key of a field: ``mps_active_thread_percentage`` → ``mpsActiveThreadPercentage``."""
    head, *rest = field_name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def wire_fields(cls: type) -> list[dataclasses.Field[Any]]:
    """The fields of a contract entry that are keys on the wire (in declaration order)."""
    return [f for f in dataclasses.fields(cls) if not f.metadata.get(WIRE_NAME_ONLY)]


def _write(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return typing.cast(Any, value).to_dict()
    if isinstance(value, list):
        return [_write(v) for v in value]
    if isinstance(value, dict):
        return dict(value)
    return value


def to_wire(entry: Any, **extra: Any) -> dict[str, Any]:
    """A contract entry as the stack exports it (``extra``: constant keys of the entry, e.g. ``minNodes``)."""
    out: dict[str, Any] = {}
    for f in wire_fields(type(entry)):
        value = getattr(entry, f.name)
        if value is None and f.metadata.get(OMIT_NONE):
            continue
        out[wire_key(f.name)] = _write(value)
    out.update(extra)
    return out


def _read(hint: Any, value: Any) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list:
        item: Any = args[0]
        if dataclasses.is_dataclass(item):
            return [typing.cast(Any, item).from_dict(v) for v in value or []]
        return [item(v) for v in value or []]
    if origin is dict:
        return {str(k): str(v) for k, v in (value or {}).items()}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return typing.cast(Any, hint).from_dict(value)
    if hint in (str, int, bool):
        return hint(value)
    if origin in (types.UnionType, typing.Union) and int in args:
        return int(value) if value is not None else None
    return value  # optional strings and Literals: as exported


def from_wire(cls: type[T], data: Mapping[str, Any], **given: Any) -> T:
    """A contract entry from its wire form; ``given``: the fields that are not on the wire (its name). A key with
    neither a dataclass default nor a READ_DEFAULT is required (``KeyError`` when absent)."""
    kwargs: dict[str, Any] = dict(given)
    hints = _hints(cls)
    for f in wire_fields(cls):
        key, hint = wire_key(f.name), hints[f.name]
        if typing.get_origin(hint) in (list, dict):
            value = data.get(key)
        elif READ_DEFAULT in f.metadata:
            value = data.get(key, f.metadata[READ_DEFAULT])
        elif f.default is not dataclasses.MISSING:
            value = data.get(key, f.default)
        else:
            value = data[key]
        kwargs[f.name] = _read(hint, value)
    return cls(**kwargs)


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str
    operator: Literal["Equal", "Exists"] = field(metadata={READ_DEFAULT: "Equal"})
    effect: str
    value: str | None = field(default=None, metadata={OMIT_NONE: True})

    def to_dict(self) -> dict[str, str]:
        return to_wire(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Toleration:
        return from_wire(cls, data)


@dataclass(frozen=True, slots=True)
class Scheduling:
    """How a workload lands on a pool: put these in the pod spec."""

    node_selector: dict[str, str]
    tolerations: list[Toleration]
    resource_name: str
    """Extended resource to request: ``nvidia.com/gpu``, ``nvidia.com/gpu.shared`` or ``nvidia.com/mig-<g>g.<m>gb``."""
    sharing: SharingMode = "none"
    replicas: int = 1
    """Time-slicing/MPS replicas per physical GPU (1 without sharing)."""
    mps_active_thread_percentage: int | None = None
    """For MPS pools: the ``CUDA_MPS_ACTIVE_THREAD_PERCENTAGE`` each workload gets (100 / replicas)."""
    allocatable_per_node: int = 1
    """How many ``resource_name`` units one node advertises."""
    device_plugin: str | None = None
    """The one NVIDIA device plugin on the pool's nodes (``gpu-operator``, ``nvidia-device-plugin``,
    ``aks-windows``; ``kaito-addon`` on a KAITO workspace's nodes): :mod:`rules.node_stack`."""

    def to_dict(self) -> dict[str, Any]:
        return to_wire(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scheduling:
        return from_wire(cls, data)


@dataclass(frozen=True, slots=True)
class GpuPoolContract:
    name: str = field(metadata={WIRE_NAME_ONLY: True})
    azure_name: str
    vm_size: str
    gpu_model: str
    gpus_per_node: int
    os: str = field(metadata={READ_DEFAULT: "Linux"})
    driver: str = field(metadata={READ_DEFAULT: "aks"})
    scheduling: Scheduling
    mig_profile: str | None = None
    spot: bool = False
    min_count: int | None = None
    max_count: int | None = None
    count: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return to_wire(self)

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any]) -> GpuPoolContract:
        return from_wire(cls, data, name=name)


@dataclass(frozen=True, slots=True)
class NapGpuPoolContract:
    """A node auto-provisioning GPU NodePool: Karpenter creates nodes of one of ``sizes`` for pending pods that
    select and tolerate it, from zero nodes up to ``max_gpus`` GPUs."""

    name: str = field(metadata={WIRE_NAME_ONLY: True})
    node_pool: str
    """The Karpenter NodePool's name (nodes carry ``karpenter.sh/nodepool: <node_pool>``; read: the entry's name when
    an older stack does not export it)."""
    sizes: list[str]
    gpu_models: list[str]
    capacity_types: list[str]
    driver: str = field(metadata={READ_DEFAULT: "aks"})
    max_gpus: int
    scheduling: Scheduling

    def to_dict(self) -> dict[str, Any]:
        return to_wire(self, minNodes=0)  # NAP pools start from zero nodes

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any]) -> NapGpuPoolContract:
        return from_wire(cls, {"nodePool": name, **data}, name=name)


@dataclass(frozen=True, slots=True)
class KaitoWorkspaceContract:
    """A model KAITO serves in the cluster: call ``endpoint`` (OpenAI-compatible) from a pod in the cluster."""

    workspace: str
    namespace: str
    preset: str
    instance_type: str
    count: int
    service: str
    """In-cluster DNS name of the Service (``<workspace>.<namespace>.svc.cluster.local``)."""
    port: int
    endpoint: str

    def to_dict(self) -> dict[str, Any]:
        return to_wire(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KaitoWorkspaceContract:
        return from_wire(cls, data)


@dataclass(frozen=True, slots=True)
class DatabricksClusterContract:
    name: str
    cluster_id: str
    node_type_id: str
    driver_node_type_id: str
    gpus_per_worker: int
    workload: str
    """``training`` | ``inference`` | ``singleNode``."""
    spark_version: str
    tasks_per_gpu: int | None = None

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any]) -> DatabricksClusterContract:
        tasks = data.get("tasksPerGpu")
        return cls(
            name=name,
            cluster_id=str(data["clusterId"]),
            node_type_id=str(data["nodeTypeId"]),
            driver_node_type_id=str(data.get("driverNodeTypeId") or data["nodeTypeId"]),
            gpus_per_worker=int(data["gpusPerWorker"]),
            workload=str(data["workload"]),
            spark_version=str(data["sparkVersion"]),
            tasks_per_gpu=int(tasks) if tasks is not None else None,
        )


@dataclass(frozen=True, slots=True)
class DatabricksContract:
    workspace_url: str
    clusters: dict[str, DatabricksClusterContract] = field(default_factory=dict)
    cluster_policy_id: str | None = None
    """The GPU cluster policy's id (``policy_id`` of a cluster), ``None`` when the stack has none (or predates it)."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DatabricksContract:
        clusters = {
            str(n): DatabricksClusterContract.from_dict(str(n), c) for n, c in (data.get("clusters") or {}).items()
        }
        policy = data.get("clusterPolicyId")
        return cls(
            workspace_url=str(data["workspaceUrl"]),
            clusters=clusters,
            cluster_policy_id=str(policy) if policy is not None else None,
        )


@dataclass(frozen=True, slots=True)
class NetworkContract:
    """Where the cluster sits in the company's network (``network``; ``None`` from a stack older than this key)."""

    api_server: Literal["public", "private"]
    """``private``: the API server has only a private endpoint; reach it from the cluster's network (or a peered
    one)."""
    outbound_type: str
    """How the nodes reach the internet: ``loadBalancer``, ``userDefinedRouting`` (through the company firewall),
    ``managedNATGateway``, ``userAssignedNATGateway``."""
    network_mode: str
    """``overlay`` (pods on ``pod_cidr``, not routable from the VNet) or ``flat`` (pods take VNet addresses)."""
    pod_cidr: str | None = None
    service_cidr: str | None = None
    private_dns_zone: str | None = None
    """``system``, ``none`` or the private DNS zone's id (a private cluster's)."""
    subnets: dict[str, str] = field(default_factory=dict)
    """Pool name (``system`` for the system pool) → its node subnet id; empty: an AKS-managed VNet."""
    pod_subnets: dict[str, str] = field(default_factory=dict)
    """Pool name → its pod subnet id (flat mode with a pod subnet)."""

    def to_dict(self) -> dict[str, Any]:
        return to_wire(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NetworkContract:
        return from_wire(cls, data)


@dataclass(frozen=True, slots=True)
class FleetPoolContract:
    """One GPU pool of a fleet member: its size, the extended resources a pod requests on it, its node bound."""

    name: str
    vm_size: str
    gpu_resources: list[str] = field(default_factory=list)
    """``nvidia.com/gpu``, ``nvidia.com/mig-3g.40gb``, ``nvidia.com/gpu.shared``: what one of its nodes advertises."""
    max_nodes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return to_wire(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FleetPoolContract:
        return from_wire(cls, data)


@dataclass(frozen=True, slots=True)
class FleetMemberContract:
    """A member of the fleet as the fleet view lists it (its full contract: :meth:`PlatformStackReference.member`)."""

    name: str = field(metadata={WIRE_NAME_ONLY: True})
    region: str
    group: str | None = None
    """The update group its stage names (``None``: none)."""
    kubernetes_version: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    """The FleetMember's labels (a placement's ``clusterSelector`` matches them)."""
    pools: list[FleetPoolContract] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return to_wire(self)

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any]) -> FleetMemberContract:
        return from_wire(cls, data, name=name)


@dataclass(frozen=True, slots=True)
class FleetContract:
    """The fleet view of a fleet stack (``fleet``): its members, where they are, and what a pod can request where."""

    name: str
    location: str
    hub: bool
    members: dict[str, FleetMemberContract] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)
    """Update group → its members."""
    regions: dict[str, list[str]] = field(default_factory=dict)
    """Region → the members there."""
    requestable: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    """Extended resource (``nvidia.com/gpu``) → member → the sizes of its pools that advertise it."""
    fleet_id: str | None = None
    """The Fleet's Azure resource id (``None`` from a view built before deployment)."""

    def member(self, name: str) -> FleetMemberContract:
        try:
            return self.members[name]
        except KeyError:
            raise ContractError(
                f"the fleet has no member {name!r}; it has: {', '.join(sorted(self.members)) or 'none'}"
            ) from None

    def where(self, resource_name: str) -> dict[str, list[str]]:
        """Member → sizes on which a pod can request ``resource_name`` (empty: no member advertises it)."""
        return dict(self.requestable.get(resource_name, {}))

    @classmethod
    def of(
        cls, name: str, location: str, hub: bool, members: list[FleetMemberContract], fleet_id: Any = None
    ) -> FleetContract:
        """The view with its indexes (groups, regions, requestable) computed from the members."""
        groups: dict[str, list[str]] = {}
        regions: dict[str, list[str]] = {}
        requestable: dict[str, dict[str, list[str]]] = {}
        for m in members:
            if m.group is not None:
                groups.setdefault(m.group, []).append(m.name)
            regions.setdefault(m.region, []).append(m.name)
            for pool in m.pools:
                for resource in pool.gpu_resources:
                    sizes = requestable.setdefault(resource, {}).setdefault(m.name, [])
                    if pool.vm_size not in sizes:
                        sizes.append(pool.vm_size)
        return cls(name, location, hub, {m.name: m for m in members}, groups, regions, requestable, fleet_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "fleetId": self.fleet_id,
            "location": self.location,
            "hub": self.hub,
            "members": {n: m.to_dict() for n, m in self.members.items()},
            "groups": {g: list(ms) for g, ms in self.groups.items()},
            "regions": {r: list(ms) for r, ms in self.regions.items()},
            "requestable": {res: {m: list(sizes) for m, sizes in by.items()} for res, by in self.requestable.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FleetContract:
        def lists(value: Any) -> dict[str, list[str]]:
            return {str(k): [str(x) for x in v or []] for k, v in (value or {}).items()}

        return cls(
            name=str(data["name"]),
            fleet_id=str(data["fleetId"]) if data.get("fleetId") is not None else None,
            location=str(data.get("location", "")),
            hub=bool(data.get("hub", False)),
            members={str(n): FleetMemberContract.from_dict(str(n), m) for n, m in (data.get("members") or {}).items()},
            groups=lists(data.get("groups")),
            regions=lists(data.get("regions")),
            requestable={str(r): lists(by) for r, by in (data.get("requestable") or {}).items()},
        )


@dataclass(frozen=True, slots=True)
class PlatformContract:
    contract_version: str
    environment: str
    location: str
    resource_group_name: str
    cluster_name: str
    cluster_id: str
    kubernetes_version: str
    oidc_issuer_url: str | None
    gpu_pools: dict[str, GpuPoolContract] = field(default_factory=dict)
    gpu_operator_version: str | None = None
    device_plugin_version: str | None = None
    kaito_workspaces: dict[str, KaitoWorkspaceContract] = field(default_factory=dict)
    databricks: DatabricksContract | None = None
    gpu_node_pools: dict[str, NapGpuPoolContract] = field(default_factory=dict)
    monitoring_workspace_id: str | None = None
    """The Azure Monitor workspace GPU metrics go to (``monitoring.enabled``)."""
    alert_action_group_id: str | None = None
    """The action group the GPU alerts notify."""
    network: NetworkContract | None = None
    """Subnets, outbound type, private or public API server (``None``: a stack older than this key)."""

    def node_pool(self, name: str) -> NapGpuPoolContract:
        try:
            return self.gpu_node_pools[name]
        except KeyError:
            raise ContractError(
                f"the platform stack has no GPU NodePool {name!r}; it has: "
                f"{', '.join(sorted(self.gpu_node_pools)) or 'none'}"
            ) from None

    def kaito_workspace(self, name: str) -> KaitoWorkspaceContract:
        try:
            return self.kaito_workspaces[name]
        except KeyError:
            raise ContractError(
                f"the platform stack has no KAITO workspace {name!r}; it has: "
                f"{', '.join(sorted(self.kaito_workspaces)) or 'none'}"
            ) from None

    def pool(self, name: str) -> GpuPoolContract:
        try:
            return self.gpu_pools[name]
        except KeyError:
            raise ContractError(
                f"the platform stack has no GPU pool {name!r}; it has: {', '.join(sorted(self.gpu_pools)) or 'none'}"
            ) from None


def _check_version(outputs: Mapping[str, Any], source: str) -> Any:
    version = outputs.get("contractVersion")
    if version is None:
        raise ContractError(f"{source} exports no contractVersion: it is not an azure-gpu-platform stack")
    if str(version).split(".")[0] != CONTRACT_VERSION:
        raise ContractError(
            f"{source} speaks output contract version {version}; this helper understands version "
            f"{CONTRACT_VERSION}. Upgrade the consumer (or pin the platform stack) so both agree."
        )
    return version


def parse_contract(outputs: Mapping[str, Any], *, source: str = "the referenced stack") -> PlatformContract:
    """Typed contract from raw stack outputs. Raises :class:`ContractError` on a missing or foreign version."""
    version = _check_version(outputs, source)
    missing = [k for k in ("clusterName", "clusterId", "resourceGroupName", "gpuPools") if k not in outputs]
    if missing and "fleet" in outputs:
        raise ContractError(
            f"{source} is a fleet stack: it exports one contract per member (members) and the fleet view (fleet); "
            "read a member's with PlatformStackReference.member(<name>)"
        )
    if missing:
        raise ContractError(f"{source} is missing contract outputs: {', '.join(missing)}")
    pools = {str(name): GpuPoolContract.from_dict(str(name), data) for name, data in outputs["gpuPools"].items()}
    return PlatformContract(
        contract_version=str(version),
        environment=str(outputs.get("environment", "")),
        location=str(outputs.get("location", "")),
        resource_group_name=str(outputs["resourceGroupName"]),
        cluster_name=str(outputs["clusterName"]),
        cluster_id=str(outputs["clusterId"]),
        kubernetes_version=str(outputs.get("kubernetesVersion", "")),
        oidc_issuer_url=outputs.get("oidcIssuerUrl"),
        gpu_pools=pools,
        gpu_operator_version=outputs.get("gpuOperatorVersion"),
        device_plugin_version=outputs.get("devicePluginVersion"),
        kaito_workspaces={
            str(n): KaitoWorkspaceContract.from_dict(w) for n, w in (outputs.get("kaitoWorkspaces") or {}).items()
        },
        databricks=DatabricksContract.from_dict(outputs["databricks"]) if outputs.get("databricks") else None,
        gpu_node_pools={
            str(n): NapGpuPoolContract.from_dict(str(n), p) for n, p in (outputs.get("gpuNodePools") or {}).items()
        },
        monitoring_workspace_id=outputs.get("monitoringWorkspaceId"),
        alert_action_group_id=outputs.get("alertActionGroupId"),
        network=NetworkContract.from_dict(outputs["network"]) if outputs.get("network") else None,
    )


def parse_fleet(outputs: Mapping[str, Any], *, source: str = "the referenced stack") -> FleetContract:
    """The fleet view of a fleet stack's outputs. Raises :class:`ContractError` on a missing or foreign version, or on
    a stack without a fleet."""
    _check_version(outputs, source)
    if not outputs.get("fleet"):
        raise ContractError(f"{source} exports no fleet: it is a single-cluster stack (read it with .contract)")
    return FleetContract.from_dict(outputs["fleet"])


def parse_member(outputs: Mapping[str, Any], member: str, *, source: str = "the referenced stack") -> PlatformContract:
    """One member's contract from a fleet stack's outputs (``members[member]``)."""
    _check_version(outputs, source)
    members = outputs.get("members") or {}
    if member not in members:
        raise ContractError(f"{source} has no fleet member {member!r}; it has: {', '.join(sorted(members)) or 'none'}")
    return parse_contract(
        {**members[member], "contractVersion": outputs["contractVersion"]}, source=f"{source} member {member}"
    )


class PlatformStackReference:
    """Typed access to a platform stack's outputs from another Pulumi program.

    ``ref = PlatformStackReference("my-org/azure-gpu-platform/prod")``;
    ``ref.contract`` → ``Output[PlatformContract]``, ``ref.gpu_pool("a100")`` → ``Output[GpuPoolContract]``,
    ``ref.kubeconfig`` → ``Output[str]`` (secret).
    """

    def __init__(self, stack_name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        self.stack_name = stack_name
        self.reference = pulumi.StackReference(stack_name, opts=opts)

    @property
    def contract(self) -> pulumi.Output[PlatformContract]:
        values = {key: self.reference.get_output(key) for key in _SCALAR_KEYS}
        source = f"stack {self.stack_name}"
        return pulumi.Output.all(**values).apply(lambda raw: parse_contract(_present(raw), source=source))

    def gpu_pool(self, name: str) -> pulumi.Output[GpuPoolContract]:
        return self.contract.apply(lambda c: c.pool(name))

    def _fleet_outputs(self) -> pulumi.Output[dict[str, Any]]:
        values = {key: self.reference.get_output(key) for key in FLEET_KEYS}
        return pulumi.Output.all(**values).apply(_present)

    @property
    def fleet(self) -> pulumi.Output[FleetContract]:
        """A fleet stack's fleet view: members, regions, groups, what a pod can request where."""
        source = f"stack {self.stack_name}"
        return self._fleet_outputs().apply(lambda raw: parse_fleet(raw, source=source))

    def member(self, name: str) -> pulumi.Output[PlatformContract]:
        """One member's contract of a fleet stack (the single-cluster contract, per member)."""
        source = f"stack {self.stack_name}"
        return self._fleet_outputs().apply(lambda raw: parse_member(raw, name, source=source))

    def member_kubeconfig(self, name: str) -> pulumi.Output[str]:
        """A fleet member's user kubeconfig, kept secret."""
        configs = self.reference.require_output("memberKubeconfigs")
        return pulumi.Output.secret(configs.apply(lambda c: str(c[name])))

    @property
    def kubeconfig(self) -> pulumi.Output[str]:
        """The user kubeconfig, kept secret."""
        return pulumi.Output.secret(self.reference.require_output("kubeconfig"))


def _present(raw: Mapping[str, Any]) -> dict[str, Any]:
    # get_output yields None for an output the stack does not export; parse_contract wants those absent.
    return {k: v for k, v in raw.items() if v is not None}
