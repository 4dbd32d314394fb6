"""fleet-auto-upgrade-channel: a Fleet auto-upgrade profile never takes a member past the Kubernetes range its pinned
GPU operator or KAITO add-on is validated on, and no member keeps an own auto-upgrade channel that moves its version
under the fleet's (:func:`rules.fleet.fleet_channel_findings`, :func:`rules.fleet.member_channel_findings`: the rules
the stack config calls on the stack file's ``fleet``). Their warnings are ``fleet-auto-upgrade-next-move``'s."""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from ._fleet import review_profiles
from ._meta import MANDATORY, GpuStackPolicy

NAME = "fleet-auto-upgrade-channel"


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review_profiles(args, report, advisory=False)


POLICY = GpuStackPolicy(
    name=NAME,
    what="A Fleet Manager auto-upgrade profile (fleets/autoUpgradeProfiles: generic azure-native:resources:Resource or "
    "typed AutoUpgradeProfile) moves no member whose ManagedCluster the stack shows (tag fleet-member) past the newest "
    "Kubernetes minor its pinned GPU operator or KAITO add-on is validated on, and no member keeps its own "
    "auto-upgrade channel that moves its Kubernetes version under the fleet's profile.",
    why="Fleet Manager upgrades the members' control planes and node pools on its channel with no pulumi up: a GPU "
    "operator or KAITO add-on outside its validated range leaves GPU nodes without a working driver or device plugin; "
    "a member's own channel upgrades it whenever it runs first, outside the update strategy's stages (Fleet FAQ). "
    "Members the stack does not show are reported as not checked.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["aks", "fleet", "lifecycle", "gpu-operator", "kaito"],
    fix="Pick the channel the message allows (or a targetKubernetesVersion inside the range), pin a GPU operator "
    "validated on the target, or set the members' own autoUpgradeProfile.upgradeChannel to none.",
)
