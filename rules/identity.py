"""The cluster's identities in a landing zone and the role assignments AKS needs between them and on the network.
Pure: no Pulumi.

Facts: ``gpu_catalog/facts/aks_landing_zone.json`` (managed-identity, private-cluster and egress articles; the
built-in role ids). :func:`required_roles` is the one list the component creates and the docs describe:

- the control-plane identity gets **Network Contributor** on every node and pod subnet it joins (and so on what the
  subnet's route table carries), and **Private DNS Zone Contributor** on a custom private DNS zone;
- the control-plane identity gets **Managed Identity Operator** on a user-assigned kubelet identity;
- the kubelet identity gets **AcrPull** on every container registry.

Assignments on resources this program does not own (subnets, zones, registries) are made here only when the stack asks
(``identity.assignNetworkRoles``); a platform team that grants them itself leaves it off and the docs list them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from . import Finding

IDENTITY_ID_RE = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.ManagedIdentity/userAssignedIdentities/[^/]+$",
    re.IGNORECASE,
)
REGISTRY_ID_RE = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.ContainerRegistry/registries/[^/]+$",
    re.IGNORECASE,
)
CREATE: str = "create"
"""The identity value that makes the platform create the user-assigned identity."""

Principal = Literal["controlPlane", "kubelet"]
RoleKey = Literal["NetworkContributor", "ManagedIdentityOperator", "AcrPull", "PrivateDnsZoneContributor"]


@dataclass(frozen=True, slots=True)
class Identities:
    """``identity``: ``None`` keeps AKS's system-assigned control plane and its own kubelet identity; a resource id
    uses an existing user-assigned identity; ``create`` makes the platform create one."""

    control_plane: str | None = None
    kubelet: str | None = None

    @property
    def user_assigned(self) -> bool:
        return self.control_plane is not None


@dataclass(frozen=True, slots=True)
class RoleNeed:
    """One role assignment AKS needs: who, which built-in role, on what (a resource id or a logical name)."""

    principal: Principal
    role: RoleKey
    scope: str
    why: str


def identity_findings(ids: Identities, *, registries: Sequence[str]) -> list[Finding]:
    """Ids have the user-assigned identity form; a kubelet identity needs a user-assigned control plane (the
    control plane must be granted Managed Identity Operator on it); registry ids are registries."""
    found: list[Finding] = []
    for key, value in (("controlPlane", ids.control_plane), ("kubelet", ids.kubelet)):
        if value is not None and value != CREATE and not IDENTITY_ID_RE.match(value):
            found.append(
                Finding(
                    f"identity.{key}",
                    f"{value!r} is neither 'create' nor a user-assigned identity id (/subscriptions/…/providers/"
                    "Microsoft.ManagedIdentity/userAssignedIdentities/<name>)",
                )
            )
    if ids.kubelet is not None and ids.control_plane is None:
        found.append(
            Finding(
                "identity.kubelet",
                "a user-assigned kubelet identity needs a user-assigned control-plane identity "
                "(identity.controlPlane), which is granted Managed Identity Operator on it",
            )
        )
    for i, reg in enumerate(registries):
        if not REGISTRY_ID_RE.match(reg):
            found.append(
                Finding(
                    f"containerRegistries[{i}]",
                    f"{reg!r} is not a container registry id (/subscriptions/…/providers/Microsoft.ContainerRegistry/"
                    "registries/<name>)",
                )
            )
    return found


def required_roles(
    ids: Identities,
    *,
    subnet_ids: Sequence[str],
    private_dns_zone_id: str | None,
    registries: Sequence[str],
) -> list[RoleNeed]:
    """Every role assignment the cluster's identities need (module docstring), in a stable order."""
    needs: list[RoleNeed] = []
    if ids.control_plane is not None:
        needs += [
            RoleNeed("controlPlane", "NetworkContributor", s, "joins nodes or pods to the subnet and its route table")
            for s in dict.fromkeys(subnet_ids)
        ]
        if private_dns_zone_id is not None:
            needs.append(
                RoleNeed("controlPlane", "PrivateDnsZoneContributor", private_dns_zone_id, "writes the API record")
            )
        if ids.kubelet is not None:
            needs.append(
                RoleNeed("controlPlane", "ManagedIdentityOperator", "kubelet", "assigns the kubelet identity to nodes")
            )
    needs += [RoleNeed("kubelet", "AcrPull", r, "pulls images from the registry") for r in dict.fromkeys(registries)]
    return needs
