"""The landing-zone keys of a stack file as component Args (:class:`components.landing_zone.ClusterLandingZone`, the
pools' subnet ids and upgrade settings): read once here, from the stack config resolved by
:class:`stack_config.landing_zone.LandingZone`."""

from __future__ import annotations

from components.contract import NetworkContract
from components.landing_zone import ClusterLandingZone
from rules.identity import Identities
from stack_config import StackConfig
from stack_config.landing_zone import LandingZone, role_scopes


def landing_zone_args(cfg: StackConfig) -> ClusterLandingZone:
    """``cluster.network`` (mode, CIDRs, outbound type, subnets), ``cluster.apiServer.privateDnsZone``,
    ``cluster.identity``, ``cluster.containerRegistries``, ``cluster.maintenance``, ``cluster.defender`` and
    ``cluster.azurePolicyAddon``."""
    c = cfg.cluster
    net = c.network
    # Network Contributor on each subnet and on each route table the subnets carry (managed-identity article)
    subnet_ids = role_scopes(cfg)
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


def network_contract(cfg: StackConfig) -> NetworkContract:
    """The output contract's ``network`` entry: API server exposure, outbound type (AKS's default ``loadBalancer``
    when unset), network mode and CIDRs, and each pool's subnets (``system`` is the system pool)."""
    c = cfg.cluster
    lz = LandingZone.of(cfg)
    pools = [("system", c.systemPool.vnetSubnetId, c.systemPool.podSubnetId)]
    pools += [(p.name, lz.node_subnet_id(p.vnetSubnetId), p.podSubnetId) for p in cfg.gpuPools]
    subnets = {name: node for name, node, _ in pools if node is not None}
    pod_subnets = {name: pod for name, _, pod in pools if pod is not None}
    return NetworkContract(
        api_server="private" if c.apiServer.privateCluster else "public",
        outbound_type=c.network.outboundType or "loadBalancer",
        network_mode=c.network.mode,
        pod_cidr=c.network.podCidr,
        service_cidr=c.network.serviceCidr,
        private_dns_zone=c.apiServer.privateDnsZone if c.apiServer.privateCluster else None,
        subnets=subnets,
        pod_subnets=pod_subnets,
    )
