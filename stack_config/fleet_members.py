"""A fleet's members, each a full stack: the template (the stack file's own sections) with the member's ``overrides``
merged over it, validated by the same models and rules as any stack (issue 38, ``docs/fleet-rules.md``).

Merge (:func:`merge_over`), chosen so a per-region change is one line and touches nothing else:

- mappings are deep-merged: a key the override sets replaces the template's, a key it leaves out keeps the
  template's (``cluster: {skuTier: Premium}`` changes the tier only);
- a list whose entries are all mappings with a ``name`` (``gpuPools``, ``gpuNodePools``, ``kaito.workspaces``) is
  merged **by name**: an override entry whose name the template has is deep-merged into that entry (in the template's
  order), a new name is appended. ``gpuPools: [{name: a100, vmSize: Standard_NC40ads_H100_v5}]`` changes one pool's
  size in one region and keeps every other pool and key. Index-wise merging would silently pair different pools
  after a reorder; replacing the whole list would make every size change repeat every pool;
- any other list (``zones``, ``taints``, ``adminGroupObjectIds``) and any scalar is replaced wholesale;
- ``null`` in an override removes the template's key (the member gets the default).

Then the member's own facts: ``location`` is its region (the template's ``gpuQuota``, a grant in the stack's
``location``, applies only to members in that region; others state their own in ``overrides``);
``cluster.tags["fleet-member"]`` is its name (the tags flow to every tagged resource of the member; the preflight
groups cost by it); ``cluster.name`` and ``resourceGroup.name`` get ``-<member>`` appended (defaults included:
``aks-gpu-prod-weu``, ``rg-gpu-prod-weu``) unless the override names them or the group is ``existing``, so members
never collide on an Azure name.

A member's problem is reported under ``fleet.members[i]``: on the override's own key path when the override set the
value (``fleet.members[1].overrides.gpuPools[0].vmSize``), else on the member naming the template's key
(``fleet.members[1]: gpuPools[0].vmSize (the template's value, in swedencentral): ...``); a problem the template
already has on its own keys is reported once, there. Pure: no Pulumi import.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import ValidationError

from gpu_catalog import default_catalog
from gpu_catalog.lifecycle import minor_of
from gpu_catalog.problems import Problem, key_path, show
from rules.fleet import channel_moves_versions, fleet_findings
from rules.karpenter import nodes_for_gpus, resolve_sizes
from rules.node_stack import GPU_RESOURCE
from rules.specs.fleet import AutoUpgrade, FleetMember, FleetPool, FleetSpec, Placement, UpdateStage

from .base import TODAY
from .checks import semantic_problems
from .errors import _error_to_problem
from .fleet import FLEET_MEMBER_TAG, STACK_WIDE_KEYS, FleetConfig, FleetMemberConfig
from .models import StackConfig
from .specs import gpu_pool

Provenance = dict[str, str]
"""A member's merged key path → the override's key path that set it (``gpuPools[1]`` → ``gpuPools[0]``)."""


@dataclass(frozen=True)
class MemberStack:
    """One member: its index in ``fleet.members``, its validated stack config and its spec."""

    index: int
    config: StackConfig
    member: FleetMember


# --------------------------------------------------------------------------------------------------- merge


def _named(items: Sequence[Any]) -> bool:
    return bool(items) and all(isinstance(i, Mapping) and isinstance(i.get("name"), str) for i in items)


Path = tuple[int | str, ...]


def merge_over(template: Any, override: Any) -> tuple[Any, Provenance]:
    """``override`` merged over ``template`` (module docstring), and the provenance of every value the override set:
    merged key path → the override's key path (they differ where a named list entry sits at another index)."""
    prov: Provenance = {}
    return _merge(template, override, (), (), prov), prov


def _merge(template: Any, override: Any, at: Path, src: Path, prov: Provenance) -> Any:
    if isinstance(template, Mapping) and isinstance(override, Mapping):
        merged = {k: copy.deepcopy(v) for k, v in template.items()}
        for key, value in override.items():
            if value is None:
                merged.pop(key, None)
                prov[key_path((*at, key))] = key_path((*src, key))
            else:
                merged[key] = _merge(template.get(key), value, (*at, key), (*src, key), prov)
        return merged
    if isinstance(template, list) and isinstance(override, list) and _named(template) and _named(override):
        merged_list = [copy.deepcopy(t) for t in template]
        index = {t["name"]: i for i, t in enumerate(template)}
        for j, entry in enumerate(override):
            i = index.get(entry["name"])
            if i is None:
                merged_list.append(None)
                i = len(merged_list) - 1
            merged_list[i] = _merge(merged_list[i], entry, (*at, i), (*src, j), prov)
        return merged_list
    if at:
        prov[key_path(at)] = key_path(src)
    return copy.deepcopy(override)


