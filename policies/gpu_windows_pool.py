"""gpu-windows-pool: Windows GPU pools keep the AKS driver, run a recent enough Kubernetes and have short names
(the rule: ``rules.aks.windows_gpu_pool``)."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.aks import MIN_WINDOWS_GPU_KUBERNETES, WINDOWS_POOL_NAME_MAX, GpuPool, windows_gpu_pool
from rules.resource_types import is_aks_pool_resource

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import POOL_SIZES, UNKNOWN, Review, get, is_gpu_pool, pools_of, props_of, request_today
from ._specs import wire_pool

NAME = "gpu-windows-pool"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    pools = pools_of(args, review)
    cluster_version = get(props_of(args), "kubernetesVersion") if pools else None
    today = request_today()
    for pool in pools:
        os_type = pool.get("osType")
        if os_type is UNKNOWN:
            review.unknown_field(pool.path("osType"))
            continue
        if not (isinstance(os_type, str) and os_type.lower() == "windows") or not is_gpu_pool(pool, review):
            continue
        label = f"Windows GPU {pool.label(args.name)} ({pool.size_label})"
        paths = {"driver": pool.path("gpuProfile", "driver"), "name": pool.path(pool.name_key)}
        driver = pool.get("gpuProfile", "driver")
        version = pool.get("orchestratorVersion")
        paths["orchestratorVersion"] = pool.path("orchestratorVersion")
        if version == "":
            version = None  # ARM reads an empty version (as Microsoft's examples write it) as unset
        if version is None and not pool.standalone:
            version, paths["orchestratorVersion"] = cluster_version or None, "kubernetesVersion"
        name = pool.name
        unknown = {
            field
            for field, value in (("driver", driver), ("orchestratorVersion", version), ("name", name))
            if value is UNKNOWN
        }
        for field in sorted(unknown):
            review.unknown_field(paths[field])
        if name is None:
            review.not_checked(
                f"{paths['name']} is not set, so the ≤{WINDOWS_POOL_NAME_MAX}-character Windows pool name limit was "
                "not checked"
            )
        facts = GpuPool(
            name=name if isinstance(name, str) else None,
            vm_size=pool.size_label,
            os="Windows",
            kubernetes_version=version if isinstance(version, str) and version else None,
            driver_skipped=wire_pool(pool).skips_driver,
        )
        for finding in windows_gpu_pool(facts, today=today):
            if finding.field not in unknown:
                review.violation(f"{paths[finding.field]}: {label}: {finding.message}")
    review.finish()


_LOWEST = ".".join(str(n) for n in MIN_WINDOWS_GPU_KUBERNETES)

POLICY = GpuResourcePolicy(
    name=NAME,
    what="Windows GPU node pools: the AKS GPU driver is never skipped, Kubernetes (orchestratorVersion, or the "
    f"cluster's kubernetesVersion for inline profiles) is ≥ {_LOWEST}, and the pool name has ≤ {WINDOWS_POOL_NAME_MAX} "
    "characters.",
    why="On Windows nothing else installs a GPU driver (the GPU operator is Linux-only); AKS supports Windows GPU "
    f"pools from Kubernetes {_LOWEST}; Windows pool names are limited to {WINDOWS_POOL_NAME_MAX} characters.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "aks", "windows"],
    fix=f"Keep gpuProfile.driver Install (or unset), set orchestratorVersion ≥ {_LOWEST}, use a pool name of ≤ "
    f"{WINDOWS_POOL_NAME_MAX} characters.",
    pool_fields=("osType", "gpuProfile.driver", "orchestratorVersion", "agentPoolName / name", *POOL_SIZES),
    applies_to=is_aks_pool_resource,
)
