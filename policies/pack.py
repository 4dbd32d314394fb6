"""The pack's name and its policies, in one list (``__main__.py`` serves it, ``rules_md`` documents it)."""

from __future__ import annotations

from . import (
    gpu_size_aks_supported,
    gpu_size_known,
    gpu_size_minimum,
    gpu_size_no_nvv4,
    gpu_size_not_retired,
)
from ._meta import DocumentedPolicy

PACK_NAME = "azure-gpu-guardrails"

ALL_POLICIES: list[DocumentedPolicy] = [
    gpu_size_no_nvv4.POLICY,
    gpu_size_minimum.POLICY,
    gpu_size_not_retired.POLICY,
    gpu_size_known.POLICY,
    gpu_size_aks_supported.POLICY,
]
