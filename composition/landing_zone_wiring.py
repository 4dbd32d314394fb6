"""The landing-zone keys of a stack file as component Args (:class:`components.landing_zone.ClusterLandingZone`, the
pools' subnet ids and upgrade settings): read once here, from the stack config resolved by
:class:`stack_config.landing_zone.LandingZone`."""

from __future__ import annotations

from components.landing_zone import ClusterLandingZone
from rules.identity import Identities
from rules.network import UpgradeSettings
from stack_config import StackConfig
from stack_config.landing_zone import LandingZone, PoolUpgradeConfig


def upgrade_settings(config: PoolUpgradeConfig | None) -> UpgradeSettings | None:
    """A pool's ``upgrade`` as sent (``None``: not sent, AKS's defaults)."""
    if config is None:
        return None
    return UpgradeSettings(
        max_surge=config.maxSurge,
        max_unavailable=config.maxUnavailable,
        drain_timeout_minutes=config.drainTimeoutInMinutes,
        node_soak_minutes=config.nodeSoakDurationInMinutes,
    )


def landing_zone_args(cfg: StackConfig) -> ClusterLandingZone:
    """``cluster.network`` (mode, CIDRs, outbound type, subnets), ``cluster.apiServer.privateDnsZone``,
    ``cluster.identity``, ``cluster.containerRegistries``, ``cluster.maintenance``, ``cluster.defender`` and
    ``cluster.azurePolicyAddon``."""
    c = cfg.cluster
    net = c.network
    lz = LandingZone.of(cfg)
    names = [c.systemPool.subnet, c.systemPool.podSubnet]
    names += [n for p in cfg.gpuPools for n in (p.subnet, p.podSubnet)]
    subnet_ids = tuple(dict.fromkeys(lz.subnets[n].id for n in names if n is not None and n in lz.subnets))
    defender_ws = c.defender.logAnalyticsWorkspaceId or c.monitoring.logAnalyticsWorkspaceId
    return ClusterLandingZone(
        network_mode=net.mode,
        pod_cidr=net.podCidr,
        service_cidr=net.serviceCidr,
        dns_service_ip=net.dnsServiceIP,
        outbound_type=net.outboundType,
        subnet_ids=subnet_ids,
        private_dns_zone=c.apiServer.privateDnsZone,
        identities=Identities(c.identity.controlPlane, c.identity.kubelet),
        assign_roles=c.identity.assignRoles,
        container_registries=tuple(c.containerRegistries),
        maintenance=tuple(c.maintenance.windows),
        defender=c.defender.enabled,
        defender_workspace_id=defender_ws,
        azure_policy_addon=c.azurePolicyAddon,
    )
