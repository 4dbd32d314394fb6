"""Cluster access guard rails: the role assignment that gives the identity running ``pulumi up`` AKS RBAC Cluster
Admin must say what kind of principal it is. No Pulumi imports.

Why no default: the REST spec of ``Microsoft.Authorization/roleAssignments`` (Azure/azure-rest-api-specs
``specification/authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/authorization-RoleAssignmentsCalls.json``,
``RoleAssignmentProperties.principalType``) declares ``"default": "User"``, and pulumi-azure-native 3.29.0 writes it
in when the argument is unset (``authorization/role_assignment.py``: ``if principal_type is None: principal_type =
'User'``), so "unset" is never "ARM looks it up": a service principal or managed identity (CI) is sent as ``User`` and
ARM refuses the assignment with ``UnmatchedPrincipalType``. Managed identities are service principals
(``ServicePrincipal``); ``Group``, ``ForeignGroup`` and ``Device`` cannot run ``pulumi up``. Sources:
``gpu_catalog/facts/aks_access.json``.
"""

from __future__ import annotations

import typing
from typing import Literal

from . import Finding

DeployerPrincipalType = Literal["User", "ServicePrincipal"]
"""The principal types of the REST spec's ``principalType`` enum that can run ``pulumi up``."""

DEPLOYER_PRINCIPAL_TYPES: tuple[str, ...] = typing.get_args(DeployerPrincipalType)


def deployer_principal_type(grant_deployer: bool, principal_type: str | None) -> list[Finding]:
    """The deployer's principal type is given, and is one that can run ``pulumi up``, whenever the deployer is granted
    Cluster Admin (``grantDeployer``)."""
    if not grant_deployer:
        return []
    allowed = (
        f"Allowed: {DEPLOYER_PRINCIPAL_TYPES[0]} (a person signed in with az login) or {DEPLOYER_PRINCIPAL_TYPES[1]} "
        "(a service principal or managed identity, e.g. CI with OIDC); or grantDeployer: false when access is "
        "granted elsewhere."
    )
    if principal_type is None:
        return [
            Finding(
                "deployerPrincipalType",
                "required while the identity running pulumi up is granted Cluster Admin (grantDeployer, default "
                "true): left unset, pulumi-azure-native 3.29.0 sends principalType 'User' (the REST spec's default), "
                "and ARM refuses the role assignment with UnmatchedPrincipalType when a service principal or "
                f"managed identity deploys. {allowed}",
            )
        ]
    if principal_type not in DEPLOYER_PRINCIPAL_TYPES:
        return [
            Finding(
                "deployerPrincipalType",
                f"{principal_type!r} cannot run pulumi up (groups, foreign groups and devices do not sign in to "
                f"Azure Resource Manager). {allowed}",
            )
        ]
    return []


__all__ = ["DEPLOYER_PRINCIPAL_TYPES", "DeployerPrincipalType", "deployer_principal_type"]
