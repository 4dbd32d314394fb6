"""The landing-zone side of :class:`~components.aks_cluster.AksGpuCluster`: the cluster's user-assigned identities,
the role assignments AKS needs (:func:`rules.identity.required_roles`), and the planned maintenance windows.

- **Identities**: ``create`` makes a ``managedidentity:UserAssignedIdentity``; a resource id is read with
  ``managedidentity.getUserAssignedIdentity`` (client and principal ids; the identity must be in the deploying
  subscription). The control-plane identity goes to ``identity`` (``UserAssigned``), the kubelet identity to
  ``identityProfile.kubeletidentity``.
- **Role assignments** (``assign_roles``): a user-assigned control-plane identity's (Network Contributor on each
  subnet and route table, and with a custom private DNS zone on the spoke VNet; Private DNS Zone Contributor on the
  zone; Managed Identity Operator on the kubelet identity) are created **before** the cluster, which depends on them
  (AKS checks them when it creates the cluster). A system-assigned control plane exists only with the cluster: its
  Network Contributor assignments are created right after it (its ``identity.principalId``), with an advisory
  (:func:`rules.identity.system_assigned_network`). AcrPull for the kubelet identity on each registry is created
  after the cluster (when AKS owns the kubelet identity its object id is a cluster output). Every role by its
  built-in definition id (``gpu_catalog/facts/aks_landing_zone.json``), principal type ``ServicePrincipal`` (a
  managed identity).
- **Maintenance**: one ``containerservice:MaintenanceConfiguration`` per window, named as AKS reads them
  (``aksManagedAutoUpgradeSchedule``, ``aksManagedNodeOSUpgradeSchedule``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi_azure_native import authorization, containerservice, managedidentity

from gpu_catalog.landing_zone import landing_zone_role
from rules import Finding
from rules.identity import (
    CREATE,
    Identities,
    RoleNeed,
    identity_findings,
    required_roles,
    system_assigned_network,
    vnet_of,
)
from rules.maintenance import MaintenanceWindow, maintenance_window
from rules.network import NetworkMode, OutboundType, network_cidrs, outbound_prerequisites, private_dns_zone

PRINCIPAL_TYPE = "ServicePrincipal"
"""A managed identity is a service principal (``RoleAssignment.principalType``)."""


@dataclass(frozen=True)
class ClusterLandingZone:
    """A cluster in the company's landing zone (``docs/landing-zone.md``). Every field's default keeps AKS's own
    choice (a cluster without this is built as before)."""

    network_mode: NetworkMode = "overlay"
    pod_cidr: str | None = None
    service_cidr: str | None = None
    dns_service_ip: str | None = None
    outbound_type: OutboundType | None = None
    subnet_ids: tuple[str, ...] = ()
    """Every node and pod subnet the pools join and the route tables they carry (Network Contributor for the control
    plane)."""
    private_dns_zone: str | None = None
    """``system``, ``none`` or a zone id (a private cluster's ``apiServerAccessProfile.privateDNSZone``)."""
    identities: Identities = field(default_factory=Identities)
    assign_roles: bool = True
    container_registries: tuple[str, ...] = ()
    maintenance: tuple[MaintenanceWindow, ...] = ()
    defender_workspace_id: str | None = None
    """Defender for Containers' security monitoring on, to this Log Analytics workspace."""
    defender: bool = False
    azure_policy_addon: bool = False

    @property
    def custom_dns_zone(self) -> str | None:
        zone = self.private_dns_zone
        return zone if zone is not None and zone not in ("system", "none") else None

    def role_needs(self) -> list[RoleNeed]:
        if not self.assign_roles:
            return []
        return required_roles(
            self.identities,
            subnet_ids=self.subnet_ids,
            private_dns_zone_id=self.custom_dns_zone,
            registries=self.container_registries,
        )


@dataclass
class ResolvedIdentity:
    """A user-assigned identity as the cluster and role assignments use it."""

    resource_id: pulumi.Input[str]
    client_id: pulumi.Input[str]
    principal_id: pulumi.Input[str]
    created: managedidentity.UserAssignedIdentity | None = None


def _parts(resource_id: str) -> tuple[str, str]:
    """(resource group, name) of an ARM id."""
    segments = resource_id.strip("/").split("/")
    lower = [s.lower() for s in segments]
    return segments[lower.index("resourcegroups") + 1], segments[-1]


def resolve_identity(
    parent: pulumi.Resource, name: str, value: str, *, resource_group_name: str, location: str, tags: dict[str, str]
) -> ResolvedIdentity:
    """``create``: a new identity ``id-<name>`` in the cluster's resource group; an id: the existing identity."""
    opts = pulumi.ResourceOptions(parent=parent)
    if value == CREATE:
        created = managedidentity.UserAssignedIdentity(
            name,
            resource_group_name=resource_group_name,
            resource_name_=f"id-{name}",
            location=location,
            tags=tags,
            opts=opts,
        )
        return ResolvedIdentity(created.id, created.client_id, created.principal_id, created)
    rg, identity = _parts(value)
    found = managedidentity.get_user_assigned_identity_output(
        resource_group_name=rg, resource_name=identity, opts=pulumi.InvokeOutputOptions(parent=parent)
    )
    return ResolvedIdentity(value, found.client_id, found.principal_id)


def _assignment_names(name: str, needs: Sequence[RoleNeed]) -> list[str]:
    """``<name>-role-<role>-<the scope's last segment>``; a later need whose name is taken (a VNet, route table and
    subnet may share a name) adds its scope's resource type (``-virtualnetworks``)."""
    names: list[str] = []
    for need in needs:
        parts = need.scope.rstrip("/").split("/")
        base = f"{name}-role-{need.role.lower()}-{parts[-1].lower()}"
        names.append(base if base not in names or len(parts) < 2 else f"{base}-{parts[-2].lower()}")
    return names


def role_assignments(
    parent: pulumi.Resource,
    name: str,
    needs: Sequence[RoleNeed],
    principals: dict[str, pulumi.Input[str]],
    *,
    kubelet_id: pulumi.Input[str] | None,
    depends_on: Sequence[pulumi.Resource] = (),
) -> list[authorization.RoleAssignment]:
    """One ``RoleAssignment`` per need whose principal is in ``principals`` (``controlPlane`` / ``kubelet``), named
    ``<name>-role-<role>-<the scope's last segment>`` (:func:`_assignment_names`)."""
    client = authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(parent=parent))
    out: list[authorization.RoleAssignment] = []
    for need, resource_name in zip(needs, _assignment_names(name, needs), strict=True):
        principal = principals.get(need.principal)
        if principal is None:
            continue
        role = landing_zone_role(need.role)
        scope = kubelet_id if need.scope == "kubelet" else need.scope
        if scope is None:
            continue
        out.append(
            authorization.RoleAssignment(
                resource_name,
                scope=scope,
                role_definition_id=client.subscription_id.apply(role.definition_id),
                principal_id=principal,
                principal_type=PRINCIPAL_TYPE,
                description=f"{role.name} for azure-gpu-platform: {need.why}",
                opts=pulumi.ResourceOptions(parent=parent, depends_on=list(depends_on) or None),
            )
        )
    return out


