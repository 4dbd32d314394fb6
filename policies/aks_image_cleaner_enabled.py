"""aks-image-cleaner-enabled (advisory): a ManagedCluster runs Image Cleaner.

Microsoft's built-in definition 'Azure Kubernetes Service Clusters should enable Image Cleaner'
(af3c26b2-6fad-493e-9236-9c68928516ab, Audit) over ``securityProfile.imageCleaner.enabled``; the rules are
:func:`rules.hardening.image_cleaner_off` and :func:`rules.hardening.image_cleaner_interval` (what AKS takes for
``intervalHours``), the ones the cluster component and the stack file use.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.hardening import IMAGE_CLEANER_POLICY, image_cleaner_interval, image_cleaner_off
from rules.resource_types import is_managed_cluster

from ._meta import ADVISORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, props_of
from ._specs import cluster_spec

NAME = "aks-image-cleaner-enabled"
PATH = "securityProfile.imageCleaner"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_managed_cluster(args.resource_type):
        return
    review = Review(report, args)
    props = props_of(args)
    enabled, hours = get(props, *PATH.split("."), "enabled"), get(props, *PATH.split("."), "intervalHours")
    for key, value in (("enabled", enabled), ("intervalHours", hours)):
        if value is UNKNOWN:
            review.unknown_field(f"{PATH}.{key}")
    spec = cluster_spec(args)  # the cluster as its spec (policies/_specs.py), built once per request
    if enabled is not UNKNOWN:
        for finding in image_cleaner_off(spec.image_cleaner):
            review.violation(f"{PATH}.enabled: {finding.message}")
    if isinstance(hours, int | float) and not isinstance(hours, bool):  # written: AKS's own default is not judged
        for finding in image_cleaner_interval(spec.image_cleaner_interval_hours):
            review.violation(f"{PATH}.intervalHours: {finding.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="A ManagedCluster enables Image Cleaner (securityProfile.imageCleaner.enabled: true, intervalHours 24-2160).",
    why="Without it unused and vulnerable images stay on the nodes, and GPU framework images fill the OS disk "
    f"({IMAGE_CLEANER_POLICY.cited}).",
    validate=validate,
    level=ADVISORY,
    severity=Severity.LOW,
    topics=["aks", "security", "azure-policy"],
    fix="Set securityProfile.imageCleaner: {enabled: true, intervalHours: 168} (stack file: cluster.imageCleaner).",
    applies_to=is_managed_cluster,
)
