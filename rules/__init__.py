"""The guard rails as pure functions: one home per rule, called by the stack config, the components, the policy pack
and the cost estimate.

Each rule is a function over small typed facts (a GPU pool, a cluster, a Databricks cluster, a KAITO workspace)
returning :class:`Finding` s: the fact's field that is wrong (a logical field name such as ``driver`` or
``minCount``, which each caller maps to its own key path: ``gpuPools[1].driver`` in a stack file,
``agentPoolProfiles[1].gpuProfile.driver`` on a resource) and a message that says what is wrong, why and what is
allowed. A rule that cannot apply says why with :class:`NotApplicable`. Facts are built by adapters: the stack
config from its models, a policy from engine properties (the policy handles values unknown during a preview before it
builds facts). Constants a rule needs are defined next to it, once. No Pulumi import anywhere in this package; the
GPU catalog (``gpu_catalog``) is the only size table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    """One guard rail broken: which field of the facts (``""`` for the whole object) and the message."""

    field: str
    message: str


@dataclass(frozen=True, slots=True)
class NotApplicable:
    """The rule does not apply to these facts, and why (reported by policies as 'not applicable')."""

    reason: str


def findings(result: list[Finding] | NotApplicable) -> list[Finding]:
    """A rule's findings; none when the rule does not apply (for callers that only act on findings)."""
    return [] if isinstance(result, NotApplicable) else result


__all__ = ["Finding", "NotApplicable", "findings"]
