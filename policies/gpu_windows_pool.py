"""gpu-windows-pool: Windows GPU pools keep the AKS driver, run Kubernetes ≥ 1.29 and have names ≤ 6 characters."""

from __future__ import annotations

import re

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, is_gpu_pool, plain, pools_of

NAME = "gpu-windows-pool"
MIN_VERSION = (1, 29)
MAX_NAME = 6
_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)")


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster_version = get(plain(args.props), "kubernetesVersion")
    for pool in pools_of(args.resource_type, args.props, review):
        os_type = pool.get("osType")
        if os_type is UNKNOWN:
            review.unknown_field(pool.path("osType"))
            continue
        if not (isinstance(os_type, str) and os_type.lower() == "windows") or not is_gpu_pool(pool, review):
            continue
        label = f"Windows GPU {pool.label(args.name)} ({pool.get('vmSize')})"

        driver = pool.get("gpuProfile", "driver")
        if driver is UNKNOWN:
            review.unknown_field(pool.path("gpuProfile", "driver"))
        elif isinstance(driver, str) and driver.lower() == "none":
            review.violation(
                f"{pool.path('gpuProfile', 'driver')}: {label} skips the GPU driver (driver: None), but nothing else "
                "can install one on Windows: the NVIDIA GPU operator does not support Windows nodes, so the pool "
                "would have no usable GPU. Remove gpuProfile.driver or set it to Install."
            )

        version = pool.get("orchestratorVersion")
        version_path = pool.path("orchestratorVersion")
        if version is None and not pool.standalone:
            version, version_path = cluster_version, "kubernetesVersion"
        if version is UNKNOWN:
            review.unknown_field(version_path)
        elif not isinstance(version, str) or not version:
            review.violation(
                f"{pool.path('orchestratorVersion')}: {label} does not set orchestratorVersion, so the Kubernetes "
                f"version it runs (the control plane's) cannot be checked against the minimum "
                f"{MIN_VERSION[0]}.{MIN_VERSION[1]} for Windows GPU node pools. Set orchestratorVersion to "
                f"{MIN_VERSION[0]}.{MIN_VERSION[1]} or later."
            )
        else:
            match = _VERSION_RE.match(version)
            if match is None:
                review.violation(
                    f"{version_path}: {label} has Kubernetes version {version!r}, which is not a 'major.minor[.patch]' "
                    "version. Use e.g. 1.31.2."
                )
            elif (int(match.group(1)), int(match.group(2))) < MIN_VERSION:
                review.violation(
                    f"{version_path}: {label} runs Kubernetes {version}, but AKS supports GPU-enabled Windows node "
                    f"pools only from Kubernetes {MIN_VERSION[0]}.{MIN_VERSION[1]}. Set {version_path} to "
                    f"{MIN_VERSION[0]}.{MIN_VERSION[1]} or later."
                )

        name = pool.name
        if name is UNKNOWN:
            review.unknown_field(pool.path(pool.name_key))
        elif isinstance(name, str) and len(name) > MAX_NAME:
            review.violation(
                f"{pool.path(pool.name_key)}: Windows node pool name '{name}' has {len(name)} characters; AKS allows "
                f"at most {MAX_NAME} for Windows pools (Windows computer names are derived from it). Use a name "
                f"such as '{name[:MAX_NAME]}'."
            )
        elif name is None:
            review.not_checked(
                f"{pool.path(pool.name_key)} is not set, so the ≤{MAX_NAME}-character Windows pool name limit was "
                "not checked"
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="Windows GPU node pools: the AKS GPU driver is never skipped, Kubernetes (orchestratorVersion, or the "
    "cluster's kubernetesVersion for inline profiles) is ≥ 1.29, and the pool name has ≤ 6 characters.",
    why="On Windows nothing else installs a GPU driver (the GPU operator is Linux-only); AKS supports Windows GPU "
    "pools from Kubernetes 1.29; Windows pool names are limited to 6 characters.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "aks", "windows"],
    fix="Keep gpuProfile.driver Install (or unset), set orchestratorVersion ≥ 1.29, use a pool name of ≤ 6 characters.",
)