_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _split(path: str) -> list[int | str]:
    """``gpuPools[1].vmSize`` → ``['gpuPools', 1, 'vmSize']`` (plain keys only, as the models' fields are)."""
    return [int(i) if i else k for k, i in _PART.findall(path)]


# --------------------------------------------------------------------------------------------------- one member


def member_data(
    template: Mapping[str, Any], member: FleetMemberConfig, *, fleet_upgrades: bool = False
) -> tuple[dict[str, Any], Provenance]:
    """The member's stack config as a plain dict (the template with the override merged over it and the member's
    own facts: location, the ``fleet-member`` tag, suffixed names) and its provenance (:func:`merge_over`).
    ``fleet_upgrades``: the fleet's auto-upgrade profile moves the Kubernetes version, so a member whose stack file
    does not set ``cluster.autoUpgradeChannel`` gets ``none`` (the Fleet FAQ: with both on, whichever runs first
    upgrades the cluster; :func:`rules.fleet.member_channel_findings` refuses a channel set explicitly)."""
    base = {k: v for k, v in template.items() if k != "fleet"}
    if member.region != template.get("location"):
        base.pop("gpuQuota", None)  # a grant is per region: another region's numbers say nothing here
    data, prov = merge_over(base, dict(member.overrides))
    data["location"] = member.region
    environment = data.get("environment")
    cluster = data.get("cluster")
    cluster = dict(cluster) if isinstance(cluster, Mapping) else {}
    group = data.get("resourceGroup")
    group = dict(group) if isinstance(group, Mapping) else {}
    if "cluster.name" not in prov:
        cluster["name"] = f"{cluster.get('name') or f'aks-gpu-{environment}'}-{member.name}"
    if "resourceGroup.name" not in prov and group.get("existing") is not True:
        group["name"] = f"{group.get('name') or f'rg-gpu-{environment}'}-{member.name}"
    if fleet_upgrades and "autoUpgradeChannel" not in cluster:
        cluster["autoUpgradeChannel"] = "none"
    tags = cluster.get("tags")
    cluster["tags"] = {**(tags if isinstance(tags, Mapping) else {}), FLEET_MEMBER_TAG: member.name}
    data["cluster"] = cluster
    data["resourceGroup"] = group
    return data, prov


def _set_by_override(path: str, prov: Provenance) -> str | None:
    """The override's key path that set the value at ``path`` (or a value enclosing it), else ``None``."""
    parts = _split(path)
    for n in range(len(parts), 0, -1):
        hit = prov.get(key_path(parts[:n]))
        if hit is not None:
            if n == len(parts):
                return hit
            tail = key_path(parts[n:])
            return hit + (tail if tail.startswith("[") else f".{tail}")
    return None


def _where(problem: Problem, index: int, member: FleetMemberConfig, prov: Provenance) -> Problem:
    """A member's problem on the key that caused it (module docstring)."""
    at = f"fleet.members[{index}]"
    if problem.path == "location":
        return Problem(f"{at}.region", problem.message)
    hit = _set_by_override(problem.path, prov)
    if hit is not None:
        return Problem(f"{at}.overrides.{hit}", problem.message)
    if problem.path in _DERIVED:  # the template's name with -<member> appended
        return Problem(f"{at}.name", f"{problem.path} {_DERIVED[problem.path]}: {problem.message}")
    return Problem(at, f"{problem.path} (the template's value, in {member.region}): {problem.message}")


_DERIVED = {
    "cluster.name": "(the template's cluster name with -<member name> appended)",
    "resourceGroup.name": "(the template's resource group name with -<member name> appended)",
}


def _override_key_problems(index: int, member: FleetMemberConfig) -> list[Problem]:
    allowed = [k for k in StackConfig.model_fields if k not in STACK_WIDE_KEYS]
    return [
        Problem(
            f"fleet.members[{index}].overrides.{key}",
            f"{show(key)} cannot be overridden per member (environment, policy, budget and exemptions are the "
            f"stack's; a member's location is its region). Allowed keys: {', '.join(allowed)}.",
        )
        for key in member.overrides
        if key not in allowed
    ]


