"""gpu-nodepool-constrains-gpus: a Karpenter NodePool either keeps GPUs out or says which GPU sizes it admits.

A NodePool whose requirements say nothing about GPUs (Microsoft's NAP examples: no requirements, or only on capacity
type, disks, disruption) lets Karpenter create a GPU node for any pending pod that requests ``nvidia.com/gpu``. The
size rules do not judge such a NodePool size by size (it asks for no GPU size); this policy reports it once, naming
how many GPU sizes Karpenter on AKS could launch for it, how many the size rules refuse and the first of them, and
the requirement to add (``rules.karpenter.unconstrained_gpus``). Its level is the pack's policy config (default
advisory). NodePools that exclude GPUs or explicitly admit them are not this policy's.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.karpenter import EXCLUDE_GPUS, GPU_RESOURCE, GpuScope, unconstrained_gpus
from rules.resource_types import is_karpenter_node_pool

from ._karpenter import gpu_tainted, nodepool_name, read_nodepool
from ._meta import ADVISORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, props_of, request_today

NAME = "gpu-nodepool-constrains-gpus"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_karpenter_node_pool(args.resource_type):
        return
    review = Review(report, args)
    props = props_of(args)
    view = read_nodepool(props)
    for path in view.unknown:
        review.unknown_field(path)
    if view.scope is GpuScope.UNCONSTRAINED:
        limits = get(props, "spec", "limits")
        limited = isinstance(limits, dict) and limits.get(GPU_RESOURCE) not in (None, UNKNOWN)
        finding = unconstrained_gpus(
            nodepool_name(props, args.name),
            view.sizes,
            gpu_tainted=gpu_tainted(props) is True,
            gpu_limited=limited,
            today=request_today(),
        )
        review.violation(f"spec.template.spec.{finding.field}: {finding.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="A Karpenter NodePool's requirements either keep GPU sizes out or say which GPU sizes it admits (GPU size "
    "names, family N, a GPU name, manufacturer or count); one finding per NodePool that does neither.",
    why="A NodePool that does not constrain GPUs lets Karpenter create a node of any GPU size it can launch on AKS "
    "for a pending pod that requests nvidia.com/gpu, retired and below-the-floor sizes included, without a GPU taint "
    "or limit.",
    validate=validate,
    level=ADVISORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "aks", "karpenter"],
    fix=f"Add the requirement {EXCLUDE_GPUS.key} {EXCLUDE_GPUS.operator} [{', '.join(EXCLUDE_GPUS.values)}] to keep "
    "GPUs out, or pin the GPU sizes (karpenter.azure.com/sku-name In [...], or a gpuNodePools entry) and set "
    f"spec.limits[{GPU_RESOURCE!r}].",
    applies_to=is_karpenter_node_pool,
)
