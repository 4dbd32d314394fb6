"""What runs on a GPU pool's cluster beside it, as the pool specs (agent pools and NAP NodePools) see it: the NVIDIA
GPU operator and the nvidia-device-plugin chart. Pure: no Pulumi import."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules.aks import GpuOperator
from rules.node_stack import DEVICE_PLUGIN_CHART, EXTERNAL, GPU_OPERATOR

MigStrategy = Literal["single", "mixed"]


@dataclass(frozen=True)
class PoolGpuOperator:
    """The NVIDIA GPU operator running on a pool's cluster, as the pool sees it. It manages every Linux GPU pool."""

    version: str
    """Chart version (validated platforms: ``gpu_catalog/facts/gpu_operator.json``)."""
    installs_driver: bool
    """``driver.enabled`` and ``toolkit.enabled``: true when some pool it manages skips the AKS driver."""
    mig_strategy: MigStrategy = "single"
    """``single``: MIG slices are advertised as ``nvidia.com/gpu``; ``mixed``: as ``nvidia.com/mig-<profile>``."""

    @property
    def facts(self) -> GpuOperator:
        """The operator as the AKS rules see it."""
        return GpuOperator(driver_enabled=self.installs_driver, toolkit_enabled=self.installs_driver)


@dataclass(frozen=True)
class PoolDevicePlugin:
    """NVIDIA's nvidia-device-plugin chart on a pool's cluster (the platform deploys it when the GPU operator is off):
    it serves every Linux GPU pool whose driver AKS installs (:mod:`components.device_plugin`)."""

    version: str
    mig_strategy: MigStrategy = "single"


def pool_manager(
    operator: PoolGpuOperator | None, device_plugin: PoolDevicePlugin | None, external_device_plugin: bool
) -> str | None:
    """The device plugin that serves a Linux GPU pool's nodes (an agent pool, a NAP NodePool): the GPU operator's,
    the nvidia-device-plugin chart's, or one installed outside the program (``None``: none)."""
    if operator is not None:
        return GPU_OPERATOR
    if device_plugin is not None:
        return DEVICE_PLUGIN_CHART
    return EXTERNAL if external_device_plugin else None


def pool_mig_strategy(operator: PoolGpuOperator | None, device_plugin: PoolDevicePlugin | None) -> MigStrategy:
    """The MIG strategy of a pool's device plugin: the operator's, else the chart's, else ``single``."""
    if operator is not None:
        return operator.mig_strategy
    return device_plugin.mig_strategy if device_plugin is not None else "single"
