"""Policy metadata: every policy states what it checks and why, its level, severity and topics.

``description`` (what the engine prints above every violation) is "<what> — <why>"; ``what``, ``why`` and
``config_doc`` are kept separately for the generated ``policies/RULES.md``. The policy name is the stable id and
equals the module name with hyphens for underscores.
"""

from __future__ import annotations

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
from ._exemptions import exempting

MANDATORY = EnforcementLevel.MANDATORY
ADVISORY = EnforcementLevel.ADVISORY


def _with_exemptions(name: str, schema: PolicyConfigSchema | None) -> PolicyConfigSchema:
    """The policy's own config schema plus ``exemptions`` / ``exemptionMaxDays`` (policies/_exemptions.py)."""
    own = schema.properties if schema is not None else {}
    return PolicyConfigSchema(
        properties={**own, **exemption_schema(name)}, required=schema.required if schema is not None else None
    )


class _Doc:
    what: str
    why: str
    config_doc: str
    size_families: tuple[str, ...] = ()
    """A size rule: the resource families (``gpu_catalog/facts/vm_size_fields.json``) whose size fields it reads."""
    pool_fields: tuple[str, ...] = ()
    """An AKS pool rule: the fields of each pool it reads (``AgentPool.<f>``, ``agentPoolProfiles[].<f>``)."""

    def _set_doc(self, what: str, why: str, config_doc: str) -> None:
        self.what = what
        self.why = why
        self.config_doc = config_doc


class GpuResourcePolicy(ResourceValidationPolicy, _Doc):
    """A resource policy with the documentation RULES.md needs."""

    def __init__(
        self,
        *,
        name: str,
        what: str,
        why: str,
        validate: ResourceValidation,
        level: EnforcementLevel,
        severity: Severity,
        topics: list[str],
        fix: str,
        config_schema: PolicyConfigSchema | None = None,
        config_doc: str = "",
        size_families: tuple[str, ...] = (),
        pool_fields: tuple[str, ...] = (),
    ) -> None:
        super().__init__(
            name=name,
            description=f"{what} — {why}",
            validate=exempting(name, validate),
            enforcement_level=level,
            config_schema=_with_exemptions(name, config_schema),
            severity=severity,
            tags=topics,
            remediation_steps=fix,
        )
        self._set_doc(what, why, config_doc)
        self.size_families = size_families
        self.pool_fields = pool_fields


class GpuStackPolicy(StackValidationPolicy, _Doc):
    """A stack policy with the documentation RULES.md needs."""

    def __init__(
        self,
        *,
        name: str,
        what: str,
        why: str,
        validate: StackValidation,
        level: EnforcementLevel,
        severity: Severity,
        topics: list[str],
        fix: str,
        config_schema: PolicyConfigSchema | None = None,
        config_doc: str = "",
    ) -> None:
        super().__init__(
            name=name,
            description=f"{what} — {why}",
            validate=exempting(name, validate),
            enforcement_level=level,
            config_schema=_with_exemptions(name, config_schema),
            severity=severity,
            tags=topics,
            remediation_steps=fix,
        )
        self._set_doc(what, why, config_doc)


DocumentedPolicy = GpuResourcePolicy | GpuStackPolicy
