"""aks-node-ssh-disabled (advisory): every scale-set node pool disables SSH (``securityProfile.sshAccess``).

Microsoft's built-in definition 'Azure Kubernetes Clusters should disable SSH' (28257686-e9db-403e-b9e2-a5eecbe03da9,
Audit) counts every ``agentPoolProfiles[*]`` whose ``securityProfile.sshAccess`` is unset or ``LocalUser``; this policy
reads standalone AgentPools too (AKS reads them back into the cluster's profiles). Only VirtualMachineScaleSets pools
(``type`` unset or that) are judged: AKS disables SSH on no other type (azure-aks-docs
``manage-ssh-node-access.md``). The rule is :func:`rules.hardening.node_ssh_enabled`.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.hardening import SSH_DISABLED, SSH_POLICY, SSH_POOL_TYPE, node_ssh_enabled
from rules.resource_types import is_aks_pool_resource

from ._meta import ADVISORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, agent_pools, props_of

NAME = "aks-node-ssh-disabled"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_aks_pool_resource(args.resource_type):
        return
    review = Review(report, args)
    pools, unknown = agent_pools(args.resource_type, props_of(args))
    for path in unknown:
        review.unknown_field(path)
    for pool in pools:
        pool_type, access = pool.get("type"), pool.get("securityProfile", "sshAccess")
        for key, value in (("type", pool_type), ("securityProfile.sshAccess", access)):
            if value is UNKNOWN:
                review.unknown_field(pool.path(*key.split(".")))
        if pool_type is UNKNOWN or access is UNKNOWN:
            continue
        if isinstance(pool_type, str) and pool_type.lower() != SSH_POOL_TYPE.lower():
            continue
        where = pool.label(args.name)
        for finding in node_ssh_enabled({where: access if isinstance(access, str) else None}):
            review.violation(f"{pool.path('securityProfile', 'sshAccess')}: {finding.message}")
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what=f"Every VirtualMachineScaleSets node pool (AgentPool, agentPoolProfiles[]) sets securityProfile.sshAccess: "
    f"{SSH_DISABLED}.",
    why="With SSH on (the default, LocalUser) whoever reaches a node's address with the key gets a shell beside the "
    f"GPU workloads; kubectl debug node works without it ({SSH_POLICY.cited}).",
    validate=validate,
    level=ADVISORY,
    severity=Severity.MEDIUM,
    topics=["aks", "security", "azure-policy"],
    fix=f"Set securityProfile.sshAccess: {SSH_DISABLED} on every scale-set pool (stack file: cluster.sshAccess: "
    f"{SSH_DISABLED}).",
    applies_to=is_aks_pool_resource,
)