def expand_member(
    template: Mapping[str, Any],
    index: int,
    member: FleetMemberConfig,
    *,
    day: date,
    config_present: Callable[[str], bool],
    template_problems: Sequence[Problem] = (),
    fleet_upgrades: bool = False,
) -> tuple[StackConfig | None, list[Problem]]:
    """The member's stack config (``None`` when its shape is wrong; judged without the keys it may not override) and
    its problems on the stack file's key paths (:func:`_where`); a problem the template reports itself (same key,
    same words) on a value the override did not set is left out: it is reported once, on the template's key."""
    wrong = _override_key_problems(index, member)
    if wrong:  # judged without the keys it may not set, so its other problems show too
        kept = {k: v for k, v in member.overrides.items() if k not in STACK_WIDE_KEYS}
        member = member.model_copy(update={"overrides": kept})
    data, prov = member_data(template, member, fleet_upgrades=fleet_upgrades)
    cfg: StackConfig | None = None
    try:
        cfg = StackConfig.model_validate(data, context={TODAY: day})
    except ValidationError as exc:
        found = [_error_to_problem(e, StackConfig) for e in exc.errors(include_url=False)]
    else:
        found = semantic_problems(cfg, config_present=config_present)
    known = set(template_problems)
    mine = [p for p in found if p not in known or _set_by_override(p.path, prov) is not None]
    return cfg, [*wrong, *(_where(p, index, member, prov) for p in mine)]


# --------------------------------------------------------------------------------------------------- the fleet


def fleet_moves_versions(fleet: FleetConfig | None) -> bool:
    """The fleet's auto-upgrade profile (enabled) moves the members' Kubernetes version (``Stable``, ``Rapid``,
    ``TargetKubernetesVersion``): the members' own channel defaults to ``none`` and the program must ignore drift on
    their versions (:func:`rules.fleet.fleet_owns_version`)."""
    upgrade = fleet.autoUpgrade if fleet is not None else None
    return upgrade is not None and channel_moves_versions(upgrade.channel, disabled=upgrade.disabled)


def fleet_member(member: FleetMemberConfig, cfg: StackConfig) -> FleetMember:
    """A member's spec, read off its validated stack config."""
    pools: list[FleetPool] = []
    for pool in cfg.gpuPools:
        size = default_catalog().lookup(pool.vmSize)
        resources: tuple[str, ...] = ()
        if size is not None:
            resources = tuple(a.resource for a in gpu_pool(cfg, pool).node_stack(size).advertised)
        upper = pool.maxCount if pool.maxCount is not None else pool.effective_count
        pools.append(FleetPool(pool.name, pool.vmSize, resources, upper))
    for nap in cfg.gpuNodePools:
        names, _ = resolve_sizes(nap.sizes, nap.series, nap.gpuModels, floor=cfg.usable_gpu_floor, today=cfg.today)
        resources = (GPU_RESOURCE,) if nap.sharing is None else ()
        for name in names:
            size = default_catalog().lookup(name)
            upper = nodes_for_gpus(size, nap.limits.gpus) if size is not None else 0
            pools.append(FleetPool(nap.name, name, resources, upper, auto_provisioned=True))
    return FleetMember(
        name=member.name,
        region=member.region,
        group=member.group,
        kubernetes_version=minor_of(cfg.cluster.kubernetesVersion) or cfg.cluster.kubernetesVersion,
        auto_upgrade_channel=cfg.cluster.autoUpgradeChannel,
        gpu_operator_version=cfg.gpuOperator.version if cfg.gpuOperator.enabled else None,
        kaito_addon=cfg.kaito_addon,
        pools=tuple(pools),
        labels=dict(member.labels),
        node_os_upgrade_channel=cfg.cluster.nodeOsUpgradeChannel,
        node_auto_provisioning=cfg.node_auto_provisioning,
        kubernetes_pin=cfg.cluster.kubernetesVersion,
        cluster_name=cfg.cluster_name,
        resource_group=cfg.resource_group_name,
    )


