"""The schema's output object types: a GPU pool's output-contract entry and its scheduling data.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

import typing
from typing import TypedDict

from components.contract import GpuPoolContract, Scheduling, wire_fields
from components.contract import Toleration as ContractToleration


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


OUTPUT_CONTRACT: dict[type, type] = {
    SchedulingToleration: ContractToleration,
    PoolScheduling: Scheduling,
    GpuPoolInfo: GpuPoolContract,
}
"""Each output type here and the output-contract entry (``components/contract.py``) it shows: the contract's dataclass
is the one definition of the keys; these TypedDicts only carry the schema's descriptions, and a test holds their keys
to the dataclass's wire fields."""


def scheduling_output(sched: Scheduling) -> PoolScheduling:
    """The output contract's scheduling data as the schema's :class:`PoolScheduling`: the contract's fields, by name
    (the SDK writes them camelCase, as the contract's own ``to_dict`` does)."""
    out = {f.name: getattr(sched, f.name) for f in wire_fields(Scheduling)}
    out["node_selector"] = dict(sched.node_selector)
    out["tolerations"] = [t.to_dict() for t in sched.tolerations]
    return typing.cast(PoolScheduling, out)
