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

:class:`NapGpuPoolArgs` is the NodePool's spec (:class:`rules.specs.NapGpuNodePool`: its fields, its defaults resolved
once, its checklist) refusing its findings when built (size rules, GPU limit, driver mode against the operator,
sharing, taints, enum values from ``gpu_catalog/facts/karpenter.json``; with ``kubernetes_version``, the image family's
node OS end of support and the operator's validated platforms): it raises
:class:`~components.validation.InvalidArgsError` before anything is registered. ``sizes``, ``series`` and
``gpu_models`` resolve into the sizes the NodePool allows on the Args' day (``node_sizes``, cheapest first), as from a
stack file and the component package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import date
from typing import Any

import pulumi

from gpu_catalog import GpuSize, clock, default_catalog
from gpu_catalog.karpenter import load_karpenter_facts
from rules import Finding
from rules.aks import parse_taint
from rules.karpenter import CAPACITY_TYPE, GPU_RESOURCE, SKU_NAME, ZONE
from rules.node_stack import (
    EXTERNAL,
    GpuNode,
    NodeStack,
    advisories,
    platform_node_stack,
    refused,
)
from rules.specs import NapGpuNodePool

from .contract import NapGpuPoolContract, Scheduling
from .pool_scheduling import (
    POOL_LABEL,
    SharedPool,
    base_node_labels,
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
class NapGpuPoolArgs(NapGpuNodePool):
    """One NAP GPU NodePool from Python: the NodePool's spec (:class:`rules.specs.NapGpuNodePool`: its fields and
    their defaults, resolved once), refusing its findings when built (module docstring)."""

    today: date | None = field(default=None, compare=False, repr=False)
    """The day the rules are checked on (the platform build passes the stack's); ``None``:
    :func:`gpu_catalog.clock.today`, read once when the Args are built."""
    node_sizes: tuple[str, ...] = field(default=(), init=False, compare=False, repr=False)
    """The ``sku-name`` values the NodePool allows (:meth:`NapGpuNodePool.allowed_sizes` on the Args' day)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        day = self.today or clock.today()
        object.__setattr__(self, "today", day)
        refuse_findings(COMPONENT, self.name, refused(self.findings(today=day)), _FIELDS)
        object.__setattr__(self, "node_sizes", self.allowed_sizes(today=day))

    @classmethod
    def of(cls, spec: NapGpuNodePool, *, today: date | None = None) -> NapGpuPoolArgs:
        """A spec built elsewhere (the stack config's), checked as the component's Args."""
        if isinstance(spec, NapGpuPoolArgs):
            return spec
        return cls(**{f.name: getattr(spec, f.name) for f in fields(NapGpuNodePool)}, today=today)

    def node_stack(self) -> NodeStack:
        """The software stack of the pool's nodes, for the smallest allowed size (:mod:`rules.node_stack`)."""
        gpus = min((max(int(s.gpu_count), 1) for s in _sizes(self)), default=1)
        return platform_node_stack(
            GpuNode(
                where=self.name,
                os="Linux",
                gpus=gpus,
                taints=self.node_taints,
                labels=node_labels(self),
                driver="operator" if self.driver_skipped else "aks",
            ),
            manager=self.manager,
            mig_strategy="single" if self.manager is not None else "none",
            sharing=self.sharing,
            kaito_addon=self.kaito_addon,
        )


def nap_pool_findings(args: NapGpuPoolArgs) -> list[Finding]:
    """Every guard rail the NodePool breaks on the Args' day (:meth:`rules.specs.NapGpuNodePool.findings`, the
    checklist the stack config runs)."""
    return args.findings(today=args.today or clock.today())


def _sizes(args: NapGpuPoolArgs) -> list[GpuSize]:
    cat = default_catalog()
    return [s for s in (cat.lookup(n) for n in args.node_sizes) if s is not None]


def node_labels(args: NapGpuPoolArgs) -> dict[str, str]:
    return base_node_labels(
        args.labels,
        args.name,
        plugin_managed=args.manager is not None,
        sharing=args.sharing,
        external_plugin=args.manager == EXTERNAL,
    )


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
        {"key": SKU_NAME, "operator": "In", "values": list(args.node_sizes)},
        {"key": CAPACITY_TYPE, "operator": "In", "values": list(args.capacity_types)},
    ]
    if args.zones:
        requirements.append({"key": ZONE, "operator": "In", "values": [f"{args.location}-{z}" for z in args.zones]})
    taints = []
    for taint in args.node_taints:
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
        tolerations=taint_tolerations(args.node_taints),
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
        sizes=list(args.node_sizes),
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
        for finding in advisories(nap_pool_findings(args)):
            pulumi.log.warn(f"{COMPONENT} '{args.name}': {finding.message}", resource=self)
        self.register_outputs({"nodePool": args.name, "sizes": list(args.node_sizes), "maxGpus": args.gpu_limit})
