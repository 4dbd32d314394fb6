"""Policy metadata: every policy states what it checks and why, its level, severity and topics.

``description`` (what the engine prints above every violation) is "<what> — <why>"; ``what``, ``why`` and
``config_doc`` are kept separately for the generated ``policies/RULES.md``. The policy name is the stable id and
equals the module name with hyphens for underscores.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ResourceValidation,
    ResourceValidationPolicy,
    Severity,
    StackValidation,
    StackValidationPolicy,
)

from ._exemptions import config_schema as exemption_schema
from ._exemptions import exempting_report
from ._resources import shared_view

MANDATORY = EnforcementLevel.MANDATORY
ADVISORY = EnforcementLevel.ADVISORY


def _with_exemptions(name: str, schema: PolicyConfigSchema | None) -> PolicyConfigSchema:
    """The policy's own config schema plus ``exemptions`` / ``exemptionMaxDays`` (policies/_exemptions.py)."""
    own = schema.properties if schema is not None else {}
    return PolicyConfigSchema(
        properties={**own, **exemption_schema(name)}, required=schema.required if schema is not None else None
    )


class _Documented:
    """The one constructor of the pack's policies: SDK metadata (description "<what> — <why>", level, severity, tags,
    remediation, config schema with exemptions) plus the documentation RULES.md needs. The validation runs with the
    request's shared views (:func:`policies._resources.shared_view`) and the policy's exemptions applied."""

    what: str
    why: str
    config_doc: str
    size_families: tuple[str, ...] = ()
    """A size rule: the resource families (``gpu_catalog/facts/vm_size_fields.json``) whose size fields it reads."""
    pool_fields: tuple[str, ...] = ()
    """An AKS pool rule: the fields of each pool it reads (``AgentPool.<f>``, ``agentPoolProfiles[].<f>``)."""
    applies_to: Callable[[str], bool] | None = None
    """A resource policy's types (a predicate on the type token): other resources are passed over before the policy
    runs, as the policy itself would pass them (``None``: every type, and every stack policy)."""

    def __init__(
        self,
        *,
        name: str,
        what: str,
        why: str,
        validate: ResourceValidation | StackValidation,
        level: EnforcementLevel,
        severity: Severity,
        topics: list[str],
        fix: str,
        config_schema: PolicyConfigSchema | None = None,
        config_doc: str = "",
        size_families: tuple[str, ...] = (),
        pool_fields: tuple[str, ...] = (),
        applies_to: Callable[[str], bool] | None = None,
    ) -> None:
        sdk_base: Any = super()  # ResourceValidationPolicy or StackValidationPolicy, next in the subclass's MRO
        sdk_base.__init__(
            name=name,
            description=f"{what} — {why}",
            validate=shared_view(validate, applies_to, partial(exempting_report, name)),
            enforcement_level=level,
            config_schema=_with_exemptions(name, config_schema),
            severity=severity,
            tags=topics,
            remediation_steps=fix,
        )
        self.what = what
        self.why = why
        self.config_doc = config_doc
        self.size_families = size_families
        self.pool_fields = pool_fields
        self.applies_to = applies_to


class GpuResourcePolicy(_Documented, ResourceValidationPolicy):
    """A resource policy with the documentation RULES.md needs."""


class GpuStackPolicy(_Documented, StackValidationPolicy):
    """A stack policy with the documentation RULES.md needs."""


DocumentedPolicy = GpuResourcePolicy | GpuStackPolicy
