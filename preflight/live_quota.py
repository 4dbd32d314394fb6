"""``--live``: the stack's quota demand against the subscription's real quotas and SKU offers (opt-in).

With ``azure-identity``'s ``DefaultAzureCredential`` (environment, workload identity, managed identity, Azure CLI, …;
the role Reader on the subscription is enough) and ``azure-mgmt-compute``, per region of the demand
(``preflight/quota.py``):

- ``usage.list(location)``: per quota (``<family>``, ``cores``, ``lowPriorityCores``) its limit and current usage; the
  check reports needed at max, limit, in use, headroom (= limit − in use), and a shortfall when needed > headroom;
- ``resource_skus.list(filter="location eq '<region>'")``: per GPU size whether it is offered in the region, restricted
  for the subscription (``restrictions[].type == "Location"``, e.g. ``NotAvailableForSubscription``), and the zones it
  is offered in (``locationInfo[].zones`` minus zone restrictions) against the zones the pool asks for.

Shortfalls, restricted sizes and zone mismatches are findings (``gpu-quota``, ``gpu-size-restricted``,
``gpu-size-zones``) at a configurable level, advisory by default. Without credentials, without network or on an API
error the check does not run and :class:`LiveResult` says why in one line; the offline result stands.

``azure.identity`` and ``azure.mgmt.compute`` are imported here, inside :func:`run_live_check`, and nowhere else: the
offline preflight never loads them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from preflight.analyzer.protocol import PolicyInfo, Violation
from preflight.cost import BUDGET_PACK
from preflight.quota import LOW_PRIORITY, QUOTA_LABELS, REGIONAL, UNKNOWN_FAMILY, QuotaDemand, QuotaRow, QuotaUse

QUOTA_POLICY: Final = "gpu-quota"
RESTRICTED_POLICY: Final = "gpu-size-restricted"
ZONES_POLICY: Final = "gpu-size-zones"
LIVE_LEVELS: Final = ("advisory", "mandatory", "disabled")
SUBSCRIPTION_ENV: Final = "AZURE_SUBSCRIPTION_ID"
SUBSCRIPTION_KEY: Final = "azure-native:subscriptionId"
REQUEST_QUOTA: Final = (
    "Ask for more: Azure portal > Quotas > Compute, filter the region and the quota, select it and choose "
    "'New quota request' (or 'az quota update'; GPU families often need a support request of type 'Service and "
    "subscription limits (quotas)'); or lower maxCount / the NodePool's limits.gpus / maxWorkers."
)

_DESCRIPTIONS: Final = {
    QUOTA_POLICY: "The stack's vCPUs at maximum scale fit the subscription's free quota per region and family "
    "(live check: usage limit minus current usage).",
    RESTRICTED_POLICY: "Every GPU size the stack uses is offered in its region and not restricted for the "
    "subscription (live check: Resource SKUs).",
    ZONES_POLICY: "Every zone a GPU pool asks for offers its size (live check: Resource SKUs).",
}
_FIXES: Final = {
    QUOTA_POLICY: REQUEST_QUOTA,
    RESTRICTED_POLICY: "Pick another size or region, or ask Azure support to lift the restriction "
    "(a support request of type 'Service and subscription limits (quotas)', quota type 'Compute-VM').",
    ZONES_POLICY: "Ask only for the zones the size is offered in (pool zones), or pick another size or region.",
}


def live_policies(level: str) -> list[PolicyInfo]:
    """The live check's own policies (SARIF needs a rule for each)."""
    return [
        PolicyInfo(
            name=name,
            description=_DESCRIPTIONS[name],
            enforcement_level=level,
            policy_type="stack",
            display_name=name.replace("-", " ").capitalize(),
            remediation_steps=_FIXES[name],
            tags=("gpu", "quota"),
        )
        for name in (QUOTA_POLICY, RESTRICTED_POLICY, ZONES_POLICY)
    ]


@dataclass(frozen=True)
class FamilyCheck:
    region: str
    quota: str
    needed_max: int
    limit: int | None
    """``None``: the region's usage list has no entry for this quota."""
    in_use: int | None
    uses: tuple[str, ...]

    @property
    def label(self) -> str:
        return QUOTA_LABELS.get(self.quota, self.quota)

    @property
    def headroom(self) -> int | None:
        return None if self.limit is None or self.in_use is None else self.limit - self.in_use

    @property
    def short(self) -> bool:
        return self.headroom is not None and self.needed_max > self.headroom


@dataclass(frozen=True)
class SizeCheck:
    region: str
    vm_size: str
    offered: bool
    restricted: tuple[str, ...]
    """Reason codes of location restrictions for the subscription (``NotAvailableForSubscription``, ``QuotaId``)."""
    zones_offered: tuple[str, ...]
    zones_asked: tuple[str, ...]
    uses: tuple[str, ...]
    asking: tuple[str, ...] = ()
    """The uses that ask for zones (a pool's ``availabilityZones``)."""
    urn: str = ""
    """The first resource that uses the size (the finding's resource, so SARIF points at its size)."""

    @property
    def zones_missing(self) -> tuple[str, ...]:
        return tuple(z for z in self.zones_asked if z not in self.zones_offered)


