"""Every Kubernetes version a stack asks AKS for: clusters, their inline pools and standalone AgentPools.

Shared by ``aks-kubernetes-version-supported`` (mandatory: the version can be created today) and
``aks-kubernetes-version-expiring`` (advisory: it stops being creatable soon). Whether a version can be created
depends on the cluster's tier and support plan (LTS = Premium + AKSLongTermSupport), which a standalone AgentPool
does not carry: its cluster is found in the stack by ``resourceGroupName`` + ``resourceName``, or, when the stack has
exactly one ManagedCluster (this project's stacks), that one. A pool whose cluster is not in the stack is judged
without LTS when that gives the same answer, and otherwise reported as not checked, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any, Final

from pulumi_policy import PolicyResource, StackValidationArgs

from rules.lifecycle import VersionFinding
from rules.resource_types import is_agent_pool, is_managed_cluster

from ._resources import (
    UNKNOWN,
    Pool,
    ResourceRef,
    Review,
    get,
    join_path,
    props_of,
    read_pools,
    resource_ref,
    shared_reading,
)


@dataclass(frozen=True, slots=True)
class VersionField:
    """One requested Kubernetes version: where it is and the cluster settings that decide LTS."""

    resource: ResourceRef
    path: str
    version: str
    tier: Any
    support_plan: Any
    cluster_known: bool

    @property
    def where(self) -> str:
        return f"{self.resource.name}: {self.path}"


@dataclass(frozen=True, slots=True)
class _Cluster:
    resource: ResourceRef
    props: dict[str, Any]

    @property
    def tier(self) -> Any:
        return get(self.props, "sku", "tier")

    @property
    def support_plan(self) -> Any:
        return get(self.props, "supportPlan")

    @property
    def key(self) -> tuple[str, ...]:
        """The cluster's resource group and name, lower-cased (ARM names compare case-insensitively)."""
        return tuple(str(get(self.props, k) or "").lower() for k in _OWNER_KEYS)


_PROFILES: Final = "agentPoolProfiles"
_VERSION: Final = "orchestratorVersion"
_OWNER_KEYS: Final = ("resourceGroupName", "resourceName")
"""An AgentPool's ``resourceGroupName`` and ``resourceName`` name its cluster."""


def _entry_index(path: str) -> int:
    """``i`` of a profile's path ``agentPoolProfiles[i]``."""
    return int(path.removeprefix(f"{_PROFILES}[").removesuffix("]"))


def _owner_key(pool: dict[str, Any]) -> tuple[str, ...] | None:
    values = [get(pool, k) for k in _OWNER_KEYS]
    return tuple(v.lower() for v in values) if all(isinstance(v, str) for v in values) else None


def version_fields(args: StackValidationArgs, review: Review) -> Iterator[VersionField]:
    """Known version fields; unknown ones (and unknown tier / plan) are recorded on ``review``. Read once per
    request and shared by the version policies (:func:`policies._resources.shared_reading`)."""

    return iter(shared_reading(_VERSION_FIELDS, lambda recorder: list(_version_fields(args, recorder)), review))


_VERSION_FIELDS = "version-fields"


def _version_fields(args: StackValidationArgs, review: Review) -> Iterator[VersionField]:
    clusters: list[_Cluster] = []
    pools: list[tuple[PolicyResource, dict[str, Any]]] = []
    for resource in args.resources:
        if is_managed_cluster(resource.resource_type):
            ref = resource_ref(resource)
            clusters.append(_Cluster(ref, ref.props if isinstance(ref.props, dict) else {}))
        elif is_agent_pool(resource.resource_type):
            props = props_of(resource)
            pools.append((resource, props if isinstance(props, dict) else {}))

    for cluster in clusters:
        name = cluster.resource.name
        tier, plan = cluster.tier, cluster.support_plan
        for key, value in (("sku.tier", tier), ("supportPlan", plan)):
            if value is UNKNOWN:
                review.unknown_field(f"{name}: {key}")
        if tier is UNKNOWN or plan is UNKNOWN:
            continue
        version = get(cluster.props, "kubernetesVersion")
        if version is UNKNOWN:
            review.unknown_field(f"{name}: kubernetesVersion")
        elif isinstance(version, str) and version:
            yield VersionField(cluster.resource, "kubernetesVersion", version, tier, plan, True)
        profiles, unknown = read_pools(cluster.resource)  # the one reader of agentPoolProfiles
        if unknown == [_PROFILES]:
            review.unknown_field(f"{name}: {_PROFILES}")
            continue
        entries: list[tuple[str, Pool | None]] = [(pool.prefix, pool) for pool in profiles]
        entries += [(path, None) for path in unknown]  # an entry unknown: so is its version
        for path, pool in sorted(entries, key=lambda entry: _entry_index(entry[0])):  # in the list's order
            if pool is None:
                review.unknown_field(f"{name}: {join_path(path, _VERSION)}")
                continue
            value = pool.get(_VERSION)
            if value is UNKNOWN:
                review.unknown_field(f"{name}: {pool.path(_VERSION)}")
            elif isinstance(value, str) and value:  # empty means "the control plane's version" (ARM)
                yield VersionField(cluster.resource, pool.path(_VERSION), value, tier, plan, True)

    by_key: dict[tuple[str, ...], _Cluster] = {}
    for cluster in clusters:
        by_key.setdefault(cluster.key, cluster)  # the first cluster of that name, as a linear search finds it
    for resource, props in pools:
        value = get(props, "orchestratorVersion")
        if value is UNKNOWN:
            review.unknown_field(f"{resource.name}: orchestratorVersion")
            continue
        if not isinstance(value, str) or not value:
            continue  # inherits the control plane's version, checked on the cluster
        key = _owner_key(props)
        owner = by_key.get(key) if key is not None else None
        if owner is None and len(clusters) == 1:
            owner = clusters[0]
        if owner is None:
            yield VersionField(resource_ref(resource), "orchestratorVersion", value, None, None, False)
            continue
        if owner.tier is UNKNOWN or owner.support_plan is UNKNOWN:
            continue  # recorded above
        yield VersionField(resource_ref(resource), "orchestratorVersion", value, owner.tier, owner.support_plan, True)


def judge(field: VersionField, check: Any, review: Review, today: date, **kwargs: Any) -> VersionFinding | None:
    """Run ``check`` (a lifecycle check) on one field; a pool whose cluster is unknown is judged both ways."""
    tier = field.tier if isinstance(field.tier, str) else None
    plan = field.support_plan if isinstance(field.support_plan, str) else None
    finding = check(field.version, today=today, tier=tier, support_plan=plan, **kwargs)
    if field.cluster_known or finding is None:
        return finding
    with_lts = check(field.version, today=today, tier="Premium", support_plan="AKSLongTermSupport", **kwargs)
    if with_lts is not None:
        return finding  # refused (or expiring) with or without long-term support
    review.not_checked(
        f"{field.where} is {field.version}; whether AKS accepts it depends on its cluster's tier and support plan "
        "(long-term support), and that cluster is not in this stack"
    )
    return None
