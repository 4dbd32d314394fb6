"""aks-kaito-addon-version: KAITO Workspaces run on a cluster whose Kubernetes minor runs the add-on version whose
preset table the pack checks them against (``gpu_catalog/facts/kaito_addon.json``, :func:`rules.kaito.addon_version`,
the rule the stack config and ``KaitoWorkspaceArgs`` call).

A Workspace names no cluster: with one ManagedCluster in the stack it runs there; with several it is not checked,
unless the stack is a fleet (every ManagedCluster tagged ``fleet-member``), where each member's Workspaces (by tag,
provider, parent or ``<member>-`` name prefix) are judged against that member's cluster."""

from __future__ import annotations

from collections.abc import Sequence

from pulumi_policy import PolicyResource, ReportViolation, Severity, StackValidationArgs

from rules import findings
from rules.kaito import KAITO_ADDON_VERSION, KaitoCluster, addon_version
from rules.resource_types import is_kaito_workspace, is_managed_cluster

from ._fleet import member_groups
from ._meta import MANDATORY, GpuStackPolicy
from ._resources import UNKNOWN, Review, as_bool, get, props_of

NAME = "aks-kaito-addon-version"


def _relevant(rtype: str) -> bool:
    return is_managed_cluster(rtype) or is_kaito_workspace(rtype)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    groups = member_groups(args.resources, _relevant)
    for group in groups.values() if groups is not None else (args.resources,):
        _judge(group, review)
    review.finish()


def _judge(resources: Sequence[PolicyResource], review: Review) -> None:
    """One cluster's Workspaces against its minor: the stack's resources, or one fleet member's
    (:func:`policies._fleet.member_groups`: a member's Workspaces run on the member's cluster)."""
    workspaces = sum(1 for r in resources if is_kaito_workspace(r.resource_type))
    clusters = [r for r in resources if is_managed_cluster(r.resource_type)]
    if workspaces and len(clusters) > 1:  # a Workspace names no cluster: with several, which one runs it is unknown
        review.not_checked(f"{len(clusters)} ManagedClusters in the stack: a KAITO Workspace names none of them")
        return
    if not workspaces:
        return
    for cluster in clusters:
        props = props_of(cluster)
        props = props if isinstance(props, dict) else {}
        enabled, version = get(props, "aiToolchainOperatorProfile", "enabled"), get(props, "kubernetesVersion")
        if enabled is UNKNOWN:
            review.unknown_field(f"{cluster.name}: aiToolchainOperatorProfile.enabled")
        elif version is UNKNOWN:
            review.unknown_field(f"{cluster.name}: kubernetesVersion")
        elif as_bool(enabled) and isinstance(version, str):
            facts = KaitoCluster(addon_enabled=True, workspaces=workspaces, kubernetes_version=version)
            for finding in findings(addon_version(facts, workspaces="the stack's KAITO Workspaces")):
                review.violation(f"{cluster.name}: kubernetesVersion: {finding.message}", cluster.urn)


POLICY = GpuStackPolicy(
    name=NAME,
    what="A ManagedCluster with the KAITO add-on (aiToolchainOperatorProfile.enabled) and KAITO Workspaces beside it "
    f"runs a Kubernetes minor on which AKS runs the add-on version {KAITO_ADDON_VERSION}.",
    why="AKS picks the add-on version from the cluster's Kubernetes minor, and each add-on version has its own preset "
    "set: the Workspaces' presets and GPU fit are checked against that table, which another minor may not serve "
    "(the dates and versions are data: gpu_catalog/facts/kaito_addon.json).",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["aks", "kaito", "lifecycle"],
    fix="Set kubernetesVersion to a minor the message lists, or move the Workspaces to a cluster on one.",
)
