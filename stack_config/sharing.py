"""``sharing`` of a GPU pool or NodePool: time-slicing or MPS (one of them), rendered by the NVIDIA device plugin."""

from __future__ import annotations

from typing import Literal

from rules.node_stack import Sharing

from .base import StrictModel


class TimeSlicingConfig(StrictModel):
    replicas: int
    """Workloads per GPU: :func:`rules.aks.sharing_replicas` (the pools' checklist) bounds it."""
    renameByDefault: bool = False
    """Advertise the shared GPUs as ``nvidia.com/gpu.shared`` instead of ``nvidia.com/gpu``."""


class MpsConfig(StrictModel):
    replicas: int
    """Workloads per GPU: :func:`rules.aks.sharing_replicas` (the pools' checklist) bounds it."""
    renameByDefault: bool = False


class SharingConfig(StrictModel):
    """``gpuPools[i].sharing``: one of time-slicing or MPS (mutually exclusive), rendered by the GPU operator."""

    timeSlicing: TimeSlicingConfig | None = None
    mps: MpsConfig | None = None

    @property
    def mode(self) -> Literal["none", "timeSlicing", "mps"]:
        if self.mps is not None:
            return "mps"
        if self.timeSlicing is not None:
            return "timeSlicing"
        return "none"

    @property
    def replicas(self) -> int:
        chosen = self.mps or self.timeSlicing
        return chosen.replicas if chosen is not None else 1

    @property
    def rename_by_default(self) -> bool:
        chosen = self.mps or self.timeSlicing
        return chosen.renameByDefault if chosen is not None else False

    @property
    def node_sharing(self) -> Sharing | None:
        """The sharing as the node-stack model takes it (``None``: none)."""
        mode = self.mode
        return None if mode == "none" else Sharing(mode, self.replicas, self.rename_by_default)
