"""``NapGpuPool``: GPU nodes from AKS node auto-provisioning (NAP): a Karpenter ``NodePool`` and its ``AKSNodeClass``.

``NapGpuPool(name, NapGpuPoolArgs(...), provider=<the cluster's Kubernetes provider>)`` registers two custom
resources through the cluster's Kubernetes provider (cluster-scoped, no namespace):

- ``karpenter.azure.com/v1beta1`` ``AKSNodeClass`` ``<pool>``: ``gpu.mode`` ``None`` when the GPU operator installs
  the driver (``Driver``, AKS's default, otherwise), the image family and OS disk when set, the platform's Azure tags;
- ``karpenter.sh/v1`` ``NodePool`` ``<pool>``: ``nodeClassRef`` to it; requirements ``karpenter.azure.com/sku-name``
  ``In`` the pool's sizes (resolved through the GPU catalog; every one passed the size rules),
  ``karpenter.sh/capacity-type`` and, when zones are set, ``topology.kubernetes.io/zone`` (``<region>-<n>``); the
  GPU taint (``nvidia.com/gpu=present:NoSchedule`` by default); template labels ``azure-gpu-platform/pool: <pool>``
  (the output contract's node selector) and, when the pool shares GPUs, ``nvidia.com/device-plugin.config: <pool>``
  (the GPU operator's device plugin picks its sharing config from it); ``limits["nvidia.com/gpu"]`` (required: the
  most GPUs the pool's nodes may hold); ``disruption`` (``WhenEmpty`` after ``5m`` by default: idle GPU nodes go,
  busy ones are never repacked).

The pool scales from zero: Karpenter chooses a size when a pod that selects and tolerates the pool is pending and
requests ``nvidia.com/gpu``; it does not need a node of the pool to exist to know what the pod needs, so the cluster
autoscaler's ``minCount ≥ 1`` rule for GPU-operator pools (Azure/AKS #2832) does not apply. The GPU operator
tolerates the pool's taints and manages its nodes like any other Linux GPU node (node-feature-discovery finds the
GPUs); on ``gpu.mode: None`` nodes it installs the driver.

:class:`NapGpuPoolArgs` checks itself when built (size rules, GPU limit, driver mode against the operator, sharing,
taints, enum values from ``gpu_catalog/facts/karpenter.json``; with ``kubernetes_version``, the image family's node OS
end of support and the operator's validated platforms) and raises
:class:`~components.validation.InvalidArgsError` before anything is registered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

from gpu_catalog import GpuSize, clock, default_catalog
from gpu_catalog.karpenter import load_karpenter_facts
from rules import Finding
from rules.aks import DEFAULT_GPU_TAINT, parse_taint
from rules.checklists import NapGpuPoolFacts, nap_gpu_pool
from rules.karpenter import (
    CAPACITY_TYPE,
    DEFAULT_CAPACITY_TYPES,
    DEFAULT_CONSOLIDATE_AFTER,
    DEFAULT_CONSOLIDATION_POLICY,
    GPU_RESOURCE,
    SKU_NAME,
    ZONE,
)
from rules.node_stack import (
    DEVICE_PLUGIN_CHART,
    EXTERNAL,
    GPU_OPERATOR,
    GpuNode,
    NodeStack,
    platform_node_stack,
)
from rules.sizes import DEFAULT_FLOOR

from .contract import NapGpuPoolContract, Scheduling
from .pool_scheduling import (
    POOL_LABEL,
    GpuSharing,
    PoolDevicePlugin,
    PoolGpuOperator,
    SharedPool,
    base_node_labels,
    rule_sharing,
    shared_scheduling,
    taint_tolerations,
)
from .validation import refuse_findings

FACTS = load_karpenter_facts()
TYPE_TOKEN = "azure-gpu-platform:components:NapGpuPool"
COMPONENT = "NapGpuPool"
NODE_CLASS_TYPE = f"kubernetes:{FACTS.node_class_api_version}:{FACTS.node_class_kind}"

_FIELDS = {
    "limits": "gpu_limit",
    "driver": "driver_skipped",
    "capacityTypes": "capacity_types",
    "imageFamily": "image_family",
    "consolidationPolicy": "consolidation_policy",
    "sharing.timeSlicing.replicas": "sharing",
    "sharing.mps.replicas": "sharing",
}
"""A rule's field → the :class:`NapGpuPoolArgs` field; the others have the same name."""


