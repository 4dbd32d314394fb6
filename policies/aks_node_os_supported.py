"""aks-node-os-supported: every node pool's OS version is one AKS creates on the pool's Kubernetes version today, and
one AKS's GPU registry names for the pool's VM size.

The rule: :func:`rules.node_os.pool_node_os_problem` over ``gpu_catalog/facts/aks_node_os.json`` (Windows Server 2022
up to Kubernetes 1.36, Ubuntu 22.04 no new pools from 2027-06-30, ...), the same the stack config and the component
Args call. Checked on every ``agentPoolProfiles`` entry of a ManagedCluster and every standalone AgentPool (GPU or
not: AKS refuses the pool either way). A pool's version is its ``orchestratorVersion``, else its cluster's
``kubernetesVersion``; a standalone AgentPool's cluster is found by ``resourceGroupName`` + ``resourceName``, or is the
stack's only ManagedCluster. A pool whose version cannot be found is not checked, and says so.

The pool's ``vmSize`` against its OS: :func:`rules.node_os.size_os_problem` (AKS's GPU registry,
Azure/karpenter-provider-azure ``pkg/utils/supported-gpus.yaml``, as ``gpu_catalog/catalog.json`` carries it: the RTX
PRO 6000 family, GB200 and GB300 run on Ubuntu only), whatever the pool's Kubernetes version.

A raw ``AKSNodeClass`` (AKS node auto-provisioning, ``karpenter.azure.com``) that sets ``spec.imageFamily`` is checked
too, with :func:`rules.node_os.image_family_problem` (the NAP checklist's rule): NAP nodes run the control plane's
version, so its Kubernetes version is the stack's only ManagedCluster's (a NodeClass names no cluster; with none or
several in the stack it is not checked, and says so). A NodeClass without ``imageFamily`` takes AKS's default and is
not checked.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import ReportViolation, Severity, StackValidationArgs

from rules.node_os import DEFAULT_OS_SKU, image_family_problem, pool_node_os_problem, size_os_problem
from rules.resource_types import is_agent_pool, is_aks_node_class, is_managed_cluster
from rules.wire_pools import PROFILES, AksPools, aks_pools

from ._meta import MANDATORY, GpuStackPolicy
from ._resources import UNKNOWN, Review, get, is_unknown, join_path, props_of, request_today

NAME = "aks-node-os-supported"
_OWNER = ("resourceGroupName", "resourceName")


def _key(values: list[Any]) -> tuple[str, ...] | None:
    return tuple(v.lower() for v in values) if all(isinstance(v, str) for v in values) else None


def _judge(review: Review, where: str, pool: Any, version: Any, urn: str) -> None:
    os_type, os_sku = get(pool, "osType"), get(pool, "osSKU")
    pool_version = get(pool, "orchestratorVersion")
    if isinstance(pool_version, str) and pool_version:  # empty: the control plane's version (ARM)
        version = pool_version
    for key, value in (("osType", os_type), ("osSKU", os_sku), ("orchestratorVersion", pool_version)):
        if value is UNKNOWN:
            review.unknown_field(f"{where}.{key}")
    if any(value is UNKNOWN for value in (os_type, os_sku)):
        return
    vm_size = get(pool, "vmSize")
    size_os = size_os_problem(
        vm_size if isinstance(vm_size, str) else None,
        os_type if isinstance(os_type, str) and os_type else None,
        os_sku if isinstance(os_sku, str) and os_sku else None,
    )
    if size_os is not None:
        review.violation(f"{where}: {size_os}", urn)
    if any(value is UNKNOWN for value in (version, pool_version)):
        return
    if not isinstance(version, str) or not version:
        review.not_checked(f"{where}: its Kubernetes version is not in this stack (no orchestratorVersion, no cluster)")
        return
    os_name = os_type if isinstance(os_type, str) and os_type in DEFAULT_OS_SKU else "Linux"
    sku = os_sku if isinstance(os_sku, str) and os_sku else None
    problem = pool_node_os_problem(os_name, sku, version, request_today())
    if problem is not None:
        review.violation(f"{where}: {problem}", urn)


def _profiles_in_order(found: AksPools) -> list[tuple[int, Any]]:
    """Every ``agentPoolProfiles`` entry by its index, as judged: a pool's data, :data:`UNKNOWN` for an unknown entry
    (its OS fields are reported unknown), ``None`` for an entry that is not an object (judged as AKS's defaults)."""
    entries: list[tuple[int, Any]] = [(pool.index, pool.data) for pool in found.pools]
    entries += [(i, UNKNOWN) for i in found.unknown_entries]
    entries += [(i, None) for i in found.skipped]
    return sorted(entries, key=lambda entry: entry[0])


def _judge_node_class(review: Review, resource: Any, props: Any, versions: list[Any]) -> None:
    where = f"{resource.name}: spec.imageFamily"
    image = get(props, "spec", "imageFamily")
    if image is UNKNOWN:
        review.unknown_field(where)
        return
    if not isinstance(image, str) or not image:
        return  # AKS's default image family for the version
    if len(versions) != 1:
        review.not_checked(f"{where}: the cluster's Kubernetes version is not known ({len(versions)} ManagedClusters)")
        return
    version = versions[0]
    if version is UNKNOWN:
        return  # reported at the cluster
    if not isinstance(version, str) or not version:
        review.not_checked(f"{where}: the ManagedCluster sets no kubernetesVersion")
        return
    problem = image_family_problem(image, version, request_today())
    if problem is not None:
        review.violation(f"{where}: {problem}", resource.urn)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    versions: list[Any] = []  # every ManagedCluster's kubernetesVersion, in stack order
    by_owner: dict[tuple[str, ...], Any] = {}  # ... by its resource group and name (lower-cased, as ARM compares)
    pools: list[tuple[Any, dict[str, Any]]] = []
    node_classes: list[tuple[Any, Any]] = []
    for resource in args.resources:
        if is_aks_node_class(resource.resource_type):
            node_classes.append((resource, props_of(resource)))
            continue
        if not (is_managed_cluster(resource.resource_type) or is_agent_pool(resource.resource_type)):
            continue  # type first: no other resource is converted (the shared view, policies/_resources.py)
        props = props_of(resource)
        props = props if isinstance(props, dict) else {}
        if is_managed_cluster(resource.resource_type):
            version = get(props, "kubernetesVersion")
            if version is UNKNOWN:
                review.unknown_field(f"{resource.name}: kubernetesVersion")
            versions.append(version)
            owner = _key([get(props, k) for k in _OWNER])
            if owner is not None:
                by_owner.setdefault(owner, version)
            found = aks_pools(resource.resource_type, props, is_unknown=is_unknown)
            if found.unknown_list:
                review.unknown_field(f"{resource.name}: {PROFILES}")
                continue
            for i, profile in _profiles_in_order(found):
                _judge(review, f"{resource.name}: {join_path(PROFILES, i)}", profile, version, resource.urn)
        else:
            pools.append((resource, props))
    for resource, props in pools:
        owner = _key([get(props, k) for k in _OWNER])
        version = by_owner.get(owner) if owner is not None else None
        if version is None and len(versions) == 1:
            version = versions[0]
        _judge(review, resource.name, props, version, resource.urn)
    for resource, props in node_classes:
        _judge_node_class(review, resource, props, versions)
    review.finish()


POLICY = GpuStackPolicy(
    name=NAME,
    what="Every agentPoolProfiles[] entry of a ManagedCluster and every AgentPool runs an OS version AKS creates on "
    "the pool's Kubernetes version (orchestratorVersion, else the cluster's kubernetesVersion) today: osSKU, or AKS's "
    "default for osType (Ubuntu on Linux, Windows2022 on Windows); every AKSNodeClass's imageFamily on the "
    "cluster's kubernetesVersion; and a GPU vmSize only on a node OS AKS's GPU registry names for it (osType Windows, "
    "osSKU AzureLinux on an Ubuntu-only size such as the RTX PRO 6000, GB200 and GB300 sizes is refused).",
    why="AKS refuses a node pool whose OS it no longer supports on that Kubernetes version (Windows Server 2022 ends "
    "with 1.36) or after the OS's date (Ubuntu 22.04: no new pools from 2027-06-30), so `pulumi up` fails; the dates "
    "are data (gpu_catalog/facts/aks_node_os.json) checked against today. AKS prepares a GPU size only on the node "
    "OSes its GPU registry (karpenter-provider-azure pkg/utils/supported-gpus.yaml) lists for it.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["aks", "node-os", "lifecycle"],
    fix="Use the OS SKU or the Kubernetes version the message allows (e.g. osSKU Ubuntu or AzureLinux; a Windows pool "
    "on Kubernetes 1.36 or earlier); on an Ubuntu-only GPU size, osType Linux with osSKU Ubuntu.",
)
