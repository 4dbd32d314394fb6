"""The no-op floor the policy benchmarks compare against: as many policies as the real pack, each doing nothing."""

from __future__ import annotations

from typing import Any

from pulumi_policy import Policy, ResourceValidationPolicy, StackValidationPolicy


def _noop(_args: Any, _report: Any) -> None:
    return None


def policy_counts() -> tuple[int, int]:
    """How many resource and stack policies the real pack (``policies.pack.ALL_POLICIES``) serves."""
    from policies.pack import ALL_POLICIES

    resource = sum(1 for p in ALL_POLICIES if isinstance(p, ResourceValidationPolicy))
    return resource, len(ALL_POLICIES) - resource


def floor_policies() -> list[Policy]:
    """No-op policies, as many resource and stack policies as the real pack has."""
    resource, stack = policy_counts()
    return [
        *(ResourceValidationPolicy(f"noop-{i}", "does nothing", _noop) for i in range(resource)),
        *(StackValidationPolicy(f"noop-stack-{i}", "does nothing", _noop) for i in range(stack)),
    ]
