"""gpu-mig-profile-capable-size: a MIG ``gpuInstanceProfile`` only on A100/H100/H200 sizes, and only a known one."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.resource_types import is_aks_pool_resource
from rules.sizes import check_mig_profile

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import POOL_SIZES, UNKNOWN, Review, pools_of, request_today

NAME = "gpu-mig-profile-capable-size"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    today = request_today()
    for pool in pools_of(args, review):
        profile = pool.get("gpuInstanceProfile")
        if profile is UNKNOWN:
            review.unknown_field(pool.path("gpuInstanceProfile"))
            continue
        if not isinstance(profile, str) or not profile:
            continue
        # every size of the pool: vmSize, or each size of a VirtualMachines pool
        sizes = pool.size_values() or [(pool.path("vmSize"), "(no vmSize)")]
        for path, size in sizes:
            if size is UNKNOWN:
                review.unknown_field(path)
                continue
            finding = check_mig_profile(size, profile, today=today)
            if finding is not None:
                review.violation(f"{pool.path('gpuInstanceProfile')}: {finding.message}")
                break  # one violation per pool: the profile is the field to change
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="A node pool's gpuInstanceProfile (MIG1g/MIG2g/MIG3g/MIG4g/MIG7g) only on a MIG-capable size.",
    why="Only A100, H100 and H200 GPUs support Multi-Instance GPU; on any other size AKS rejects the pool, and the "
    "profile is create-time only (changing it replaces the pool).",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "aks", "mig"],
    fix="Remove gpuInstanceProfile, or use an A100/H100/H200 size (the violation lists them).",
    pool_fields=("gpuInstanceProfile", *POOL_SIZES),
    applies_to=is_aks_pool_resource,
)
