"""What the stack policies share: the GPU operator Helm releases and the Linux GPU node pools of a stack.

AnalyzeStack hands the policies every resource's *outputs* (in a preview of new resources: the inputs). A stack of
this project deploys one AKS cluster, so a GPU operator release in the stack is taken to manage every Linux GPU pool
in it. Values given only through ``valueYamlFiles`` are not visible to the policies: put ``driver.enabled`` /
``toolkit.enabled`` in ``values``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulumi_policy import PolicyResource, StackValidationArgs

from rules.idle import is_gpu_operator_chart
from rules.resource_types import is_helm_release

from ._resources import (
    UNKNOWN,
    Pool,
    ResourceRef,
    Review,
    as_bool,
    get,
    is_gpu_pool,
    pools_of,
    props_of,
    resource_ref,
    shared_reading,
)


@dataclass(frozen=True, slots=True)
class Operator:
    resource: PolicyResource
    values: dict[str, Any]

    def flag(self, component: str) -> Any:
        """``<component>.enabled`` as a bool (True when unset, the chart default), or UNKNOWN."""
        value = get(self.values, component, "enabled")
        if value is UNKNOWN:
            return UNKNOWN
        parsed = as_bool(value)
        return True if parsed is None else parsed

    @property
    def label(self) -> str:
        return f"GPU operator release '{self.resource.name}'"


@dataclass(frozen=True, slots=True)
class StackPool:
    resource: ResourceRef
    pool: Pool

    def where(self, *keys: str) -> str:
        """``<resource name>.<path>``: stack diagnostics carry the URN, messages name the resource too."""
        return f"{self.resource.name}: {self.pool.path(*keys)}"

    @property
    def label(self) -> str:
        return f"{self.pool.label(self.resource.name)} ({self.pool.size_label})"


def gpu_operators(args: StackValidationArgs, review: Review) -> list[Operator]:
    """Helm releases of the NVIDIA GPU operator chart (``gpu-operator``, ``nvidia/gpu-operator``, an OCI URL)."""
    found: list[Operator] = []
    for resource in args.resources:
        if not is_helm_release(resource.resource_type):
            continue
        props = props_of(resource)
        chart = get(props, "chart")
        if chart is UNKNOWN:
            review.unknown_field(f"{resource.name}: chart")
        elif is_gpu_operator_chart(chart):
            values = get(props, "values")
            if values is UNKNOWN:
                review.unknown_field(f"{resource.name}: values")
                values = {"driver": {"enabled": UNKNOWN}, "toolkit": {"enabled": UNKNOWN}}
            found.append(Operator(resource, values if isinstance(values, dict) else {}))
    return found


def linux_gpu_pools(args: StackValidationArgs, review: Review) -> list[StackPool]:
    """Every Linux node pool with a GPU size (AgentPools and ManagedCluster profiles); unknowns recorded. Read once
    per request and shared by the stack policies that ask (:func:`policies._resources.shared_reading`)."""

    return list(shared_reading(_LINUX_GPU_POOLS, lambda recorder: _linux_gpu_pools(args, recorder), review))


_LINUX_GPU_POOLS = "linux-gpu-pools"


def _linux_gpu_pools(args: StackValidationArgs, review: Review) -> list[StackPool]:
    found: list[StackPool] = []
    for resource in args.resources:
        scoped = _ScopedReview(review, resource.name)
        ref: ResourceRef | None = None  # made for a resource with a GPU pool only (its view is converted once)
        for pool in pools_of(resource, scoped):
            os_type = pool.get("osType")
            if os_type is UNKNOWN:
                scoped.unknown_field(pool.path("osType"))
                continue
            if isinstance(os_type, str) and os_type.lower() == "windows":
                continue
            if is_gpu_pool(pool, scoped):
                ref = ref or resource_ref(resource)
                found.append(StackPool(ref, pool))
    return found


class _ScopedReview(Review):
    """Records unknown fields on the stack-wide review, prefixed with the resource name."""

    def __init__(self, parent: Review, resource_name: str) -> None:
        super().__init__(parent._report)
        self._parent = parent
        self._prefix = resource_name

    def unknown_field(self, path: str) -> None:
        self._parent.unknown_field(f"{self._prefix}: {path}")
