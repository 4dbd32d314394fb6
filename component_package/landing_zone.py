"""The package cluster's landing-zone inputs (``network``, ``identity``, ``containerRegistries``, ``maintenance``,
``defender``, ``azurePolicyAddon``, ``apiServer.privateDnsZone``, the pools' subnets) as the component's
:class:`~components.landing_zone.ClusterLandingZone`: the same settings a stack file builds
(``composition/landing_zone_wiring.py``), checked by the same rules when the cluster's Args are built
(``components/aks_cluster_args.py``: :func:`components.landing_zone.landing_zone_findings`).

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Literal

from component_package.args import plain, present
from component_package.inputs import DateSpan
from component_package.inputs import MaintenanceWindow as WindowInput
from components import gpu_node_pool
from components.landing_zone import ClusterLandingZone
from components.validation import InvalidArgsError
from rules import Finding
from rules.identity import Identities, network_scopes
from rules.maintenance import MaintenanceWindow

COMPONENT = "AksGpuCluster"
WindowKind = Literal["autoUpgrade", "nodeOs"]
_KINDS: tuple[tuple[WindowKind, str], ...] = (("autoUpgrade", "auto_upgrade"), ("nodeOs", "node_os"))
_WINDOW_FIELDS = ("durationHours", "startTime", "utcOffset", "interval", "schedule", "dayOfWeek", "dayOfMonth")
_MAX_LISTED = 16
"""How many list entries (registries, not-allowed dates) the property paths below name one by one."""


def _day(value: str, key: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise InvalidArgsError(COMPONENT, name, [Finding(key, f"{value!r} is not a date (YYYY-MM-DD)")]) from None


def _span(span: DateSpan, key: str, name: str) -> tuple[date, date]:
    return _day(span["start"], f"{key}.start", name), _day(span["end"], f"{key}.end", name)


def _window(kind: WindowKind, key: str, w: WindowInput, name: str) -> MaintenanceWindow:
    given = present(
        w, "interval", "day_of_week", "day_of_month", "week_index", "start_time", "duration_hours", "utc_offset"
    )
    start = w.get("start_date")
    spans = w.get("not_allowed_dates") or []
    at = f"maintenance.{key}"
    return MaintenanceWindow(
        kind=kind,
        schedule=plain(w["schedule"]),
        start_date=_day(start, f"{at}.start_date", name) if start is not None else None,
        not_allowed=tuple(_span(s, f"{at}.not_allowed_dates[{i}]", name) for i, s in enumerate(spans)),
        **given,
    )


def landing_zone(args: Mapping[str, Any], specs: Sequence[gpu_node_pool.GpuPoolSpec], name: str) -> ClusterLandingZone:
    """The cluster's landing zone from the package inputs (module docstring). The control plane's Network
    Contributor scopes are the pools' node and pod subnets, then ``network.routeTableIds``."""
    net = args.get("network") or {}
    ident = args.get("identity") or {}
    maintenance = args.get("maintenance") or {}
    defender = args.get("defender") or {}
    system = args.get("system_pool") or {}
    api = args.get("api_server") or {}
    subnets = [system.get("vnet_subnet_id"), system.get("pod_subnet_id")]
    subnets += [i for s in specs for i in (s.vnet_subnet_id, s.pod_subnet_id)]
    windows = tuple(_window(kind, key, maintenance[key], name) for kind, key in _KINDS if maintenance.get(key))
    return ClusterLandingZone(
        **present(net, "pod_cidr", "service_cidr", "dns_service_ip", "outbound_type"),
        **({"network_mode": plain(net["mode"])} if net.get("mode") is not None else {}),
        subnet_ids=network_scopes(subnets, net.get("route_table_ids") or ()),
        private_dns_zone=api.get("private_dns_zone"),
        identities=Identities(ident.get("control_plane"), ident.get("kubelet")),
        assign_roles=bool(ident.get("assign_roles", True)),
        container_registries=tuple(args.get("container_registries") or ()),
        maintenance=windows,
        defender=bool(defender.get("enabled", False)),
        defender_workspace_id=defender.get("log_analytics_workspace_id") or args.get("log_analytics_workspace_id"),
        azure_policy_addon=bool(args.get("azure_policy_addon", False)),
    )


def _paths() -> dict[str, str]:
    """The rules' finding fields (``landing_zone.<field>``) as the package's property paths."""
    out = {f"landing_zone.{k}": f"network.{k}" for k in ("podCidr", "serviceCidr")}
    out["landing_zone.dnsServiceIP"] = "network.dnsServiceIp"
    out["landing_zone.outboundType"] = "network.outboundType"
    out["landing_zone.privateDnsZone"] = "apiServer.privateDnsZone"
    out |= {f"landing_zone.identity.{k}": f"identity.{k}" for k in ("controlPlane", "kubelet")}
    out |= {f"landing_zone.containerRegistries[{i}]": f"containerRegistries[{i}]" for i in range(_MAX_LISTED)}
    for kind, _ in _KINDS:
        prefix, to = f"landing_zone.maintenance.{kind}", f"maintenance.{kind}"
        out |= {f"{prefix}.{f}": f"{to}.{f}" for f in _WINDOW_FIELDS}
        out |= {f"{prefix}.weekIndex": f"{to}.weekIndex"}
        out |= {f"{prefix}.notAllowedDates[{i}]": f"{to}.notAllowedDates[{i}]" for i in range(_MAX_LISTED)}
    return out


LANDING_ZONE_PATHS = _paths()
"""Where a landing-zone finding points in the package's inputs (for :func:`component_package.args.checked`)."""
