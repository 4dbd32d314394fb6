"""The GPU VM catalog and the pure checks on it: the single source of truth for sizes.

Used by the components (validation at construction), the policy pack, the preflight's cost estimate and the docs.
Deliberately free of Pulumi imports.
"""

from .catalog import CATALOG_PATH, Catalog, CatalogError, GpuSize, default_catalog, load_catalog
from .checks import (
    AMD_NEEDS,
    DEFAULT_FLOOR,
    MIG_PROFILES,
    Finding,
    check_aks_supported,
    check_amd_features,
    check_gpu_size,
    check_known,
    check_mig_profile,
    check_minimum,
    check_nvv4,
    check_retired,
    floor_size,
    is_gpu_size,
    is_nvv4,
)

__all__ = [
    "AMD_NEEDS",
    "CATALOG_PATH",
    "DEFAULT_FLOOR",
    "MIG_PROFILES",
    "Catalog",
    "CatalogError",
    "Finding",
    "GpuSize",
    "check_aks_supported",
    "check_amd_features",
    "check_gpu_size",
    "check_known",
    "check_mig_profile",
    "check_minimum",
    "check_nvv4",
    "check_retired",
    "default_catalog",
    "floor_size",
    "is_gpu_size",
    "is_nvv4",
    "load_catalog",
]
