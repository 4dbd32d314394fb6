"""A node pool's OS version against its Kubernetes minor and the date (``gpu_catalog/facts/aks_node_os.json``).

Applied wherever a pool names an OS: the system pool and every ``gpuPools`` entry (stack config); every NAP pool's
``imageFamily`` through its checklist (:func:`rules.checklists.nap_gpu_pool`: the stack config's ``gpuNodePools`` and
``NapGpuPoolArgs`` with ``kubernetes_version``); a ``GpuPoolSpec`` (component Args) and raw ``AgentPool``s /
``agentPoolProfiles`` (policy ``aks-node-os-supported``) through :func:`pool_node_os_problem`; a raw AKSNodeClass's
``imageFamily`` (the same policy) and the NAP checklist through :func:`image_family_problem`.

The OS each GPU size runs on (:func:`size_os_problem`): AKS's GPU registry (Azure/karpenter-provider-azure
``pkg/utils/supported-gpus.yaml``, kept in sync with AgentBaker; refreshed into ``gpu_catalog/catalog.json``
``support.aksGpuRegistry.os`` by ``python -m gpu_catalog.refresh``) names the node OSes AKS prepares a GPU size for
(driver, image). A pool whose OS the size's entry does not name is refused (the RTX PRO 6000 family, GB200 and GB300:
Ubuntu only); a size the registry does not list is not judged here (no evidence either way). Called by the stack
config (``gpuPools[i]``, the system pool), the component Args (``GpuPoolSpec``) and ``aks-node-os-supported`` (raw
AgentPools and ``agentPoolProfiles``).
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from typing import Final

from gpu_catalog.catalog import Catalog, default_catalog
from gpu_catalog.lifecycle import minor_of, minor_tuple
from gpu_catalog.node_os import NodeOsFacts, load_node_os_facts

from .node_stack import ubuntu_release

_ANSWERS_MAX: Final = 4096
"""Distinct (OS, SKU, version, day) answers :func:`pool_node_os_problem` keeps (values from user input: bounded)."""

DEFAULT_OS_SKU: Final = {"Linux": "Ubuntu", "Windows": "Windows2022"}
"""The OS SKU AKS gives a pool that names none (``osSKU`` unset), by ``osType``."""


REGISTRY_SOURCE: Final = (
    "AKS's GPU registry: Azure/karpenter-provider-azure pkg/utils/supported-gpus.yaml, in gpu_catalog/catalog.json "
    "support.aksGpuRegistry"
)
_REGISTRY_OS: Final = {
    "ubuntu": ("ubuntu",),
    "ubuntu2204": ("ubuntu",),
    "ubuntu2404": ("ubuntu",),
    "azurelinux": ("azurelinux", "azurelinux3"),
    "azurelinux3": ("azurelinux3",),
    "cblmariner": ("azurelinux",),
    "mariner": ("azurelinux",),
}
"""A Linux ``osSKU`` (lower case) → the registry OS names that admit it (``AzureLinux`` follows the Kubernetes
version, so either Azure Linux entry admits it). A Windows pool (``osType: Windows``) is ``windows``."""
_REGISTRY_LABEL: Final = {
    "ubuntu": "Ubuntu",
    "windows": "Windows",
    "azurelinux": "AzureLinux",
    "azurelinux3": "AzureLinux3",
}


def size_os_problem(
    vm_size: str | None, os_type: str | None, os_sku: str | None, *, catalog: Catalog | None = None
) -> str | None:
    """Why AKS does not run GPU size ``vm_size`` on a pool of ``os_type`` (``Linux``/``Windows``; ``None``: Linux) and
    ``os_sku`` (``None``: AKS's default, Ubuntu on Linux): the size's entry in AKS's GPU registry does not name the
    OS. ``None`` when it does, when the registry does not list the size, or for an OS SKU the registry has no name
    for (no evidence)."""
    if not vm_size:
        return None
    row = (catalog if catalog is not None else default_catalog()).lookup(vm_size)
    if row is None or not row.aks_registry_os:
        return None
    windows = (os_type or "Linux").lower() == "windows"
    wanted = ("windows",) if windows else _REGISTRY_OS.get((os_sku or "Ubuntu").lower())
    if wanted is None or set(wanted) & set(row.aks_registry_os):
        return None
    shown = f"osType {os_type}" + (f" (osSKU {os_sku})" if os_sku else "") if windows else f"osSKU {os_sku or 'Ubuntu'}"
    allowed = " or ".join(_REGISTRY_LABEL.get(o, o) for o in row.aks_registry_os)
    return (
        f"{row.name} runs on {allowed} node pools only ({REGISTRY_SOURCE}): AKS has no GPU driver or image for it on "
        f"{shown}. Use osType Linux with osSKU {_REGISTRY_LABEL.get(row.aks_registry_os[0], 'Ubuntu')}, or a size "
        "whose entry names the OS."
    )


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
