"""aks-control-plane-logs (stack, advisory): every ManagedCluster of the stack has a diagnostic setting that sends an
audit log category of its control plane somewhere.

Microsoft's built-in definition 'Resource logs in Azure Kubernetes Service should be enabled'
(245fc9df-fa96-4414-9a0b-3738c2f7341c, AuditIfNotExists over ``Microsoft.Insights/diagnosticSettings``) asks for a
diagnostic setting with an enabled log; this policy asks for an audit category (``kube-audit-admin`` or
``kube-audit``, or the ``audit`` / ``allLogs`` category group), which is what traces who changed what. A diagnostic
setting (``azure-native:monitor:DiagnosticSetting``, alias ``insights:DiagnosticSetting``) belongs to a cluster when
its ``resourceUri`` depends on the cluster (known in a preview; without property dependencies, the setting depends on
the cluster) or names it (``…/managedClusters/<resourceName>``).
A setting made outside the stack is invisible: advisory. The rule is :func:`rules.hardening.control_plane_logs_missing`.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import PolicyResource, ReportViolation, Severity, StackValidationArgs

from rules.hardening import AUDIT_LOG_CATEGORIES, RESOURCE_LOGS_POLICY, control_plane_logs_missing
from rules.resource_types import is_diagnostic_setting, is_managed_cluster

from ._meta import ADVISORY, GpuStackPolicy
from ._resources import UNKNOWN, Review, as_bool, get, props_of

NAME = "aks-control-plane-logs"
AUDIT_GROUPS = ("audit", "alllogs")
"""Diagnostic-setting category groups that include the audit categories (``categoryGroup``, case-insensitive)."""


def _categories(props: Any) -> list[str] | None:
    """The enabled log categories of a diagnostic setting (an audit category group counts as its audit category);
    ``None`` when a needed value is unknown."""
    logs = get(props, "logs")
    if logs is UNKNOWN:
        return None
    out: list[str] = []
    for log in logs if isinstance(logs, list) else []:
        enabled, category, group = get(log, "enabled"), get(log, "category"), get(log, "categoryGroup")
        if UNKNOWN in (enabled, category, group):
            return None
        if as_bool(enabled) is not True:
            continue
        if isinstance(category, str):
            out.append(category)
        elif isinstance(group, str) and group.lower() in AUDIT_GROUPS:
            out.append(AUDIT_LOG_CATEGORIES[0])
    return out


def _targets(setting: PolicyResource, cluster: PolicyResource, cluster_name: Any) -> bool:
    uri_deps = setting.property_dependencies.get("resourceUri")
    if uri_deps is not None and any(dep.urn == cluster.urn for dep in uri_deps):
        return True
    if uri_deps is None and any(dep.urn == cluster.urn for dep in setting.dependencies):
        return True  # an engine that sends no property dependencies: the setting's own dependency on the cluster
    uri = get(props_of(setting), "resourceUri")
    return (
        isinstance(uri, str)
        and isinstance(cluster_name, str)
        and uri.rstrip("/").lower().endswith(f"/managedclusters/{cluster_name.lower()}")
    )


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    settings = [r for r in args.resources if is_diagnostic_setting(r.resource_type)]
    for cluster in (r for r in args.resources if is_managed_cluster(r.resource_type)):
        name = get(props_of(cluster), "resourceName")
        mine = [s for s in settings if _targets(s, cluster, name)]
        found: list[str] = []
        known = True
        for setting in mine:
            categories = _categories(props_of(setting))
            if categories is None:
                review.unknown_field(f"{setting.name}: logs")
                known = False
            else:
                found += categories
        if not known:
            continue
        for finding in control_plane_logs_missing(found if mine else None):
            review.violation(f"{cluster.name}: {finding.message}", cluster.urn)
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="Every ManagedCluster of the stack has a diagnostic setting (monitor:DiagnosticSetting on the cluster) that "
    "sends an audit category of its control-plane logs (kube-audit-admin or kube-audit) to a destination.",
    why="AKS keeps no control-plane log unless a diagnostic setting sends it somewhere: without one, who changed what "
    f"on the cluster cannot be traced after an incident ({RESOURCE_LOGS_POLICY.cited}).",
    validate=validate,
    level=ADVISORY,
    severity=Severity.MEDIUM,
    topics=["aks", "security", "logging", "azure-policy"],
    fix="Create a diagnostic setting on the cluster sending kube-audit-admin, kube-apiserver, kube-controller-manager "
    "and the other control-plane categories to the Log Analytics workspace (stack file: "
    "cluster.monitoring.controlPlaneLogs: true).",
)