def _schedule(w: MaintenanceWindow) -> containerservice.ScheduleArgs:
    if w.schedule == "daily":
        return containerservice.ScheduleArgs(daily=containerservice.DailyScheduleArgs(interval_days=w.interval))
    if w.schedule == "weekly":
        return containerservice.ScheduleArgs(
            weekly=containerservice.WeeklyScheduleArgs(day_of_week=w.day_of_week or "", interval_weeks=w.interval)
        )
    if w.schedule == "absoluteMonthly":
        return containerservice.ScheduleArgs(
            absolute_monthly=containerservice.AbsoluteMonthlyScheduleArgs(
                day_of_month=w.day_of_month or 1, interval_months=w.interval
            )
        )
    return containerservice.ScheduleArgs(
        relative_monthly=containerservice.RelativeMonthlyScheduleArgs(
            day_of_week=w.day_of_week or "", interval_months=w.interval, week_index=w.week_index or ""
        )
    )


def maintenance_configurations(
    parent: pulumi.Resource,
    name: str,
    windows: Sequence[MaintenanceWindow],
    *,
    resource_group_name: str,
    cluster_name: str,
    cluster: pulumi.Resource,
) -> list[containerservice.MaintenanceConfiguration]:
    """One ``MaintenanceConfiguration`` per window, after the cluster."""
    return [
        containerservice.MaintenanceConfiguration(
            f"{name}-maintenance-{w.kind.lower()}",
            resource_group_name=resource_group_name,
            resource_name_=cluster_name,
            config_name=w.config_name,
            maintenance_window=containerservice.MaintenanceWindowArgs(
                schedule=_schedule(w),
                duration_hours=w.duration_hours,
                start_time=w.start_time,
                utc_offset=w.utc_offset,
                start_date=w.start_date.isoformat() if w.start_date else None,
                not_allowed_dates=[
                    containerservice.DateSpanArgs(start=a.isoformat(), end=b.isoformat()) for a, b in w.not_allowed
                ]
                or None,
            ),
            opts=pulumi.ResourceOptions(parent=parent, depends_on=[cluster]),
        )
        for w in windows
    ]


def landing_zone_findings(lz: ClusterLandingZone, location: str, private_cluster: bool) -> list[Finding]:
    """The landing-zone rules a component can check on its own (the subnets' sizes and route tables are stack-file
    facts: ``stack_config/landing_zone.py``): CIDRs, the outbound type against your own subnets or AKS's VNet, the
    private DNS zone, identities, maintenance windows."""
    found = [
        Finding(f"landing_zone.{f.field}", f.message)
        for f in network_cidrs(lz.network_mode, lz.pod_cidr, lz.service_cidr, lz.dns_service_ip, [])
    ]
    byo = any(vnet_of(s) is not None for s in lz.subnet_ids)  # the pools join your subnets (one VNet)
    found += [
        Finding(f"landing_zone.{f.field}", f.message) for f in outbound_prerequisites(lz.outbound_type, [], byo=byo)
    ]
    found += [
        Finding(f"landing_zone.{f.field}", f.message)
        for f in private_dns_zone(
            private_cluster, lz.private_dns_zone, location, user_assigned_control_plane=lz.identities.user_assigned
        )
    ]
    found += [
        Finding(f"landing_zone.{f.field}", f.message)
        for f in identity_findings(lz.identities, registries=lz.container_registries)
    ]
    for w in lz.maintenance:
        found += [Finding(f"landing_zone.maintenance.{w.kind}.{f.field}", f.message) for f in maintenance_window(w)]
    return found


