"""The package's ``GpuOperator`` component over :class:`components.gpu_operator.GpuOperator`.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

from typing import NotRequired, TypedDict

import pulumi

from component_package.args import present
from component_package.enums import MigStrategy
from component_package.inputs import SharedPool, Toleration
from component_package.kubernetes import kubernetes_provider, release_pools
from component_package.package import PACKAGE_NAME
from components import gpu_operator


class GpuOperatorArgs(TypedDict):
    """The NVIDIA GPU operator release and the values derived from the pools it manages."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig for the cluster (e.g. `AksGpuCluster.kubeconfig`)."""
    version: NotRequired[str]
    """Chart version; default: the release the project pins (`gpu_catalog/facts/gpu_operator.json`)."""
    namespace: NotRequired[str]
    """Default `gpu-operator`."""
    mig_strategy: NotRequired[MigStrategy]
    """Default `single`."""
    dcgm_exporter: NotRequired[bool]
    """The DCGM metrics exporter; default true."""
    installs_driver: NotRequired[bool]
    """`driver.enabled` and `toolkit.enabled`: false when the pools keep the AKS driver. Default true."""
    mig_manager: NotRequired[bool]
    """The MIG manager partitions the pools whose driver the operator installs; default false."""
    shared_pools: NotRequired[dict[str, SharedPool]]
    """Pool name → its device-plugin sharing config (selected by the pool's `nvidia.com/device-plugin.config`)."""
    tolerations: NotRequired[list[Toleration]]
    """The managed pools' tolerations (a pool's `scheduling.tolerations`)."""


class GpuOperator(pulumi.ComponentResource):
    """The NVIDIA GPU operator Helm release (chart `gpu-operator` from NVIDIA's NGC repository, pinned version) with
    per-pool time-slicing/MPS configs and daemonset tolerations for the GPU pools' taints."""

    version: pulumi.Output[str]
    """The chart version."""
    namespace: pulumi.Output[str]
    """The release's namespace."""

    def __init__(self, name: str, args: GpuOperatorArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        kwargs = present(
            args, "version", "namespace", "mig_strategy", "dcgm_exporter", "installs_driver", "mig_manager"
        )
        shared, tolerations = release_pools(args)
        operator_args = gpu_operator.GpuOperatorArgs(**kwargs, shared_pools=shared, tolerations=tolerations)
        super().__init__(f"{PACKAGE_NAME}:index:GpuOperator", name, None, opts)
        provider = kubernetes_provider(name, args["kubeconfig"], self)
        operator = gpu_operator.GpuOperator(
            name, operator_args, opts=pulumi.ResourceOptions(parent=self), provider=provider
        )
        self.version = pulumi.Output.from_input(operator.version)
        self.namespace = pulumi.Output.from_input(operator.namespace)
        self.register_outputs({"version": self.version, "namespace": self.namespace})
