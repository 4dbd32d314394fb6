"""The schema's string enums, each built from the constants and types the rules, the catalog and the components use
(never restated here).

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

import re
import typing
from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from components import gpu_node_pool, nap_pool
from gpu_catalog import MIG_PROFILES
from rules import aks as rules_aks
from rules import maintenance as rules_maintenance
from rules import network as rules_network
from rules.access import DEPLOYER_PRINCIPAL_TYPES
from rules.aks import LINUX_OS_SKUS, WINDOWS_OS_SKUS
from rules.databricks import CLASSIC_PREVIEW, DEDICATED_MODES
from rules.exemptions import CATEGORIES
from rules.hardening import NETWORK_DATAPLANES, NETWORK_POLICIES, default_os_disk_type
from rules.hardening import SshAccess as SshAccessValues
from rules.karpenter import BudgetReason as BudgetReasonValues
from rules.node_stack import SharingMode as SharingModeValues
from rules.sizes import SIZE_RULES
from rules.upgrade import AUTO_UPGRADE_CHANNELS
from rules.upgrade import NodeOsUpgradeChannel as NodeOsUpgradeChannelValues


def _member_name(value: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", value)
    return re.sub(r"[^A-Za-z0-9]+", "_", spaced).strip("_").upper()


def literal_values(annotation: Any) -> tuple[str, ...]:
    """The strings of a ``Literal[...]`` annotation (inside ``Optional`` or a union with ``None``)."""
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(v) for v in typing.get_args(annotation))
    return tuple(v for arg in typing.get_args(annotation) if arg is not type(None) for v in literal_values(arg))


def _dataclass_field(cls: type, name: str) -> tuple[str, ...]:
    return literal_values(typing.get_type_hints(cls)[name])


def _enum(name: str, values: Iterable[str], doc: str) -> Any:
    """A string enum of the schema: one member per value (``timeSlicing`` → ``TIME_SLICING``)."""
    members = [(_member_name(v), v) for v in values]
    enum = StrEnum(name, members, module=__name__)
    enum.__doc__ = doc
    return enum


def string_enum(name: str, values: Iterable[str], doc: str) -> Any:
    """A string enum of the schema made elsewhere (an input generated from a spec's allowed values)."""
    return _enum(name, values, doc)


if typing.TYPE_CHECKING:  # the type checker sees string enums; the schema's members are built below

    class OsType(StrEnum): ...

    class OsSku(StrEnum): ...

    class DriverMode(StrEnum): ...

    class MigProfile(StrEnum): ...

    class SharingMode(StrEnum): ...

    class MigStrategy(StrEnum): ...

    class SkuTier(StrEnum): ...

    class SupportPlan(StrEnum): ...

    class AutoUpgradeChannel(StrEnum): ...

    class NodeOsUpgradeChannel(StrEnum): ...

    class PrincipalType(StrEnum): ...

    class DataSecurityMode(StrEnum): ...

    class ComputeKind(StrEnum): ...

    class CapacityType(StrEnum): ...

    class ImageFamily(StrEnum): ...

    class ConsolidationPolicy(StrEnum): ...

    class BudgetReason(StrEnum): ...

    class OsDiskType(StrEnum): ...

    class NetworkDataplane(StrEnum): ...

    class NetworkPolicy(StrEnum): ...

    class SshAccess(StrEnum): ...

    class NetworkMode(StrEnum): ...

    class OutboundType(StrEnum): ...

    class MaintenanceSchedule(StrEnum): ...

    class WeekDay(StrEnum): ...

    class WeekIndex(StrEnum): ...

    class SizeRule(StrEnum): ...

    class ExemptionCategory(StrEnum): ...

else:
    SizeRule = _enum("SizeRule", SIZE_RULES, "A GPU size rule (policy) an exemption may waive for a pool.")
    ExemptionCategory = _enum(
        "ExemptionCategory",
        CATEGORIES,
        "Azure Policy's exemption category: `Waiver` (accepted as is) or `Mitigated` (the intent is met another way).",
    )
    OsType = _enum("OsType", _dataclass_field(rules_aks.GpuPool, "os"), "The operating system of a GPU pool's nodes.")
    OsSku = _enum(
        "OsSku", (*LINUX_OS_SKUS, *WINDOWS_OS_SKUS), "The node OS image (Linux SKUs on Linux, Windows on Windows)."
    )
    DriverMode = _enum(
        "DriverMode",
        literal_values(rules_aks.DriverMode),
        "Who installs the NVIDIA driver: `aks` (AKS, `gpuProfile.driver: Install`) or `operator` (the GPU "
        "operator; AKS skips its driver, `gpuProfile.driver: None`).",
    )
    MigProfile = _enum("MigProfile", MIG_PROFILES, "AKS GPU instance profile (MIG) of A100/H100/H200 sizes.")
    SharingMode = _enum(
        "SharingMode",
        literal_values(SharingModeValues),
        "How the GPU operator's device plugin shares a GPU: time-slicing or MPS.",
    )
    MigStrategy = _enum(
        "MigStrategy",
        literal_values(gpu_node_pool.MigStrategy),
        "How MIG slices are advertised: `single` as `nvidia.com/gpu`, `mixed` as `nvidia.com/mig-<profile>`.",
    )
    SkuTier = _enum("SkuTier", literal_values(rules_aks.SkuTier), "The AKS pricing tier.")
    OsDiskType = _enum(
        "OsDiskType",
        literal_values(typing.get_type_hints(default_os_disk_type)["return"]),
        "The nodes' OS disk: `Ephemeral` or `Managed`.",
    )
    NetworkDataplane = _enum("NetworkDataplane", NETWORK_DATAPLANES, "The network dataplane (Azure CNI overlay).")
    NetworkPolicy = _enum("NetworkPolicy", NETWORK_POLICIES, "The network policy engine (it must suit the dataplane).")
    SshAccess = _enum(
        "SshAccess",
        literal_values(SshAccessValues),
        "SSH to the nodes (`securityProfile.sshAccess`): `Disabled` turns it off, `LocalUser` is AKS's default.",
    )
    SupportPlan = _enum("SupportPlan", literal_values(rules_aks.SupportPlan), "The AKS Kubernetes support plan.")
    AutoUpgradeChannel = _enum("AutoUpgradeChannel", AUTO_UPGRADE_CHANNELS, "The cluster's auto-upgrade channel.")
    NodeOsUpgradeChannel = _enum(
        "NodeOsUpgradeChannel", literal_values(NodeOsUpgradeChannelValues), "The nodes' OS upgrade channel."
    )
    PrincipalType = _enum(
        "PrincipalType",
        DEPLOYER_PRINCIPAL_TYPES,
        "The kind of identity that runs `pulumi up`.",
    )
    DataSecurityMode = _enum(
        "DataSecurityMode",
        DEDICATED_MODES,
        "Dedicated access: `SINGLE_USER` (a user) or `DATA_SECURITY_MODE_DEDICATED` (a group, with `kind`).",
    )
    ComputeKind = _enum("ComputeKind", (CLASSIC_PREVIEW,), "The request shape of group-dedicated compute.")
    CapacityType = _enum(
        "CapacityType",
        nap_pool.FACTS.capacity_types,
        "`karpenter.sh/capacity-type` of the nodes NAP creates (NAP prefers spot when both are allowed).",
    )
    ImageFamily = _enum("ImageFamily", nap_pool.FACTS.image_families, "The AKSNodeClass `imageFamily` (node OS image).")
    ConsolidationPolicy = _enum(
        "ConsolidationPolicy",
        nap_pool.FACTS.consolidation_policies,
        "Which nodes Karpenter consolidates: `WhenEmpty` removes only nodes without workload pods.",
    )
    BudgetReason = _enum(
        "BudgetReason",
        literal_values(BudgetReasonValues),
        "The disruption reason a budget limits.",
    )
    NetworkMode = _enum(
        "NetworkMode",
        literal_values(rules_network.NetworkMode),
        "Azure CNI Overlay (`overlay`: pods on a private pod CIDR) or flat Azure CNI (`flat`: pods on VNet addresses).",
    )
    OutboundType = _enum(
        "OutboundType",
        literal_values(rules_network.OutboundType),
        "`networkProfile.outboundType`: the cluster's egress (`userDefinedRouting`: through your firewall).",
    )
    MaintenanceSchedule = _enum(
        "MaintenanceSchedule", literal_values(rules_maintenance.ScheduleType), "A maintenance window's schedule type."
    )
    WeekDay = _enum("WeekDay", literal_values(rules_maintenance.WeekDay), "A day of the week.")
    WeekIndex = _enum(
        "WeekIndex", literal_values(rules_maintenance.WeekIndex), "The week of the month of a relativeMonthly window."
    )
