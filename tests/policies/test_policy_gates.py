"""A resource policy's ``applies_to`` gate passes over exactly what the policy itself would pass over.

The pack skips a resource of another type before anything runs (``policies/_resources.py:shared_view``). That is only a
speed-up if the ungated policy (the module's own ``validate``) reports nothing, notes nothing unknown and raises
nothing for every resource the gate refuses: checked here over every type token below, each with the properties of
every kind of resource (so a policy that read its fields without a type check would show up).
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

import pytest

from bench.bench_policy import synth_resources
from policies._meta import GpuResourcePolicy
from policies.pack import ALL_POLICIES

from ._helpers import AGENT_POOL, DATABRICKS_CLUSTER, HELM_RELEASE, KAITO_WORKSPACE, MANAGED_CLUSTER, run_policy

TYPES = (
    AGENT_POOL,
    "azure-native:containerservice/v20250901:AgentPool",
    MANAGED_CLUSTER,
    DATABRICKS_CLUSTER,
    "databricks:index/instancePool:InstancePool",
    KAITO_WORKSPACE,
    "kubernetes:kaito.sh/v1alpha1:Workspace",
    "kubernetes:karpenter.sh/v1:NodePool",
    "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass",
    HELM_RELEASE,
    "azure-native:compute:VirtualMachine",
    "azure-native:compute:VirtualMachineScaleSet",
    "azure-native:machinelearningservices:Compute",
    "azure-native:batch:Pool",
    "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool",
    "azure:containerservice/kubernetesCluster:KubernetesCluster",
    "aws:ec2/instance:Instance",
)

GATED = [p for p in ALL_POLICIES if isinstance(p, GpuResourcePolicy) and p.applies_to is not None]


def _props() -> list[dict[str, Any]]:
    """One resource of each kind the benchmark corpus generates, plus a KAITO Workspace and a Karpenter NodePool."""
    seen: dict[str, dict[str, Any]] = {}
    for r in synth_resources(30):
        seen.setdefault(r.type, dict(r.inputs))
    workspace = {"resource": {"instanceType": "Standard_NC6"}, "inference": {"preset": {"name": "phi-4"}}}
    nodepool = {"spec": {"template": {"spec": {"requirements": []}}}}
    return [*seen.values(), workspace, nodepool]


def test_every_resource_policy_has_a_gate() -> None:
    ungated = [p.name for p in ALL_POLICIES if isinstance(p, GpuResourcePolicy) and p.applies_to is None]
    assert ungated == []


@pytest.mark.parametrize("policy", GATED, ids=lambda p: p.name)
def test_the_gate_passes_over_only_what_the_policy_ignores(policy: GpuResourcePolicy) -> None:
    assert policy.applies_to is not None
    inner = SimpleNamespace(validate=importlib.import_module(f"policies.{policy.name.replace('-', '_')}").validate)
    refused = [t for t in TYPES if not policy.applies_to(t)]
    assert refused, "the gate refuses some type"
    for resource_type in refused:
        for props in _props():
            outcome = run_policy(inner, resource_type, props)  # type: ignore[arg-type]
            assert (outcome.violations, outcome.preview_unknown, outcome.not_applicable) == ([], None, []), (
                policy.name,
                resource_type,
            )


@pytest.mark.parametrize("policy", GATED, ids=lambda p: p.name)
def test_the_gate_admits_the_policys_own_types(policy: GpuResourcePolicy) -> None:
    assert policy.applies_to is not None
    admitted = {t for t in TYPES if policy.applies_to(t)}
    assert admitted, f"{policy.name} admits none of the known types"
