"""Which GPU sizes each Azure region offers, as positive evidence (``facts/gpu_regions.json``, a source per entry):
the regional facts :mod:`rules.fleet` judges a member's pools with. A size recorded as not offered in a region is
refused there; a region or size the facts do not record is only advisory. No Pulumi imports."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

GPU_REGION_FACTS = Path(__file__).with_name("facts") / "gpu_regions.json"
GPU_REGION_FACTS_NAME = "gpu_catalog/facts/gpu_regions.json"

Offer = Literal["offered", "not-offered", "unrecorded"]


class GpuRegionFactsError(ValueError):
    """``facts/gpu_regions.json`` is malformed; the message names the region and the field."""


@dataclass(frozen=True)
class RegionalSizes:
    """Region → size → the source saying it is offered / not offered there."""

    offered: dict[str, dict[str, str]] = field(default_factory=dict)
    not_offered: dict[str, dict[str, str]] = field(default_factory=dict)

    def offer(self, region: str, size: str) -> tuple[Offer, str | None]:
        """Whether ``region`` offers ``size`` and the source that says so (``unrecorded``: no source either way)."""
        source = self.not_offered.get(region, {}).get(size)
        if source is not None:
            return "not-offered", source
        source = self.offered.get(region, {}).get(size)
        if source is not None:
            return "offered", source
        return "unrecorded", None


@lru_cache(maxsize=2)
def load_regional_sizes(path: Path = GPU_REGION_FACTS) -> RegionalSizes:
    doc = json.loads(path.read_text(encoding="utf-8"))
    offered: dict[str, dict[str, str]] = {}
    not_offered: dict[str, dict[str, str]] = {}
    for region, row in (doc.get("regions") or {}).items():
        for key, into in (("offered", offered), ("notOffered", not_offered)):
            entries = row.get(key, {})
            if not isinstance(entries, dict) or not all(isinstance(v, str) and v for v in entries.values()):
                raise GpuRegionFactsError(f"{GPU_REGION_FACTS_NAME}: regions.{region}.{key}: size → source, each")
            into[str(region)] = {str(k): str(v) for k, v in entries.items()}
        both = set(offered[region]) & set(not_offered[region])
        if both:
            raise GpuRegionFactsError(f"{GPU_REGION_FACTS_NAME}: regions.{region}: both offered and not: {both}")
    return RegionalSizes(offered, not_offered)


__all__ = ["GPU_REGION_FACTS", "GPU_REGION_FACTS_NAME", "GpuRegionFactsError", "RegionalSizes", "load_regional_sizes"]
