"""The AKS node pools of a resource, read from the engine's camelCase props (no Pulumi import).

An ``azure-native:containerservice:AgentPool`` is one pool, the resource itself; a ``...:ManagedCluster`` has one per
entry of ``agentPoolProfiles``. Explicit API-version modules count (``azure-native:containerservice/v20250901:
AgentPool``, :mod:`rules.resource_types`). Callers differ in how an unknown value looks (the policy pack's sentinel,
the preflight's recorded string), so each passes its own ``is_unknown``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from rules.resource_types import is_agent_pool, is_managed_cluster
from rules.size_fields import join_path

PROFILES: Final = "agentPoolProfiles"
"""The ManagedCluster field listing its inline pools."""


@dataclass(frozen=True)
class WirePool:
    """One AKS node pool: a standalone AgentPool or one entry of a ManagedCluster's ``agentPoolProfiles``."""

    index: int
    """Position in ``agentPoolProfiles`` (0 for a standalone AgentPool)."""
    prefix: str
    """Path of the pool inside the resource: ``""`` for an AgentPool, ``agentPoolProfiles[i]`` for a profile."""
    name: Any
    """The pool's name as sent (``agentPoolName`` of an AgentPool, ``name`` of a profile): absent, unknown or any."""
    data: Mapping[str, Any]
    standalone: bool

    @property
    def name_key(self) -> str:
        """The field that names the pool: ``agentPoolName`` (AgentPool) or ``name`` (profile)."""
        return "agentPoolName" if self.standalone else "name"


@dataclass(frozen=True)
class AksPools:
    """What :func:`aks_pools` reads: the pools, and what it could not read as one."""

    pools: tuple[WirePool, ...] = ()
    unknown_list: bool = False
    """The whole ``agentPoolProfiles`` list is unknown."""
    unknown_entries: tuple[int, ...] = ()
    """Indexes of the ``agentPoolProfiles`` entries that are unknown."""
    skipped: tuple[int, ...] = ()
    """Indexes of the ``agentPoolProfiles`` entries that are neither a mapping nor unknown (not pools)."""

    @property
    def unknown(self) -> tuple[str, ...]:
        """The unknown paths: ``agentPoolProfiles`` itself, or each unknown ``agentPoolProfiles[i]``."""
        if self.unknown_list:
            return (PROFILES,)
        return tuple(join_path(PROFILES, i) for i in self.unknown_entries)


def _never_unknown(_value: Any) -> bool:
    return False


def aks_pools(resource_type: str, props: Any, *, is_unknown: Callable[[Any], bool] = _never_unknown) -> AksPools:
    """The AKS node pools ``props`` of a ``resource_type`` resource define (none for other types).

    An AgentPool is its own pool (its props, or ``{}`` when they are not a mapping). A ManagedCluster's
    ``agentPoolProfiles`` is read when it is a list: each mapping entry is a pool, each ``is_unknown`` entry is
    recorded as unknown, anything else as skipped; an unknown list is recorded as such; anything else (absent,
    ``None``, not a list) defines no pool.
    """
    if is_agent_pool(resource_type):
        data: Mapping[str, Any] = props if isinstance(props, Mapping) else {}
        return AksPools(pools=(WirePool(0, "", data.get("agentPoolName"), data, standalone=True),))
    if not is_managed_cluster(resource_type):
        return AksPools()
    profiles = props.get(PROFILES) if isinstance(props, Mapping) else None
    if is_unknown(profiles):
        return AksPools(unknown_list=True)
    if not isinstance(profiles, list):
        return AksPools()
    pools: list[WirePool] = []
    unknown: list[int] = []
    skipped: list[int] = []
    for i, entry in enumerate(profiles):
        if isinstance(entry, Mapping):
            pools.append(WirePool(i, join_path(PROFILES, i), entry.get("name"), entry, standalone=False))
        elif is_unknown(entry):
            unknown.append(i)
        else:
            skipped.append(i)
    return AksPools(pools=tuple(pools), unknown_entries=tuple(unknown), skipped=tuple(skipped))
