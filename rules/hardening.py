"""Cluster and node hardening: API server exposure, network policy, logs, secrets, encryption at host, ephemeral OS.

Pure rules over small facts (no Pulumi import), called by the stack config (``cluster.apiServer``,
``cluster.network``, ``cluster.monitoring``, ``cluster.secretsStore``, ``gpuPools[i].encryptionAtHost`` /
``osDiskType``), by the component Args (:class:`components.aks_cluster.AksGpuClusterArgs`,
:class:`components.gpu_node_pool.GpuPoolSpec`) and by the component's advisory warnings. Every constant here carries
its source; the wire fields are in ``conformance/facts/aks.json``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gpu_catalog.node_disks import NodeDisks

from . import Finding

MAX_AUTHORIZED_IP_RANGES = 200
"""AKS accepts up to 200 API server authorized IP ranges (MicrosoftDocs/azure-aks-docs
``articles/aks/api-server-authorized-ip-ranges.md``, 'Limitations and considerations'; 2,000 with API Server VNet
Integration, which this project does not configure)."""

NETWORK_POLICIES: tuple[str, ...] = ("none", "calico", "azure", "cilium")
"""``networkProfile.networkPolicy`` (REST spec 2025-09-01 ``NetworkPolicy``)."""
NETWORK_DATAPLANES: tuple[str, ...] = ("azure", "cilium")
"""``networkProfile.networkDataplane`` (REST spec 2025-09-01 ``networkDataplane``)."""
NetworkPolicy = Literal["none", "calico", "azure", "cilium"]
NetworkDataplane = Literal["azure", "cilium"]

ALLOWED_POLICIES: dict[str, tuple[str, ...]] = {"cilium": ("cilium",), "azure": ("none", "azure", "calico")}
"""The policy engines each dataplane takes, with the cluster's network plugin (Azure CNI, overlay mode):

- ``cilium`` policy "requires networkDataplane to be 'cilium'" (REST spec 2025-09-01, ``NetworkPolicy`` value
  ``cilium``);
