"""What an Azure Policy assignment of the size rules may say: its effects and where it is assigned.

The definition's effect parameter allows ``Deny``, ``Audit`` and ``Disabled`` (MicrosoftDocs/azure-docs
``articles/governance/policy/concepts/definition-structure.md``, ``policy-definition-structure`` in
``conformance/facts/azure_policy.json``); the platform assigns ``Deny`` or ``Audit`` only, at the cluster's resource
group or the subscription. The stack config (``azurePolicy``), the component (``components/azure_policy.py``) and the
export (``exports/azure_policy.py``) read them here.
"""

from __future__ import annotations

from typing import Final, Literal

EFFECTS: Final = ("Deny", "Audit", "Disabled")
Effect = Literal["Deny", "Audit", "Disabled"]
""":data:`EFFECTS` as a type (tests/exports/test_azure_policy.py checks they agree)."""
ENFORCED_EFFECTS: Final = ("Deny", "Audit")
"""The effects the platform assigns (``Disabled`` would assign a policy that does nothing)."""
EnforcedEffect = Literal["Deny", "Audit"]
SCOPES: Final = ("resourceGroup", "subscription")
"""Where the platform assigns the policy: the cluster's resource group or the whole subscription."""
Scope = Literal["resourceGroup", "subscription"]
