"""aks-node-os-supported (stack): a node pool's OS version against its Kubernetes version and the date, on raw
resources (``gpu_catalog/facts/aks_node_os.json``; the suite pins today to 2026-11-30)."""

from __future__ import annotations

from typing import Any

from gpu_catalog.clock import TODAY_ENV
from policies.aks_node_os_supported import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    GPU_POOL,
    MANAGED_CLUSTER,
    SYSTEM_PROFILE,
    UNKNOWN,
    run_stack_policy,
    urn_of,
    with_,
)

CLUSTER_136 = with_(CLUSTER, kubernetesVersion="1.36")
WINDOWS = with_(GPU_POOL, agentPoolName="gpuwin", osType="Windows", osSKU="Windows2022", orchestratorVersion=None)
WINDOWS_137 = (
    "Windows2022 (Windows Server 2022) is not supported on Kubernetes 1.37: AKS supports it up to 1.36 (Azure/AKS "
    "CHANGELOG.md, release notes 2026-06-19). Allowed: Kubernetes 1.36 or earlier on this pool (orchestratorVersion), "
    "or a Linux pool (Windows Server 2025 is not an osSKU of the API version the program uses)."
)


def stack(cluster: dict[str, Any], *pools: dict[str, Any]) -> list[tuple[str, str, dict]]:
    return [(MANAGED_CLUSTER, "aks", cluster), *((AGENT_POOL, f"pool{i}", p) for i, p in enumerate(pools))]


def test_supported_pools_pass() -> None:
    outcome = run_stack_policy(POLICY, stack(CLUSTER_136, with_(GPU_POOL, orchestratorVersion="1.36"), WINDOWS))
    assert outcome.violations == [] and outcome.preview_unknown is None


def test_a_windows_pool_on_the_clusters_1_37_is_refused_at_the_pool() -> None:
    outcome = run_stack_policy(POLICY, stack(with_(CLUSTER, kubernetesVersion="1.37"), WINDOWS))
    assert outcome.violations == [f"pool0: {WINDOWS_137}"]
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "pool0")]


def test_a_windows_pool_without_os_sku_gets_aks_default_windows2022() -> None:
    pool = with_(WINDOWS, osSKU=None, orchestratorVersion="1.37.1")
    assert run_stack_policy(POLICY, stack(CLUSTER_136, pool)).violations == [f"pool0: {WINDOWS_137}"]


def test_an_inline_profile_is_checked_on_the_cluster() -> None:
    profile = with_(SYSTEM_PROFILE, name="win", osType="Windows", osSKU="Windows2022", orchestratorVersion="1.37")
    cluster = with_(CLUSTER_136, agentPoolProfiles=[SYSTEM_PROFILE, profile])
    outcome = run_stack_policy(POLICY, stack(cluster))
    assert outcome.violations == [f"aks: agentPoolProfiles[1]: {WINDOWS_137}"]
    assert outcome.violation_urns == [urn_of(MANAGED_CLUSTER, "aks")]


def test_ubuntu_2204_after_its_last_day_for_new_pools(monkeypatch: Any) -> None:
    pool = with_(GPU_POOL, osSKU="Ubuntu2204", orchestratorVersion="1.36")
    assert run_stack_policy(POLICY, stack(CLUSTER_136, pool)).violations == []
    monkeypatch.setenv(TODAY_ENV, "2027-06-30")
    [message] = run_stack_policy(POLICY, stack(CLUSTER_136, pool)).violations
    assert message.startswith("pool0: Ubuntu2204 (Ubuntu 22.04): AKS creates no new node pools with it from 2027-06-30")


def test_an_unknown_os_in_a_preview_is_reported_not_passed() -> None:
    outcome = run_stack_policy(POLICY, stack(with_(CLUSTER, kubernetesVersion="1.37"), with_(WINDOWS, osSKU=UNKNOWN)))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None and "pool0.osSKU" in outcome.preview_unknown


def test_a_pool_of_a_cluster_outside_the_stack_is_not_passed_silently() -> None:
    outcome = run_stack_policy(POLICY, [(AGENT_POOL, "pool0", WINDOWS)])
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "pool0: its Kubernetes version is not in this stack (no orchestratorVersion, no cluster)"
    ]


NODE_CLASS = "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass"


def node_class(image_family: Any) -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.azure.com/v1beta1",
        "kind": "AKSNodeClass",
        "metadata": {"name": "infer"},
        "spec": {"gpu": {"mode": "Driver"}, **({"imageFamily": image_family} if image_family is not None else {})},
    }