- the Cilium dataplane enforces policy with Cilium itself ("Azure CNI Powered by Cilium",
  ``articles/aks/azure-cni-powered-by-cilium.md``; ``use-network-policies.md``: Cilium is the engine "for AKS
  clusters using Azure CNI Powered by Cilium"), so it takes ``cilium`` only;
- Azure NPM (``azure``) and Calico run on Azure CNI (``use-network-policies.md``, 'Differences between network
  policy engines'); Azure NPM for Linux retires on 2028-09-30 (same page): Cilium is the recommended engine.
"""
RECOMMENDED_NETWORK = ("cilium", "cilium")
"""(dataplane, policy): Azure CNI Overlay with the Cilium dataplane — AKS Automatic's default network and what node
auto-provisioning recommends (``azure-cni-powered-by-cilium.md``; ``use-network-policies.md``: "We recommend using
Cilium")."""
LINUX_ONLY_DATAPLANE = "cilium"
"""Azure CNI Powered by Cilium is "available only for Linux and not for Windows" (``azure-cni-powered-by-cilium.md``,
'Limitations')."""

DEFAULT_MAX_PODS = 250
"""Azure CNI Overlay: maximum pods per node, default 250 and maximum 250 (``articles/aks/
concepts-network-azure-cni-overlay.md``, 'Maximum pods per node'); stated explicitly on every pool."""
WINDOWS_MAX_PODS = 110
"""'110 maximum recommended for Windows Server containers' (same page)."""


def default_max_pods(os: str) -> int:
    """A pool's maxPods when it states none: :data:`DEFAULT_MAX_PODS`, :data:`WINDOWS_MAX_PODS` on Windows."""
    return WINDOWS_MAX_PODS if os == "Windows" else DEFAULT_MAX_PODS


DEFAULT_OS_DISK_GIB = 128
"""The OS disk size the platform asks for. AKS sizes a default ephemeral OS disk to the VM's temp storage only when
that is at least 128 GiB (``articles/aks/concepts-storage.md``, 'Ephemeral OS disks'); asking for 128 GiB keeps the
rest of the temp disk for pods and the same OS disk on managed and ephemeral pools."""

ENCRYPTION_AT_HOST_FEATURE = "Microsoft.Compute/EncryptionAtHost"
"""The subscription feature encryption at host needs (``articles/aks/enable-host-encryption.md``:
``az feature register --namespace Microsoft.Compute --name EncryptionAtHost``, then ``az provider register
--namespace Microsoft.Compute``). Registration is per subscription and cannot be checked offline."""

SECRET_ROTATION_POLL = re.compile(r"^[1-9][0-9]*(s|m|h)$")
"""``rotationPollInterval`` of the Key Vault Secrets Store CSI add-on: a duration such as ``2m`` (default ``2m``:
``articles/aks/csi-secrets-store-configuration-options.md``)."""
DEFAULT_ROTATION_POLL = "2m"


# ------------------------------------------------------------------------------------------------ API server


@dataclass(frozen=True)
class ApiServer:
    """``apiServerAccessProfile``: authorized IP ranges, or a private cluster."""

    authorized_ip_ranges: tuple[str, ...] = ()
    private_cluster: bool = False

    @property
    def restricted(self) -> bool:
        """Sent as an ``apiServerAccessProfile`` (ranges or a private cluster), whatever the ranges admit."""
        return self.private_cluster or bool(self.authorized_ip_ranges)

    @property
    def open_ranges(self) -> tuple[str, ...]:
        """The written ranges that make the API server reachable from every address (:func:`ranges_admitting_all`);
        empty on a private cluster."""
        return () if self.private_cluster else ranges_admitting_all(self.authorized_ip_ranges)

    @property
    def open(self) -> bool:
        """Reachable from the whole internet: no private cluster and no ranges, or ranges that admit every address."""
        return not self.private_cluster and (not self.authorized_ip_ranges or bool(self.open_ranges))


def ranges_admitting_all(ranges: Sequence[str]) -> tuple[str, ...]:
    """The ranges that, on their own or together, admit every address: any prefix of length 0 (``0.0.0.0/0``,
    ``::/0``, ``10.0.0.0/0`` with host bits set), or IPv4 ranges whose union is the whole IPv4 space
    (``0.0.0.0/1`` + ``128.0.0.0/1``). Values that are not CIDRs are :func:`cidr_problem`'s."""
    nets: list[tuple[str, ipaddress.IPv4Network | ipaddress.IPv6Network]] = []
    for value in ranges:
        try:
            nets.append((value, ipaddress.ip_network(value.strip(), strict=False)))
        except ValueError:
            continue
    everything = tuple(value for value, net in nets if net.prefixlen == 0)
    if everything:
        return everything
    v4 = [net for _, net in nets if isinstance(net, ipaddress.IPv4Network)]
    if list(ipaddress.collapse_addresses(v4)) == [ipaddress.IPv4Network("0.0.0.0/0")]:
        return tuple(value for value, net in nets if isinstance(net, ipaddress.IPv4Network))
    return ()


def cidr_problem(value: str) -> str | None:
    """Why ``value`` is not an IPv4 CIDR AKS takes as an authorized range (``None``: it is). AKS asks for the network
    address ("For a CIDR range, use the network address": ``api-server-authorized-ip-ranges.md``)."""
    if "/" not in value:
        return f"{value!r} is not a CIDR: write an IPv4 range like '203.0.113.0/24' (a single address: '/32')"
    try:
        net = ipaddress.ip_network(value, strict=False)
    except ValueError:
        return f"{value!r} is not a CIDR: write an IPv4 range like '203.0.113.0/24' (a single address: '/32')"
    if net.version != 4:
        return f"{value!r} is an IPv6 range: AKS authorized IP ranges are IPv4 CIDRs like '203.0.113.0/24'"
    if str(net) != value:
        return f"{value!r} has host bits set: AKS wants the network address, {str(net)!r}"
    return None


def api_server_access(api: ApiServer) -> list[Finding]:
    """Authorized ranges are IPv4 CIDRs (network addresses), at most 200, and not on a private cluster ("You can't
    use this feature with private clusters": ``api-server-authorized-ip-ranges.md``)."""
    found: list[Finding] = []
    for i, cidr in enumerate(api.authorized_ip_ranges):
        problem = cidr_problem(cidr)
        if problem is not None:
            found.append(Finding(f"authorizedIpRanges[{i}]", problem))
    if len(api.authorized_ip_ranges) > MAX_AUTHORIZED_IP_RANGES:
        found.append(
            Finding(
                "authorizedIpRanges",
                f"{len(api.authorized_ip_ranges)} ranges: AKS accepts at most {MAX_AUTHORIZED_IP_RANGES}",
            )
        )
    if api.private_cluster and api.authorized_ip_ranges:
        found.append(
            Finding(
                "authorizedIpRanges",
                "authorized IP ranges cannot be used with a private cluster: set either authorizedIpRanges or "
                "privateCluster: true",
            )
        )
    return found


def api_server_open(api: ApiServer) -> list[Finding]:
    """Advisory: the API server is reachable from the whole internet (Checkov CKV_AZURE_6): no authorized ranges
    and no private cluster, or authorized ranges that admit every address (``0.0.0.0/0``, ``::/0``, ranges whose
    union is the whole IPv4 space: :func:`ranges_admitting_all`)."""
    if not api.open:
        return []
    why = (
        f"authorizedIpRanges {', '.join(api.open_ranges)} admit every address, so " if api.authorized_ip_ranges else ""
    )
    return [
        Finding(
            "apiServer",
            f"{why}the Kubernetes API server is open to the internet: set cluster.apiServer.authorizedIpRanges (the "
            "CIDRs of whoever runs pulumi up and kubectl, e.g. the CI runners' egress) or "
            "cluster.apiServer.privateCluster: true (pulumi up must then run inside the cluster's network)",
        )
    ]


# ------------------------------------------------------------------------------------------------ network policy


def network_policy(
    dataplane: str, policy: str, *, windows_pools: Sequence[str] = (), node_auto_provisioning: bool = False
) -> list[Finding]:
    """The policy engine the dataplane supports (:data:`ALLOWED_POLICIES`), no Cilium with Windows pools, no Calico with
    node auto-provisioning ("NAP doesn't support ... Calico network policy": ``articles/aks/
    node-auto-provisioning-networking.md``)."""
    found: list[Finding] = []
    allowed = ALLOWED_POLICIES.get(dataplane)
    if allowed is None:
        return [
            Finding("dataplane", f"{dataplane!r} is not a network dataplane. Allowed: {', '.join(NETWORK_DATAPLANES)}")
        ]
    if policy not in NETWORK_POLICIES:
        found.append(
            Finding("policy", f"{policy!r} is not a network policy engine. Allowed: {', '.join(NETWORK_POLICIES)}")
        )
    elif policy not in allowed:
        found.append(
            Finding(
                "policy",
                f"network policy {policy!r} does not run on the {dataplane!r} dataplane (Azure CNI overlay). Allowed "
                f"with dataplane {dataplane!r}: {', '.join(allowed)}"
                + ("; the cilium policy needs dataplane: cilium" if policy == "cilium" else ""),
            )
        )
    if node_auto_provisioning and policy == "calico":
        found.append(
            Finding(
                "policy",
                "node auto-provisioning (gpuNodePools) does not support Calico network policy. Allowed with node "
                "auto-provisioning: cilium (with dataplane: cilium, recommended), azure, none",
            )
        )
    if dataplane == LINUX_ONLY_DATAPLANE and windows_pools:
        found.append(
            Finding(
                "dataplane",
                f"the Cilium dataplane is Linux only; Windows pools: {', '.join(windows_pools)}. Use dataplane: azure "
                "with policy: calico for Windows pools",
            )
        )
    return found


def network_policy_off(policy: str) -> list[Finding]:
    """Advisory: no network policy engine (Checkov CKV_AZURE_7)."""
    if policy != "none":
        return []
    return [
        Finding(
            "network",
            "no network policy engine: every pod can reach every other pod. Set cluster.network "
            "{dataplane: cilium, policy: cilium} (Azure CNI overlay with Cilium, what AKS recommends)",
        )
    ]


# ------------------------------------------------------------------------------------------------ logs, secrets


def container_insights_off(enabled: bool) -> list[Finding]:
    """Advisory: no Container Insights logs to Azure Monitor (Checkov CKV_AZURE_4)."""
    if enabled:
        return []
    return [
        Finding(
            "monitoring",
            "no Container Insights: container logs and events are not sent to Azure Monitor. Set "
            "cluster.monitoring.containerInsights: true",
        )
    ]


def rotation_poll_interval(value: str) -> list[Finding]:
    if SECRET_ROTATION_POLL.match(value):
        return []
    return [
        Finding(
            "rotationPollInterval",
            f"{value!r} is not a duration: write a whole number with s, m or h, e.g. {DEFAULT_ROTATION_POLL!r}",
        )
    ]


# ------------------------------------------------------------------------------------------------ node hardening


def ephemeral_fits(disks: NodeDisks, os_disk_gib: int) -> bool:
    return disks.ephemeral_os_disk is True and disks.temp_disk_gib is not None and disks.temp_disk_gib >= os_disk_gib


def default_encryption_at_host(disks: NodeDisks) -> bool:
    """On where the size's support is sourced; off where it is unknown (``None``) or unsupported."""
    return disks.encryption_at_host is True


def default_os_disk_type(disks: NodeDisks, os_disk_gib: int = DEFAULT_OS_DISK_GIB) -> Literal["Ephemeral", "Managed"]:
    """``Ephemeral`` where the size supports it and its temp disk holds the OS disk; ``Managed`` otherwise."""
    return "Ephemeral" if ephemeral_fits(disks, os_disk_gib) else "Managed"


def node_hardening(
    vm_size: str,
    disks: NodeDisks,
    *,
    encryption_at_host: bool | None,
    os_disk_type: str | None,
    os_disk_gib: int = DEFAULT_OS_DISK_GIB,
) -> list[Finding]:
    """A pool asking for what its size cannot do: encryption at host on a size without it, an ephemeral OS disk on a
    size without one or whose temp disk is smaller than the OS disk."""
    found: list[Finding] = []
    if encryption_at_host is True and disks.encryption_at_host is False:
        found.append(Finding("encryptionAtHost", f"{vm_size} does not support encryption at host. Allowed: false"))
    if os_disk_type == "Ephemeral":
        if disks.ephemeral_os_disk is False:
            found.append(Finding("osDiskType", f"{vm_size} does not support ephemeral OS disks. Allowed: Managed"))
        elif disks.temp_disk_gib is not None and disks.temp_disk_gib < os_disk_gib:
            found.append(
                Finding(
                    "osDiskType",
                    f"{vm_size}'s temp disk holds {disks.temp_disk_gib} GiB, less than the {os_disk_gib} GiB OS disk: "
                    f"an ephemeral OS disk does not fit. Allowed: Managed, or osDiskSizeGB ≤ {disks.temp_disk_gib}",
                )
            )
        elif disks.ephemeral_os_disk is None or disks.temp_disk_gib is None:
            found.append(
                Finding(
                    "osDiskType",
                    f"the catalog has no sourced ephemeral OS disk support or temp disk size for {vm_size}: "
                    "Ephemeral cannot be checked. Allowed: Managed (or add the size's facts to the catalog)",
                )
            )
    if os_disk_type is not None and os_disk_type not in ("Ephemeral", "Managed"):
        found.append(Finding("osDiskType", f"{os_disk_type!r} is not an OS disk type. Allowed: Ephemeral, Managed"))
    return found


def encryption_at_host_unverified(vm_size: str, disks: NodeDisks, encryption_at_host: bool) -> list[Finding]:
    """Advisory: encryption at host asked for on a size whose support is not sourced (ARM refuses it at create time
    when the SKU lacks the capability ``EncryptionAtHostSupported``)."""
    if not encryption_at_host or disks.encryption_at_host is not None:
        return []
    return [
        Finding(
            "encryptionAtHost",
            f"encryption at host on {vm_size} is not verified offline (Microsoft publishes no per-size list; check "
            f"`az vm list-skus --size {vm_size}` for EncryptionAtHostSupported) and needs the subscription feature "
            f"{ENCRYPTION_AT_HOST_FEATURE} registered",
        )
    ]


def encryption_at_host_off(pools: Sequence[str]) -> list[Finding]:
    """Advisory: pools without encryption at host (Checkov CKV_AZURE_227): their temp disks and OS/data disk caches
    are not encrypted at the VM host."""
    if not pools:
        return []
    return [
        Finding(
            "encryptionAtHost",
            f"encryption at host is off on {', '.join(pools)}: set encryptionAtHost: true on the pool (after checking "
            f"the size supports it) with the subscription feature {ENCRYPTION_AT_HOST_FEATURE} registered",
        )
    ]


# ------------------------------------------------------------------------------------------------ Microsoft's built-in
# Azure Policy definitions for AKS (Azure/azure-policy ``built-in-policies/policyDefinitions/Kubernetes/``) that fit a
# GPU platform; the ones that do not are listed with the reason in docs/security-checks.md.


@dataclass(frozen=True, slots=True)
class BuiltInPolicy:
    """A built-in Azure Policy definition: display name, definition id and file under
    ``built-in-policies/policyDefinitions/Kubernetes/``."""

    name: str
    id: str
    file: str

    @property
    def cited(self) -> str:
        return f"Azure Policy built-in '{self.name}' ({self.id})"


RUN_COMMAND_POLICY = BuiltInPolicy(
    "Azure Kubernetes Service Clusters should disable Command Invoke",
    "89f2d532-c53c-4f8f-9afa-4927b1114a0d",
    "AKS_DisableRunCommand_Audit.json",
)
"""Audits a ManagedCluster whose ``apiServerAccessProfile.disableRunCommand`` is not true."""
SSH_POLICY = BuiltInPolicy(
    "Azure Kubernetes Clusters should disable SSH", "28257686-e9db-403e-b9e2-a5eecbe03da9", "AKS_DisableSSH_Audit.json"
)
"""Audits a ManagedCluster with any ``agentPoolProfiles[*].securityProfile.sshAccess`` unset or ``LocalUser``."""
IMAGE_CLEANER_POLICY = BuiltInPolicy(
    "Azure Kubernetes Service Clusters should enable Image Cleaner",
    "af3c26b2-6fad-493e-9236-9c68928516ab",
    "AKS_ImageCleaner_Audit.json",
)
"""Audits a ManagedCluster whose ``securityProfile.imageCleaner.enabled`` is unset or false."""
RESOURCE_LOGS_POLICY = BuiltInPolicy(
    "Resource logs in Azure Kubernetes Service should be enabled",
    "245fc9df-fa96-4414-9a0b-3738c2f7341c",
    "AuditDiagnosticLog_Audit.json",
)
"""AuditIfNotExists: a ``Microsoft.Insights/diagnosticSettings`` on the cluster with at least one enabled log."""

SSH_DISABLED = "Disabled"
SSH_ACCESS_VALUES: tuple[str, ...] = ("LocalUser", "Disabled")
"""``securityProfile.sshAccess`` of an agent pool (REST spec 2025-09-01 ``AgentPoolSSHAccess``; unset: ``LocalUser``,
SSH on). Disabling SSH "only supports Virtual Machine Scale Sets node pools" (azure-aks-docs
``manage-ssh-node-access.md``); the docs still call it a preview that needs the subscription feature
:data:`DISABLE_SSH_FEATURE`."""
SshAccess = Literal["LocalUser", "Disabled"]
DISABLE_SSH_FEATURE = "Microsoft.ContainerService/DisableSSHPreview"
"""The feature flag ``manage-ssh-node-access.md`` registers before disabling SSH (``az feature register --namespace
Microsoft.ContainerService --name DisableSSHPreview``); whether ARM still requires it on the stable API cannot be
checked offline."""
SSH_POOL_TYPE = "VirtualMachineScaleSets"
"""The only pool type whose SSH AKS can disable."""

IMAGE_CLEANER_MIN_HOURS = 24
IMAGE_CLEANER_MAX_HOURS = 2160
"""``securityProfile.imageCleaner.intervalHours``: at least 24 hours, at most three months (azure-aks-docs
``image-cleaner.md``, which also says ARM clients must send it; the CLI default is one week)."""
IMAGE_CLEANER_DEFAULT_HOURS = 168

CONTROL_PLANE_LOG_CATEGORIES: tuple[str, ...] = (
    "kube-audit-admin",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "cluster-autoscaler",
    "cloud-controller-manager",
    "guard",
    "csi-azuredisk-controller",
    "csi-azurefile-controller",
    "csi-snapshot-controller",
)
"""The AKS resource-log categories the platform's diagnostic setting sends: the categories of azure-aks-docs
``monitor-aks.md``'s example, with ``kube-audit-admin`` (every audit event except get and list) instead of
``kube-audit``, as the same page recommends to keep the cost down."""
AUDIT_LOG_CATEGORIES: tuple[str, ...] = ("kube-audit-admin", "kube-audit")
"""Either audit category records who changed what on the cluster (``pci-monitor.md``)."""
LOG_DESTINATION_TYPE = "Dedicated"
"""Resource-specific tables (``AKSAuditAdmin``, ``AKSControlPlane``): the mode ``monitor-aks.md`` recommends."""


def run_command_enabled(disabled: bool | None) -> list[Finding]:
    """Advisory: Run Command (``az aks command invoke``, the portal's Run command) is on. It runs kubectl and helm in
    a pod of the cluster through the Azure API, so it reaches the API server past the authorized IP ranges and a
    private cluster's network (azure-aks-docs ``access-private-cluster.md``)."""
    if disabled is True:
        return []
    return [
        Finding(
            "disableRunCommand",
            "Run Command is enabled: az aks command invoke (and the portal's Run command) runs kubectl in the "
            "cluster through the Azure API, past the authorized IP ranges and a private cluster's network. Disable "
            f"it (apiServerAccessProfile.disableRunCommand: true; {RUN_COMMAND_POLICY.cited})",
        )
    ]


def node_ssh_enabled(pools: Mapping[str, str | None]) -> list[Finding]:
    """Advisory: node pools whose nodes accept SSH (``pools``: how a message names the pool → its ``sshAccess``,
    ``None`` when unset, which is ``LocalUser``). Only scale-set pools are given: AKS disables SSH on no other type."""
    on = [where for where, access in pools.items() if (access or "LocalUser").lower() != SSH_DISABLED.lower()]
    if not on:
        return []
    return [
        Finding(
            "sshAccess",
            f"SSH is on for the nodes of {', '.join(on)}: anyone who reaches a node's address with the key gets a "
            "root-capable shell beside the GPU workloads (kubectl debug node still works without it). Set "
            f"securityProfile.sshAccess: {SSH_DISABLED} on every scale-set pool ({SSH_POLICY.cited}; the docs still "
            f"call it a preview behind the subscription feature {DISABLE_SSH_FEATURE})",
        )
    ]


def image_cleaner_off(enabled: bool | None) -> list[Finding]:
    """Advisory: Image Cleaner is off: unused images, vulnerable ones included, stay on the nodes (GPU images are
    large: they also fill the OS disk)."""
    if enabled is True:
        return []
    return [
        Finding(
            "imageCleaner",
            "Image Cleaner is off: unused and vulnerable images stay on the nodes (GPU framework images take tens of "
            "GiB of the OS disk). Turn it on (securityProfile.imageCleaner: {enabled: true, intervalHours: "
            f"{IMAGE_CLEANER_DEFAULT_HOURS}}}; {IMAGE_CLEANER_POLICY.cited})",
        )
    ]


def image_cleaner_interval(hours: int) -> list[Finding]:
    """``intervalHours`` within what AKS takes (:data:`IMAGE_CLEANER_MIN_HOURS` … :data:`IMAGE_CLEANER_MAX_HOURS`)."""
    if IMAGE_CLEANER_MIN_HOURS <= hours <= IMAGE_CLEANER_MAX_HOURS:
        return []
    return [
        Finding(
            "intervalHours",
            f"{hours} is outside what AKS takes: Image Cleaner runs every {IMAGE_CLEANER_MIN_HOURS} to "
            f"{IMAGE_CLEANER_MAX_HOURS} hours (three months). Allowed: {IMAGE_CLEANER_MIN_HOURS}-"
            f"{IMAGE_CLEANER_MAX_HOURS}, e.g. {IMAGE_CLEANER_DEFAULT_HOURS} (a week)",
        )
    ]


def control_plane_logs_missing(categories: Collection[str] | None) -> list[Finding]:
    """Advisory: the control plane's resource logs go nowhere (``categories`` ``None``: no diagnostic setting on
    the cluster), or none of the enabled categories is an audit log (:data:`AUDIT_LOG_CATEGORIES`). AKS keeps no
    control-plane log unless a diagnostic setting sends it somewhere (``monitor-aks.md``)."""
    if categories is not None and any(c in AUDIT_LOG_CATEGORIES for c in categories):
        return []
    what = (
        "no diagnostic setting sends the cluster's control-plane logs anywhere, and AKS keeps none itself"
        if categories is None
        else f"the cluster's diagnostic settings send {', '.join(sorted(categories)) or 'no category'} but no audit log"
    )
    return [
        Finding(
            "diagnosticSetting",
            f"{what}: who changed what on the cluster cannot be traced after an incident. Send "
            f"{', '.join(CONTROL_PLANE_LOG_CATEGORIES[:3])} and the other control-plane categories to the Log "
            f"Analytics workspace with a diagnostic setting ({RESOURCE_LOGS_POLICY.cited})",
        )
    ]
