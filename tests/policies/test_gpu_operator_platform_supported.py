"""gpu-operator-platform-supported (stack): the operator release is validated for the pools' Kubernetes and OS."""

from __future__ import annotations

import copy

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


NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass"


def nap_stack(image_family: str | None, release: dict = RELEASE, ref: str = "infer") -> list[tuple[str, str, dict]]:
    from tests.policies.test_karpenter_node_pools import NODE_POOL_PROPS

    node_pool = copy.deepcopy(NODE_POOL_PROPS)
    node_pool["spec"]["template"]["spec"]["nodeClassRef"]["name"] = ref
    spec = {"gpu": {"mode": "Driver"}, **({"imageFamily": image_family} if image_family else {})}
    return [
        (MANAGED_CLUSTER, "aks-cluster", with_(CLUSTER, kubernetesVersion="1.36")),
        (NODE_CLASS, "infer-class", {"metadata": {"name": "infer"}, "spec": spec}),
        (NODE_POOL, "infer", node_pool),
        (HELM_RELEASE, "gpu-operator", release),
    ]


def test_a_raw_gpu_node_pool_is_judged_by_its_node_class_image_family() -> None:
    """The operator manages NAP GPU nodes too: their OS is the AKSNodeClass imageFamily (the NAP checklist's rule)."""
    for fine in ("Ubuntu2404", "Ubuntu", None):
        assert run_stack_policy(POLICY, nap_stack(fine)).violations == []
    outcome = run_stack_policy(POLICY, nap_stack("AzureLinux"))
    [message] = outcome.violations
    assert message.startswith(
        "infer: spec.template.spec.nodeClassRef (infer, imageFamily AzureLinux): osSku AzureLinux"
    )
    assert outcome.violation_urns == [urn_of(NODE_POOL, "infer")]
    [old] = run_stack_policy(POLICY, nap_stack("Ubuntu2404", release=with_(RELEASE, version="v25.3.4"))).violations
    assert "GPU operator v25.3.4 is not validated on Kubernetes 1.36" in old


def test_a_node_pool_whose_node_class_is_elsewhere_is_not_passed_silently() -> None:
    outcome = run_stack_policy(POLICY, nap_stack("AzureLinux", ref="other"))
    assert outcome.violations == []
    assert outcome.not_applicable == ["infer: spec.template.spec.nodeClassRef: its AKSNodeClass is not in this stack"]
