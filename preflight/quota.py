"""Offline GPU quota demand: the vCPUs a program needs per region and Azure quota family, at minimum and maximum scale.

Azure limits vCPUs per subscription and region three ways (the Usage API's names): per VM family (``<family>``, e.g.
``StandardNCASv3_T4Family``), for the region as a whole (``cores``, *Total Regional vCPUs*) and, for spot VMs, a
separate regional pool (``lowPriorityCores``, *Total Regional Low-priority vCPUs*) that spot VMs draw on **instead of**
their family and the regional total. This module turns every GPU use the cost estimate finds (``preflight/cost.py``:
AKS pools, KAITO workspaces, Databricks drivers and workers, VMs and scale sets of raw programs) into vCPUs =
nodes × the size's vCPUs, and a Karpenter GPU NodePool into its GPU limit filled with the admitted size that needs the
most vCPUs (``spec.limits["nvidia.com/gpu"]`` as sent, i.e. Karpenter's units: physical GPUs × sharing replicas — the
burst bound the cost estimate prices too). The size's family is the catalog fact ``quotaFamily``; a size without one
is counted in the regional total and reported as *unknown family*, never guessed.

CPU sizes (the system pool) are not in the GPU catalog: their vCPUs are listed (nodes only) and come on top of the
regional total shown here. Pure: no Azure, no Pulumi.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from gpu_catalog import Catalog, default_catalog, is_gpu_size
from preflight.cost import AKS_POOL, _pool_nodes, cost_lines  # pyright: ignore[reportPrivateUsage]
from preflight.cost_line import PROFILE_ROLE, CostLine, role_profile
from preflight.fleet_members import FleetMembership, fleet_membership
from preflight.model import RecordedResource
from preflight.wire import UNKNOWN, is_unknown, unwrap_secrets
from rules.karpenter import (
    CAPACITY_TYPE,
    GPU_RESOURCE,
    GpuScope,
    gpu_scope,
    nodepool_sizes,
    nodes_for_gpus,
    parse_quantity,
    read_requirements,
)
from rules.resource_types import is_agent_pool, is_databricks_cluster, is_karpenter_node_pool, is_managed_cluster
from rules.wire_pools import aks_pools

REGIONAL: Final = "cores"
"""The Usage API's name of the regional vCPU quota (*Total Regional vCPUs*)."""
LOW_PRIORITY: Final = "lowPriorityCores"
"""The Usage API's name of the regional spot / low-priority vCPU quota (*Total Regional Low-priority vCPUs*)."""
UNKNOWN_FAMILY: Final = "(unknown family)"
UNKNOWN_REGION: Final = "(unknown region)"
QUOTA_LABELS: Final = {REGIONAL: "Total Regional vCPUs", LOW_PRIORITY: "Total Regional Low-priority vCPUs"}

_DATABRICKS_WORKSPACE = "azure-native:databricks:Workspace"
_SPOT_VALUES = ("spot", "low")

Priority = Literal["regular", "spot"]


@dataclass(frozen=True)
class QuotaUse:
    """One GPU use: a pool, a driver, workers, a workspace, a NodePool at its limit, a VM or a scale set."""

    urn: str
    resource_type: str
    name: str
    role: str
    vm_size: str
    region: str
    family: str | None
    priority: Priority
    vcpus_per_node: int | None
    nodes_min: int | None
    nodes_max: int | None
    zones: tuple[str, ...] = ()
    note: str | None = None

    @property
    def known(self) -> bool:
        return self.vcpus_per_node is not None and self.nodes_min is not None and self.nodes_max is not None

    @property
    def vcpus_min(self) -> int | None:
        return None if not self.known else (self.vcpus_per_node or 0) * (self.nodes_min or 0)

    @property
    def vcpus_max(self) -> int | None:
        return None if not self.known else (self.vcpus_per_node or 0) * (self.nodes_max or 0)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.role})"


@dataclass(frozen=True)
class QuotaRow:
    """The demand on one quota of one region: a family, ``cores`` or ``lowPriorityCores``."""

    region: str
    quota: str
    vcpus_min: int
    vcpus_max: int
    uses: tuple[str, ...]
    """The uses that draw on it (``name (role)``)."""

    @property
    def label(self) -> str:
        return QUOTA_LABELS.get(self.quota, self.quota)


@dataclass(frozen=True)
class CpuUse:
    """A non-GPU AKS pool (the system pool): vCPUs not in the GPU catalog, on top of the regional total."""

    urn: str
    name: str
    role: str
    vm_size: str
    nodes_min: int | None
    nodes_max: int | None


