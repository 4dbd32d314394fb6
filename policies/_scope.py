"""Scoping a size rule to resource families through policy config (``families``), documented once for every rule.

Families are those of ``gpu_catalog/facts/vm_size_fields.json`` (``aks``, ``vm``, ``ml``, ``batch``, ``openshift``,
``hdinsight``, ``databricks``, ``kaito``). A rule configured with ``families: [aks, ml]`` inspects only resources of
those families; without the key it inspects every family it applies to.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final

from pulumi_policy import ResourceValidationArgs

from rules.size_fields import FAMILIES

FAMILIES_KEY: Final = "families"

FAMILIES_SCHEMA: Final[dict[str, Any]] = {
    "type": "array",
    "items": {"type": "string", "enum": list(FAMILIES)},
    "uniqueItems": True,
    "description": "Only inspect resources of these families (default: every family the rule applies to).",
}

FAMILIES_DOC: Final = (
    f"`{FAMILIES_KEY}`: list of resource families to inspect ({', '.join(FAMILIES)}; default: all the rule applies to)."
)


def configured_families(
    args: ResourceValidationArgs, policy: str, applies_to: Collection[str] | None = None
) -> frozenset[str] | None:
    """The families a rule inspects: those the policy config lists (``families``), within ``applies_to`` (the
    policy's declared ``size_families`` when it is narrower than every family); ``None``: every family.

    A malformed value fails the policy loudly (the engine normally rejects it first, against the schema)."""
    value = args.get_config().get(FAMILIES_KEY)
    if value is None:
        return None if applies_to is None else frozenset(applies_to)
    if not isinstance(value, list | tuple) or any(f not in FAMILIES for f in value):
        raise ValueError(
            f"policy {policy}: config {FAMILIES_KEY} must be a list of {', '.join(FAMILIES)}; got {value!r}"
        )
    configured = frozenset(str(f) for f in value)
    return configured if applies_to is None else configured & frozenset(applies_to)
