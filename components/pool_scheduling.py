"""What the two GPU pool components share (``GpuNodePool``'s agent pools and ``NapGpuPool``'s NodePools): the pool
label, the spot taint, GPU sharing and what it changes in what a pod requests, the cluster software a pool sees (the
GPU operator, the nvidia-device-plugin chart), tolerations for a pool's taints and its base node labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from rules.aks import sharing_replicas
from rules.node_stack import DEVICE_PLUGIN_CONFIG_LABEL as _CONFIG_LABEL
from rules.node_stack import EXTERNAL_PLUGIN_LABEL, EXTERNAL_PLUGIN_VALUE, Sharing
from rules.node_stack import taint_tolerations as _rule_tolerations
from rules.specs.pool_software import MigStrategy, PoolDevicePlugin, PoolGpuOperator

from .contract import Toleration
from .validation import refuse_findings

POOL_LABEL = "azure-gpu-platform/pool"
"""Node label carrying the logical pool name: stable across replacements (the Azure name is not)."""
DEVICE_PLUGIN_CONFIG_LABEL = _CONFIG_LABEL
"""The device plugin (the GPU operator's or the chart's) picks its named config (time-slicing/MPS) by this label."""
SPOT_TAINT_TEXT = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
"""AKS adds this taint to every spot pool."""
SPOT_TAINT = Toleration(
    key="kubernetes.azure.com/scalesetpriority", operator="Equal", value="spot", effect="NoSchedule"
)
"""What tolerates :data:`SPOT_TAINT_TEXT`."""


@dataclass(frozen=True)
class GpuSharing(Sharing):
    """GPU sharing on a pool (the device plugin renders it): time-slicing or MPS, ``replicas`` workloads per physical
    GPU, ``rename_by_default``: advertise the shared GPUs as ``<resource>.shared`` (``nvidia.com/gpu.shared``). The
    spec's :class:`rules.node_stack.Sharing`, refusing a replica count outside the rule's bounds when built."""

    def __post_init__(self) -> None:
        refuse_findings("GpuSharing", self.mode, sharing_replicas(self.mode, self.replicas), _SHARING_FIELDS)


@dataclass(frozen=True)
class SharedPool:
    """A pool whose GPUs the operator's device plugin shares: the config its ``nvidia.com/device-plugin.config`` label
    selects."""

    resource_name: str
    """What the device plugin advertises before sharing (``nvidia.com/gpu``, ``nvidia.com/mig-3g.40gb``)."""
    sharing: Sharing


_SHARING_FIELDS = {"sharing.timeSlicing.replicas": "replicas", "sharing.mps.replicas": "replicas"}
"""The replica rule's fields (named as in a stack file) → the :class:`GpuSharing` field."""


def rule_sharing(sharing: Sharing | None) -> Sharing | None:
    return Sharing(sharing.mode, sharing.replicas, sharing.rename_by_default) if sharing is not None else None


def taint_tolerations(taints: Sequence[str]) -> list[Toleration]:
    """What a pod (and the GPU operator) needs to tolerate these taints (``key=value:effect`` or ``key:effect``);
    shared by agent pools and NAP NodePools."""
    return [
        Toleration(key=t.key or "", operator=t.operator, effect=t.effect or "NoSchedule", value=t.value)
        for t in _rule_tolerations(taints)
    ]


def base_node_labels(
    labels: Mapping[str, str],
    name: str,
    *,
    plugin_managed: bool,
    sharing: Sharing | None,
    external_plugin: bool = False,
) -> dict[str, str]:
    """A pool's own labels plus the pool label (the contract's node selector) and, when the platform's device plugin
    (the GPU operator's or the chart's) shares its GPUs, the device-plugin config label; shared by agent pools and
    NAP NodePools. ``external_plugin``: a device plugin installed outside the program serves the pool, declared with
    :data:`rules.node_stack.EXTERNAL_PLUGIN_LABEL` so the policy pack sees it too."""
    out = dict(labels)
    out[POOL_LABEL] = name
    if external_plugin:
        out[EXTERNAL_PLUGIN_LABEL] = EXTERNAL_PLUGIN_VALUE
    if plugin_managed and sharing is not None:
        out[DEVICE_PLUGIN_CONFIG_LABEL] = name
    return out


@dataclass(frozen=True)
class SharedScheduling:
    """What sharing changes in what a pod requests: the resource name, workloads per GPU, MPS's thread share."""

    resource_name: str
    replicas: int
    mps_active_thread_percentage: int | None
    mode: Literal["none", "timeSlicing", "mps"]


def shared_scheduling(resource: str, sharing: Sharing | None) -> SharedScheduling:
    """``resource`` (what the device plugin advertises before sharing) as pods request it under ``sharing``:
    ``<resource>.shared`` when renamed, ``replicas`` workloads per GPU, ``100 // replicas`` % of the threads with
    MPS."""
    if sharing is None:
        return SharedScheduling(resource, 1, None, "none")
    renamed = f"{resource}.shared" if sharing.rename_by_default else resource
    mps_pct = 100 // sharing.replicas if sharing.mode == "mps" else None
    return SharedScheduling(renamed, sharing.replicas, mps_pct, sharing.mode)


__all__ = [  # the pool types this module re-exports for the Python API (its own names are public too)
    "MigStrategy",
    "PoolDevicePlugin",
    "PoolGpuOperator",
]