@dataclass
class QuotaDemand:
    uses: list[QuotaUse]
    cpu: list[CpuUse] = field(default_factory=list)

    def regions(self) -> list[str]:
        return sorted({u.region for u in self.uses})

    def rows(self) -> list[QuotaRow]:
        """Per region: each family (regular-priority uses), then ``cores`` (regular uses only: spot VMs do not draw
        on it), then ``lowPriorityCores`` when a spot use exists. Uses whose vCPUs are unknown are left out (listed
        by :meth:`unknown`)."""
        out: list[QuotaRow] = []
        for region in self.regions():
            here = [u for u in self.uses if u.region == region and u.known]
            regular = [u for u in here if u.priority == "regular"]
            spot = [u for u in here if u.priority == "spot"]
            families: dict[str, list[QuotaUse]] = {}
            for u in regular:
                families.setdefault(u.family or UNKNOWN_FAMILY, []).append(u)
            for fam in sorted(families, key=str.lower):
                out.append(_row(region, fam, families[fam]))
            out.append(_row(region, REGIONAL, regular))
            if spot:
                out.append(_row(region, LOW_PRIORITY, spot))
        return out

    def unknown(self) -> list[QuotaUse]:
        """Uses that cannot be counted (size, node count or limit unknown) or whose family no source names."""
        return [u for u in self.uses if not u.known or u.family is None]

    def to_json(self) -> dict[str, Any]:
        return {
            "unit": "vCPUs",
            "regions": self.regions(),
            "rows": [
                {
                    "region": r.region,
                    "quota": r.quota,
                    "label": r.label,
                    "vcpusMin": r.vcpus_min,
                    "vcpusMax": r.vcpus_max,
                    "uses": list(r.uses),
                }
                for r in self.rows()
            ],
            "byResource": [
                {
                    "urn": u.urn,
                    "type": u.resource_type,
                    "role": u.role,
                    "vmSize": u.vm_size,
                    "region": u.region,
                    "family": u.family,
                    "priority": u.priority,
                    "vcpusPerNode": u.vcpus_per_node,
                    "nodesMin": u.nodes_min,
                    "nodesMax": u.nodes_max,
                    "vcpusMin": u.vcpus_min,
                    "vcpusMax": u.vcpus_max,
                    "zones": list(u.zones),
                    "note": u.note,
                }
                for u in self.uses
            ],
            "unknown": [
                {"urn": u.urn, "role": u.role, "vmSize": u.vm_size, "reason": unknown_reason(u)} for u in self.unknown()
            ],
            "cpuPools": [
                {"urn": c.urn, "role": c.role, "vmSize": c.vm_size, "nodesMin": c.nodes_min, "nodesMax": c.nodes_max}
                for c in self.cpu
            ],
        }


def unknown_reason(u: QuotaUse) -> str:
    if u.family is None and u.known:
        return f"{u.vm_size}: no source names its quota family (counted in the regional total only)"
    return u.note or "vCPUs unknown"


def _row(region: str, quota: str, uses: list[QuotaUse]) -> QuotaRow:
    return QuotaRow(
        region,
        quota,
        sum(u.vcpus_min or 0 for u in uses),
        sum(u.vcpus_max or 0 for u in uses),
        tuple(sorted(u.label for u in uses)),
    )


# --------------------------------------------------------------------------------------------------------------------
# Reading the resources


def _region(value: Any) -> str | None:
    if isinstance(value, str) and value and not is_unknown(value):
        return value.replace(" ", "").lower()
    return None


def _zones(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(z) for z in value if isinstance(z, str | int | float) and not is_unknown(z))
    return ()


def _is_spot(value: Any) -> bool:
    return isinstance(value, str) and value.lower() in _SPOT_VALUES


@dataclass(frozen=True)
class _Context:
    default_region: str | None
    cluster_regions: dict[str, str]
    """ManagedCluster ``resourceName`` (and logical name) → region."""
    workspace_region: str | None
    aks_region: str | None
    """The region of the program's only AKS cluster (KAITO workspaces and NodePools run there)."""
    fleet: FleetMembership | None = None
    """A fleet stack's members: a member's resources run in its own cluster's region (preflight/fleet_members.py)."""

    def cluster_region(self, r: RecordedResource) -> str | None:
        """The region of the AKS cluster ``r`` runs on: its fleet member's, else the program's only one."""
        member = self.fleet.of(r.urn) if self.fleet is not None else None
        if member is not None and self.fleet is not None:
            return self.fleet.cluster_region(member)
        return self.aks_region


