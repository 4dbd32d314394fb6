"""A multi-region GPU fleet on Azure Kubernetes Fleet Manager, defined once (issue 38; ``docs/fleet.md``).

The stack file's ``fleet`` section (``stack_config.fleet``) parses into :class:`FleetSpec`; the fleet components
(``components.fleet``) send it; the preflight reports it per member; the policies judge raw Fleet resources with the
same rules (:mod:`rules.fleet`). One stack holds the whole fleet: the Fleet (with or without a hub), one member
cluster per entry of ``fleet.members`` (each a full platform cluster built from the stack's own sections — the
template — with the member's ``overrides`` merged over them), the update strategy, the auto-upgrade profile and the
placements.

Stack-file shape (camelCase keys; the field docs below say what each is)::

    azure-gpu-platform:fleet:
      name: gpu-fleet
      location: westeurope            # the Fleet resource's region (and the hub's)
      hub: {enabled: true, vmSize: Standard_D4s_v4}
      members:
        - {name: weu, region: westeurope, group: canary}
        - {name: sec, region: swedencentral, group: rest, overrides: {gpuPools: [...]}}
      updateStrategy:
        stages:
          - {name: canary, groups: [canary], afterStageWaitInSeconds: 3600}
          - {name: rest, groups: [rest]}
      autoUpgrade: {channel: Stable, nodeImageSelection: Consistent}
      placements:
        - {name: team-a-llm, namespace: team-a, vmSizes: [Standard_NC24ads_A100_v4]}

Pure: no Pulumi import, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

FleetUpgradeChannel = Literal["Stable", "Rapid", "NodeImage", "TargetKubernetesVersion"]
"""``AutoUpgradeProfile.properties.channel`` (Microsoft.ContainerService fleets, stable API)."""
NodeImageSelection = Literal["Latest", "Consistent"]
"""``AutoUpgradeProfile.properties.nodeImageSelection.type`` / ``UpdateRun`` node image selection."""


@dataclass(frozen=True)
class FleetPool:
    """One GPU pool of a member as the fleet sees it: where a pod can land and what it can request."""

    name: str
    vm_size: str
    gpu_resources: tuple[str, ...] = ()
    """Extended resources a pod requests on this pool's nodes (``nvidia.com/gpu``, ``nvidia.com/mig-3g.40gb``)."""
    max_nodes: int = 0
    """Nodes at the pool's upper bound (``maxCount`` or ``count``; a NAP pool: the nodes its GPU limit holds)."""
    auto_provisioned: bool = False
    """One size a node auto-provisioning pool (``gpuNodePools``) may launch: Karpenter picks among its sizes, so one
    size missing in a region does not stop the pool."""


@dataclass(frozen=True)
class FleetMember:
    """One member cluster: its region, its update group and the GPU stack it runs (from its expanded config)."""

    name: str
    """The FleetMember's name (and the prefix of every resource of this member's platform)."""
    region: str
    group: str | None = None
    """The update group its stage names (``properties.group`` of the FleetMember)."""
    kubernetes_version: str = ""
    """The member cluster's Kubernetes minor (``1.33``)."""
    auto_upgrade_channel: str | None = None
    """The member cluster's own ``autoUpgradeProfile.upgradeChannel`` (lower case as AKS sends it), if any."""
    gpu_operator_version: str | None = None
    """The pinned NVIDIA GPU operator version, when the member runs it."""
    kaito_addon: bool = False
    """The member runs the KAITO add-on (AKS AI toolchain operator)."""
    pools: tuple[FleetPool, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    """Member labels of your own (the platform adds region and GPU facts, ``rules.fleet.member_labels``)."""
    node_os_upgrade_channel: str | None = None
    """The member cluster's own ``autoUpgradeProfile.nodeOSUpgradeChannel`` (``NodeImage``), if any."""
    node_auto_provisioning: bool = False
    """The member runs node auto-provisioning (``gpuNodePools``): Fleet updates only its control plane."""
    cluster_name: str = ""
    """The member's AKS cluster name (the template's with ``-<member>``, or the override's)."""
    resource_group: str = ""
    """The member's resource group name."""
    kubernetes_pin: str = ""
    """``cluster.kubernetesVersion`` as written (``1.36`` or a patch pin ``1.36.2``)."""


@dataclass(frozen=True)
class UpdateStage:
    """One stage of the update strategy: the groups it upgrades together, then a wait before the next stage."""

    name: str
    groups: tuple[str, ...]
    after_stage_wait_seconds: int | None = None


@dataclass(frozen=True)
class AutoUpgrade:
    """The fleet's auto-upgrade profile: which upgrades it triggers and how node images are chosen."""

    channel: FleetUpgradeChannel
    node_image_selection: NodeImageSelection = "Consistent"
    target_kubernetes_version: str | None = None
    """Only with ``channel: TargetKubernetesVersion`` (a minor, ``1.34``)."""
    disabled: bool = False


@dataclass(frozen=True)
class Placement:
    """A ``ClusterResourcePlacement`` on the hub: a namespace (and what is in it) placed on members that can run it."""

    name: str
    namespace: str
    vm_sizes: tuple[str, ...] = ()
    """Members qualify when one of their pools has one of these sizes (empty: any GPU member)."""
    kaito_preset: str | None = None
    """A KAITO preset the namespace's workspace runs: members qualify when a pool's size meets the preset's rule."""
    number_of_clusters: int | None = None
    """``PickN``: how many qualifying members; ``None``: ``PickAll`` over the qualifying members."""


@dataclass(frozen=True)
class FleetSpec:
    """The whole fleet: every field a stack file may set (module docstring)."""

    name: str
    location: str
    hub: bool = True
    hub_vm_size: str | None = None
    members: tuple[FleetMember, ...] = ()
    stages: tuple[UpdateStage, ...] = ()
    auto_upgrade: AutoUpgrade | None = None
    placements: tuple[Placement, ...] = ()
