"""Microsoft's node auto-provisioning example NodePools (vendored in ``tests/fixtures/nap_examples/``, each with its
repository, path and commit) through the pack, as the Kubernetes provider registers them: the YAML's own (camelCase)
keys, numbers as floats. Issue 28: no CPU or unconstrained NodePool gets a mandatory verdict, each unconstrained one
gets exactly one advisory finding, and the AKS managed-GPU example is still refused, one message per policy.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

from policies import gpu_nodepool_constrains_gpus
from policies.pack import ALL_POLICIES
from rules.karpenter import GpuScope, gpu_scope, read_requirements
from tests.policies._helpers import run_policy

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "nap_examples"
ORIGIN = re.compile(
    r"^# Vendored excerpt \(data only\): MicrosoftDocs/azure-aks-docs (articles/aks/[a-z-]+\.md) @ ([0-9a-f]{40})$"
)

SCOPES = {
    "aks-managed-gpu-nodes": GpuScope.EXPLICIT,
    "aksnodeclass-comprehensive": GpuScope.UNCONSTRAINED,
    "aksnodeclass-ephemeral-disk": GpuScope.UNCONSTRAINED,
    "disruption-budgets": GpuScope.UNCONSTRAINED,
    "disruption-do-not-disrupt": GpuScope.UNCONSTRAINED,
    "disruption-termination-grace-period": GpuScope.UNCONSTRAINED,
    "node-pools-default": GpuScope.EXCLUDED,
    "use-nap-disable-limits": GpuScope.UNCONSTRAINED,
    "use-nap-disable-taint": GpuScope.UNCONSTRAINED,
}
UNCONSTRAINED = sorted(name for name, scope in SCOPES.items() if scope is GpuScope.UNCONSTRAINED)


def as_engine_sends(value: Any) -> Any:
    """Inputs as the engine hands them to a policy: numbers are doubles (the YAML's ``cpu: 0`` arrives as 0.0)."""
    if isinstance(value, dict):
        return {k: as_engine_sends(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_engine_sends(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def example(name: str) -> dict[str, Any]:
    return as_engine_sends(yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text(encoding="utf-8")))


def findings(props: dict[str, Any]) -> dict[str, list[str]]:
    """Every resource policy's violations at its default level: ``{"<level> <policy>": [messages]}``."""
    out: dict[str, list[str]] = {}
    for policy in ALL_POLICIES:
        if isinstance(policy, ResourceValidationPolicy):
            outcome = run_policy(policy, NODE_POOL, props, name=str(props["metadata"]["name"]))
            assert outcome.preview_unknown is None, outcome.preview_unknown
            if outcome.violations:
                level = "mandatory" if policy.enforcement_level == EnforcementLevel.MANDATORY else "advisory"
                out[f"{level} {policy.name}"] = outcome.violations
    return out


def test_every_example_is_vendored_with_its_origin() -> None:
    assert sorted(p.stem for p in EXAMPLES.glob("*.yaml")) == sorted(SCOPES)
    for path in EXAMPLES.glob("*.yaml"):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        match = ORIGIN.match(first)
        assert match is not None, (path.name, first)
        assert match.group(2) == "fb060abe6a8fef960d4c487b543bf7b1e97808fe"
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert (doc["apiVersion"], doc["kind"]) == ("karpenter.sh/v1", "NodePool")


@pytest.mark.parametrize("name", sorted(SCOPES))
def test_each_example_is_classified_from_its_own_requirements(name: str) -> None:
    reqs, unknown = read_requirements(example(name), lambda _: False)
    assert unknown == []
    assert gpu_scope(reqs) is SCOPES[name]


@pytest.mark.parametrize("name", UNCONSTRAINED)
def test_an_unconstrained_example_gets_exactly_one_advisory_finding(name: str) -> None:
    found = findings(example(name))
    assert list(found) == ["advisory gpu-nodepool-constrains-gpus"]
    [message] = found["advisory gpu-nodepool-constrains-gpus"]
    nodepool = "ephemeral-disk-pool" if name == "aksnodeclass-ephemeral-disk" else "default"
    assert message.startswith(
        f"spec.template.spec.requirements: NodePool '{nodepool}' does not constrain GPUs: its requirements admit 89 "
        "GPU sizes that Karpenter on AKS can launch (karpenter-provider-azure's GPU registry), and 41 of them are "
        "refused by the size rules (30 retired, 37 below the floor Standard_NC6s_v3): "
        "Standard_NC6, Standard_NC12, Standard_NC6s_v2, Standard_NC6s_v3, Standard_NC24 and 36 more. A pending pod "
        "that requests nvidia.com/gpu makes Karpenter create whichever of them fits, on a node without the "
        "nvidia.com/gpu taint (so ordinary pods share the GPU VM). "
    )
    assert message.endswith(
        "Add the requirement {key: karpenter.azure.com/sku-family, operator: NotIn, values: [N]} to keep GPUs out of "
        "this NodePool, or pin its GPU sizes, e.g. {key: karpenter.azure.com/sku-name, operator: In, values: "
        "[Standard_NC4as_T4_v3, Standard_NC8as_T4_v3, Standard_NC16as_T4_v3]}, and bound them with "
        "spec.limits['nvidia.com/gpu']."
    )


def test_the_ephemeral_disk_example_is_named_in_its_finding() -> None:
    [message] = findings(example("aksnodeclass-ephemeral-disk"))["advisory gpu-nodepool-constrains-gpus"]
    assert message.startswith("spec.template.spec.requirements: NodePool 'ephemeral-disk-pool' does not constrain GPUs")
    assert "on a node without the nvidia.com/gpu taint (so ordinary pods share the GPU VM)" in message


def test_the_unconstrained_finding_follows_the_policy_config_level() -> None:
    # the level is the pack's policy config: the engine applies it; the policy reports the same one finding
    props = example("disruption-budgets")
    outcome = run_policy(gpu_nodepool_constrains_gpus.POLICY, NODE_POOL, props, config={})
    assert len(outcome.violations) == 1
    assert gpu_nodepool_constrains_gpus.POLICY.enforcement_level == EnforcementLevel.ADVISORY


def test_the_default_cpu_node_pool_gets_no_gpu_diagnostic() -> None:
    assert findings(example("node-pools-default")) == {}


def test_the_managed_gpu_example_is_still_refused_one_message_per_policy() -> None:
    found = findings(example("aks-managed-gpu-nodes"))
    assert sorted(found) == [
        "mandatory gpu-nodepool-limits",
        "mandatory gpu-size-aks-supported",
        "mandatory gpu-size-minimum",
        "mandatory gpu-size-not-retired",
    ]
    assert all(len(messages) == 1 for messages in found.values()), found
    [minimum] = found["mandatory gpu-size-minimum"]
    assert minimum.startswith(
        "spec.template.spec.requirements: NodePool 'managed-gpu-np' admits 37 sizes this policy refuses: "
        "Standard_NC6, Standard_NC12, Standard_NC6s_v2, Standard_NC24, Standard_NC12s_v2 and 32 more. The first: "
        "Standard_NC6 (NVIDIA Tesla K80"
    )
    [retired] = found["mandatory gpu-size-not-retired"]
    assert retired.startswith("spec.template.spec.requirements: NodePool 'managed-gpu-np' admits 39 sizes")
    [limits] = found["mandatory gpu-nodepool-limits"]
    assert limits.startswith("spec.limits: NodePool 'managed-gpu-np' (")
    assert "sets no spec.limits['nvidia.com/gpu']" in limits


def test_constraining_an_unconstrained_example_as_advised_clears_it() -> None:
    props = example("disruption-termination-grace-period")
    spec = props["spec"]["template"]["spec"]
    spec["requirements"] = [{"key": "karpenter.azure.com/sku-family", "operator": "NotIn", "values": ["N"]}]
    assert findings(props) == {}
    spec["requirements"] = [
        {"key": "karpenter.azure.com/sku-name", "operator": "In", "values": ["Standard_NC4as_T4_v3"]}
    ]
    props["spec"]["limits"] = {"nvidia.com/gpu": 4.0}
    assert findings(props) == {}


@pytest.mark.slow
def test_the_examples_through_the_pack_over_the_analyzer_protocol() -> None:
    """The pack process, driven as the engine drives it (Configure with every level, Analyze per resource, values
    over protobuf): mandatory verdicts only for the managed-GPU example, one advisory per unconstrained example."""
    from preflight.model import RecordedResource
    from tests.shared_runs import run_session_pack

    prefix = "urn:pulumi:dev::nap-examples::"
    resources = [
        RecordedResource(urn=f"{prefix}{NODE_POOL}::{name}", type=NODE_POOL, name=name, inputs=example(name))
        for name in sorted(SCOPES)
    ]
    result = run_session_pack(resources)
    mandatory = sorted({(v.urn.rsplit("::", 1)[1], v.policy_name) for v in result.mandatory})
    assert mandatory == [
        ("aks-managed-gpu-nodes", "gpu-nodepool-limits"),
        ("aks-managed-gpu-nodes", "gpu-size-aks-supported"),
        ("aks-managed-gpu-nodes", "gpu-size-minimum"),
        ("aks-managed-gpu-nodes", "gpu-size-not-retired"),
    ]
    assert len(result.mandatory) == 4
    advisory = sorted(
        (v.urn.rsplit("::", 1)[1], v.policy_name) for v in result.violations if v.enforcement_level == "advisory"
    )
    # The managed-GPU example alone in a stack: no device plugin of the stack serves its GPU nodes (issue 20's
    # node-stack rule), advisory since issue 40 (GitOps, kubectl or another stack may bring it).
    assert advisory == sorted(
        [("aks-managed-gpu-nodes", "gpu-node-device-plugin-missing")]
        + [(name, "gpu-nodepool-constrains-gpus") for name in UNCONSTRAINED]
    )