def _context(resources: list[RecordedResource], default_region: str | None) -> _Context:
    clusters: dict[str, str] = {}
    workspaces: set[str] = set()
    for r in resources:
        props = unwrap_secrets(r.inputs)
        region = _region(props.get("location"))
        if is_managed_cluster(r.type) and region:
            for key in (props.get("resourceName"), r.name):
                if isinstance(key, str):
                    clusters[key] = region
        elif r.type == _DATABRICKS_WORKSPACE and region:
            workspaces.add(region)
    aks = set(clusters.values())
    return _Context(
        default_region=_region(default_region),
        cluster_regions=clusters,
        workspace_region=next(iter(workspaces)) if len(workspaces) == 1 else None,
        aks_region=next(iter(aks)) if len(aks) == 1 else None,
        fleet=fleet_membership(resources),
    )


def _use_region(r: RecordedResource, props: Mapping[str, Any], ctx: _Context) -> str:
    own = _region(props.get("location"))
    if own:
        return own
    if is_agent_pool(r.type):
        cluster = props.get("resourceName")
        if isinstance(cluster, str) and cluster in ctx.cluster_regions:
            return ctx.cluster_regions[cluster]
        return ctx.cluster_region(r) or ctx.default_region or UNKNOWN_REGION
    if is_databricks_cluster(r.type) or r.type.startswith("databricks:"):
        return ctx.workspace_region or ctx.default_region or UNKNOWN_REGION
    if is_karpenter_node_pool(r.type) or r.type.startswith("kubernetes:"):
        return ctx.cluster_region(r) or ctx.default_region or UNKNOWN_REGION
    return ctx.default_region or UNKNOWN_REGION


def _profile(resource_type: str, props: Mapping[str, Any], role: str) -> Mapping[str, Any]:
    """The pool a cost line's role names: the resource itself, or ``agentPoolProfiles[<name>]`` (a ManagedCluster's
    profile by its name or index: :func:`preflight.cost_line.role_profile`)."""
    if role.startswith(PROFILE_ROLE):
        found = role_profile(resource_type, props, role)
        return found if found is not None else {}
    return props


def _priority_and_zones(r: RecordedResource, props: Mapping[str, Any], role: str) -> tuple[Priority, tuple[str, ...]]:
    if is_databricks_cluster(r.type):
        attrs = props.get("azureAttributes")
        availability = attrs.get("availability") if isinstance(attrs, Mapping) else None
        spot = role == "workers" and availability == "SPOT_AZURE"
        return ("spot" if spot else "regular"), ()
    pool = _profile(r.type, props, role)
    if "scaleSetPriority" in pool or "availabilityZones" in pool:
        return ("spot" if _is_spot(pool.get("scaleSetPriority")) else "regular"), _zones(pool.get("availabilityZones"))
    vm_profile = props.get("virtualMachineProfile")
    priority = props.get("priority")
    if priority is None and isinstance(vm_profile, Mapping):
        priority = vm_profile.get("priority")
    return ("spot" if _is_spot(priority) else "regular"), _zones(props.get("zones"))


def _from_line(line: CostLine, r: RecordedResource, props: Mapping[str, Any], region: str, cat: Catalog) -> QuotaUse:
    entry = cat.lookup(line.vm_size) if line.vm_size != UNKNOWN else None
    priority, zones = _priority_and_zones(r, props, line.role)
    note: str | None = None
    if entry is None:
        note = (
            "VM size unknown during the preview" if line.vm_size == UNKNOWN else "not in the GPU catalog: vCPUs unknown"
        )
    elif line.nodes_min is None or line.nodes_max is None:
        note = line.note or "node count unknown"
    return QuotaUse(
        urn=line.urn,
        resource_type=r.type,
        name=r.name,
        role=line.role,
        vm_size=line.vm_size,
        region=region,
        family=entry.quota_family if entry else None,
        priority=priority,
        vcpus_per_node=entry.vcpus if entry else None,
        nodes_min=line.nodes_min,
        nodes_max=line.nodes_max,
        zones=zones,
        note=note,
    )


