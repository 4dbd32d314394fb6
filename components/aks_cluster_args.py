"""The Args of :class:`components.aks_cluster.AksGpuCluster`: the cluster's spec (:class:`rules.specs.AksCluster`:
its fields, defaults, checklist and advisories) plus the landing zone, with the checks the component runs before it
registers anything (refused) and the advisories it reports."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date

from gpu_catalog import clock
from rules import Finding
from rules.network import pod_subnets_need_flat
from rules.specs import AksCluster
from rules.specs.aks_cluster import SYSTEM_POOL_NAME

from .gpu_node_pool import GpuPoolSpec
from .landing_zone import (
    ClusterLandingZone,
    landing_zone_advisories,
    landing_zone_findings,
)
from .validation import refuse_findings

COMPONENT = "AksGpuCluster"
__all__ = ["COMPONENT", "SYSTEM_POOL_NAME", "AksGpuClusterArgs", "advisory_findings", "cluster_findings"]


_FIELDS = {
    "kubernetesVersion": "kubernetes_version",
    "tier": "sku_tier",
    "supportPlan": "support_plan",
    "oidcIssuer": "oidc_issuer",
    "workloadIdentity": "workload_identity",
    "deployerPrincipalType": "access.deployer_principal_type",
    "autoUpgradeChannel": "auto_upgrade_channel",
    "dataplane": "network_dataplane",
    "policy": "network_policy",
    "rotationPollInterval": "secret_rotation_poll_interval",
    "intervalHours": "image_cleaner_interval_hours",
}
"""A rule's field → the :class:`AksGpuClusterArgs` field."""


@dataclass(frozen=True)
class AksGpuClusterArgs(AksCluster):
    """One AKS cluster and its GPU pools from Python: the cluster's spec (:class:`rules.specs.AksCluster`) and the
    landing zone it joins, refusing their findings when built (module docstring)."""

    version_owned_by_fleet: bool = False
    """A fleet's auto-upgrade profile moves this member cluster's Kubernetes version (:func:`rules.fleet.
    fleet_owns_version`): drift on it is ignored as under an owning ``auto_upgrade_channel``."""
    landing_zone: ClusterLandingZone = field(default_factory=ClusterLandingZone)
    """The company's network, identities, registries, maintenance windows (:mod:`components.landing_zone`); the
    default keeps AKS's own choices."""

    today: date | None = field(default=None, compare=False, repr=False)
    """The day the rules are checked on (the platform build passes the stack's); ``None``:
    :func:`gpu_catalog.clock.today`, read once when the Args are built."""

    def __post_init__(self) -> None:
        day = self.today or clock.today()
        object.__setattr__(self, "today", day)
        # each GPU pool checked as a component's pool (a spec built elsewhere, the stack config's, included)
        object.__setattr__(self, "gpu_pools", tuple(GpuPoolSpec.of(p, today=day) for p in self.gpu_pools))
        refuse_findings(COMPONENT, self.cluster_name, cluster_findings(self), _FIELDS)

    @classmethod
    def of(
        cls,
        spec: AksCluster,
        *,
        landing_zone: ClusterLandingZone | None = None,
        today: date | None = None,
    ) -> AksGpuClusterArgs:
        """A spec built elsewhere (the stack config's), checked as the component's Args, in ``landing_zone``."""
        if isinstance(spec, AksGpuClusterArgs):
            return spec
        values = {f.name: getattr(spec, f.name) for f in fields(AksCluster)}
        return cls(**values, landing_zone=landing_zone or ClusterLandingZone(), today=today)


def cluster_findings(args: AksGpuClusterArgs) -> list[Finding]:
    """Every guard rail the cluster breaks (its GPU pools check themselves) on the Args' day: its spec's
    (:meth:`rules.specs.AksCluster.findings`) and its landing zone's."""
    found = args.findings(today=args.today or clock.today())
    pods = [("system_pool.pod_subnet_id", args.system_pool.pod_subnet_id)]
    pods += [(f"gpu_pools[{i}].pod_subnet_id", p.pod_subnet_id) for i, p in enumerate(args.gpu_pools)]
    found += pod_subnets_need_flat(args.landing_zone.network_mode, pods, fix="set landing_zone network_mode 'flat'")
    return [*found, *landing_zone_findings(args.landing_zone, args.location, args.api_server.private_cluster)]


def advisory_findings(args: AksCluster) -> list[Finding]:
    """What the cluster leaves open (warnings, never refused): :meth:`rules.specs.AksCluster.advisories`, and its
    landing zone's (:func:`components.landing_zone.landing_zone_advisories`)."""
    lz = args.landing_zone if isinstance(args, AksGpuClusterArgs) else None
    return [*args.advisories(), *(landing_zone_advisories(lz) if lz is not None else [])]