@dataclass
class LiveResult:
    ran: bool
    reason: str = ""
    """Why the check did not run (one line), or ``""``."""
    subscription: str | None = None
    level: str = "advisory"
    families: list[FamilyCheck] = field(default_factory=list)
    sizes: list[SizeCheck] = field(default_factory=list)
    findings: list[Violation] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def line(self) -> str:
        if not self.ran:
            return f"live quota check did not run: {self.reason}; the offline result stands"
        return (
            f"live quota check: ran for subscription {self.subscription} in {self.seconds:.1f} s: "
            f"{len(self.findings)} finding(s)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ran": self.ran,
            "reason": self.reason or None,
            "subscription": self.subscription,
            "level": self.level,
            "seconds": round(self.seconds, 3),
            "families": [
                {
                    "region": f.region,
                    "quota": f.quota,
                    "label": f.label,
                    "neededMax": f.needed_max,
                    "limit": f.limit,
                    "inUse": f.in_use,
                    "headroom": f.headroom,
                    "short": f.short,
                    "uses": list(f.uses),
                }
                for f in self.families
            ],
            "sizes": [
                {
                    "region": s.region,
                    "vmSize": s.vm_size,
                    "offered": s.offered,
                    "restricted": list(s.restricted),
                    "zonesOffered": list(s.zones_offered),
                    "zonesAsked": list(s.zones_asked),
                    "zonesMissing": list(s.zones_missing),
                    "uses": list(s.uses),
                }
                for s in self.sizes
            ],
        }


