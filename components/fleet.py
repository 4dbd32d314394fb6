"""``GpuFleet``: an Azure Kubernetes Fleet Manager fleet over the member clusters of one stack (issue 38,
``docs/fleet.md``).

Every Fleet resource is sent with the generic ``azure-native:resources:Resource`` at an explicit stable API version
(:data:`FLEET_API_VERSION`, ``gpu_catalog/facts/fleet.json``): pulumi-azure-native 3.29.0's typed
``containerservice.Fleet*`` resources send the 2024-05-02-preview API, and the stable versions are reachable only
through a locally generated SDK or this generic route, which gives up typed inputs. What is sent is therefore checked
against the REST spec of that version by the conformance facts (``conformance/facts/fleet.json``).

Resource tree (``<name>`` is the component's name, ``fleet`` in the program)::

    GpuFleet "<name>"
      ResourceGroup "<name>-rg"                       (unless the resource group exists)
      Resource "<name>-fleet"                         Microsoft.ContainerService/fleets (hubProfile with a hub)
      Resource "<name>-member-<member>"               fleets/members, one per member, each after its cluster
      Resource "<name>-update-strategy"               fleets/updateStrategies (the stages), after the members
      Resource "<name>-auto-upgrade"                  fleets/autoUpgradeProfiles (channel, node image selection)
      RoleAssignment "<name>-hub-access-deployer"     Fleet Manager RBAC Cluster Admin on the fleet (hub + placements)
      Sleep "<name>-hub-access-wait"                  the role's propagation
      kubernetes Provider "<name>-hub-k8s"            from listFleetCredentials (the hub's user kubeconfig)
      Namespace "<name>-ns-<namespace>"               on the hub, per placed namespace
      ClusterResourcePlacement "<name>-placement-<placement>"   placement.kubernetes-fleet.io/v1, after the members

A hub is an AKS cluster Fleet Manager runs (and bills) for the fleet: a single-node Standard-tier cluster
(MicrosoftDocs/azure-aks-docs ``articles/kubernetes-fleet/concepts-choosing-fleet.md``). Without one the fleet only
orchestrates updates, and placements are refused. Every hub field is create-only and a hub cannot be removed, so a
change of the hub replaces the Fleet, deleting it first, and its children with it (:data:`HUB_REPLACE_ON_CHANGES`).

The hub's credentials come from the typed ``listFleetCredentials`` invoke (API 2024-05-02-preview in the SDK; its
request and response shape are those of the stable spec's ``Fleets_ListCredentials``), the only invoke route the SDK
has: an ARM resource is the same whichever API version reads it.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi_azure_native import authorization, containerservice, resources

from gpu_catalog.access import fleet_cluster_admin_role
from gpu_catalog.fleet import load_fleet_facts
from rules import Finding
from rules.fleet import member_name_findings, stage_findings
from rules.specs.fleet import AutoUpgrade, FleetMember, FleetSpec, UpdateStage

from .validation import refuse_findings

if TYPE_CHECKING:
    import pulumi_kubernetes as k8s

TYPE_TOKEN = "azure-gpu-platform:components:GpuFleet"
FLEET_API_VERSION = load_fleet_facts().api_version
"""The Fleet REST API version every Fleet resource is sent at (``gpu_catalog/facts/fleet.json``: the newest stable
version whose spec was read, 2026-06-01, which also has member ``labels``: placement by GPU size needs them)."""
PROVIDER_NAMESPACE = "Microsoft.ContainerService"
PLACEMENT_API_VERSION = "placement.kubernetes-fleet.io/v1"
"""``ClusterResourcePlacement``'s GA group/version (Azure/fleet ``apis/placement/v1``)."""
PLACEMENT_KIND = "ClusterResourcePlacement"
HUB_REPLACE_ON_CHANGES = ("properties.hubProfile",)
"""The Fleet's inputs whose change replaces it (``gpu_catalog/facts/fleet.json`` ``fields.fleet.hubChange``): every
settable field of ``FleetHubProfile`` is create-only in the REST spec, and a fleet with a hub cannot go back to none;
the generic resource does not know the spec, so the engine is told (a path covers the changes under it)."""


@dataclass(frozen=True)
class FleetMemberArgs:
    """One member: its FleetMember name, update group and labels (the cluster comes with :class:`MemberCluster`)."""

    name: str
    group: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    region: str = ""
    """The member cluster's region (not sent: the FleetMember has none; named in refusals)."""


@dataclass(frozen=True)
class MemberCluster:
    """A member's cluster as the fleet needs it: its ARM id and the resources its FleetMember must wait for."""

    cluster_id: pulumi.Input[str]
    depends_on: Sequence[pulumi.Resource] = ()