@dataclass(frozen=True)
class NapGpuPoolArgs:
    """One NAP GPU NodePool, resolved. Checks itself when built (module docstring)."""

    name: str
    """The NodePool's and AKSNodeClass's name, and the value of the ``azure-gpu-platform/pool`` label."""
    sizes: tuple[str, ...]
    """``karpenter.azure.com/sku-name`` values Karpenter may choose from."""
    gpu_limit: int
    """``spec.limits["nvidia.com/gpu"]``."""
    location: str
    """The cluster's region (zone values are ``<location>-<zone>``)."""
    capacity_types: tuple[str, ...] = DEFAULT_CAPACITY_TYPES
    zones: tuple[str, ...] = ()
    driver_skipped: bool = False
    """``gpu.mode: None``: the GPU operator installs the driver."""
    sharing: GpuSharing | None = None
    taints: tuple[str, ...] = (DEFAULT_GPU_TAINT,)
    labels: Mapping[str, str] = field(default_factory=dict)
    image_family: str | None = None
    os_disk_size_gb: int | None = None
    consolidation_policy: str = DEFAULT_CONSOLIDATION_POLICY
    consolidate_after: str = DEFAULT_CONSOLIDATE_AFTER
    budgets: Sequence[Mapping[str, Any]] = ()
    expire_after: str | None = None
    weight: int | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    """Azure tags of the VMs NAP creates (AKSNodeClass ``tags``)."""
    gpu_operator: PoolGpuOperator | None = None
    device_plugin: PoolDevicePlugin | None = None
    """The nvidia-device-plugin chart on the cluster (when the GPU operator is off)."""
    external_device_plugin: bool = False
    """A device plugin installed outside this program serves the NodePool (see ``GpuPoolSpec``)."""
    kaito_addon: bool = False
    """The cluster runs the KAITO add-on (its device-plugin DaemonSet lands where it tolerates the taints)."""
    gpu_floor: str = DEFAULT_FLOOR
    kubernetes_version: str | None = None
    """The cluster's Kubernetes version (NAP nodes run the control plane's). With it, the checklist refuses an
    ``image_family`` past its node OS end of support on that version (``gpu_catalog/facts/aks_node_os.json``) and,
    with ``gpu_operator``, an image family NVIDIA does not validate the operator on for that version."""

    def __post_init__(self) -> None:
        refuse_findings(COMPONENT, self.name, nap_pool_findings(self), _FIELDS)

    @property
    def operator_managed(self) -> bool:
        return self.gpu_operator is not None

    @property
    def manager(self) -> str | None:
        """The device plugin the platform deploys for the pool's nodes (:attr:`GpuPoolSpec.manager`)."""
        if self.gpu_operator is not None:
            return GPU_OPERATOR
        if self.device_plugin is not None:
            return DEVICE_PLUGIN_CHART
        return EXTERNAL if self.external_device_plugin else None

    def node_stack(self) -> NodeStack:
        """The software stack of the pool's nodes, for the smallest allowed size (:mod:`rules.node_stack`)."""
        gpus = min((max(int(s.gpu_count), 1) for s in _sizes(self)), default=1)
        return platform_node_stack(
            GpuNode(
                where=self.name,
                os="Linux",
                gpus=gpus,
                taints=self.taints,
                labels=node_labels(self),
                driver="operator" if self.driver_skipped else "aks",
            ),
            manager=self.manager,
            mig_strategy="single" if self.manager is not None else "none",
            sharing=rule_sharing(self.sharing),
            kaito_addon=self.kaito_addon,
        )

    @property
    def gpu_mode(self) -> str:
        return "None" if self.driver_skipped else "Driver"


