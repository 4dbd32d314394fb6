"""aks-cluster-hardening: what an AKS cluster leaves open — the API server, network policy, Container Insights,
encryption at host on its pools (advisory; the same rules the cluster component warns with: rules/hardening.py)."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.hardening import (
    ApiServer,
    api_server_open,
    container_insights_off,
    encryption_at_host_off,
    network_policy_off,
)
from rules.resource_types import is_managed_cluster

from ._meta import ADVISORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, as_bool, get, pools_of, props_of

NAME = "aks-cluster-hardening"


def _cluster(args: ResourceValidationArgs, review: Review) -> None:
    props = props_of(args)
    ranges = get(props, "apiServerAccessProfile", "authorizedIPRanges")
    private = get(props, "apiServerAccessProfile", "enablePrivateCluster")
    if UNKNOWN in (ranges, private):
        review.unknown_field("apiServerAccessProfile")
    else:
        api = ApiServer(
            authorized_ip_ranges=tuple(r for r in ranges if isinstance(r, str)) if isinstance(ranges, list) else (),
            private_cluster=bool(as_bool(private)),
        )
        for f in api_server_open(api):
            review.violation(f"apiServerAccessProfile: {f.message}")
    policy = get(props, "networkProfile", "networkPolicy")
    if policy is UNKNOWN:
        review.unknown_field("networkProfile.networkPolicy")
    else:
        for f in network_policy_off(policy.lower() if isinstance(policy, str) and policy else "none"):
            review.violation(f"networkProfile.networkPolicy: {f.message}")
    oms = get(props, "addonProfiles", "omsagent", "enabled")
    if oms is UNKNOWN:
        review.unknown_field("addonProfiles.omsagent.enabled")
    else:
        for f in container_insights_off(bool(as_bool(oms))):
            review.violation(f"addonProfiles.omsagent: {f.message}")


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    if is_managed_cluster(args.resource_type):
        _cluster(args, review)
    off: list[str] = []
    for pool in pools_of(args, review):
        enabled = pool.get("enableEncryptionAtHost")
        if enabled is UNKNOWN:
            review.unknown_field(pool.path("enableEncryptionAtHost"))
        elif not as_bool(enabled):
            name = pool.name
            off.append(name if isinstance(name, str) else pool.path())
    for f in encryption_at_host_off(off):
        review.violation(f"enableEncryptionAtHost: {f.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="An AKS cluster restricts its API server (authorized IP ranges or private), runs a network policy engine, "
    "sends Container Insights logs, and its pools use encryption at host.",
    why="An API server open to the internet, pods that can all reach each other, no logs in Azure Monitor and "
    "unencrypted host caches are what security teams' AKS checks (Checkov CKV_AZURE_6, 7, 4, 227) flag; a dev "
    "cluster may accept them on purpose, hence advisory.",
    validate=validate,
    level=ADVISORY,
    severity=Severity.MEDIUM,
    topics=["aks", "security"],
    fix="Set cluster.apiServer, cluster.network {dataplane: cilium, policy: cilium}, cluster.monitoring."
    "containerInsights and per-pool encryptionAtHost (docs/security-checks.md).",
)
