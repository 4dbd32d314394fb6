"""Facts about AKS node auto-provisioning (NAP) and its Karpenter custom resources (``facts/karpenter.json``).

Which API versions AKS serves the NodePool and AKSNodeClass at, the well-known labels a NodePool selects VM sizes by,
the allowed enum values the platform sends, and NAP's documented limitations (each with its source). No Pulumi
imports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

KARPENTER_FACTS = Path(__file__).with_name("facts") / "karpenter.json"


@dataclass(frozen=True, slots=True)
class KarpenterFacts:
    node_pool_api_version: str
    node_class_api_version: str
    node_class_group: str
    node_class_kind: str
    labels: dict[str, str]
    """Logical name (``skuName``) → label key (``karpenter.azure.com/sku-name``)."""
    capacity_types: tuple[str, ...]
    gpu_modes: tuple[str, ...]
    image_families: tuple[str, ...]
    consolidation_policies: tuple[str, ...]
    gpu_limit_resource: str
    limitations: dict[str, str]
    """Limitation id → what NAP refuses, with its source."""
    gpu_sizes: dict[str, tuple[str, tuple[str, ...]]]
    """karpenter-provider-azure's GPU registry (``pkg/utils/supported-gpus.yaml``): lower-case VM size →
    (manufacturer ``nvidia``/``amd``, the node OSes it supports). Karpenter on AKS launches no GPU size outside it."""

    def label(self, name: str) -> str:
        return self.labels[name]

    def launchable_gpu_size(self, name: str) -> bool:
        """Whether karpenter-provider-azure can launch GPU size ``name`` at all: it is in the provider's GPU registry
        (names compare case-insensitively; upstream also drops a ``_Promo`` suffix). With ``AKSNodeClass``
        ``gpu.mode: Driver`` (the default) only its NVIDIA sizes remain, with ``None`` its AMD ones too; the pack
        does not see the NodeClass, so both count."""
        key = name.lower().removesuffix("_promo")
        return key in self.gpu_sizes


@lru_cache(maxsize=2)
def load_karpenter_facts(path: Path = KARPENTER_FACTS) -> KarpenterFacts:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return KarpenterFacts(
        node_pool_api_version=str(doc["nodePoolApiVersion"]),
        node_class_api_version=str(doc["nodeClassApiVersion"]),
        node_class_group=str(doc["nodeClassGroup"]),
        node_class_kind=str(doc["nodeClassKind"]),
        labels={str(k): str(v) for k, v in doc["labels"].items()},
        capacity_types=tuple(doc["capacityTypes"]),
        gpu_modes=tuple(doc["gpuModes"]),
        image_families=tuple(doc["imageFamilies"]),
        consolidation_policies=tuple(doc["consolidationPolicies"]),
        gpu_limit_resource=str(doc["gpuLimitResource"]),
        limitations={str(k): str(v) for k, v in doc["limitations"].items()},
        gpu_sizes={
            str(k).lower(): (str(v[0]), tuple(str(o) for o in v[1]))
            for k, v in doc["karpenterGpuSizes"]["sizes"].items()
        },
    )