def nap_pool_findings(args: NapGpuPoolArgs) -> list[Finding]:
    """Every guard rail the NodePool breaks: its checklist (:func:`rules.checklists.nap_gpu_pool`, the one the stack
    config runs), on :func:`gpu_catalog.clock.today`."""
    operator = args.gpu_operator
    return nap_gpu_pool(
        NapGpuPoolFacts(
            name=args.name,
            sizes=args.sizes,
            gpu_limit=args.gpu_limit,
            capacity_types=args.capacity_types,
            image_family=args.image_family,
            consolidation_policy=args.consolidation_policy,
            driver_skipped=args.driver_skipped,
            sharing=rule_sharing(args.sharing),
            taints=args.taints,
            labels=args.labels,
            gpu_floor=args.gpu_floor,
            operator=operator.facts if operator is not None else None,
            operator_version=operator.version if operator is not None else None,
            kubernetes_version=args.kubernetes_version,
            manager=args.manager,
            mig_strategy=operator.mig_strategy if operator is not None else "single",
            kaito_addon=args.kaito_addon,
            missing_plugin_fix="Enable the GPU operator or the nvidia-device-plugin chart for the NodePool.",
        ),
        today=clock.today(),
    )


def _sizes(args: NapGpuPoolArgs) -> list[GpuSize]:
    cat = default_catalog()
    return [s for s in (cat.lookup(n) for n in args.sizes) if s is not None]


def node_labels(args: NapGpuPoolArgs) -> dict[str, str]:
    return base_node_labels(args.labels, args.name, plugin_managed=args.manager is not None, sharing=args.sharing)


def node_class_manifest(args: NapGpuPoolArgs) -> dict[str, Any]:
    """The AKSNodeClass's metadata and spec, as the engine receives them."""
    spec: dict[str, Any] = {"gpu": {"mode": args.gpu_mode}}
    if args.image_family is not None:
        spec["imageFamily"] = args.image_family
    if args.os_disk_size_gb is not None:
        spec["osDiskSizeGB"] = args.os_disk_size_gb
    if args.tags:
        spec["tags"] = dict(args.tags)
    return {"metadata": {"name": args.name, "labels": {"app.kubernetes.io/managed-by": "pulumi"}}, "spec": spec}


def node_pool_manifest(args: NapGpuPoolArgs) -> dict[str, Any]:
    """The NodePool's metadata and spec, as the engine receives them."""
    requirements: list[dict[str, Any]] = [
        {"key": SKU_NAME, "operator": "In", "values": list(args.sizes)},
        {"key": CAPACITY_TYPE, "operator": "In", "values": list(args.capacity_types)},
    ]
    if args.zones:
        requirements.append({"key": ZONE, "operator": "In", "values": [f"{args.location}-{z}" for z in args.zones]})
    taints = []
    for taint in args.taints:
        parsed = parse_taint(taint)
        if parsed is not None:
            key, value, effect = parsed
            taints.append({"key": key, "effect": effect, **({"value": value} if value else {})})
    template_spec: dict[str, Any] = {
        "nodeClassRef": {"group": FACTS.node_class_group, "kind": FACTS.node_class_kind, "name": args.name},
        "requirements": requirements,
        "taints": taints,
    }
    if args.expire_after is not None:
        template_spec["expireAfter"] = args.expire_after
    disruption: dict[str, Any] = {
        "consolidationPolicy": args.consolidation_policy,
        "consolidateAfter": args.consolidate_after,
    }
    if args.budgets:
        disruption["budgets"] = [dict(b) for b in args.budgets]
    spec: dict[str, Any] = {
        "template": {"metadata": {"labels": node_labels(args)}, "spec": template_spec},
        "limits": {GPU_RESOURCE: str(karpenter_gpu_units(args))},
        "disruption": disruption,
    }
    if args.weight is not None:
        spec["weight"] = args.weight
    return {"metadata": {"name": args.name, "labels": {"app.kubernetes.io/managed-by": "pulumi"}}, "spec": spec}


