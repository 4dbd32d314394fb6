"""One priced (or unpriced) GPU line of the cost estimate: the record ``preflight/cost.py`` (AKS pools, Databricks,
KAITO, the size table) and ``preflight/nap_cost.py`` (Karpenter NodePools) both produce, so neither imports the other
for it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from preflight.wire import is_unknown
from rules.wire_pools import aks_pools

PROFILE_ROLE: Final = "agentPoolProfiles["
"""How the role of a line priced from a ManagedCluster's pool starts: ``agentPoolProfiles[<name>]``."""


@dataclass(frozen=True)
class CostLine:
    """One GPU size used by one resource (a pool, a cluster's workers or driver, a KAITO workspace)."""

    urn: str
    resource_type: str
    role: str
    """What in the resource: ``pool``, ``agentPoolProfiles[<name>]``, ``workers``, ``driver``, ``workspace``."""
    vm_size: str
    nodes_min: int | None
    nodes_max: int | None
    usd_per_node_hour: float | None
    note: str | None = None
    """Why the line is not priced (``None`` when it is), or what its price means."""
    knob: str | None = field(default=None, compare=False)
    """The resource's property that bounds this line's node count (``maxCount``, ``autoscale.maxWorkers``, a NAP
    NodePool's ``limits``): what the budget's fix names when this line drives the cost."""

    @property
    def priced(self) -> bool:
        return self.usd_per_node_hour is not None and self.nodes_min is not None and self.nodes_max is not None

    @property
    def hourly_min(self) -> float | None:
        if not self.priced:
            return None
        return float(self.usd_per_node_hour or 0.0) * (self.nodes_min or 0)

    @property
    def hourly_max(self) -> float | None:
        if not self.priced:
            return None
        return float(self.usd_per_node_hour or 0.0) * (self.nodes_max or 0)


def role_profile(resource_type: str, props: Mapping[str, Any], role: str) -> Mapping[str, Any] | None:
    """The ManagedCluster profile a line's role ``agentPoolProfiles[<name>]`` names: the profile with that ``name``,
    or at that index when it has none (read by :func:`rules.wire_pools.aks_pools`). ``None`` when the role names no
    profile or none matches."""
    if not role.startswith(PROFILE_ROLE):
        return None
    name = role[len(PROFILE_ROLE) :].split("]", 1)[0]
    for pool in aks_pools(resource_type, props, is_unknown=is_unknown).pools:
        if not pool.standalone and (pool.name == name or name == str(pool.index)):
            return pool.data
    return None
