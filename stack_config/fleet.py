"""The ``fleet`` key of a stack file: a multi-region GPU fleet on Azure Kubernetes Fleet Manager (issue 38,
``docs/fleet.md``, ``docs/fleet-rules.md``).

One stack holds the whole fleet. The stack file's usual sections (``cluster``, ``gpuPools``, ``gpuOperator``,
``kaito``, ``monitoring``, ...) are the member **template**; ``fleet.members[i]`` names a member, its region, its update
group and its ``overrides``: a partial stack config merged over the template (:mod:`stack_config.fleet_members`).
This module holds the models only (the keys as written, with the Fleet REST spec's name rules,
``gpu_catalog/facts/fleet.json``); the expansion into one validated :class:`~stack_config.models.StackConfig` per
member and the fleet's rules (:mod:`rules.fleet`) run in :mod:`stack_config.fleet_members`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field, ValidationInfo, field_validator

from gpu_catalog.problems import show
from gpu_catalog.regions import check_region
from rules.fleet_wire import FLEET_MEMBER_TAG as MEMBER_TAG
from rules.specs.fleet import FleetUpgradeChannel, NodeImageSelection

from .base import StrictModel, empty_section, worded

_ARM_NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_ARM_NAME_WORDS = "must be lowercase letters, digits and '-', starting and ending with a letter or digit"

FleetName = Annotated[str, Field(min_length=1, max_length=63), worded(_ARM_NAME, _ARM_NAME_WORDS)]
"""The Fleet's name (``fleetName``: 1–63 characters, ``^[a-z0-9]([-a-z0-9]*[a-z0-9])?$``)."""
MemberName = Annotated[str, Field(min_length=1, max_length=50), worded(_ARM_NAME, _ARM_NAME_WORDS)]
"""A FleetMember's name (``fleetMemberName``: 1–50 characters, same pattern); it also suffixes the member's cluster
and resource group names."""
GroupName = Annotated[str, Field(min_length=1, max_length=50), worded(_ARM_NAME, _ARM_NAME_WORDS)]
"""An update group (``FleetMemberProperties.group``, ``UpdateGroup.name``: 1–50 characters, same pattern)."""
StageName = Annotated[str, Field(min_length=1, max_length=50), worded(_ARM_NAME, _ARM_NAME_WORDS)]
"""An update stage (``UpdateStage.name``: 1–50 characters, same pattern)."""
MinorVersion = Annotated[str, worded(r"^1\.\d{2}$", "must be a Kubernetes minor like '1.36' (quote it)")]


def _region(name: str) -> str:
    problem = check_region(name)
    if problem is not None:
        raise ValueError(f"{show(name)} is {problem}")
    return name


Region = Annotated[str, AfterValidator(_region)]
"""An Azure region's programmatic name (``gpu_catalog/facts/azure_regions.json``), checked like ``location``."""

STACK_WIDE_KEYS: tuple[str, ...] = (
    "environment",
    "location",
    "fleet",
    "policy",
    "budget",
    "exemptions",
    "exemptionMaxDays",
)
"""Top-level keys a member cannot override: the stack's environment, the policy pack's config, the budget and the
exemptions are one per stack (the whole fleet); a member's location is its ``region``."""


class FleetHubConfig(StrictModel):
    """``fleet.hub``: the Fleet's hub cluster (``hubProfile``), which places Kubernetes objects on the members
    (``ClusterResourcePlacement``). It is an AKS cluster Azure runs and bills; without it the Fleet only orchestrates
    updates."""

    enabled: bool = True
    vmSize: str | None = None
    """``hubProfile.agentProfile.vmSize``; unset: Fleet Manager's default."""


