"""gpu-operator-platform-supported: the pinned GPU operator is validated for the pools' Kubernetes version and OS.

Pools: every Linux GPU AgentPool / ``agentPoolProfiles`` entry, and every explicitly GPU Karpenter NodePool (node
auto-provisioning; the operator manages its nodes too), whose OS is the ``imageFamily`` of the ``AKSNodeClass`` its
``spec.template.spec.nodeClassRef`` names (no ``imageFamily``: AKS's default, Ubuntu) on the stack's only
ManagedCluster's version (:func:`rules.checklists.nap_operator_platform_problem`, the NAP checklist's rule). A
NodePool whose NodeClass or cluster version is not in the stack is not checked, and says so.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from rules.checklists import nap_operator_platform_problem
from rules.karpenter import GpuScope
from rules.lifecycle import check_operator_platform
from rules.resource_types import is_aks_node_class, is_karpenter_node_pool, is_managed_cluster

from ._karpenter import nodepool_name, read_nodepool
from ._meta import MANDATORY, GpuStackPolicy
from ._resources import UNKNOWN, Review, get, props_of
from ._specs import wire_pool
from ._stack import gpu_operators, linux_gpu_pools

NAME = "gpu-operator-platform-supported"


def _cluster_version(args: StackValidationArgs, review: Review) -> str | None:
    versions: list[str] = []
    for resource in args.resources:
        if is_managed_cluster(resource.resource_type):
            value = get(props_of(resource), "kubernetesVersion")
            if value is UNKNOWN:
                review.unknown_field(f"{resource.name}: kubernetesVersion")
            elif isinstance(value, str) and value:
                versions.append(value)
    return versions[0] if len(versions) == 1 else None


def _review_node_pools(args: StackValidationArgs, review: Review, version: str, cluster_version: str | None) -> None:
    """Every explicitly GPU NodePool's NodeClass image family against the operator ``version`` (module docstring)."""
    classes: dict[str, object] = {}
    for resource in args.resources:
        if is_aks_node_class(resource.resource_type):
            props = props_of(resource)
            classes.setdefault(nodepool_name(props, resource.name), get(props, "spec", "imageFamily"))
    for resource in args.resources:
        if not is_karpenter_node_pool(resource.resource_type):
            continue
        props = props_of(resource)
        if read_nodepool(props).scope is not GpuScope.EXPLICIT:
            continue
        where = f"{resource.name}: spec.template.spec.nodeClassRef"
        ref = get(props, "spec", "template", "spec", "nodeClassRef", "name")
        if ref is UNKNOWN:
            review.unknown_field(where)
            continue
        if not isinstance(ref, str) or ref not in classes:
            review.not_checked(f"{where}: its AKSNodeClass is not in this stack")
            continue
        image = classes[ref]
        if image is UNKNOWN:
            review.unknown_field(f"{ref}: spec.imageFamily")
            continue
        if cluster_version is None:
            review.not_checked(f"{where}: the cluster's Kubernetes version is not known")
            continue
        problem = nap_operator_platform_problem(version, cluster_version, image if isinstance(image, str) else None)
        if problem is not None:
            review.violation(f"{where} ({ref}, imageFamily {image or 'default'}): {problem}", resource.urn)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    operators = gpu_operators(args, review)
    if operators:
        cluster_version = _cluster_version(args, review)
        for operator in operators:
            version = get(props_of(operator.resource), "version")
            if version is UNKNOWN:
                review.unknown_field(f"{operator.resource.name}: version")
                continue
            if not isinstance(version, str) or not version:
                review.violation(
                    f"{operator.resource.name}: version: {operator.label} does not pin a chart version, so Helm "
                    "installs whatever is newest that day, which NVIDIA may not have validated for this cluster's "
                    "Kubernetes version. Pin a version from gpu_catalog/facts/gpu_operator.json.",
                    operator.resource.urn,
                )
                continue
            for sp in linux_gpu_pools(args, review):
                pool_version = sp.pool.get("orchestratorVersion")
                if pool_version is UNKNOWN:
                    review.unknown_field(sp.where("orchestratorVersion"))
                    continue
                if not isinstance(pool_version, str) or not pool_version:
                    own = None if sp.pool.standalone else get(props_of(sp.resource), "kubernetesVersion")
                    pool_version = own if isinstance(own, str) and own else cluster_version
                if not isinstance(pool_version, str):
                    review.not_checked(f"{sp.where('orchestratorVersion')}: the pool's Kubernetes version is not known")
                    continue
                os_sku = sp.pool.get("osSKU")
                if os_sku is UNKNOWN:
                    review.unknown_field(sp.where("osSKU"))
                    continue
                # the pool's OS SKU as the spec resolves it: osSKU, or the OS type's default (Ubuntu on Linux, as the
                # REST spec 2025-09-01 says AKS picks)
                problem = check_operator_platform(version, pool_version, str(wire_pool(sp.pool).os_sku))
                if problem is not None:
                    review.violation(f"{sp.where('osSKU')}: {sp.label} — {problem}", sp.resource.urn)
            _review_node_pools(args, review, version, cluster_version)
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="A GPU operator release in the stack pins a chart version that NVIDIA validated for the Kubernetes version "
    "and node OS of every Linux GPU pool it manages (AgentPools, agentPoolProfiles, and GPU NodePools by their "
    "AKSNodeClass imageFamily).",
    why="The chart installs on any Kubernetes (kubeVersion >= 1.16), but NVIDIA validates each release for a "
    "Kubernetes range per OS and no Azure Linux: outside it the driver containers and operands are untested.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "aks", "gpu-operator", "lifecycle"],
    fix="Pin a GPU operator release that lists the pools' Kubernetes version (gpu_catalog/facts/gpu_operator.json), "
    "and run operator-managed pools on Ubuntu.",
)
