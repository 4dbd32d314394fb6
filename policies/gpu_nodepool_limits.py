"""gpu-nodepool-limits: a Karpenter NodePool that explicitly admits GPU sizes bounds its GPUs (no unbounded spend).

A NodePool that excludes GPUs, or does not constrain them, is not this policy's: the second gets one finding from
``gpu-nodepool-constrains-gpus`` instead (``rules.karpenter.GpuScope``).
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.karpenter import GPU_RESOURCE, GpuScope, gpu_nodepool_limits
from rules.resource_types import is_karpenter_node_pool

from ._karpenter import nodepool_name, read_nodepool
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, props_of

NAME = "gpu-nodepool-limits"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_karpenter_node_pool(args.resource_type):
        return
    review = Review(report, args)
    props = props_of(args)
    view = read_nodepool(props)
    if view.scope in (GpuScope.EXCLUDED, GpuScope.UNCONSTRAINED):
        return  # no GPU diagnostics, or gpu-nodepool-constrains-gpus's one finding
    sizes = view.sizes
    for path in view.unknown:
        review.unknown_field(path)
    limits = get(props, "spec", "limits")
    replicas = get(props, "spec", "replicas")
    if limits is UNKNOWN or (isinstance(limits, dict) and limits.get(GPU_RESOURCE) is UNKNOWN):
        review.unknown_field("spec.limits")
    elif isinstance(replicas, int | float) and not isinstance(replicas, bool):
        pass  # a static NodePool: its node count is fixed by replicas (only limits.nodes is allowed there)
    else:
        gpu = view.scope is GpuScope.EXPLICIT  # unknown requirements may hide it: reported as unknown
        for finding in gpu_nodepool_limits(limits if isinstance(limits, dict) else None, gpu=gpu):
            allowed = ", ".join(sizes.all_sizes()[:5]) or "sizes not known during the preview"
            review.violation(
                f"spec.limits: NodePool '{nodepool_name(props, args.name)}' ({allowed}): {finding.message}"
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what=f"A Karpenter NodePool whose requirements explicitly admit GPU sizes (GPU size names, family N, a GPU name, "
    f"manufacturer or count) sets spec.limits[{GPU_RESOURCE!r}].",
    why="Node auto-provisioning creates a node for every pending pod the NodePool fits; without a GPU limit only the "
    "subscription's quota bounds how many GPU VMs (and how much spend) a burst of pods causes.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "aks", "karpenter", "cost"],
    fix=f"Set spec.limits[{GPU_RESOURCE!r}] to the most GPUs the pool may run (gpuNodePools[i].limits.gpus).",
    applies_to=is_karpenter_node_pool,
)
