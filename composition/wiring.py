"""Component Args from a stack config: the one place that reads :class:`~stack_config.StackConfig` to build them.

Every default a stack file leaves to the platform is resolved here, once: a pool's driver mode, OS SKU, node counts,
Kubernetes version and Azure name; whether the GPU operator installs the driver; the platform's tags; a Databricks
cluster's request shape. The components get typed Args and never see the stack config. Args check themselves with
the rules (:mod:`components.validation`); Args built from a stack config that loaded pass, since the stack config
refused the same mistakes first, at their key paths.

:func:`gpu_operator_args` also reads the GPU pools once they exist: each pool's contract entry and sharing config are
computed by its ``GpuNodePool``, once, and the operator's values are made of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pulumi

from components.aks_cluster import AksGpuClusterArgs
from components.device_plugin import NvidiaDevicePluginArgs
from components.gpu_node_pool import GpuNodePool
from components.gpu_operator import GpuOperatorArgs
from components.pool_scheduling import GpuSharing, PoolGpuOperator
from rules.node_stack import DEVICE_PLUGIN_CHART
from stack_config import GpuOperatorConfig, SharingConfig, StackConfig
from stack_config.databricks import DatabricksClusterConfig, DatabricksWorkspaceConfig
from stack_config.exemptions import pool_size_exemptions
from stack_config.kaito import KaitoWorkspaceConfig
from stack_config.nap import GpuNodePoolConfig
from stack_config.specs import aks_cluster, kaito_workspace, nap_pool

from .landing_zone_wiring import landing_zone_args

if TYPE_CHECKING:  # each imported where its Args are built: only by a stack that has the section
    from components.azure_policy import AksGpuSizePolicyArgs
    from components.databricks import DatabricksClusterPolicyArgs, DatabricksGpuClusterArgs, DatabricksWorkspaceArgs
    from components.kaito import KaitoWorkspaceArgs
    from components.nap_pool import NapGpuPool, NapGpuPoolArgs
    from rules.azure_policy import ExemptedPool

MANAGED_BY = "pulumi:azure-gpu-platform"
"""The ``managed-by`` tag on the platform's Azure resources."""


def platform_tags(cfg: StackConfig) -> dict[str, str]:
    """Tags of the resource group, the cluster and the Databricks resources: ``cluster.tags``, the environment and
    ``managed-by``."""
    return {**cfg.cluster.tags, "environment": cfg.environment, "managed-by": MANAGED_BY}


def device_plugin_args(
    cfg: StackConfig, pools: Sequence[GpuNodePool], nap_pools: Sequence[NapGpuPool] = ()
) -> NvidiaDevicePluginArgs:
    """``devicePlugin`` and the pools the chart serves (their tolerations and sharing configs), NodePools included."""
    served = [p for p in pools if p.pool.manager == DEVICE_PLUGIN_CHART]
    nap_served = [p for p in nap_pools if p.args.manager == DEVICE_PLUGIN_CHART]
    return NvidiaDevicePluginArgs(
        version=cfg.devicePlugin.version,
        namespace=cfg.devicePlugin.namespace,
        mig_strategy=cfg.devicePlugin.migStrategy,
        pools=(*(p.pool.name for p in served), *(p.args.name for p in nap_served)),
        shared_pools={
            **{p.pool.name: p.shared for p in served if p.shared is not None},
            **{p.args.name: p.shared for p in nap_served if p.shared is not None},
        },
        tolerations=(
            *(t for p in served for t in p.contract.scheduling.tolerations),
            *(t for p in nap_served for t in p.contract.scheduling.tolerations),
        ),
        gpu_feature_discovery=any(
            p.pool.mig_profile is not None or (p.pool.sharing is not None and p.pool.sharing.mode == "mps")
            for p in served
        )
        or any(p.args.sharing is not None and p.args.sharing.mode == "mps" for p in nap_served),
    )


def gpu_sharing(config: SharingConfig | None) -> GpuSharing | None:
    """A pool's ``sharing`` (``gpuPools[i]``, ``gpuNodePools[i]``) as the components take it (``None``: none)."""
    if config is None or config.mode == "none":
        return None
    return GpuSharing(mode=config.mode, replicas=config.replicas, rename_by_default=config.rename_by_default)


def aks_cluster_args(cfg: StackConfig, tags: Mapping[str, str]) -> AksGpuClusterArgs:
    """``cluster``, ``resourceGroup`` and ``gpuPools`` as the cluster's Args: the stack's spec
    (:func:`stack_config.specs.aks_cluster`, with the platform's tags) in the stack's landing zone, checked on the
    stack's day."""
    return AksGpuClusterArgs.of(aks_cluster(cfg, tags), landing_zone=landing_zone_args(cfg), today=cfg.today)


def nap_pool_args(cfg: StackConfig, pool: GpuNodePoolConfig, tags: Mapping[str, str]) -> NapGpuPoolArgs:
    """``gpuNodePools[i]`` as the component's Args: the stack's spec (:func:`stack_config.specs.nap_pool`, with the
    platform's tags), checked on the stack's day."""
    from components.nap_pool import NapGpuPoolArgs

    return NapGpuPoolArgs.of(nap_pool(cfg, pool, tags), today=cfg.today)


