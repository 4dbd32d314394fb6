"""``exemptions`` and ``exemptionMaxDays``: one policy waived for one resource, with a reason, an owner and an end
date (the shape and every rule: :mod:`rules.exemptions`).

The stack config checks each entry's shape, its reason and owner, its expiry (at most ``exemptionMaxDays``, default
180, days ahead; an expired entry is kept: it simply no longer applies) and that it names one resource, never a
whole stack. Whether the policy exists and the resource matches something is checked where the pack and the
resources are known: the preflight (``preflight/exemptions.py``). The program uses the list for the Azure Policy
exemptions (``components/azure_policy.py``). Registered in ``checks.EXTRA_CHECKS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_catalog.problems import Problem
from rules.exemptions import DEFAULT_MAX_DAYS, Exemption, matches_type_and_name, max_days_findings, parse_entries
from rules.sizes import SIZE_RULES

if TYPE_CHECKING:
    from .models import StackConfig

KEY = "exemptions"
MAX_DAYS_KEY = "exemptionMaxDays"


def max_days(cfg: StackConfig) -> int:
    value = cfg.exemptionMaxDays
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else DEFAULT_MAX_DAYS


def stack_exemptions(cfg: StackConfig) -> list[Exemption]:
    """The stack's valid exemptions (active, expiring and expired alike: each caller asks :meth:`Exemption.applies`)."""
    return parse_entries(cfg.exemptions, today=cfg.today, max_days=max_days(cfg))[0]


AGENT_POOL_TYPE = "azure-native:containerservice:AgentPool"


def agent_pool_resource_name(pool_name: str) -> str:
    """The Pulumi name of ``gpuPools[].name``'s AgentPool (``AksGpuCluster "aks"`` names its pools
    ``aks-<pool>``, composition/platform.py ``CLUSTER_COMPONENT``): what an exemption names."""
    return f"aks-{pool_name}"


def pool_exempt_rules(cfg: StackConfig, pool_name: str) -> tuple[str, ...]:
    """The size rules an exemption waives today for the AgentPool of ``gpuPools[name]`` (the stack config and the
    component then skip them; the pack reports the violation as exempted)."""
    today = cfg.today
    name = agent_pool_resource_name(pool_name)
    return tuple(
        sorted(
            {
                e.policy
                for e in stack_exemptions(cfg)
                if e.policy in SIZE_RULES
                and e.applies(today)
                and matches_type_and_name(e.resource, AGENT_POOL_TYPE, name)
            }
        )
    )


def exemption_problems(cfg: StackConfig) -> list[Problem]:
    problems = [Problem(MAX_DAYS_KEY, f.message) for f in max_days_findings(cfg.exemptionMaxDays)]
    _, found = parse_entries(cfg.exemptions, today=cfg.today, max_days=max_days(cfg))
    problems += [Problem(KEY + f.field if f.field else KEY, f.message) for f in found]
    return problems