@dataclass(frozen=True)
class PlacementArgs:
    """A ``ClusterResourcePlacement`` of a namespace: ``PickAll`` (``number_of_clusters`` unset) or ``PickN`` over the
    members its ``cluster_selector_terms`` (``ClusterSelectorTerm`` objects, wire form) select."""

    name: str
    namespace: str
    cluster_selector_terms: tuple[Mapping[str, Any], ...] = ()
    number_of_clusters: int | None = None


@dataclass(frozen=True)
class FleetAccess:
    """Who may write to the hub's Kubernetes API (Fleet Manager RBAC Cluster Admin on the fleet)."""

    grant_deployer: bool = True
    deployer_principal_type: str | None = None
    propagation_wait_seconds: int = 300


@dataclass(frozen=True)
class GpuFleetArgs:
    """The fleet, its members, its update strategy, its auto-upgrade profile and its placements."""

    fleet_name: str
    resource_group_name: str
    location: str
    members: tuple[FleetMemberArgs, ...]
    create_resource_group: bool = True
    hub: bool = True
    hub_vm_size: str | None = None
    update_strategy_name: str = "gpu-staged"
    stages: tuple[UpdateStage, ...] = ()
    auto_upgrade_name: str = "gpu-auto-upgrade"
    auto_upgrade: AutoUpgrade | None = None
    placements: tuple[PlacementArgs, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict[str, str])
    access: FleetAccess = field(default_factory=FleetAccess)
    api_version: str = FLEET_API_VERSION

    def __post_init__(self) -> None:
        refuse_findings("GpuFleet", self.fleet_name, fleet_args_findings(self), {})


_ARGS_FIELDS = {"members": "members", "updateStrategy": "stages"}
"""A fleet rule's top-level key (``members[1].name``, ``updateStrategy.stages[0]``) → the Args field."""


def fleet_args_findings(args: GpuFleetArgs) -> list[Finding]:
    """What the Fleet API or the hub would refuse, by Args field, with the fleet rules' messages
    (:func:`rules.fleet.member_name_findings`, :func:`rules.fleet.stage_findings`): a member named twice, a stage
    naming a group no member is in, a member no stage upgrades; and placements without a hub."""
    found: list[Finding] = []
    if args.placements and not args.hub:
        found.append(Finding("placements", "a ClusterResourcePlacement needs the fleet's hub (hub=True)"))
    spec = FleetSpec(
        name=args.fleet_name,
        location=args.location,
        hub=args.hub,
        members=tuple(FleetMember(m.name, m.region, m.group) for m in args.members),
        stages=args.stages,
    )
    for f in [*member_name_findings(spec), *stage_findings(spec)]:
        key = re.split(r"[.\[]", f.field, maxsplit=1)[0]
        found.append(Finding(_ARGS_FIELDS.get(key, key), f.message))
    return found


def fleet_properties(args: GpuFleetArgs) -> dict[str, Any]:
    """``Fleet.properties``: the hub profile with a hub (DNS prefix from the fleet's name, the VM size when set)."""
    if not args.hub:
        return {}
    hub: dict[str, Any] = {"dnsPrefix": args.fleet_name[:54].rstrip("-")}
    if args.hub_vm_size:
        hub["agentProfile"] = {"vmSize": args.hub_vm_size}
    return {"hubProfile": hub}


def member_properties(member: FleetMemberArgs, cluster_id: pulumi.Input[str]) -> dict[str, Any]:
    """``FleetMember.properties``: the cluster, its update group and its labels."""
    props: dict[str, Any] = {"clusterResourceId": cluster_id}
    if member.group:
        props["group"] = member.group
    if member.labels:
        props["labels"] = dict(member.labels)
    return props


def update_strategy_properties(stages: Sequence[UpdateStage]) -> dict[str, Any]:
    """``FleetUpdateStrategy.properties``: the stages in order, each with its groups and its wait."""
    out: list[dict[str, Any]] = []
    for stage in stages:
        wire: dict[str, Any] = {"name": stage.name, "groups": [{"name": g} for g in stage.groups]}
        if stage.after_stage_wait_seconds is not None:
            wire["afterStageWaitInSeconds"] = stage.after_stage_wait_seconds
        out.append(wire)
    return {"strategy": {"stages": out}}


