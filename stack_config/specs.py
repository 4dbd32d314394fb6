"""A stack file's deployables as their specs (:mod:`rules.specs`): the one place a ``gpuPools[i]`` entry becomes the
pool every door builds. What the spec resolves on its own (OS SKU, disks, max pods, counts) is left to it; what only
the stack knows is filled in here: the cluster's Kubernetes version, the GPU operator and device plugin it runs, the
KAITO add-on's taint, the GPU floor, active exemptions, the Azure name and the platform's tags.

Pulumi-free: the stack config checks the specs (:mod:`stack_config.checks`), the composition hands them to the
components (:mod:`composition.wiring`)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.monitoring import POOL_NODE_LABEL
from rules.specs import (
    AKS_GPU_POOL_FIELDS,
    AksCluster,
    AksGpuPool,
    KaitoGpuWorkspace,
    NapGpuNodePool,
    PoolDevicePlugin,
    PoolGpuOperator,
)

from .exemptions import pool_exempt_rules
from .kaito import KaitoWorkspaceConfig
from .models import GpuPoolConfig, StackConfig
from .nap import GpuNodePoolConfig


@dataclass(frozen=True)
class ClusterGiven:
    """What the stack as a whole decides for its cluster (:meth:`ClusterConfig.spec`), beside the ``cluster`` keys."""

    cluster_name: str
    resource_group_name: str
    location: str
    create_resource_group: bool
    kaito_addon: bool
    protect: bool
    tags: Mapping[str, str]
    gpu_pools: Sequence[AksGpuPool]
    node_auto_provisioning: bool
    secrets_store: bool
    prometheus_node_labels: tuple[str, ...] | None


def azure_pool_name(pool: GpuPoolConfig, driver: str, taints: list[str], hardening: Iterable[str] = ()) -> str:
    """The Azure agent-pool name: prefix of the logical name + a stable hash of the create-time fields (``taints``:
    the pool's resolved taints, :meth:`StackConfig.pool_taints`; ``hardening``: ``encryptionAtHost`` and
    ``ephemeralOsDisk`` when on, create-time settings that leave the name of a pool without them unchanged)."""
    immutable: dict[str, Any] = {
        "name": pool.name,
        "vmSize": pool.vmSize.lower(),
        "os": pool.os,
        "migProfile": pool.migProfile,
        "driver": driver,
        "taints": sorted(taints),
        "zones": sorted(pool.zones),
        "spot": pool.spot,
        "maxPods": pool.maxPods,
    }
    if hardening:  # create-time in AKS: turning either on replaces the pool (create-before-delete under a new name)
        immutable["hardening"] = sorted(hardening)
    digest = hashlib.sha256(json.dumps(immutable, sort_keys=True).encode()).hexdigest()
    if pool.os == "Windows":
        return pool.name[:3] + digest[:3]
    return pool.name[:8] + digest[:4]


def pool_gpu_operator(cfg: StackConfig) -> PoolGpuOperator | None:
    """The GPU operator as the pools see it (``None`` when ``gpuOperator.enabled`` is false)."""
    if not cfg.gpuOperator.enabled:
        return None
    op = cfg.gpuOperator
    return PoolGpuOperator(
        version=op.version, installs_driver=cfg.operator_installs_driver, mig_strategy=op.migStrategy
    )


def pool_device_plugin(cfg: StackConfig) -> PoolDevicePlugin | None:
    """The nvidia-device-plugin chart as the pools see it (``None`` when the GPU operator runs or no pool needs it)."""
    if not cfg.device_plugin_chart:
        return None
    return PoolDevicePlugin(version=cfg.devicePlugin.version, mig_strategy=cfg.devicePlugin.migStrategy)


_TRANSLATED = frozenset(
    {"count", "minCount", "driver", "sharing", "taints", "tags", "orchestratorVersion", "vnetSubnetId", "upgrade"}
)
"""``gpuPools[i]`` keys whose spec value is not the key's own (the others are the spec field of the same name in
snake case: ``osDiskType`` → ``os_disk_type``; a new pool key needs no line here)."""


def snake(key: str) -> str:
    """A stack-file key as the spec's field name: ``encryptionAtHost`` → ``encryption_at_host``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower()