def test_a_raw_aks_node_class_image_family_after_its_last_day_for_new_pools(monkeypatch: Any) -> None:
    """NAP nodes run the cluster's version: the NodeClass's imageFamily is judged on it (the NAP checklist's rule)."""
    resources = [*stack(CLUSTER_136), (NODE_CLASS, "infer", node_class("Ubuntu2204"))]
    assert run_stack_policy(POLICY, resources).violations == []
    monkeypatch.setenv(TODAY_ENV, "2027-06-30")
    outcome = run_stack_policy(POLICY, resources)
    [message] = outcome.violations
    assert message.startswith(
        "infer: spec.imageFamily: Ubuntu2204 (Ubuntu 22.04): AKS creates no new node pools with it from 2027-06-30"
    )
    assert outcome.violation_urns == [urn_of(NODE_CLASS, "infer")]
    for fine in ("Ubuntu2404", "AzureLinux", None):  # None: AKS's default image family, not checked
        assert run_stack_policy(POLICY, [*stack(CLUSTER_136), (NODE_CLASS, "n", node_class(fine))]).violations == []


def test_a_node_class_without_its_cluster_is_not_passed_silently(monkeypatch: Any) -> None:
    monkeypatch.setenv(TODAY_ENV, "2027-06-30")
    outcome = run_stack_policy(POLICY, [(NODE_CLASS, "infer", node_class("Ubuntu2204"))])
    assert outcome.violations == []
    assert outcome.not_applicable == [
        "infer: spec.imageFamily: the cluster's Kubernetes version is not known (0 ManagedClusters)"
    ]
    unknown = run_stack_policy(POLICY, [*stack(CLUSTER_136), (NODE_CLASS, "infer", node_class(UNKNOWN))])
    assert unknown.preview_unknown is not None and "infer: spec.imageFamily" in unknown.preview_unknown


GB300_AZURE_LINUX = (
    "Standard_ND128isr_GB300_v6 runs on Ubuntu node pools only (AKS's GPU registry: Azure/karpenter-provider-azure "
    "pkg/utils/supported-gpus.yaml, in gpu_catalog/catalog.json support.aksGpuRegistry): AKS has no GPU driver or "
    "image for it on osSKU AzureLinux. Use osType Linux with osSKU Ubuntu, or a size whose entry names the OS."
)


def test_an_ubuntu_only_size_on_another_os_is_refused_on_pools_and_profiles() -> None:
    """AKS's GPU registry lists GB300 and the RTX PRO 6000 family on Ubuntu only: an AzureLinux AgentPool and a
    Windows agentPoolProfiles entry are refused with the source; the same sizes on Ubuntu (or AKS's Linux default)
    and an A100 on AzureLinux pass."""
    gb300 = with_(GPU_POOL, vmSize="Standard_ND128isr_GB300_v6", osSKU="AzureLinux", orchestratorVersion="1.36")
    rtx = with_(SYSTEM_PROFILE, name="rtx", vmSize="Standard_NC144ds_xl_RTXPRO6000BSE_v6", osType="Windows", osSKU=None)
    cluster = with_(CLUSTER_136, agentPoolProfiles=[SYSTEM_PROFILE, rtx])
    outcome = run_stack_policy(POLICY, stack(cluster, gb300))
    assert outcome.violations == [
        "aks: agentPoolProfiles[1]: Standard_NC144ds_xl_RTXPRO6000BSE_v6 runs on Ubuntu node pools only (AKS's GPU "
        "registry: Azure/karpenter-provider-azure pkg/utils/supported-gpus.yaml, in gpu_catalog/catalog.json "
        "support.aksGpuRegistry): AKS has no GPU driver or image for it on osType Windows. Use osType Linux with "
        "osSKU Ubuntu, or a size whose entry names the OS.",
        f"pool0: {GB300_AZURE_LINUX}",
    ]
    assert outcome.violation_urns == [urn_of(MANAGED_CLUSTER, "aks"), urn_of(AGENT_POOL, "pool0")]
    fine = stack(
        with_(CLUSTER_136, agentPoolProfiles=[SYSTEM_PROFILE, with_(rtx, osType="Linux")]),
        with_(gb300, osSKU="Ubuntu"),
        with_(GPU_POOL, osSKU="AzureLinux", orchestratorVersion="1.36"),
    )
    assert run_stack_policy(POLICY, fine).violations == []


def test_the_size_is_judged_even_when_the_version_is_not_known() -> None:
    pool = with_(GPU_POOL, vmSize="Standard_ND128isr_GB300_v6", osSKU="AzureLinux", orchestratorVersion=None)
    outcome = run_stack_policy(POLICY, [(AGENT_POOL, "pool0", pool)])
    assert outcome.violations == [f"pool0: {GB300_AZURE_LINUX}"]
