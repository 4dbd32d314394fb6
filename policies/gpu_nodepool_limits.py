"""gpu-nodepool-limits: a Karpenter NodePool that may create GPU nodes bounds its GPUs (no unbounded spend)."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.karpenter import GPU_LIMIT, gpu_nodepool_limits
from rules.resource_types import is_karpenter_node_pool

from ._karpenter import allowed_sizes
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, plain

NAME = "gpu-nodepool-limits"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_karpenter_node_pool(args.resource_type):
        return
    review = Review(report, args)
    props = plain(args.props)
    sizes, unknown = allowed_sizes(props)
    for path in unknown:
        review.unknown_field(path)
    limits = get(props, "spec", "limits")
    replicas = get(props, "spec", "replicas")
    if limits is UNKNOWN or (isinstance(limits, dict) and limits.get(GPU_LIMIT) is UNKNOWN):
        review.unknown_field("spec.limits")
    elif isinstance(replicas, int | float) and not isinstance(replicas, bool):
        pass  # a static NodePool: its node count is fixed by replicas (only limits.nodes is allowed there)
    else:
        gpu = sizes.is_gpu()  # with unknown requirements a GPU pool may not be recognised yet: reported as unknown
        for finding in gpu_nodepool_limits(limits if isinstance(limits, dict) else None, gpu=gpu):
            allowed = ", ".join(sizes.all_sizes()[:5]) or "sizes not known during the preview"
            review.violation(
                f"spec.limits: NodePool '{get(props, 'metadata', 'name') or args.name}' ({allowed}): {finding.message}"
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what=f"A Karpenter NodePool whose requirements admit a GPU size sets spec.limits[{GPU_LIMIT!r}].",
    why="Node auto-provisioning creates a node for every pending pod the NodePool fits; without a GPU limit only the "
    "subscription's quota bounds how many GPU VMs (and how much spend) a burst of pods causes.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "aks", "karpenter", "cost"],
    fix=f"Set spec.limits[{GPU_LIMIT!r}] to the most GPUs the pool may run (gpuNodePools[i].limits.gpus).",
)