def _written(pool: GpuPoolConfig) -> dict[str, Any]:
    """The keys the stack file wrote that map one-to-one to a spec field (lists as tuples)."""
    fields = AKS_GPU_POOL_FIELDS
    out: dict[str, Any] = {}
    for key in pool.model_fields_set - _TRANSLATED:
        name = snake(key)
        if name in fields:
            value = getattr(pool, key)
            out[name] = tuple(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value
    return out


def gpu_pool(cfg: StackConfig, pool: GpuPoolConfig) -> AksGpuPool:
    """``gpuPools[i]`` as its spec: the written keys, camelCase to the spec's fields (the spec resolves the rest),
    and what the stack adds (its cluster's software, version, tags, exemptions; the Azure name)."""
    driver = cfg.pool_driver(pool)
    taints = cfg.pool_taints(pool)
    sharing = pool.sharing
    return AksGpuPool(
        **_written(pool),
        azure_name=azure_pool_name(pool, driver, taints, cfg.pool_hardening(pool)),
        count=pool.count if not pool.autoscaling else None,
        min_count=pool.minCount if pool.autoscaling else None,
        driver_skipped=driver == "operator",
        sharing=sharing.node_sharing if sharing is not None else None,
        conflicting_sharing=sharing is not None and sharing.mps is not None and sharing.timeSlicing is not None,
        taints=tuple(taints),
        orchestrator_version=cfg.pool_kubernetes_version(pool),
        tags={**cfg.cluster.tags, **pool.tags, "environment": cfg.environment},
        gpu_operator=pool_gpu_operator(cfg),
        device_plugin=pool_device_plugin(cfg),
        kaito_addon=cfg.kaito_addon,
        gpu_floor=cfg.usable_gpu_floor,
        exempt_rules=pool_exempt_rules(cfg, pool.name),
        vnet_subnet_id=pool.vnetSubnetId or cfg.cluster.systemPool.vnetSubnetId,  # one VNet: the system pool's
        upgrade=pool.upgrade.settings if pool.upgrade is not None else None,
        ssh_access=cfg.cluster.sshAccess,
    )


def nap_pool(cfg: StackConfig, pool: GpuNodePoolConfig, tags: Mapping[str, str] | None = None) -> NapGpuNodePool:
    """``gpuNodePools[i]`` as its spec (:meth:`stack_config.nap.GpuNodePoolConfig.spec`) with what the stack adds:
    its cluster's region, GPU operator or device plugin, KAITO add-on, Kubernetes version, the GPU floor and
    ``tags`` (the platform's, which the composition adds)."""
    return pool.spec(
        location=cfg.location,
        gpu_operator=pool_gpu_operator(cfg),
        device_plugin=pool_device_plugin(cfg),
        kaito_addon=cfg.kaito_addon,
        gpu_floor=cfg.usable_gpu_floor,
        kubernetes_version=cfg.cluster.kubernetesVersion,
        tags=tags or {},
    )


def kaito_workspace(cfg: StackConfig, ws: KaitoWorkspaceConfig) -> KaitoGpuWorkspace:
    """``kaito.workspaces[i]`` as its spec (:meth:`stack_config.kaito.KaitoWorkspaceConfig.spec`) with what the stack
    adds: its cluster's Kubernetes version and KAITO add-on, the GPU floor."""
    return ws.spec(
        kubernetes_version=cfg.cluster.kubernetesVersion, addon_enabled=cfg.kaito_addon, gpu_floor=cfg.gpu_floor
    )


def aks_cluster(cfg: StackConfig, tags: Mapping[str, str] | None = None) -> AksCluster:
    """``cluster`` (with ``resourceGroup`` and ``gpuPools``) as its spec
    (:meth:`stack_config.models.ClusterConfig.spec`) with what the stack as a whole decides: names, region,
    protection, the GPU pools' specs, the add-ons other sections turn on (KAITO, node auto-provisioning, the Secrets
    Store, managed Prometheus) and ``tags`` (the platform's, which the composition adds)."""
    return cfg.cluster.spec(
        ClusterGiven(
            cluster_name=cfg.cluster_name,
            resource_group_name=cfg.resource_group_name,
            location=cfg.location,
            create_resource_group=not cfg.resourceGroup.existing,
            kaito_addon=cfg.kaito_addon,
            protect=cfg.protect,
            tags=tags or {},
            gpu_pools=tuple(gpu_pool(cfg, pool) for pool in cfg.gpuPools),
            node_auto_provisioning=cfg.node_auto_provisioning,
            secrets_store=cfg.secrets_store,
            prometheus_node_labels=(POOL_NODE_LABEL,) if cfg.monitoring.enabled else None,
        )
    )
