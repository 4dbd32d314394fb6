"""gpu-driver-skipped-needs-operator (stack, advisory): driver skipped with no GPU operator in the stack."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel

from policies.gpu_driver_skipped_needs_operator import POLICY
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


def test_is_advisory() -> None:
    assert POLICY.enforcement_level == EnforcementLevel.ADVISORY


def test_operator_present_passes() -> None:
    resources = [
        (MANAGED_CLUSTER, "aks", CLUSTER),
        (AGENT_POOL, "gpupool", GPU_POOL),
        (HELM_RELEASE, "op", OPERATOR_RELEASE),
    ]
    assert run_stack_policy(POLICY, resources).violations == []


def test_aks_driver_without_operator_passes() -> None:
    pool = with_(GPU_POOL, gpuProfile={"driver": "Install"})
    assert run_stack_policy(POLICY, [(AGENT_POOL, "gpupool", pool)]).violations == []


def test_skipped_driver_without_operator_flagged() -> None:
    outcome = run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", CLUSTER), (AGENT_POOL, "gpupool", GPU_POOL)])
    assert outcome.violations == [
        "gpupool: gpuProfile.driver: node pool 'gpua100' (Standard_NC24ads_A100_v4): the pool skips the AKS driver "
        "install, but no NVIDIA GPU operator runs on its cluster, so nothing installs a driver and GPU pods stay "
        "Pending. Deploy the GPU operator, or keep the AKS driver. (No GPU operator Helm release, chart gpu-operator, "
        "is in this stack; ignore this if the operator is installed outside it.)"
    ]
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "gpupool")]


def test_other_helm_releases_do_not_count() -> None:
    other = with_(OPERATOR_RELEASE, chart="ingress-nginx")
    outcome = run_stack_policy(POLICY, [(AGENT_POOL, "gpupool", GPU_POOL), (HELM_RELEASE, "ingress", other)])
    assert len(outcome.violations) == 1
