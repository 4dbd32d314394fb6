"""``AksGpuSizePolicy``: the generated Azure Policy definition (:mod:`exports.azure_policy`) and its assignment.

Resources (azure-native ``authorization``, REST API 2025-01-01)::

    AksGpuSizePolicy "<name>"
      PolicyDefinition "<name>-definition"   (subscription scope: policy definitions live in a subscription)
      PolicyAssignment "<name>-assignment"   (the cluster's resource group, or the subscription)
      PolicyExemption  "<name>-exemption-<resource>"   (one per exempted resource, REST API 2022-07-01-preview)

The definition refuses (``Deny``) or reports (``Audit``) AKS agent pools, standalone or inline in a managed cluster,
whose N-family VM size the size rules refuse; the assignment passes the effect and says in its non-compliance message
which rules refused and what to use instead. Creating both needs *Resource Policy Contributor* (or Owner) on the
subscription (docs/guardrail-layers.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import pulumi

from exports import azure_policy
from rules import Finding
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
        if problems:
            raise InvalidArgsError(POLICY_COMPONENT, self.definition_name, problems)


@dataclass(frozen=True)
class AzurePolicyExemption:
    """A stack exemption of a size rule (:mod:`rules.exemptions`) for one resource, as an Azure Policy exemption of
    the assignment at that resource's scope. The assignment is one definition checking every size rule, so the ARM
    exemption waives all of them for that resource; the pack and the preflight keep waiving only the named rules."""

    resource: str
    """The Pulumi name of the exempted resource (the child's name suffix)."""
    scope: pulumi.Input[str]
    """The exempted resource's Azure id."""
    policies: tuple[str, ...]
    reason: str
    owner: str
    expires: date
    category: str = "Waiver"

    @property
    def azure_name(self) -> str:
        return f"agp-exempt-{self.resource}"[:64]

    @property
    def expires_on(self) -> str:
        """ARM's ``expiresOn`` (UTC ISO 8601 ``yyyy-MM-ddTHH:mm:ssZ``): the start of the expiry day, the day the
        pack and the preflight stop applying the exemption."""
        return f"{self.expires.isoformat()}T00:00:00Z"


def _scope_id(args: AksGpuSizePolicyArgs, resource_group_id: pulumi.Input[str] | None) -> pulumi.Output[str]:
    if args.scope == "resourceGroup" and resource_group_id is not None:
        return pulumi.Output.from_input(resource_group_id)
    from pulumi_azure_native import authorization

    return authorization.get_client_config_output().subscription_id.apply(lambda sub: f"/subscriptions/{sub}")


class AksGpuSizePolicy(pulumi.ComponentResource):
    """The size rules at the ARM layer. ``resource_group_id``: the group to assign to (required with scope
    ``resourceGroup``). Outputs: ``definition_id``, ``assignment_id``."""

    definition_id: pulumi.Output[str]
    assignment_id: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        args: AksGpuSizePolicyArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        resource_group_id: pulumi.Input[str] | None = None,
        exemptions: Sequence[AzurePolicyExemption] = (),
    ) -> None:
        if args.scope == "resourceGroup" and resource_group_id is None:
            raise InvalidArgsError(
                POLICY_COMPONENT,
                name,
                [Finding("resource_group_id", "scope resourceGroup needs the resource group's id (resource_group_id)")],
            )
        super().__init__(POLICY_TYPE, name, None, opts)
        from pulumi_azure_native import authorization

        doc = azure_policy.policy_definition(floor=args.floor, effect=args.effect, name=args.definition_name)
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
            parameters={azure_policy.EFFECT_PARAMETER: authorization.ParameterValuesValueArgs(value=args.effect)},
            non_compliance_messages=[
                authorization.NonComplianceMessageArgs(message=azure_policy.non_compliance_message(args.floor))
            ],
            metadata={"source": props["metadata"]["source"], "rules": props["metadata"]["rules"]},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.exemptions = [
            authorization.PolicyExemption(
                f"{name}-exemption-{e.resource}",
                policy_exemption_name=e.azure_name,
                scope=e.scope,
                policy_assignment_id=assignment.id,
                exemption_category=e.category,
                expires_on=e.expires_on,
                display_name=f"{', '.join(e.policies)}: {e.resource}"[:128],
                description=e.reason,
                metadata={"owner": e.owner, "policies": list(e.policies), "source": "azure-gpu-platform exemptions"},
                opts=pulumi.ResourceOptions(parent=self),
            )
            for e in exemptions
        ]
        self.definition_id = definition.id
        self.assignment_id = assignment.id
        self.register_outputs({"definitionId": self.definition_id, "assignmentId": self.assignment_id})