def fleet_spec(fleet: FleetConfig, location: str, members: Sequence[FleetMember]) -> FleetSpec:
    """The fleet's spec (``rules.specs.fleet``): the section as written, with the members' specs."""
    stages = fleet.updateStrategy.stages if fleet.updateStrategy is not None else []
    upgrade = fleet.autoUpgrade
    return FleetSpec(
        name=fleet.name,
        location=fleet.location or location,
        hub=fleet.hub.enabled,
        hub_vm_size=fleet.hub.vmSize,
        members=tuple(members),
        stages=tuple(UpdateStage(s.name, tuple(s.groups), s.afterStageWaitInSeconds) for s in stages),
        auto_upgrade=(
            AutoUpgrade(upgrade.channel, upgrade.nodeImageSelection, upgrade.targetKubernetesVersion, upgrade.disabled)
            if upgrade is not None
            else None
        ),
        placements=tuple(
            Placement(p.name, p.namespace, tuple(p.vmSizes), p.kaitoPreset, p.numberOfClusters)
            for p in fleet.placements
        ),
    )


def expand_fleet(
    template: Mapping[str, Any],
    fleet: FleetConfig,
    *,
    day: date,
    config_present: Callable[[str], bool],
    template_problems: Sequence[Problem] = (),
) -> tuple[list[MemberStack], list[Problem]]:
    """Every member's stack whose shape is right (the fleet's rules read them; any problem refuses the stack file
    anyway) and every member's problems (:func:`expand_member`)."""
    members: list[MemberStack] = []
    problems: list[Problem] = []
    for i, member in enumerate(fleet.members):
        cfg, found = expand_member(
            template,
            i,
            member,
            day=day,
            config_present=config_present,
            template_problems=template_problems,
            fleet_upgrades=fleet_moves_versions(fleet),
        )
        problems += found
        if cfg is not None:
            members.append(MemberStack(i, cfg, fleet_member(member, cfg)))
    return members, problems


# --------------------------------------------------------------------------------------------------- the stack's fleet


@dataclass(frozen=True)
class ExpandedFleet:
    """A validated stack's fleet: its spec and every member's stack (:attr:`StackConfig._fleet`)."""

    spec: FleetSpec
    members: tuple[MemberStack, ...]


def members_of(cfg: StackConfig) -> tuple[MemberStack, ...]:
    """The members' stacks of a stack validated by :func:`stack_config.validate_stack_config` (empty without a
    fleet), in ``fleet.members`` order."""
    expanded = cfg._fleet
    return expanded.members if isinstance(expanded, ExpandedFleet) else ()


def fleet_spec_of(cfg: StackConfig) -> FleetSpec | None:
    """The fleet's spec of a stack validated by :func:`stack_config.validate_stack_config` (``None`` without one)."""
    expanded = cfg._fleet
    return expanded.spec if isinstance(expanded, ExpandedFleet) else None


def _partial_member(member: FleetMemberConfig) -> FleetMember:
    """A member whose stack has problems, as far as its own keys tell (the rules on names and groups still run)."""
    return FleetMember(name=member.name, region=member.region, group=member.group, labels=dict(member.labels))


def fleet_problems(
    template: Mapping[str, Any],
    fleet: FleetConfig,
    *,
    location: str,
    day: date,
    config_present: Callable[[str], bool],
    template_problems: Sequence[Problem] = (),
) -> tuple[ExpandedFleet, list[Problem]]:
    """The stack's fleet expanded (:func:`expand_fleet`) and every problem: the members' and the fleet's own
    (:func:`rules.fleet.fleet_findings` on ``fleet.<key path>``; the rules that read the members' pools only when every
    member's stack is valid)."""
    members, problems = expand_fleet(
        template, fleet, day=day, config_present=config_present, template_problems=template_problems
    )
    by_index = {m.index: m.member for m in members}
    complete = len(by_index) == len(fleet.members)
    specs = [by_index.get(i) or _partial_member(m) for i, m in enumerate(fleet.members)]
    spec = fleet_spec(fleet, location, specs)
    found = fleet_findings(spec, today=day, complete=complete)
    problems += [Problem(f"fleet.{f.field}" if f.field else "fleet", f.message) for f in found if not f.advisory]
    return ExpandedFleet(spec, tuple(members)), problems


def fleet_warnings(cfg: StackConfig) -> list[str]:
    """The fleet's advisory findings (``fleet.<key path>: message``) of a validated stack, for the program's log and
    the preflight's warnings (like :func:`stack_config.channel_moves.channel_move_warnings`)."""
    spec = fleet_spec_of(cfg)
    if spec is None:
        return []
    found = fleet_findings(spec, today=cfg.today, complete=True)
    return [f"fleet.{f.field}: {f.message}" if f.field else f"fleet: {f.message}" for f in found if f.advisory]
