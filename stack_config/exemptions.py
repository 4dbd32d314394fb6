"""``exemptions`` and ``exemptionMaxDays``: one policy waived for one resource, with a reason, an owner and an end
date (the shape, the keys and every rule: :mod:`rules.exemptions`).

The stack config checks each entry's shape, its reason and owner, its expiry (at most ``exemptionMaxDays``, default
180, days ahead; an expired entry is kept: it simply no longer applies) and that it names one resource, never a
whole stack. An expired exemption of a size rule whose pool that rule refuses again is named in the same refusal,
with its date (``exemptions[i].expires``); one that names no pool, close to the name of a pool that rule refuses, gets
the closest name (``exemptions[i].resource``). Whether the policy exists and the resource matches something is checked
where the pack and the resources are known: the preflight (``preflight/exemptions.py``). The program uses the list
for the Azure Policy's exempted pools (``composition/wiring.py``). Registered in ``checks.EXTRA_CHECKS``.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from gpu_catalog.problems import Problem
from rules.exemptions import (
    EXEMPTIONS_KEY,
    MAX_DAYS_KEY,
    Exemption,
    check_entries,
    closest_name,
    matches_type_and_name,
    max_days_findings,
    parse_entries,
    resolve_max_days,
)
from rules.sizes import SIZE_RULES, check_gpu_size

if TYPE_CHECKING:
    from .models import StackConfig

KEY = EXEMPTIONS_KEY


def max_days(cfg: StackConfig) -> int:
    return resolve_max_days(cfg.exemptionMaxDays)


def stack_exemptions(cfg: StackConfig) -> list[Exemption]:
    """The stack's valid exemptions (active, expiring and expired alike: each caller asks :meth:`Exemption.applies`)."""
    return parse_entries(cfg.exemptions, today=cfg.today, max_days=max_days(cfg))[0]


AGENT_POOL_TYPE = "azure-native:containerservice:AgentPool"


def agent_pool_resource_name(pool_name: str) -> str:
    """The Pulumi name of ``gpuPools[].name``'s AgentPool (``AksGpuCluster "aks"`` names its pools
    ``aks-<pool>``, composition/platform.py ``CLUSTER_COMPONENT``): what an exemption names."""
    return f"aks-{pool_name}"


def pool_size_exemptions(cfg: StackConfig, pool_name: str, today: date) -> list[Exemption]:
    """The stack's exemptions of a size rule that name the AgentPool of ``gpuPools[name]`` and apply on ``today``."""
    name = agent_pool_resource_name(pool_name)
    return [
        e
        for e in stack_exemptions(cfg)
        if e.policy in SIZE_RULES and e.applies(today) and matches_type_and_name(e.resource, AGENT_POOL_TYPE, name)
    ]


def pool_exempt_rules(cfg: StackConfig, pool_name: str) -> tuple[str, ...]:
    """The size rules an exemption waives today for the AgentPool of ``gpuPools[name]`` (the stack config and the
    component then skip them; the pack reports the violation as exempted)."""
    return tuple(sorted({e.policy for e in pool_size_exemptions(cfg, pool_name, cfg.today)}))


def _expired_pool_problems(cfg: StackConfig, index: int, e: Exemption, today: date) -> list[Problem]:
    """An expired exemption of a size rule, for each pool of the stack it names that the rule refuses today."""
    out: list[Problem] = []
    for j, pool in enumerate(cfg.gpuPools):
        if not matches_type_and_name(e.resource, AGENT_POOL_TYPE, agent_pool_resource_name(pool.name)):
            continue
        if not _refused_by(cfg, pool.vmSize, e.policy, today):
            continue
        out.append(
            Problem(
                f"{KEY}[{index}].expires",
                f"the exemption of {e.policy} for {e.resource} (owner {e.owner}) expired on "
                f"{e.expires.isoformat()}, so it no longer waives gpuPools[{j}] ({pool.name}), which {e.policy} "
                f"refuses (gpuPools[{j}].vmSize); allowed: fix the pool, or renew the exemption with a new reason and "
                "an expiry date in the future",
            )
        )
    return out


def _refused_by(cfg: StackConfig, pool_size: str, rule: str, today: date) -> bool:
    """Whether size rule ``rule`` (alone) refuses a pool of this size today."""
    others = [r for r in SIZE_RULES if r != rule]
    return bool(check_gpu_size(pool_size, floor=cfg.usable_gpu_floor, today=today, exempt=others))


def _misnamed_pool_problems(cfg: StackConfig, index: int, e: Exemption, today: date) -> list[Problem]:
    """A size-rule exemption that names no GPU pool, close to the name of a pool that rule refuses: a typo the pool's
    refusal would otherwise hide (the preflight's match against every resource runs only after the program)."""
    names = {agent_pool_resource_name(p.name): (j, p) for j, p in enumerate(cfg.gpuPools)}
    if any(matches_type_and_name(e.resource, AGENT_POOL_TYPE, name) for name in names):
        return []
    if e.resource.startswith("urn:") and f"{AGENT_POOL_TYPE}::" not in e.resource:
        return []  # a URN of another type: not meant for a pool
    close = closest_name(e.resource.rsplit("::", 1)[-1], names)
    if close is None:
        return []
    j, pool = names[close]
    if not _refused_by(cfg, pool.vmSize, e.policy, today) or e.policy in pool_exempt_rules(cfg, pool.name):
        return []  # the pool passes that rule (or another entry waives it): nothing hides the typo
    return [
        Problem(
            f"{KEY}[{index}].resource",
            f"{e.resource!r} names no GPU pool of the stack; did you mean {close!r} (the AgentPool of gpuPools[{j}], "
            f"{pool.name}, which {e.policy} refuses)? Allowed: a pool's AgentPool name aks-<gpuPools[].name> "
            f"({', '.join(sorted(names))}) or another resource's name or URN",
        )
    ]


def exemption_problems(cfg: StackConfig) -> list[Problem]:
    today = cfg.today
    problems = [Problem(MAX_DAYS_KEY, f.message) for f in max_days_findings(cfg.exemptionMaxDays)]
    checked, found = check_entries(cfg.exemptions, today=cfg.today, max_days=max_days(cfg))
    problems += [Problem(KEY + f.field if f.field else KEY, f.message) for f in found]
    for i, (_, parsed, refused) in enumerate(checked):
        problems += [Problem(f"{KEY}[{i}]" + (f".{f.field}" if f.field else ""), f.message) for f in refused]
        if parsed is not None and parsed.policy in SIZE_RULES:
            problems += _misnamed_pool_problems(cfg, i, parsed, today)
            if not parsed.applies(today):
                problems += _expired_pool_problems(cfg, i, parsed, today)
    return problems
