"""gpu-operator-platform-supported (stack): the operator release is validated for the pools' Kubernetes and OS."""

from __future__ import annotations

from policies.gpu_operator_platform_supported import POLICY
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    GPU_POOL,
    HELM_RELEASE,
    MANAGED_CLUSTER,
    OPERATOR_RELEASE,
    run_stack_policy,
    urn_of,
    with_,
)

RELEASE = with_(OPERATOR_RELEASE, version="v26.7.0")
POOL = with_(GPU_POOL, orchestratorVersion="1.36")


def stack(release: dict = RELEASE, pool: dict = POOL) -> list[tuple[str, str, dict]]:
    return [
        (MANAGED_CLUSTER, "aks-cluster", with_(CLUSTER, kubernetesVersion="1.36")),
        (AGENT_POOL, "aks-a100", pool),
        (HELM_RELEASE, "gpu-operator", release),
    ]


def test_validated_release_passes() -> None:
    assert run_stack_policy(POLICY, stack()).violations == []


def test_old_release_on_new_kubernetes_refused() -> None:
    outcome = run_stack_policy(POLICY, stack(release=with_(RELEASE, version="v25.3.4")))
    assert outcome.violations == [
        "aks-a100: osSKU: node pool 'gpua100' (Standard_NC24ads_A100_v4) — GPU operator v25.3.4 is not validated on "
        "Kubernetes 1.36 with Ubuntu 22.04, Ubuntu 24.04 (NVIDIA's matrix for v25.3.4: Ubuntu 22.04 1.29–1.33; "
        "Ubuntu 24.04 1.29–1.33). Releases validated for it: v26.3.3, v26.7.0."
    ]
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "aks-a100")]


def test_pool_without_version_uses_the_cluster_version() -> None:
    outcome = run_stack_policy(
        POLICY, stack(release=with_(RELEASE, version="v25.3.4"), pool=with_(POOL, orchestratorVersion=None))
    )
    assert len(outcome.violations) == 1 and "Kubernetes 1.36" in outcome.violations[0]


def test_azure_linux_pool_refused() -> None:
    outcome = run_stack_policy(POLICY, stack(pool=with_(POOL, osSKU="AzureLinux")))
    assert len(outcome.violations) == 1
    assert "osSku AzureLinux is not an OS NVIDIA validates the GPU operator on" in outcome.violations[0]


def test_unpinned_release_refused() -> None:
    outcome = run_stack_policy(POLICY, stack(release=with_(RELEASE, version=None)))
    assert outcome.violations[0].startswith("gpu-operator: version: GPU operator release 'gpu-operator' does not pin")