def subscription_from(stack_values: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> str | None:
    """The stack's ``azure-native:subscriptionId``, else ``$AZURE_SUBSCRIPTION_ID``."""
    value = stack_values.get(SUBSCRIPTION_KEY)
    if isinstance(value, str) and value.strip():
        return value.strip()
    env = os.environ if environ is None else environ
    return env.get(SUBSCRIPTION_ENV) or None


# --------------------------------------------------------------------------------------------------------------------
# Comparing (pure: plain values read from the SDK's models)


def _uses_by_row(row: QuotaRow, demand: QuotaDemand) -> str:
    by_label = {u.label: u for u in demand.uses if u.region == row.region}
    parts = [f"{label} {by_label[label].vcpus_max}" for label in row.uses if label in by_label]
    return ", ".join(parts)


def compare_usage(demand: QuotaDemand, usages: Mapping[str, Mapping[str, tuple[int, int]]]) -> list[FamilyCheck]:
    """Per demand row (family, ``cores``, ``lowPriorityCores``): the region's limit and usage (``usages``: region →
    quota name lower-cased → (current, limit))."""
    out: list[FamilyCheck] = []
    for row in demand.rows():
        if row.quota == UNKNOWN_FAMILY:
            continue
        found = usages.get(row.region, {}).get(row.quota.lower())
        current, limit = found if found is not None else (None, None)
        out.append(FamilyCheck(row.region, row.quota, row.vcpus_max, limit, current, row.uses))
    return out


def compare_skus(demand: QuotaDemand, skus: Mapping[str, Mapping[str, Any]]) -> list[SizeCheck]:
    """Per (region, size) of the demand: offered, restricted, zones (``skus``: region → size lower-cased → a dict
    ``{"offered": bool, "restricted": [...], "zones": [...]}``)."""
    groups: dict[tuple[str, str], list[QuotaUse]] = {}
    for u in demand.uses:
        if u.vcpus_per_node is None:
            continue
        groups.setdefault((u.region, u.vm_size), []).append(u)
    out: list[SizeCheck] = []
    for (region, size), uses in groups.items():
        info = skus.get(region, {}).get(size.lower())
        asked = sorted({z for u in uses for z in u.zones})
        labels = tuple(u.label for u in uses)
        asking = tuple(u.label for u in uses if u.zones)
        if info is None:
            out.append(SizeCheck(region, size, False, (), (), tuple(asked), labels, asking, uses[0].urn))
            continue
        out.append(
            SizeCheck(
                region,
                size,
                bool(info["offered"]),
                tuple(info["restricted"]),
                tuple(sorted(info["zones"])),
                tuple(asked),
                labels,
                asking,
                uses[0].urn,
            )
        )
    return out


def findings(
    demand: QuotaDemand, families: list[FamilyCheck], sizes: list[SizeCheck], level: str, stack_urn: str
) -> list[Violation]:
    if level == "disabled":
        return []
    out: list[Violation] = []
    for f in families:
        if not f.short:
            continue
        row = next(r for r in demand.rows() if r.region == f.region and r.quota == f.quota)
        message = (
            f"{f.region} {f.label}: the stack needs up to {f.needed_max} vCPUs at maximum scale "
            f"({_uses_by_row(row, demand)}); limit {f.limit}, in use {f.in_use}, headroom {f.headroom}: short by "
            f"{f.needed_max - (f.headroom or 0)} vCPUs. {REQUEST_QUOTA}"
        )
        out.append(_violation(QUOTA_POLICY, level, stack_urn, message))
    for s in sizes:
        if not s.offered or s.restricted:
            why = (
                f"restricted for this subscription ({', '.join(s.restricted)})"
                if s.offered
                else "not offered in the region"
            )
            message = f"{s.region} {s.vm_size}: {why}; used by {', '.join(s.uses)}. {_FIXES[RESTRICTED_POLICY]}"
            out.append(_violation(RESTRICTED_POLICY, level, s.urn or stack_urn, message))
        elif s.zones_missing:
            offered = ", ".join(s.zones_offered) or "none"
            message = (
                f"{s.region} {s.vm_size}: zone(s) {', '.join(s.zones_missing)} asked for by {', '.join(s.asking)} do "
                f"not offer the size (zones offered: {offered}; asked: {', '.join(s.zones_asked)}). "
                f"{_FIXES[ZONES_POLICY]}"
            )
            out.append(_violation(ZONES_POLICY, level, s.urn or stack_urn, message))
    return out


def _violation(policy: str, level: str, urn: str, message: str) -> Violation:
    return Violation(
        policy_name=policy,
        policy_pack_name=BUDGET_PACK,
        enforcement_level=level,
        urn=urn,
        message=message,
        description=_DESCRIPTIONS[policy],
    )


# --------------------------------------------------------------------------------------------------------------------
# Reading Azure (the only place that imports the Azure SDK)


def _read_usages(client: Any, region: str) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for usage in client.usage.list(region):
        name = usage.name.value if usage.name is not None else None
        if isinstance(name, str):
            out[name.lower()] = (int(usage.current_value), int(usage.limit))
    return out


def _read_skus(client: Any, region: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for sku in client.resource_skus.list(filter=f"location eq '{region}'"):
        if (sku.resource_type or "").lower() != "virtualmachines" or not sku.name:
            continue
        locations = [loc.replace(" ", "").lower() for loc in sku.locations or []]
        zones: set[str] = set()
        for info in sku.location_info or []:
            if (info.location or "").replace(" ", "").lower() == region:
                zones.update(info.zones or [])
        restricted: list[str] = []
        for r in sku.restrictions or []:
            where = [v.replace(" ", "").lower() for v in (r.values_property or [])]
            ri = r.restriction_info
            if ri is not None:
                where += [loc.replace(" ", "").lower() for loc in ri.locations or []]
            if region not in where:
                continue
            if _text(r.type).lower() == "zone":
                zones.difference_update((ri.zones or []) if ri is not None else [])
            else:
                restricted.append(_text(r.reason_code) or "restricted")
        out[sku.name.lower()] = {"offered": region in locations, "restricted": restricted, "zones": sorted(zones)}
    return out


def _text(value: Any) -> str:
    """An SDK enum member or a plain string, as the API spells it."""
    return str(getattr(value, "value", value) or "")


def run_live_check(
    demand: QuotaDemand,
    *,
    subscription: str | None,
    level: str = "advisory",
    stack_urn: str = "",
    credential: Any = None,
    transport: Any = None,
) -> LiveResult:
    """Read usages and Resource SKUs for the demand's regions and compare (module docstring). Never raises for
    missing credentials, network or API errors: the result then says why it did not run."""
    start = time.monotonic()
    if subscription is None:
        return LiveResult(
            False,
            f"no subscription: set {SUBSCRIPTION_KEY} in the stack file or ${SUBSCRIPTION_ENV}",
            level=level,
        )
    regions = [r for r in demand.regions() if not r.startswith("(")]
    if not regions:
        return LiveResult(False, "the stack uses no GPU size in a known region", subscription=subscription, level=level)
    try:
        from azure.core.exceptions import AzureError, ClientAuthenticationError, HttpResponseError
        from azure.mgmt.compute import ComputeManagementClient
    except ImportError as exc:
        return LiveResult(False, f"azure-mgmt-compute is not installed ({exc})", subscription=subscription, level=level)
    try:
        if credential is None:
            from azure.identity import DefaultAzureCredential

            credential = DefaultAzureCredential()
        kwargs: dict[str, Any] = {"retry_total": 1}
        if transport is not None:
            kwargs["transport"] = transport
        client = ComputeManagementClient(credential, subscription, **kwargs)
        usages = {region: _read_usages(client, region) for region in regions}
        skus = {region: _read_skus(client, region) for region in regions}
    except ClientAuthenticationError as exc:
        return LiveResult(False, f"no Azure credentials ({_first_line(exc)})", subscription=subscription, level=level)
    except HttpResponseError as exc:
        return LiveResult(
            False, f"Azure API error {exc.status_code}: {_first_line(exc)}", subscription=subscription, level=level
        )
    except AzureError as exc:
        return LiveResult(False, f"no network ({_first_line(exc)})", subscription=subscription, level=level)
    families = compare_usage(demand, usages)
    sizes = compare_skus(demand, skus)
    result = LiveResult(
        True,
        subscription=subscription,
        level=level,
        families=families,
        sizes=sizes,
        findings=findings(demand, families, sizes, level, stack_urn),
    )
    result.seconds = time.monotonic() - start
    return result


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


__all__ = ["LOW_PRIORITY", "REGIONAL", "LiveResult", "live_policies", "run_live_check", "subscription_from"]