def _nodepool_use(r: RecordedResource, props: Mapping[str, Any], region: str, cat: Catalog) -> QuotaUse | None:
    """A GPU NodePool at its GPU limit, filled with the admitted size that needs the most vCPUs (none: the pool
    excludes GPUs or does not constrain them; the cost estimate and ``gpu-nodepool-constrains-gpus`` say so)."""
    reqs, unknown = read_requirements(props, is_unknown)

    def use(
        size: str, lo: int | None, hi: int | None, *, family: str | None, vcpus: int | None, note: str | None
    ) -> QuotaUse:
        capacity = next((q for q in reqs if q.key == CAPACITY_TYPE and q.operator == "In"), None)
        spot = capacity is not None and set(capacity.values) == {"spot"}
        return QuotaUse(
            r.urn, r.type, r.name, "nodepool", size, region, family, "spot" if spot else "regular", vcpus, lo, hi,
            (), note,
        )  # fmt: skip

    if unknown:
        return use(UNKNOWN, 0, None, family=None, vcpus=None, note="requirements unknown during the preview")
    if gpu_scope(reqs, cat) is not GpuScope.EXPLICIT:
        return None
    names = [n for n in nodepool_sizes(reqs, cat).all_sizes() if n in cat]
    if not names:
        return use(UNKNOWN, 0, None, family=None, vcpus=None, note="no admitted size is in the GPU catalog")
    spec = props.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    replicas = spec.get("replicas")
    if isinstance(replicas, int | float) and not isinstance(replicas, bool):
        worst = max((cat[n] for n in names), key=lambda s: (s.vcpus, s.name))
        n = int(replicas)
        return use(
            worst.name, n, n, family=worst.quota_family, vcpus=worst.vcpus, note="static NodePool: its largest size"
        )
    limits = spec.get("limits")
    raw = limits.get(GPU_RESOURCE) if isinstance(limits, Mapping) else None
    if raw == UNKNOWN:
        return use(names[0], 0, None, family=None, vcpus=None, note="GPU limit unknown during the preview")
    gpus = parse_quantity(raw)
    if gpus is None:
        return use(names[0], 0, None, family=None, vcpus=None, note=f"no spec.limits[{GPU_RESOURCE!r}]: unbounded")
    sizes = [cat[n] for n in names]
    # The most vCPUs at the limit; among equals the most vCPUs per GPU, then the fill the cost estimate prices highest
    # (so both lines name the same size when they agree).
    worst = max(
        sizes,
        key=lambda s: (
            nodes_for_gpus(s, gpus) * s.vcpus,
            s.vcpus / float(s.gpu_count),
            nodes_for_gpus(s, gpus) * (s.price_usd_per_hour or 0.0),
            s.name,
        ),
    )
    others = sorted({s.quota_family or UNKNOWN_FAMILY for s in sizes} - {worst.quota_family or UNKNOWN_FAMILY})
    notes = [f"limit {gpus:g} {GPU_RESOURCE} (Karpenter's units: GPUs × sharing replicas, the burst bound)"]
    if others:
        notes.append(f"Karpenter may pick admitted sizes of other families instead: {', '.join(others)}")
    nodes = nodes_for_gpus(worst, gpus)
    return use(worst.name, 0, nodes, family=worst.quota_family, vcpus=worst.vcpus, note="; ".join(notes))


def _cpu_pools(r: RecordedResource, props: Mapping[str, Any], cat: Catalog) -> list[CpuUse]:
    """The CPU (non-GPU) pools of an AgentPool or ManagedCluster (explicit API-version type tokens included), read by
    :func:`rules.wire_pools.aks_pools`: role ``pool`` for the AgentPool, ``agentPoolProfiles[<name>]`` (or the index
    when the profile has no ``name`` key) for each profile."""
    pools: list[tuple[str, Mapping[str, Any]]] = []
    for pool in aks_pools(r.type, props, is_unknown=is_unknown).pools:
        role = "pool" if pool.standalone else f"agentPoolProfiles[{pool.data.get('name', pool.index)}]"
        pools.append((role, pool.data))
    out: list[CpuUse] = []
    for role, pool in pools:
        size = pool.get("vmSize")
        if isinstance(size, str) and size != UNKNOWN and not is_gpu_size(size, cat):
            lo, hi, _ = _pool_nodes(pool, AKS_POOL)
            out.append(CpuUse(r.urn, r.name, role, size, lo, hi))
    return out


def quota_demand(
    resources: Iterable[RecordedResource], *, default_region: str | None = None, catalog: Catalog | None = None
) -> QuotaDemand:
    """Every GPU use of ``resources`` in vCPUs, with its region, quota family and priority (module docstring).

    ``default_region`` (the stack's ``azure-native:location``) is the region of a resource that names none and whose
    cluster or workspace the program does not show."""
    cat = catalog or default_catalog()
    items = list(resources)
    ctx = _context(items, default_region)
    uses: list[QuotaUse] = []
    cpu: list[CpuUse] = []
    for r in items:
        props = unwrap_secrets(r.inputs)
        region = _use_region(r, props, ctx)
        if is_karpenter_node_pool(r.type):
            u = _nodepool_use(r, props, region, cat)
            if u is not None:
                uses.append(u)
            continue
        for line in cost_lines(r, cat):
            uses.append(_from_line(line, r, props, region, cat))
        cpu.extend(_cpu_pools(r, props, cat))
    # In a stable order (the program registers resources concurrently, so registration order varies between runs).
    uses.sort(key=lambda u: (u.region, u.name, u.role))
    cpu.sort(key=lambda c: (c.name, c.role))
    return QuotaDemand(uses=uses, cpu=cpu)
