"""A node pool's OS version against its Kubernetes minor and the date (``gpu_catalog/facts/aks_node_os.json``).

Applied wherever a pool names an OS: the system pool and every ``gpuPools`` entry (stack config); every NAP pool's
``imageFamily`` through its checklist (:func:`rules.checklists.nap_gpu_pool`: the stack config's ``gpuNodePools`` and
``NapGpuPoolArgs`` with ``kubernetes_version``); a ``GpuPoolSpec`` (component Args) and raw ``AgentPool``s /
``agentPoolProfiles`` (policy ``aks-node-os-supported``) through :func:`pool_node_os_problem`; a raw AKSNodeClass's
``imageFamily`` (the same policy) and the NAP checklist through :func:`image_family_problem`.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from typing import Final

from gpu_catalog.lifecycle import minor_of, minor_tuple
from gpu_catalog.node_os import NodeOsFacts, load_node_os_facts

from .node_stack import ubuntu_release

_ANSWERS_MAX: Final = 4096
"""Distinct (OS, SKU, version, day) answers :func:`pool_node_os_problem` keeps (values from user input: bounded)."""

DEFAULT_OS_SKU: Final = {"Linux": "Ubuntu", "Windows": "Windows2022"}
"""The OS SKU AKS gives a pool that names none (``osSKU`` unset), by ``osType``."""


def node_os_problem(
    os_sku: str,
    kubernetes_minor: tuple[int, int],
    today: date,
    *,
    os_name: str | None = None,
    facts: tuple[NodeOsFacts, ...] | None = None,
) -> str | None:
    """What AKS refuses about ``os_sku`` (the OS version ``os_name`` when the SKU follows the Kubernetes minor, e.g.
    ``Ubuntu``: :func:`rules.node_stack.ubuntu_release`) on ``kubernetes_minor`` today, or ``None``."""
    for row in facts if facts is not None else load_node_os_facts():
        if os_sku not in row.os_skus and os_name != row.os:
            continue
        if row.last_kubernetes_minor is not None and kubernetes_minor > row.last_kubernetes_minor:
            last = ".".join(map(str, row.last_kubernetes_minor))
            return (
                f"{os_sku} ({row.os}) is not supported on Kubernetes {'.'.join(map(str, kubernetes_minor))}: AKS "
                f"supports it up to {last} ({row.source}). Allowed: {row.instead}."
            )
        if row.no_new_pools_from is not None and today >= row.no_new_pools_from:
            return (
                f"{os_sku} ({row.os}): AKS creates no new node pools with it from "
                f"{row.no_new_pools_from.isoformat()} ({row.source}); today is {today.isoformat()}. Allowed: "
                f"{row.instead}."
            )
    return None


@lru_cache(maxsize=_ANSWERS_MAX)
def pool_node_os_problem(os_type: str, os_sku: str | None, kubernetes_version: str, today: date) -> str | None:
    """:func:`node_os_problem` for one node pool as a request states it: ``osType``, ``osSKU`` (``None``: AKS's
    default, :data:`DEFAULT_OS_SKU`) and the pool's Kubernetes version (``1.36`` or ``1.36.2``; not a version: no
    finding, the version rules report it). Answered once per pool shape and day (the policy asks for every pool)."""
    minor = minor_of(kubernetes_version)
    if minor is None:
        return None
    k8s = minor_tuple(minor)
    sku = os_sku or DEFAULT_OS_SKU.get(os_type, DEFAULT_OS_SKU["Linux"])
    return node_os_problem(sku, k8s, today, os_name=ubuntu_release(sku, k8s))


def image_family_problem(image_family: str, kubernetes_version: str, today: date) -> str | None:
    """:func:`node_os_problem` for a NAP pool's AKSNodeClass ``imageFamily`` (``Ubuntu2204``; ``Ubuntu`` follows the
    Kubernetes minor) on the cluster's Kubernetes version (NAP nodes run the control plane's): the NAP checklist
    (stack config ``gpuNodePools[].imageFamily``, ``NapGpuPoolArgs.image_family``) and ``aks-node-os-supported`` on a
    raw AKSNodeClass."""
    return pool_node_os_problem("Linux", image_family, kubernetes_version, today)
