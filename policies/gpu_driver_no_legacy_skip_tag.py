"""gpu-driver-no-legacy-skip-tag: the ``SkipGPUDriverInstall`` node-pool tag no longer works."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from gpu_catalog import is_gpu_size
from rules.aks import legacy_skip_driver_tag
from rules.resource_types import is_aks_pool_resource

from ._meta import ADVISORY, GpuResourcePolicy
from ._resources import POOL_SIZES, UNKNOWN, Review, pools_of

NAME = "gpu-driver-no-legacy-skip-tag"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    for pool in pools_of(args, review):
        sizes = [size for _, size in pool.size_values() if isinstance(size, str)]
        if sizes and not any(is_gpu_size(size) for size in sizes):
            continue  # non-GPU pools are not this policy's business
        tags = pool.get("tags")
        if tags is UNKNOWN:
            review.unknown_field(pool.path("tags"))
            continue
        if not isinstance(tags, dict):
            continue
        for finding in legacy_skip_driver_tag(tags):
            key = finding.field.removeprefix("tags.")
            review.violation(f"{pool.path('tags', key)}: {pool.label(args.name)} uses {finding.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="No legacy SkipGPUDriverInstall tag on GPU node pools.",
    why="AKS stopped honouring the tag (and --skip-gpu-driver-install) on 2025-08-14; the driver is installed "
    "anyway, which conflicts with a GPU operator that brings its own driver.",
    validate=validate,
    level=ADVISORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "aks", "driver"],
    fix='Remove the tag; set gpuProfile.driver: "None" (create-time only: the pool is replaced).',
    pool_fields=("tags", *POOL_SIZES),
    applies_to=is_aks_pool_resource,
)
