"""The output contract other teams build on, and a typed consumer for it.

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
``databricks``        ``{workspaceUrl, clusters: {<name>: {clusterId, nodeTypeId, driverNodeTypeId, gpusPerWorker,``
                      ``workload, tasksPerGpu, sparkVersion}}, clusterPolicyId}``, or ``null`` without Databricks;
                      ``clusterPolicyId``: the GPU cluster policy (``databricks.clusterPolicy``) other teams' clusters
                      can use, ``null`` without one (added in version 1: additive)
===================== ===========================================================================================

No Pulumi provider imports here: only ``pulumi`` itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import pulumi

CONTRACT_VERSION = "1"

SharingMode = Literal["none", "timeSlicing", "mps"]

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
    "monitoringWorkspaceId",
    "alertActionGroupId",
)
"""Every non-secret output of the contract (``kubeconfig`` is read separately, as a secret)."""


class ContractError(ValueError):
    """The referenced stack does not export a contract this helper understands."""


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str
    operator: Literal["Equal", "Exists"]
    effect: str
    value: str | None = None

    def to_dict(self) -> dict[str, str]:
        out = {"key": self.key, "operator": self.operator, "effect": self.effect}
        if self.value is not None:
            out["value"] = self.value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Toleration:
        return cls(
            key=str(data["key"]),
            operator=data.get("operator", "Equal"),
            effect=str(data["effect"]),
            value=data.get("value"),
        )


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
        return {
            "nodeSelector": dict(self.node_selector),
            "tolerations": [t.to_dict() for t in self.tolerations],
            "resourceName": self.resource_name,
            "sharing": self.sharing,
            "replicas": self.replicas,
            "mpsActiveThreadPercentage": self.mps_active_thread_percentage,
            "allocatablePerNode": self.allocatable_per_node,
            "devicePlugin": self.device_plugin,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scheduling:
        pct = data.get("mpsActiveThreadPercentage")
        return cls(
            node_selector={str(k): str(v) for k, v in (data.get("nodeSelector") or {}).items()},
            tolerations=[Toleration.from_dict(t) for t in data.get("tolerations") or []],
            resource_name=str(data["resourceName"]),
            sharing=data.get("sharing", "none"),
            replicas=int(data.get("replicas", 1)),
            mps_active_thread_percentage=int(pct) if pct is not None else None,
            allocatable_per_node=int(data.get("allocatablePerNode", 1)),
            device_plugin=data.get("devicePlugin"),
        )


@dataclass(frozen=True, slots=True)
class GpuPoolContract:
    name: str
    azure_name: str
    vm_size: str
    gpu_model: str
    gpus_per_node: int
    os: str
    driver: str
    scheduling: Scheduling
    mig_profile: str | None = None
    spot: bool = False
    min_count: int | None = None
    max_count: int | None = None
    count: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "azureName": self.azure_name,
            "vmSize": self.vm_size,
            "gpuModel": self.gpu_model,
            "gpusPerNode": self.gpus_per_node,
            "os": self.os,
            "driver": self.driver,
            "migProfile": self.mig_profile,
            "spot": self.spot,
            "minCount": self.min_count,
            "maxCount": self.max_count,
            "count": self.count,
            "scheduling": self.scheduling.to_dict(),
        }

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any]) -> GpuPoolContract:
        def opt_int(key: str) -> int | None:
            value = data.get(key)
            return int(value) if value is not None else None

        return cls(
            name=name,
            azure_name=str(data["azureName"]),
            vm_size=str(data["vmSize"]),
            gpu_model=str(data["gpuModel"]),
            gpus_per_node=int(data["gpusPerNode"]),
            os=str(data.get("os", "Linux")),
            driver=str(data.get("driver", "aks")),
            mig_profile=data.get("migProfile"),
            spot=bool(data.get("spot", False)),
            min_count=opt_int("minCount"),
            max_count=opt_int("maxCount"),
            count=opt_int("count"),
            scheduling=Scheduling.from_dict(data["scheduling"]),
        )


@dataclass(frozen=True, slots=True)
class NapGpuPoolContract:
    """A node auto-provisioning GPU NodePool: Karpenter creates nodes of one of ``sizes`` for pending pods that
    select and tolerate it, from zero nodes up to ``max_gpus`` GPUs."""

    name: str
    node_pool: str
    """The Karpenter NodePool's name (nodes carry ``karpenter.sh/nodepool: <node_pool>``)."""
    sizes: list[str]
    gpu_models: list[str]
    capacity_types: list[str]
    driver: str
    max_gpus: int
    scheduling: Scheduling

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodePool": self.node_pool,
            "sizes": list(self.sizes),
            "gpuModels": list(self.gpu_models),
            "capacityTypes": list(self.capacity_types),
            "driver": self.driver,
            "maxGpus": self.max_gpus,
            "minNodes": 0,
            "scheduling": self.scheduling.to_dict(),
        }

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any]) -> NapGpuPoolContract:
        return cls(
            name=name,
            node_pool=str(data.get("nodePool", name)),
            sizes=[str(s) for s in data.get("sizes") or []],
            gpu_models=[str(m) for m in data.get("gpuModels") or []],
            capacity_types=[str(c) for c in data.get("capacityTypes") or []],
            driver=str(data.get("driver", "aks")),
            max_gpus=int(data["maxGpus"]),
            scheduling=Scheduling.from_dict(data["scheduling"]),
        )


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
        return {
            "workspace": self.workspace,
            "namespace": self.namespace,
            "preset": self.preset,
            "instanceType": self.instance_type,
            "count": self.count,
            "service": self.service,
            "port": self.port,
            "endpoint": self.endpoint,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KaitoWorkspaceContract:
        return cls(
            workspace=str(data["workspace"]),
            namespace=str(data["namespace"]),
            preset=str(data["preset"]),
            instance_type=str(data["instanceType"]),
            count=int(data["count"]),
            service=str(data["service"]),
            port=int(data["port"]),
            endpoint=str(data["endpoint"]),
        )


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


def parse_contract(outputs: Mapping[str, Any], *, source: str = "the referenced stack") -> PlatformContract:
    """Typed contract from raw stack outputs. Raises :class:`ContractError` on a missing or foreign version."""
    version = outputs.get("contractVersion")
    if version is None:
        raise ContractError(f"{source} exports no contractVersion: it is not an azure-gpu-platform stack")
    if str(version).split(".")[0] != CONTRACT_VERSION:
        raise ContractError(
            f"{source} speaks output contract version {version}; this helper understands version "
            f"{CONTRACT_VERSION}. Upgrade the consumer (or pin the platform stack) so both agree."
        )
    missing = [k for k in ("clusterName", "clusterId", "resourceGroupName", "gpuPools") if k not in outputs]
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

    @property
    def kubeconfig(self) -> pulumi.Output[str]:
        """The user kubeconfig, kept secret."""
        return pulumi.Output.secret(self.reference.require_output("kubeconfig"))


def _present(raw: Mapping[str, Any]) -> dict[str, Any]:
    # get_output yields None for an output the stack does not export; parse_contract wants those absent.
    return {k: v for k, v in raw.items() if v is not None}
