"""The cluster's identities in a landing zone and the role assignments AKS needs between them and on the network.
Pure: no Pulumi.

Facts: ``gpu_catalog/facts/aks_landing_zone.json`` (managed-identity, private-cluster and egress articles; the
built-in role ids). :func:`required_roles` is the one list the component creates and the docs describe:

- the control-plane identity gets **Network Contributor** on every node and pod subnet it joins and on the route
  tables they carry; with a custom private DNS zone also on the spoke VNet those subnets are in (the private-clusters
  article grants it there), and **Private DNS Zone Contributor** on the zone;
- the control-plane identity gets **Managed Identity Operator** on a user-assigned kubelet identity;
- the kubelet identity gets **AcrPull** on every container registry.

Assignments on resources this program does not own (subnets, zones, registries) are made here only when the stack asks
(``identity.assignRoles``); a platform team that grants them itself leaves it off and the docs list them.

A **system-assigned** control plane exists only once the cluster does: its Network Contributor assignments are made
after the cluster (as the Azure CLI does), never before. AKS supports that with Azure CNI (overlay or flat, all this
platform builds): "Both system-assigned and user-assigned managed identities are supported when you create and use
your own VNet and route table with the Azure network plugin", and "highly recommends" a user-assigned one
(configure-kubenet.md; a refusal holds for kubenet only, which this platform never builds).
:func:`system_assigned_network` is that advisory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from . import Finding

IDENTITY_ID_RE = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.ManagedIdentity/userAssignedIdentities/[^/]+$",
    re.IGNORECASE,
)
VNET_OF_SUBNET_RE = re.compile(
    r"^(?P<vnet>/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Network/virtualNetworks/[^/]+)"
    r"/subnets/[^/]+$",
    re.IGNORECASE,
)
"""A subnet id (``vnetSubnetID`` / ``podSubnetID``) and its VNet's id, the part before ``/subnets/``."""
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


def vnet_of(resource_id: str) -> str | None:
    """The VNet id of a subnet id (``…/virtualNetworks/<vnet>/subnets/<subnet>`` → ``…/virtualNetworks/<vnet>``);
    ``None`` for any other id (a route table)."""
    m = VNET_OF_SUBNET_RE.match(resource_id)
    return m.group("vnet") if m else None


def network_scopes(subnet_ids: Iterable[str | None], route_table_ids: Iterable[str | None] = ()) -> tuple[str, ...]:
    """The control plane's Network Contributor scopes: every node and pod subnet the pools join, then every route
    table those subnets carry, each once in order (managed-identity article)."""
    return tuple(i for i in dict.fromkeys([*subnet_ids, *route_table_ids]) if i is not None)


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
    """Every role assignment the cluster's identities need (module docstring), in a stable order. ``subnet_ids``: the
    node and pod subnets, then the route tables they carry (the control plane's Network Contributor scopes). The
    control plane's Network Contributor holds for a system-assigned identity too (granted after the cluster)."""
    needs: list[RoleNeed] = [
        RoleNeed("controlPlane", "NetworkContributor", s, "joins nodes or pods to the subnet and its route table")
        for s in dict.fromkeys(subnet_ids)
    ]
    if private_dns_zone_id is not None:
        vnets = dict.fromkeys(v for v in (vnet_of(s) for s in subnet_ids) if v is not None)
        needs += [
            RoleNeed("controlPlane", "NetworkContributor", v, "the spoke VNet a custom private DNS zone serves")
            for v in vnets
        ]
    if ids.control_plane is not None:
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


def system_assigned_network(ids: Identities, scopes: Sequence[str], *, assign_roles: bool) -> list[Finding]:
    """Advisory (never a refusal): a system-assigned control plane with your own subnets (``scopes``: the
    :func:`network_scopes`). AKS supports it with Azure CNI, but the identity's Network Contributor can only be
    granted once the cluster exists (module docstring); Microsoft highly recommends a user-assigned control-plane
    identity granted beforehand."""
    unique = list(dict.fromkeys(scopes))
    if ids.user_assigned or not unique:
        return []
    subnets = sum(1 for s in unique if vnet_of(s) is not None)
    others = len(unique) - subnets
    what = f"{subnets} subnet(s)" + (f" and {others} route table(s)" if others else "")
    after = (
        "the platform grants it right after the cluster is created"
        if assign_roles
        else "grant it yourself once the cluster exists (its identity.principalId)"
    )
    return [
        Finding(
            "identity.controlPlane",
            f"a system-assigned control-plane identity with your own network ({what}): it exists only once the "
            f"cluster does, so its Network Contributor there cannot be granted before it ({after}). AKS supports "
            "this with Azure CNI but highly recommends a user-assigned control-plane identity "
            "(identity.controlPlane), granted before the cluster",
        )
    ]