def karpenter_gpu_units(args: NapGpuPoolArgs) -> int:
    """``limits["nvidia.com/gpu"]`` in the units Karpenter counts: a running node counts what its device plugin
    advertises (time-slicing / MPS replicas included), a node still launching counts its physical GPUs
    (kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/state/statenode.go`` ``Capacity()``; karpenter-provider-azure
    v1.14.2 ``instancetype.go`` sizes instance types by physical GPUs, issue kubernetes-sigs/karpenter #729). So a
    shared pool's limit is ``gpu_limit`` × replicas: at steady state it holds ``gpu_limit`` physical GPUs, and in a
    burst of new nodes (each pod taken to need a whole GPU) up to ``gpu_limit`` × replicas physical GPUs."""
    return args.gpu_limit * (args.sharing.replicas if args.sharing is not None else 1)


def scheduling(args: NapGpuPoolArgs) -> Scheduling:
    """Node selector, tolerations and the resource a pod requests to land on the pool, read off the node stack.
    ``allocatable_per_node`` is what the smallest allowed size advertises (Karpenter may choose a larger one)."""
    stack = args.node_stack()
    shared = shared_scheduling(GPU_RESOURCE, args.sharing)
    advertised = stack.advertised[0] if stack.advertised else None
    return Scheduling(
        node_selector={POOL_LABEL: args.name},
        tolerations=taint_tolerations(args.taints),
        resource_name=advertised.resource if advertised is not None else GPU_RESOURCE,
        sharing=shared.mode,
        replicas=shared.replicas,
        mps_active_thread_percentage=shared.mps_active_thread_percentage,
        allocatable_per_node=advertised.per_node if advertised is not None else 0,
        device_plugin=stack.plugins[0].plugin if len(stack.plugins) == 1 else None,
    )


def pool_contract(args: NapGpuPoolArgs) -> NapGpuPoolContract:
    return NapGpuPoolContract(
        name=args.name,
        node_pool=args.name,
        sizes=list(args.sizes),
        gpu_models=sorted({s.gpu_model for s in _sizes(args)}),
        capacity_types=list(args.capacity_types),
        driver="operator" if args.driver_skipped else "aks",
        max_gpus=args.gpu_limit,
        scheduling=scheduling(args),
    )


class NapGpuPool(pulumi.ComponentResource):
    """A Karpenter GPU NodePool and its AKSNodeClass on a cluster with node auto-provisioning on."""

    args: NapGpuPoolArgs
    contract: NapGpuPoolContract
    shared: SharedPool | None
    """The device plugin config the GPU operator renders for the pool (``None`` without sharing)."""

    def __init__(
        self,
        name: str,
        args: NapGpuPoolArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        provider: pulumi.ProviderResource,
        depends_on: Sequence[pulumi.Resource] = (),
    ) -> None:
        from pulumi_kubernetes.apiextensions import CustomResource

        super().__init__(TYPE_TOKEN, name, None, opts)
        self.args = args
        self.contract = pool_contract(args)
        self.shared = (
            SharedPool(resource_name=GPU_RESOURCE, sharing=args.sharing)
            if args.sharing is not None and args.manager is not None
            else None
        )
        node_class = node_class_manifest(args)
        self.node_class = CustomResource(
            f"{name}-nodeclass",
            api_version=FACTS.node_class_api_version,
            kind=FACTS.node_class_kind,
            metadata=node_class["metadata"],
            spec=node_class["spec"],
            opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=list(depends_on) or None),
        )
        node_pool = node_pool_manifest(args)
        self.node_pool = CustomResource(
            f"{name}-nodepool",
            api_version=FACTS.node_pool_api_version,
            kind="NodePool",
            metadata=node_pool["metadata"],
            spec=node_pool["spec"],
            opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[*depends_on, self.node_class]),
        )
        self.register_outputs({"nodePool": args.name, "sizes": list(args.sizes), "maxGpus": args.gpu_limit})
