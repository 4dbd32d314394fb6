"""The package's ``NvidiaDevicePlugin`` component over :mod:`components.device_plugin`.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

from typing import NotRequired, TypedDict

import pulumi

from component_package.args import present
from component_package.enums import MigStrategy
from component_package.inputs import SharedPool, Toleration
from component_package.kubernetes import kubernetes_provider, release_pools
from component_package.package import PACKAGE_NAME
from components import device_plugin


class NvidiaDevicePluginArgs(TypedDict):
    """NVIDIA's nvidia-device-plugin chart for GPU pools the GPU operator does not manage (AKS installs the driver
    only): affinity on the pools' `azure-gpu-platform/pool` label, their tolerations, one config per sharing pool."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig for the cluster (e.g. `AksGpuCluster.kubeconfig`)."""
    pools: list[str]
    """The logical names of the pools it serves (their nodes carry `azure-gpu-platform/pool: <name>`)."""
    version: NotRequired[str]
    """Chart version; the only one the facts cover (`gpu_catalog/facts/device_plugins.json`)."""
    namespace: NotRequired[str]
    """Default `nvidia-device-plugin` (the chart refuses `default`)."""
    mig_strategy: NotRequired[MigStrategy]
    """Default `single`."""
    shared_pools: NotRequired[dict[str, SharedPool]]
    """Pool name → its sharing config (selected by the pool's `nvidia.com/device-plugin.config`)."""
    tolerations: NotRequired[list[Toleration]]
    """The served pools' tolerations (a pool's `scheduling.tolerations`)."""
    gpu_feature_discovery: NotRequired[bool]
    """gpu-feature-discovery (with node-feature-discovery): needed for MPS and AKS-partitioned MIG. Default false."""


class NvidiaDevicePlugin(pulumi.ComponentResource):
    """The nvidia-device-plugin Helm release (chart `nvidia-device-plugin` from NVIDIA's repository, pinned)."""

    version: pulumi.Output[str]
    """The chart version."""
    namespace: pulumi.Output[str]
    """The release's namespace."""

    def __init__(self, name: str, args: NvidiaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        kwargs = present(args, "version", "namespace", "mig_strategy", "gpu_feature_discovery")
        shared, tolerations = release_pools(args)
        plugin_args = device_plugin.NvidiaDevicePluginArgs(
            pools=tuple(str(p) for p in args.get("pools") or []), **kwargs, shared_pools=shared, tolerations=tolerations
        )
        super().__init__(f"{PACKAGE_NAME}:index:NvidiaDevicePlugin", name, None, opts)
        provider = kubernetes_provider(name, args["kubeconfig"], self)
        plugin = device_plugin.NvidiaDevicePlugin(
            name, plugin_args, opts=pulumi.ResourceOptions(parent=self), provider=provider
        )
        self.version = pulumi.Output.from_input(plugin.version)
        self.namespace = pulumi.Output.from_input(plugin.namespace)
        self.register_outputs({"version": self.version, "namespace": self.namespace})
