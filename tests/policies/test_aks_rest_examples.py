"""Issue 15 acceptance: Microsoft's AKS REST-spec example requests (API 2025-09-01) through the pack over gRPC.

The requests are vendored in tests/fixtures/aks_rest_examples/ with their source (Azure/azure-rest-api-specs path and
commit). Each becomes one resource as azure-native sends it: the path parameters (resourceGroupName, resourceName,
agentPoolName) and the body's top level (location, tags, sku) as inputs, ``properties.*`` flattened to the top, numbers
as floats. Each example is its own stack (Analyze per resource, then AnalyzeStack). Where the sizes are fine, no
mandatory violation is allowed — except the ones listed in ``EXPECTED`` with the reason. A GPU pool alone in its
stack has no device plugin of the stack: that is advisory (``gpu-node-device-plugin-missing``), since the plugin may
come from GitOps, kubectl or another stack (issue 40); two plugins on one pool stay refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from preflight.analyzer.client import PolicyPackProcess
from preflight.model import RecordedResource

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "tests" / "fixtures" / "aks_rest_examples"
PACK_DIR = REPO / "policies"
PATH_PARAMETERS = ("resourceGroupName", "resourceName", "agentPoolName")

EXPECTED: dict[str, set[str]] = {
    # A100 40 GiB x8 with MIG2g, orchestratorVersion "" (the cluster's). Alone in its stack nothing installs a device
    # plugin (AKS installs the driver only; Microsoft's MIG guide installs the nvidia-device-plugin chart by hand):
    # not evidence of none on the cluster, so only the advisory gpu-node-device-plugin-missing reports it.
    "AgentPoolsCreate_GPUMIG": set(),
    "AgentPoolsCreate_OSSKU": set(),
    "AgentPoolsCreate_Spot": set(),
    # Refused for a legitimate reason, not for its sizes: the example pins Kubernetes 1.9.6, which AKS removed years
    # ago (aks-kubernetes-version-supported, checked against gpu_catalog/facts/aks_kubernetes.json on 2026-11-30).
    "AgentPoolsCreate_TypeVirtualMachines": {"aks-kubernetes-version-supported"},
    # Same: Kubernetes 1.23.3 can no longer be created on AKS.
    "AgentPoolsCreate_WindowsOSSKU": {"aks-kubernetes-version-supported"},
    # kubernetesVersion "" (AKS's default), MIG3g on Standard_ND96asr_v4; no device plugin, as above.
    "ManagedClustersCreate_GPUMIG": set(),
}
GPU_MIG = ("AgentPoolsCreate_GPUMIG", "ManagedClustersCreate_GPUMIG")


def floats(value: Any) -> Any:
    """Numbers as the engine sends them (doubles)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [floats(v) for v in value]
    return value


def as_resource(name: str, doc: dict[str, Any]) -> RecordedResource:
    params = doc["parameters"]
    body = params["parameters"]
    typ = (
        "azure-native:containerservice:AgentPool"
        if "agentPoolName" in params
        else "azure-native:containerservice:ManagedCluster"
    )
    inputs = {k: params[k] for k in PATH_PARAMETERS if k in params}
    inputs.update({k: v for k, v in body.items() if k != "properties"})
    inputs.update(body["properties"])
    return RecordedResource(urn=f"urn:pulumi:dev::examples::{typ}::{name}", type=typ, name=name, inputs=floats(inputs))


def load(name: str) -> tuple[dict[str, Any], RecordedResource]:
    doc = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    return doc, as_resource(name, doc)


@pytest.fixture(scope="module")
def pack() -> Iterator[PolicyPackProcess]:
    with PolicyPackProcess(PACK_DIR, project="examples", stack="dev", dry_run=False) as p:
        p.configure(None)
        yield p


def mandatory(pack: PolicyPackProcess, r: RecordedResource, *others: RecordedResource) -> set[str]:
    found = pack.analyze(r).violations + pack.analyze_stack([r, *others]).violations
    return {v.policy_name for v in found if v.enforcement_level == "mandatory"}