def auto_upgrade_properties(profile: AutoUpgrade, strategy_id: pulumi.Input[str] | None) -> dict[str, Any]:
    """``AutoUpgradeProfile.properties``: the channel, the node image selection, the update strategy it follows."""
    props: dict[str, Any] = {"channel": profile.channel, "nodeImageSelection": {"type": profile.node_image_selection}}
    if strategy_id is not None:
        props["updateStrategyId"] = strategy_id
    if profile.target_kubernetes_version is not None:
        props["targetKubernetesVersion"] = profile.target_kubernetes_version
    if profile.disabled:
        props["disabled"] = True
    return props


def placement_spec(placement: PlacementArgs) -> dict[str, Any]:
    """A ``ClusterResourcePlacement``'s spec: the namespace (and what it holds) on the members the affinity selects,
    all of them (``PickAll``) or ``number_of_clusters`` (``PickN``)."""
    policy: dict[str, Any] = {"placementType": "PickAll" if placement.number_of_clusters is None else "PickN"}
    if placement.number_of_clusters is not None:
        policy["numberOfClusters"] = placement.number_of_clusters
    if placement.cluster_selector_terms:
        policy["affinity"] = {
            "clusterAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "clusterSelectorTerms": [dict(t) for t in placement.cluster_selector_terms]
                }
            }
        }
    return {
        "resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": placement.namespace}],
        "policy": policy,
    }


def _decode_kubeconfig(result: containerservice.ListFleetCredentialsResult) -> str:
    if not result.kubeconfigs:
        raise pulumi.RunError("Fleet Manager returned no hub kubeconfig for the fleet")
    return base64.b64decode(result.kubeconfigs[0].value).decode("utf-8")