class FleetMemberConfig(StrictModel):
    """``fleet.members[i]``: one member cluster, built from the stack's sections with ``overrides`` merged over them."""

    name: MemberName
    region: Region
    """The member cluster's Azure region (its ``location``): ``gpu_catalog/facts/azure_regions.json``."""
    group: GroupName | None = None
    """The update group a stage of ``updateStrategy`` names."""
    labels: dict[str, str] = Field(default_factory=dict)
    """Member labels of your own; the platform adds the region and GPU facts (``rules.fleet.member_labels``)."""
    overrides: dict[str, Any] = Field(default_factory=dict)
    """A partial stack config (same keys as the top level, without the stack-wide ones: :data:`STACK_WIDE_KEYS`)
    merged over the template: mappings deep-merged, lists of named entries (``gpuPools``) merged by ``name``, other
    lists replaced (:func:`stack_config.fleet_members.merge_over`)."""


class UpdateStageConfig(StrictModel):
    """``fleet.updateStrategy.stages[i]``: groups upgraded together, then a wait before the next stage."""

    name: StageName
    groups: Annotated[list[GroupName], Field(min_length=1)]
    afterStageWaitInSeconds: Annotated[int, Field(ge=0)] | None = None


class UpdateStrategyConfig(StrictModel):
    """``fleet.updateStrategy``: the ``FleetUpdateStrategy`` every update run of the fleet follows."""

    name: StageName = "gpu-staged"
    stages: Annotated[list[UpdateStageConfig], Field(min_length=1)]


class AutoUpgradeConfig(StrictModel):
    """``fleet.autoUpgrade``: the fleet's ``AutoUpgradeProfile`` (which releases start an update run)."""

    channel: FleetUpgradeChannel
    nodeImageSelection: NodeImageSelection = "Consistent"
    targetKubernetesVersion: MinorVersion | None = None
    """Required with ``channel: TargetKubernetesVersion``, refused with any other (the REST spec's rule)."""
    disabled: bool = False

    @field_validator("targetKubernetesVersion")
    @classmethod
    def _target(cls, v: str | None, info: ValidationInfo) -> str | None:
        channel = info.data.get("channel")
        if channel == "TargetKubernetesVersion" and v is None:
            raise ValueError("required with channel TargetKubernetesVersion: the minor to keep the members on ('1.36')")
        if channel is not None and channel != "TargetKubernetesVersion" and v is not None:
            raise ValueError(
                f"only with channel TargetKubernetesVersion; channel {channel} chooses the version itself. Remove it "
                "or use channel TargetKubernetesVersion"
            )
        return v


class PlacementConfig(StrictModel):
    """``fleet.placements[i]``: a ``ClusterResourcePlacement`` on the hub placing a namespace on members that can run
    it."""

    name: Annotated[str, Field(min_length=1, max_length=63), worded(_ARM_NAME, _ARM_NAME_WORDS)]
    namespace: Annotated[
        str,
        worded(
            r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$",
            "must be a Kubernetes namespace: ≤63 lowercase letters, digits and '-', starting and ending with a "
            "letter or digit",
        ),
    ]
    vmSizes: list[str] = Field(default_factory=list)
    """Members qualify when one of their GPU pools has one of these sizes (empty: any member with a GPU pool)."""
    kaitoPreset: str | None = None
    """A KAITO preset the namespace's workspace runs: members qualify when a pool's size meets the preset's rule."""
    numberOfClusters: Annotated[int, Field(ge=1)] | None = None
    """``PickN`` over the qualifying members; unset: ``PickAll``."""


class FleetConfig(StrictModel):
    """``fleet``: the Fleet, its members, its update strategy, its auto-upgrade profile and its placements."""

    name: FleetName
    location: Region | None = None
    """The Fleet resource's region (and its hub's); defaults to the stack's ``location``."""
    hub: FleetHubConfig = empty_section()
    members: Annotated[list[FleetMemberConfig], Field(min_length=1)]
    updateStrategy: UpdateStrategyConfig | None = None
    autoUpgrade: AutoUpgradeConfig | None = None
    placements: list[PlacementConfig] = Field(default_factory=list)


FLEET_MEMBER_TAG = MEMBER_TAG
"""The tag every Azure resource of a member carries (its value: the member's name), via the member's
``cluster.tags``; the preflight groups cost by it (defined once: :data:`rules.fleet_wire.FLEET_MEMBER_TAG`)."""