def gpu_operator_args(
    config: GpuOperatorConfig,
    operator: PoolGpuOperator,
    pools: Sequence[GpuNodePool],
    nap_pools: Sequence[NapGpuPool] = (),
) -> GpuOperatorArgs:
    """``gpuOperator`` and the pools it manages (their tolerations, sharing configs and MIG layouts), NAP NodePools
    included."""
    managed = [p for p in pools if p.pool.operator_managed]
    nap_shared = {p.args.name: p.shared for p in nap_pools if p.shared is not None}
    nap_tolerations = tuple(t for p in nap_pools for t in p.contract.scheduling.tolerations)
    return GpuOperatorArgs(
        version=operator.version,
        namespace=config.namespace,
        mig_strategy=operator.mig_strategy,
        dcgm_exporter=config.dcgmExporter,
        installs_driver=operator.installs_driver,
        mig_manager=any(p.pool.mig_partitioned_by_operator for p in managed),
        shared_pools={**{p.pool.name: p.shared for p in managed if p.shared is not None}, **nap_shared},
        tolerations=(*(t for p in managed for t in p.contract.scheduling.tolerations), *nap_tolerations),
    )


def kaito_workspace_args(cfg: StackConfig, ws: KaitoWorkspaceConfig) -> KaitoWorkspaceArgs:
    """``kaito.workspaces[i]`` as the component's Args: the stack's spec (:func:`stack_config.specs.kaito_workspace`),
    checked on the stack's day."""
    from components.kaito import KaitoWorkspaceArgs

    return KaitoWorkspaceArgs.of(kaito_workspace(cfg, ws), today=cfg.today)


def databricks_workspace_args(
    cfg: StackConfig,
    ws: DatabricksWorkspaceConfig,
    tags: Mapping[str, str],
    resource_group_id: pulumi.Input[str],
) -> DatabricksWorkspaceArgs:
    """``databricks.workspace``, created in the stack's resource group (``resource_group_id``) or used by URL."""
    from components.databricks import DatabricksWorkspaceArgs

    return DatabricksWorkspaceArgs(
        workspace_name=ws.name,
        url=ws.url,
        managed_resource_group_name=ws.managed_resource_group_name if ws.creates_workspace else None,
        resource_group_name=cfg.resource_group_name,
        resource_group_id=resource_group_id,
        location=cfg.location,
        tags={**tags, **ws.tags},
        protect=cfg.protect,
    )


def databricks_cluster_args(
    cfg: StackConfig, cluster: DatabricksClusterConfig, tags: Mapping[str, str]
) -> DatabricksGpuClusterArgs:
    """``databricks.clusters[i]`` as the component's Args: the cluster's spec (the request its keys describe,
    :meth:`stack_config.databricks.DatabricksClusterConfig.spec`, with the platform's tags), checked on the stack's
    day."""
    from components.databricks import DatabricksGpuClusterArgs

    return DatabricksGpuClusterArgs.of(cluster.spec(tags=tags, gpu_floor=cfg.gpu_floor), today=cfg.today)


def azure_policy_args(cfg: StackConfig, cluster: AksGpuClusterArgs, member: str | None = None) -> AksGpuSizePolicyArgs:
    """``azurePolicy``: the size rules with the stack's GPU floor, assigned to the cluster's resource group or the
    subscription, with the pools the stack's exemptions waive today. Azure names carry the environment (definitions of
    several stacks share a subscription) and a fleet member's name (the members of one stack share the environment)."""
    from components.azure_policy import AksGpuSizePolicyArgs

    ap = cfg.azurePolicy
    azure_name = f"agp-aks-gpu-vm-sizes-{cfg.environment}" + (f"-{member}" if member else "")
    return AksGpuSizePolicyArgs(
        definition_name=azure_name,
        assignment_name=azure_name,
        scope=ap.scope,
        effect=ap.effect,
        floor=cfg.gpu_floor,
        today=cfg.today,
        exempted_pools=azure_policy_exempted_pools(cfg, cluster),
    )


def azure_policy_exempted_pools(cfg: StackConfig, cluster: AksGpuClusterArgs) -> tuple[ExemptedPool, ...]:
    """One entry per GPU pool an exemption of a size rule waives today (:mod:`rules.exemptions`), by the cluster's
    and the pool's Azure names, with the entries' reason, owner, category and earliest expiry."""
    from rules.azure_policy import ExemptedPool

    today = cfg.today
    out: list[ExemptedPool] = []
    for pool in cluster.gpu_pools:
        entries = pool_size_exemptions(cfg, pool.name, today)
        if entries:
            first = min(entries, key=lambda e: e.expires)
            out.append(
                ExemptedPool(
                    cluster=cluster.cluster_name,
                    pool=pool.azure_name or pool.name,
                    expires=first.expires,
                    policies=tuple(e.policy for e in entries),
                    reason="; ".join(dict.fromkeys(e.reason for e in entries)),
                    owner=", ".join(dict.fromkeys(e.owner for e in entries)),
                    category=first.category,
                )
            )
    return tuple(out)


def databricks_cluster_policy_args(cfg: StackConfig, member: str | None = None) -> DatabricksClusterPolicyArgs | None:
    """``databricks.clusterPolicy`` (``None`` unless enabled), with the stack's GPU floor; the default name ends with a
    fleet member's name (members may share a workspace given by ``url``)."""
    if cfg.databricks is None or not cfg.databricks.clusterPolicy.enabled:
        return None
    from components.databricks import DatabricksClusterPolicyArgs

    policy = cfg.databricks.clusterPolicy
    return DatabricksClusterPolicyArgs(
        policy_name=policy.name or f"gpu-clusters-{cfg.environment}" + (f"-{member}" if member else ""),
        gpu_floor=cfg.gpu_floor,
        cost_tags=tuple(policy.costTags),
        today=cfg.today,
    )
