"""The ``azurePolicy`` key of a stack file: the size rules as an Azure Policy assignment
(``components/azure_policy.py``)."""

from __future__ import annotations

from rules.azure_policy import EnforcedEffect, Scope

from .base import StrictModel


class AzurePolicyConfig(StrictModel):
    """``azurePolicy``: assign the generated ``aks-gpu-vm-sizes`` policy (``rules/azure_policy.py``).

    ``effect: Audit`` (the default) reports refused pools in the compliance view; ``Deny`` makes ARM refuse them (roll
    out with Audit first, docs/guardrail-layers.md). ``scope``: the cluster's resource group (default) or the whole
    subscription. Creating the definition and the assignment needs Resource Policy Contributor (or Owner) on the
    subscription.
    """

    enabled: bool = False
    effect: EnforcedEffect = "Audit"
    scope: Scope = "resourceGroup"
