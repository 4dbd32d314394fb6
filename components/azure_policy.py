"""``AksGpuSizePolicy``: the generated Azure Policy definition (:mod:`rules.azure_policy`) and its assignment.

Resources (azure-native ``authorization``, REST API 2025-01-01)::

    AksGpuSizePolicy "<name>"
      PolicyDefinition "<name>-definition"   (subscription scope: policy definitions live in a subscription)
      PolicyAssignment "<name>-assignment"   (the cluster's resource group, or the subscription)

The definition refuses (``Deny``) or reports (``Audit``) AKS agent pools, standalone or inline in a managed cluster,
whose N-family VM size the size rules refuse; the assignment passes the effect, the pools the stack's exemptions waive
(``exemptedPools``, each until its expiry: :class:`rules.azure_policy.ExemptedPool`) and says in its
non-compliance message which rules refused and what to use instead. The exempted pools are a parameter of the
assignment, not a ``PolicyExemption`` scoped to a pool: such an exemption can only be created after the pool, whose
PUT ``Deny`` has already refused, and does not cover the cluster's inline profiles. The platform creates this
component before the cluster and its pools (``AksGpuCluster(before_cluster=...)``), so the assignment, with its
exempted pools, is in place when they are created or replaced. Creating both needs *Resource Policy Contributor* (or
Owner) on the subscription (docs/guardrail-layers.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import pulumi

from gpu_catalog import clock
from rules import Finding, azure_policy
from rules.azure_policy import ENFORCED_EFFECTS, SCOPES, EnforcedEffect, Scope
from rules.sizes import DEFAULT_FLOOR, floor_size

from .validation import InvalidArgsError

POLICY_TYPE = "azure-gpu-platform:components:AksGpuSizePolicy"
POLICY_COMPONENT = "AksGpuSizePolicy"


@dataclass(frozen=True)
class AksGpuSizePolicyArgs:
    """The definition's and the assignment's Azure names, where it is assigned and what it does."""

    definition_name: str
    assignment_name: str
    scope: Scope = "resourceGroup"
    effect: EnforcedEffect = "Audit"
    floor: str = DEFAULT_FLOOR
    """The GPU floor of the size rules (policy ``gpu-size-minimum``)."""
    today: date | None = field(default=None, compare=False, repr=False)
    """The day the allowed sizes are listed on (the platform build passes the stack's); ``None``: today's."""
    exempted_pools: tuple[azure_policy.ExemptedPool, ...] = ()
    """The pools the stack's exemptions waive from the size rules (the assignment's ``exemptedPools``)."""

    def __post_init__(self) -> None:
        problems: list[Finding] = []
        if not self.definition_name.strip():
            problems.append(Finding("definition_name", "the policy definition needs a name"))
        if not self.assignment_name.strip():
            problems.append(Finding("assignment_name", "the policy assignment needs a name"))
        if self.scope not in SCOPES:
            problems.append(Finding("scope", f"{self.scope!r} is not a scope; allowed: {', '.join(SCOPES)}"))
        if self.effect not in ENFORCED_EFFECTS:
            allowed = ", ".join(ENFORCED_EFFECTS)
            problems.append(Finding("effect", f"{self.effect!r} is not an effect; allowed: {allowed}"))
        try:
            floor_size(self.floor)
        except ValueError as exc:
            problems.append(Finding("floor", str(exc)))
        try:
            azure_policy.exempted_pools_value(self.exempted_pools)
        except ValueError as exc:
            problems.append(Finding("exempted_pools", str(exc)))
        if problems:
            raise InvalidArgsError(POLICY_COMPONENT, self.definition_name, problems)


def _scope_id(args: AksGpuSizePolicyArgs, resource_group_id: pulumi.Input[str] | None) -> pulumi.Output[str]:
    if args.scope == "resourceGroup" and resource_group_id is not None:
        return pulumi.Output.from_input(resource_group_id)
    from pulumi_azure_native import authorization

    return authorization.get_client_config_output().subscription_id.apply(lambda sub: f"/subscriptions/{sub}")


class AksGpuSizePolicy(pulumi.ComponentResource):
    """The size rules at the ARM layer. ``resource_group_id``: the group to assign to (required with scope
    ``resourceGroup``). Outputs: ``definition_id``, ``assignment_id``; ``assignment``: what a pool (or its cluster)
    depends on so that its PUT is judged with the current exempted pools."""

    definition_id: pulumi.Output[str]
    assignment_id: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        args: AksGpuSizePolicyArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        resource_group_id: pulumi.Input[str] | None = None,
    ) -> None:
        if args.scope == "resourceGroup" and resource_group_id is None:
            raise InvalidArgsError(
                POLICY_COMPONENT,
                name,
                [Finding("resource_group_id", "scope resourceGroup needs the resource group's id (resource_group_id)")],
            )
        super().__init__(POLICY_TYPE, name, None, opts)
        from pulumi_azure_native import authorization

        today = args.today or clock.today()
        doc = azure_policy.policy_definition(
            floor=args.floor, effect=args.effect, name=args.definition_name, today=today
        )
        props = doc["properties"]
        parameters = {
            key: authorization.ParameterDefinitionsValueArgs(
                type=spec["type"],
                allowed_values=spec.get("allowedValues"),
                default_value=spec["defaultValue"],
                metadata=authorization.ParameterDefinitionsValueMetadataArgs(
                    display_name=spec["metadata"]["displayName"], description=spec["metadata"]["description"]
                ),
            )
            for key, spec in props["parameters"].items()
        }
        definition = authorization.PolicyDefinition(
            f"{name}-definition",
            policy_definition_name=args.definition_name,
            display_name=props["displayName"],
            description=props["description"],
            mode=props["mode"],
            policy_type=props["policyType"],
            metadata=props["metadata"],
            parameters=parameters,
            policy_rule=props["policyRule"],
            opts=pulumi.ResourceOptions(parent=self),
        )
        assignment = authorization.PolicyAssignment(
            f"{name}-assignment",
            policy_assignment_name=args.assignment_name,
            scope=_scope_id(args, resource_group_id),
            policy_definition_id=definition.id,
            display_name=props["displayName"],
            description=props["description"],
            enforcement_mode="Default",
            parameters={
                azure_policy.EFFECT_PARAMETER: authorization.ParameterValuesValueArgs(value=args.effect),
                azure_policy.EXEMPTED_PARAMETER: authorization.ParameterValuesValueArgs(
                    value=azure_policy.exempted_pools_value(args.exempted_pools)
                ),
            },
            non_compliance_messages=[
                authorization.NonComplianceMessageArgs(
                    message=azure_policy.non_compliance_message(args.floor, today=today)
                )
            ],
            metadata={"source": props["metadata"]["source"], "rules": props["metadata"]["rules"]},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.assignment = assignment
        self.definition_id = definition.id
        self.assignment_id = assignment.id
        self.register_outputs({"definitionId": self.definition_id, "assignmentId": self.assignment_id})
