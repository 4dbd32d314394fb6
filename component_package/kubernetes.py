"""What the Kubernetes-side components share: the Kubernetes provider built from a cluster's kubeconfig, and the
pools a Helm release (the GPU operator, the device plugin) serves.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from component_package.args import plain, present
from components import gpu_node_pool
from components.contract import Toleration as ContractToleration


def kubernetes_provider(name: str, kubeconfig: pulumi.Input[str], parent: pulumi.Resource) -> k8s.Provider:
    """A Kubernetes provider for the cluster the kubeconfig reaches (AKS user kubeconfigs need `kubelogin`)."""
    return k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig, opts=pulumi.ResourceOptions(parent=parent))


def release_pools(
    args: Mapping[str, Any],
) -> tuple[dict[str, gpu_node_pool.SharedPool], tuple[ContractToleration, ...]]:
    """``shared_pools`` and ``tolerations`` of a device-plugin release (the operator's or the chart's) as the components
    take them."""
    shared = {
        pool: gpu_node_pool.SharedPool(
            resource_name=sp["resource_name"],
            sharing=gpu_node_pool.GpuSharing(**present(sp["sharing"], "mode", "replicas", "rename_by_default")),
        )
        for pool, sp in (args.get("shared_pools") or {}).items()
    }
    return shared, tuple(ContractToleration.from_dict(plain(t)) for t in args.get("tolerations") or [])
