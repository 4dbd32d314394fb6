"""rules/aks.py: each AKS guard rail over facts, compliant and not (the stack config and the policies call these)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules import Finding
from rules.aks import (
    Cluster,
    GpuOperator,
    GpuPool,
    cost_analysis_tier,
    driver_install,
    gpu_pool_tainted,
    kaito_requires_oidc,
    lts_needs_premium,
    operator_autoscale_min_count,
    windows_gpu_pool,
    windows_pool_name,
)
from tests.conftest import TODAY

T4 = GpuPool(name="t4", vm_size="Standard_NC4as_T4_v3", kubernetes_version="1.36", taints=("a=b:NoSchedule",))
WIN = GpuPool(name="wgpu", vm_size="Standard_NC4as_T4_v3", os="Windows", kubernetes_version="1.36")


def with_(pool: GpuPool, **changes: Any) -> GpuPool:
    return replace(pool, **changes)


def test_windows_gpu_pool() -> None:
    assert windows_gpu_pool(WIN, today=TODAY) == []
    assert windows_gpu_pool(with_(T4, driver_skipped=True), today=TODAY) == []  # Linux: not this rule
    found = windows_gpu_pool(with_(WIN, name="wingpu1", kubernetes_version="1.28", driver_skipped=True), today=TODAY)
    assert [f.field for f in found] == ["driver", "orchestratorVersion", "name"]
    assert found[1].message == (
        "Windows GPU node pools need Kubernetes 1.29 or later (AKS), and this pool runs 1.28. Allowed: 1.29 or later."
    )
    assert found[2].message == (
        "'wingpu1' has 7 characters: AKS limits Windows node pool names to 6 (Windows computer names are derived from "
        "it). Use at most 6, e.g. 'wingpu'."
    )
    assert windows_gpu_pool(with_(WIN, kubernetes_version="v1.29.2"), today=TODAY) == []
    assert windows_gpu_pool(with_(WIN, kubernetes_version="latest"), today=TODAY) == [
        Finding("orchestratorVersion", "'latest' is not a Kubernetes version like 1.36.2.")
    ]


def test_operator_autoscale_min_count() -> None:
    scaling = with_(T4, autoscaling=True, min_count=0)
    assert operator_autoscale_min_count(scaling, None) == []
    assert operator_autoscale_min_count(with_(scaling, min_count=1), GpuOperator()) == []
    assert operator_autoscale_min_count(with_(scaling, autoscaling=False), GpuOperator()) == []
    [finding] = operator_autoscale_min_count(with_(scaling, min_count=None), GpuOperator())
    assert finding.field == "minCount"
    assert finding.message.startswith(
        "must be ≥ 1 for an autoscaling GPU pool the GPU operator manages (it is not set)"
    )
    assert "(Azure/AKS #2832)" in finding.message


def test_driver_install_exactly_one_installer() -> None:
    skipped = with_(T4, driver_skipped=True)
    assert driver_install(T4, None) == []
    assert driver_install(skipped, GpuOperator()) == []
    assert driver_install(T4, GpuOperator(driver_enabled=False, toolkit_enabled=False)) == []
    assert [f.message.split(":")[0] for f in driver_install(T4, GpuOperator())] == [
        "the pool keeps the AKS driver while the GPU operator also installs one"
    ]
    assert driver_install(skipped, GpuOperator(driver_enabled=False, toolkit_enabled=False))[0].message.startswith(
        "the pool skips the AKS driver and the GPU operator runs with driver.enabled=false"
    )
    assert driver_install(skipped, None)[0].message.startswith(
        "the pool skips the AKS driver install, but no NVIDIA GPU operator runs on its cluster"
    )
    assert driver_install(with_(WIN, driver_skipped=True), None) == []  # Windows: gpu-windows-pool's business


def test_gpu_pool_tainted() -> None:
    assert gpu_pool_tainted(T4) == []
    assert gpu_pool_tainted(with_(T4, taints=("a=b:NoExecute",))) == []
    [finding] = gpu_pool_tainted(with_(T4, taints=("a=b:PreferNoSchedule",)))
    assert (finding.field, finding.message.split(",")[0]) == ("taints", "no NoSchedule taint")


def test_cluster_rules() -> None:
    assert cost_analysis_tier(Cluster(tier="Standard", cost_analysis=True)) == []
    assert cost_analysis_tier(Cluster(tier="Free", cost_analysis=False)) == []
    assert cost_analysis_tier(Cluster(tier=None, cost_analysis=True)) == [
        Finding(
            "tier",
            "cost analysis is on but the cluster tier is not set (Free): AKS offers the cost analysis add-on only on "
            "the Standard and Premium tiers and rejects the cluster otherwise. Allowed: Standard, Premium; or turn "
            "cost analysis off.",
        )
    ]
    assert kaito_requires_oidc(Cluster(kaito_addon=True, oidc_issuer=True)) == []
    assert [f.field for f in kaito_requires_oidc(Cluster(kaito_addon=True))] == ["oidcIssuer"]


def test_lts_needs_premium_and_windows_pool_name() -> None:
    lts = Cluster(tier="Premium", support_plan="AKSLongTermSupport")
    assert lts_needs_premium(lts) == []
    assert lts_needs_premium(Cluster(tier="Standard")) == []
    assert [f.field for f in lts_needs_premium(Cluster(tier=None, support_plan="AKSLongTermSupport"))] == [
        "supportPlan"
    ]
    assert windows_pool_name("wingpu") == []
    assert [f.message.split(":")[0] for f in windows_pool_name("wingpu1")] == ["'wingpu1' has 7 characters"]
