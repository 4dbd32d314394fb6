"""The GPU VM catalog: the single source of truth for sizes (the guard rails over it are in ``rules/sizes.py``).

Used by the components (validation at construction), the policy pack, the preflight's cost estimate and the docs.
Deliberately free of Pulumi imports.
"""

from .catalog import (
    CATALOG_PATH,
    MIG_GEOMETRY,
    MIG_PROFILES,
    Catalog,
    CatalogError,
    GpuSize,
    canonical_mig_profile,
    default_catalog,
    is_gpu_size,
    is_nvv4,
    load_catalog,
)

__all__ = [
    "CATALOG_PATH",
    "MIG_GEOMETRY",
    "MIG_PROFILES",
    "Catalog",
    "CatalogError",
    "GpuSize",
    "canonical_mig_profile",
    "default_catalog",
    "is_gpu_size",
    "is_nvv4",
    "load_catalog",
]