class GpuFleet(pulumi.ComponentResource):
    """The Fleet, one FleetMember per member cluster, the update strategy, the auto-upgrade profile and the
    placements on the hub (module docstring)."""

    resource_group: resources.ResourceGroup | None
    fleet: resources.Resource
    members: dict[str, resources.Resource]
    update_strategy: resources.Resource | None
    auto_upgrade: resources.Resource | None
    placements: dict[str, pulumi.CustomResource]
    fleet_id: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        args: GpuFleetArgs,
        clusters: Mapping[str, MemberCluster],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """``clusters``: each member's cluster by member name (every member of ``args`` needs one)."""
        missing = [m.name for m in args.members if m.name not in clusters]
        if missing:
            findings = [Finding("clusters", f"no cluster for member {m!r}") for m in missing]
            refuse_findings("GpuFleet", name, findings, {})
        super().__init__(TYPE_TOKEN, name, None, opts)
        self._name = name
        self._args = args
        self.resource_group = None
        deps: list[pulumi.Resource] = []
        if args.create_resource_group:
            self.resource_group = resources.ResourceGroup(
                f"{name}-rg",
                resource_group_name=args.resource_group_name,
                location=args.location,
                tags=dict(args.tags),
                opts=pulumi.ResourceOptions(parent=self),
            )
            deps.append(self.resource_group)
        self.fleet = self._arm(
            "fleet", "fleets", args.fleet_name, fleet_properties(args), depends_on=deps, top_level=True
        )
        self.fleet_id = self.fleet.id
        # the children's resource group, taken through the fleet: replacing the fleet replaces its children
        self._child_group = self.fleet.id.apply(lambda _: args.resource_group_name)
        self.members = {
            m.name: self._arm(
                f"member-{m.name}",
                "members",
                m.name,
                member_properties(m, clusters[m.name].cluster_id),
                depends_on=[self.fleet, *clusters[m.name].depends_on],
            )
            for m in args.members
        }
        self.update_strategy = self._update_strategy()
        self.auto_upgrade = self._auto_upgrade()
        self.placements = self._placements()
        self.register_outputs({"fleetId": self.fleet_id})

    def _arm(
        self,
        suffix: str,
        resource_type: str,
        resource_name: str,
        properties: Mapping[str, Any],
        *,
        depends_on: Sequence[pulumi.Resource],
        top_level: bool = False,
    ) -> resources.Resource:
        """One Fleet resource through the generic ARM resource, at the fleet's API version: the fleet itself
        (``top_level``: with its location and tags; replaced, deleted first, when its hub changes) or one of its child
        resources (``fleets/<fleet>/<type>``), whose resource group comes through the fleet so that the engine
        replaces it with the fleet (ARM keeps no child of a deleted fleet; docs/fleet.md, "Hub or no hub")."""
        args = self._args
        if top_level:
            opts = pulumi.ResourceOptions(
                parent=self,
                depends_on=list(depends_on),
                replace_on_changes=list(HUB_REPLACE_ON_CHANGES),
                delete_before_replace=True,  # one ARM name: the new fleet cannot be created beside the old one
            )
        else:
            opts = pulumi.ResourceOptions(parent=self, depends_on=list(depends_on))
        return resources.Resource(
            f"{self._name}-{suffix}",
            api_version=args.api_version,
            resource_provider_namespace=PROVIDER_NAMESPACE,
            resource_type=resource_type,
            parent_resource_path="" if top_level else f"fleets/{args.fleet_name}",
            resource_group_name=args.resource_group_name if top_level else self._child_group,
            resource_name_=resource_name,
            location=args.location if top_level else None,
            tags=dict(args.tags) if top_level else None,
            properties=dict(properties),
            opts=opts,
        )

    def _update_strategy(self) -> resources.Resource | None:
        """The update strategy (its stages name the members' groups): after every member joined."""
        args = self._args
        if not args.stages:
            return None
        return self._arm(
            "update-strategy",
            "updateStrategies",
            args.update_strategy_name,
            update_strategy_properties(args.stages),
            depends_on=list(self.members.values()),
        )

    def _auto_upgrade(self) -> resources.Resource | None:
        """The auto-upgrade profile, following the update strategy when there is one."""
        args = self._args
        if args.auto_upgrade is None:
            return None
        strategy = self.update_strategy
        return self._arm(
            "auto-upgrade",
            "autoUpgradeProfiles",
            args.auto_upgrade_name,
            auto_upgrade_properties(args.auto_upgrade, strategy.id if strategy is not None else None),
            depends_on=[strategy] if strategy is not None else list(self.members.values()),
        )

    def _hub_access(self) -> list[pulumi.Resource]:
        """Fleet Manager RBAC Cluster Admin on the fleet for the deployer (to write placements on the hub), then the
        propagation wait; the fleet alone when access is granted elsewhere."""
        access = self._args.access
        if not access.grant_deployer:
            return [self.fleet]
        from pulumiverse_time import Sleep

        role = fleet_cluster_admin_role()
        client = authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(parent=self))
        assignment = authorization.RoleAssignment(
            f"{self._name}-hub-access-deployer",
            scope=self.fleet.id,
            role_definition_id=client.subscription_id.apply(role.definition_id),
            principal_id=client.object_id,
            principal_type=access.deployer_principal_type,
            description=f"{role.name} for azure-gpu-platform (deployer)",
            opts=pulumi.ResourceOptions(parent=self),
        )
        if access.propagation_wait_seconds == 0:
            return [assignment]
        return [
            Sleep(
                f"{self._name}-hub-access-wait",
                create_duration=f"{access.propagation_wait_seconds}s",
                triggers={"deployer": assignment.id},
                opts=pulumi.ResourceOptions(parent=self, depends_on=[assignment]),
            )
        ]

    def hub_provider(self, depends_on: Sequence[pulumi.Resource]) -> k8s.Provider:
        """A Kubernetes provider for the hub, from its user kubeconfig (``listFleetCredentials``; kubelogin)."""
        import pulumi_kubernetes as k8s

        args = self._args
        creds = containerservice.list_fleet_credentials_output(
            resource_group_name=args.resource_group_name,
            fleet_name=args.fleet_name,
            opts=pulumi.InvokeOutputOptions(parent=self, depends_on=[self.fleet]),
        )
        return k8s.Provider(
            f"{self._name}-hub-k8s",
            kubeconfig=pulumi.Output.secret(creds.apply(_decode_kubeconfig)),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.fleet, *depends_on]),
        )

    def _placements(self) -> dict[str, pulumi.CustomResource]:
        """Per placement its namespace on the hub and the ``ClusterResourcePlacement``, after every member joined."""
        args = self._args
        if not args.placements:
            return {}
        from pulumi_kubernetes.apiextensions import CustomResource
        from pulumi_kubernetes.core.v1 import Namespace

        access = self._hub_access()
        provider = self.hub_provider(access)
        namespaces: dict[str, Namespace] = {}
        for ns in dict.fromkeys(p.namespace for p in args.placements):
            namespaces[ns] = Namespace(
                f"{self._name}-ns-{ns}",
                metadata={"name": ns, "labels": {"app.kubernetes.io/managed-by": "pulumi"}},
                opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=access),
            )
        return {
            p.name: CustomResource(
                f"{self._name}-placement-{p.name}",
                api_version=PLACEMENT_API_VERSION,
                kind=PLACEMENT_KIND,
                metadata={"name": p.name},
                spec=placement_spec(p),
                opts=pulumi.ResourceOptions(
                    parent=self,
                    provider=provider,
                    depends_on=[namespaces[p.namespace], *self.members.values()],
                ),
            )
            for p in args.placements
        }