def landing_zone_advisories(lz: ClusterLandingZone) -> list[Finding]:
    """What the landing zone leaves open (warnings, never refused): a system-assigned control plane with your own
    subnets (:func:`rules.identity.system_assigned_network`)."""
    found = system_assigned_network(lz.identities, lz.subnet_ids, assign_roles=lz.assign_roles)
    return [Finding(f"landing_zone.{f.field}", f.message) for f in found]


def landing_identities(
    parent: pulumi.Resource,
    name: str,
    lz: ClusterLandingZone,
    *,
    resource_group_name: str,
    location: str,
    tags: dict[str, str],
    depends_on: Sequence[pulumi.Resource],
) -> tuple[dict[str, ResolvedIdentity], list[authorization.RoleAssignment]]:
    """The user-assigned identities (``controlPlane`` / ``kubelet``) and the control plane's role assignments, which
    the cluster must wait for."""
    ids: dict[str, ResolvedIdentity] = {}
    for key, value in (("controlPlane", lz.identities.control_plane), ("kubelet", lz.identities.kubelet)):
        if value is not None:
            ids[key] = resolve_identity(
                parent,
                f"{name}-{'control-plane' if key == 'controlPlane' else 'kubelet'}",
                value,
                resource_group_name=resource_group_name,
                location=location,
                tags=tags,
            )
    needs = [n for n in lz.role_needs() if n.principal == "controlPlane"]
    control = ids.get("controlPlane")
    kubelet = ids.get("kubelet")
    assignments = role_assignments(
        parent,
        name,
        needs,
        {"controlPlane": control.principal_id} if control else {},
        kubelet_id=kubelet.resource_id if kubelet else None,
        depends_on=[*depends_on, *(i.created for i in ids.values() if i.created is not None)],
    )
    return ids, assignments


def cluster_identity_kwargs(ids: dict[str, ResolvedIdentity]) -> dict[str, Any]:
    """``identity`` (``UserAssigned`` with the control-plane identity, else ``SystemAssigned``) and
    ``identityProfile.kubeletidentity`` for the ManagedCluster."""
    control = ids.get("controlPlane")
    kwargs: dict[str, Any] = {
        "identity": containerservice.ManagedClusterIdentityArgs(
            type=containerservice.ResourceIdentityType.USER_ASSIGNED,
            user_assigned_identities=[control.resource_id],
        )
        if control is not None
        else containerservice.ManagedClusterIdentityArgs(type=containerservice.ResourceIdentityType.SYSTEM_ASSIGNED)
    }
    kubelet = ids.get("kubelet")
    if kubelet is not None:
        kwargs["identity_profile"] = {
            "kubeletidentity": containerservice.UserAssignedIdentityArgs(
                resource_id=kubelet.resource_id, client_id=kubelet.client_id, object_id=kubelet.principal_id
            )
        }
    return kwargs


def _kubelet_object_id(profile: Any) -> str | None:
    entry = (profile or {}).get("kubeletidentity")
    return getattr(entry, "object_id", None) if entry is not None else None


def _principal_id(identity: Any) -> str | None:
    return getattr(identity, "principal_id", None) if identity is not None else None


def after_cluster(
    parent: pulumi.Resource,
    name: str,
    lz: ClusterLandingZone,
    ids: dict[str, ResolvedIdentity],
    *,
    cluster: containerservice.ManagedCluster,
    resource_group_name: str,
    cluster_name: str,
) -> tuple[list[authorization.RoleAssignment], list[containerservice.MaintenanceConfiguration]]:
    """AcrPull for the kubelet identity on each registry (its own identity, or the one AKS created), a
    system-assigned control plane's Network Contributor (its identity exists only now), and the maintenance
    windows."""
    kubelet = ids.get("kubelet")
    principal: pulumi.Input[str] = (
        kubelet.principal_id if kubelet is not None else cluster.identity_profile.apply(_kubelet_object_id)  # type: ignore[arg-type]
    )
    principals: dict[str, pulumi.Input[str]] = {"kubelet": principal}
    if "controlPlane" not in ids:
        principals["controlPlane"] = cluster.identity.apply(_principal_id)  # type: ignore[arg-type]
    needs = [n for n in lz.role_needs() if n.principal == "kubelet" or "controlPlane" not in ids]
    pulls = role_assignments(parent, name, needs, principals, kubelet_id=None, depends_on=[cluster])
    rg = resource_group_name
    windows = maintenance_configurations(
        parent, name, lz.maintenance, resource_group_name=rg, cluster_name=cluster_name, cluster=cluster
    )
    return pulls, windows