def helm_release(name: str, chart: str, values: dict[str, Any]) -> RecordedResource:
    typ = "kubernetes:helm.sh/v3:Release"
    inputs = {"chart": chart, "namespace": chart, "values": floats(values)}
    return RecordedResource(urn=f"urn:pulumi:dev::examples::{typ}::{name}", type=typ, name=name, inputs=inputs)


RAW_DAEMONSET = RecordedResource(
    urn="urn:pulumi:dev::examples::kubernetes:apps/v1:DaemonSet::nvdp",
    type="kubernetes:apps/v1:DaemonSet",
    name="nvdp",
    inputs={
        "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "gpu-resources"},
        "spec": {
            "template": {
                "spec": {
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    "containers": [{"name": "ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}],
                }
            }
        },
    },
)
"""The DaemonSet azure-aks-docs use-nvidia-gpu.md applies with kubectl: the examples' pools are untainted, so it
lands beside the chart."""
CHART = helm_release("dp", "nvidia-device-plugin", {"migStrategy": "single", "gfd": {"enabled": True}})
"""NVIDIA's chart as Microsoft's MIG guide installs it (gpu-feature-discovery on, its default affinity)."""


@pytest.mark.parametrize("name", GPU_MIG)
def test_the_gpu_mig_examples_alone_get_the_advisory_only(pack: PolicyPackProcess, name: str) -> None:
    r = load(name)[1]
    found = [v for v in pack.analyze_stack([r]).violations if "device-plugin" in v.policy_name]
    assert [(v.policy_name, v.enforcement_level) for v in found] == [("gpu-node-device-plugin-missing", "advisory")]
    assert "azure-gpu-platform/device-plugin=external" in found[0].message


@pytest.mark.parametrize("name", GPU_MIG)
def test_the_gpu_mig_examples_with_one_plugin_pass_and_with_two_are_refused(pack: PolicyPackProcess, name: str) -> None:
    r = load(name)[1]
    assert mandatory(pack, r, CHART) == set()
    assert mandatory(pack, r, RAW_DAEMONSET, CHART) == {"gpu-node-device-plugin"}
    found = pack.analyze_stack([r, RAW_DAEMONSET, CHART]).violations
    [doubled] = [v for v in found if v.enforcement_level == "mandatory"]
    assert "2 NVIDIA device plugins land on these GPU nodes" in doubled.message


def test_every_vendored_example_is_listed_with_its_source() -> None:
    assert sorted(p.stem for p in EXAMPLES.glob("*.json")) == sorted(EXPECTED)
    for name in EXPECTED:
        source = load(name)[0]["source"]
        assert source["repository"] == "Azure/azure-rest-api-specs"
        assert source["path"].endswith(f"/aks/stable/2025-09-01/examples/{name}.json")
        assert len(source["commit"]) == 40


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_microsofts_example_passes_where_its_sizes_are_fine(pack: PolicyPackProcess, name: str) -> None:
    assert mandatory(pack, load(name)[1]) == EXPECTED[name]


def test_a_windows_gpu_pool_written_like_microsofts_examples_passes(pack: PolicyPackProcess) -> None:
    # AgentPoolsCreate_WindowsOSSKU with a GPU size and the empty orchestratorVersion the GPU MIG example uses: ARM
    # reads "" as "the control plane's version", so the pool is not refused for "not setting" one.
    doc, _ = load("AgentPoolsCreate_WindowsOSSKU")
    doc["parameters"]["parameters"]["properties"].update(vmSize="Standard_NC4as_T4_v3", orchestratorVersion="")
    assert mandatory(pack, as_resource("windows-gpu", doc)) == set()


def test_the_virtual_machines_example_with_a_refused_size(pack: PolicyPackProcess) -> None:
    doc, _ = load("AgentPoolsCreate_TypeVirtualMachines")
    props = doc["parameters"]["parameters"]["properties"]
    props["orchestratorVersion"] = "1.36"
    props["virtualMachinesProfile"]["scale"]["manual"][1]["size"] = "Standard_NV32as_v4"
    assert mandatory(pack, as_resource("vms-nvv4", doc)) == {"gpu-size-no-nvv4", "gpu-size-not-retired"}
