"""Azure Policy definition ``aks-gpu-vm-sizes`` for teams that manage policies elsewhere (``python -m exports
azure-policy``): AKS agent pools only on GPU sizes the size rules accept.

The document — what it refuses and why, the policy language, the exempted pools — is built by
:mod:`rules.azure_policy` (the platform's component builds the same one from there). This module is the adapter: the
day defaults to :func:`gpu_catalog.clock.today`, read once per call here (the rules take the day).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from gpu_catalog import clock
from gpu_catalog.catalog import Catalog
from rules import azure_policy as rules
from rules.azure_policy import (
    AGENT_POOL_MANUAL,
    AGENT_POOL_MANUAL_SIZE,
    AGENT_POOL_TYPE,
    AGENT_POOL_VM_SIZE,
    ALLOWED_PARAMETER,
    EFFECT_PARAMETER,
    EFFECTS,
    EXEMPTED_PARAMETER,
    GPU_SIZE_PATTERN,
    MANAGED_CLUSTER_TYPE,
    MAX_EXEMPTED_POOLS,
    POLICY_NAME,
    PROFILE_VM_SIZE,
    PROFILES,
    SIZE_RULES,
    VERSION,
    Effect,
    ExemptedPool,
    description,
    exempted_pools_value,
    policy_rule,
)
from rules.sizes import DEFAULT_FLOOR

__all__ = [
    "AGENT_POOL_MANUAL",
    "AGENT_POOL_MANUAL_SIZE",
    "AGENT_POOL_TYPE",
    "AGENT_POOL_VM_SIZE",
    "ALLOWED_PARAMETER",
    "EFFECTS",
    "EFFECT_PARAMETER",
    "EXEMPTED_PARAMETER",
    "GPU_SIZE_PATTERN",
    "MANAGED_CLUSTER_TYPE",
    "MAX_EXEMPTED_POOLS",
    "POLICY_NAME",
    "PROFILES",
    "PROFILE_VM_SIZE",
    "SIZE_RULES",
    "VERSION",
    "ExemptedPool",
    "allowed_sizes",
    "description",
    "exempted_pools_value",
    "non_compliance_message",
    "policy_definition",
    "policy_rule",
]


def allowed_sizes(floor: str = DEFAULT_FLOOR, today: date | None = None, catalog: Catalog | None = None) -> list[str]:
    """:func:`rules.azure_policy.allowed_sizes` on ``today`` (default: the clock's day)."""
    return rules.allowed_sizes(floor, today=today or clock.today(), catalog=catalog)


def non_compliance_message(floor: str = DEFAULT_FLOOR, today: date | None = None) -> str:
    """:func:`rules.azure_policy.non_compliance_message` on ``today`` (default: the clock's day)."""
    return rules.non_compliance_message(floor, today=today or clock.today())


def policy_definition(
    *,
    floor: str = DEFAULT_FLOOR,
    effect: Effect = "Audit",
    today: date | None = None,
    catalog: Catalog | None = None,
    name: str = POLICY_NAME,
) -> dict[str, Any]:
    """:func:`rules.azure_policy.policy_definition` on ``today`` (default: the clock's day). Raises ``ValueError`` for
    an unknown floor or effect."""
    return rules.policy_definition(floor=floor, effect=effect, today=today or clock.today(), catalog=catalog, name=name)
