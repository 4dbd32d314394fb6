"""GPUs that schedule (issue 20): what runs on each GPU node and what a pod can request, under mocks and in the rules.

Each stack shape below is run through the program; the test reads what the engine would receive (the pool's
``AgentPool`` / NodePool, the device-plugin or GPU-operator Helm values) and checks that the output contract's
scheduling entry — what a workload requests — is what that one device plugin advertises on those nodes.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from rules.node_stack import (
    DEVICE_PLUGIN_CHART,
    GPU_OPERATOR,
    KAITO_SAFE_TAINT,
    GpuNode,
    Sharing,
    Toleration,
    kaito_addon_daemonset,
    node_stack,
    node_stack_findings,
    operator_daemonset,
    operator_driver_os_findings,
    ubuntu_release,
)
from stack_config import StackConfigError, validate_stack_config
from tests.components.harness import AGENT_POOL, HELM_RELEASE, run_main, with_ci_deployer

T4 = "Standard_NC4as_T4_v3"
A100 = "Standard_NC24ads_A100_v4"
BASE: dict[str, Any] = {"environment": "dev", "location": "westeurope"}


def config(**top: Any) -> dict[str, Any]:
    out = copy.deepcopy(BASE)
    out.update(copy.deepcopy(top))
    return with_ci_deployer(out)


def ok(run: Any) -> Any:
    assert run.error is None, run.error
    return run


def problems(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(data, stack_file="stacks/Pulumi.dev.yaml")
    return {p.path: p.message for p in err.value.problems}


def release(run: Any, chart: str) -> dict[str, Any]:
    [found] = [r.inputs for r in run.of_type(HELM_RELEASE) if r.inputs["chart"] == chart]
    return found


def config_doc(values: dict[str, Any], name: str, *, operator: bool) -> dict[str, Any]:
    data = values["devicePlugin"]["config"]["data"] if operator else values["config"]["map"]
    return yaml.safe_load(data[name])


# --------------------------------------------------------------------------------------------- one stack per shape


def test_device_plugin_pool_with_time_slicing_advertises_what_the_contract_says() -> None:
    run = ok(run_main(config(gpuPools=[{"name": "t4", "vmSize": T4, "sharing": {"timeSlicing": {"replicas": 4}}}])))
    values = release(run, "nvidia-device-plugin")["values"]
    [pool] = run.of_type(AGENT_POOL)
    assert pool.inputs["gpuProfile"] == {"driver": "Install"}  # AKS installs the driver; the chart the plugin
    assert pool.inputs["nodeLabels"]["nvidia.com/device-plugin.config"] == "t4"
    doc = config_doc(values, "t4", operator=False)
    assert doc["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    scheduling = run.outputs["gpuPools"]["t4"]["scheduling"]
    assert (scheduling["resourceName"], scheduling["allocatablePerNode"]) == ("nvidia.com/gpu", 4)
    assert scheduling["devicePlugin"] == DEVICE_PLUGIN_CHART
    assert "gpu-operator" not in {r.inputs["chart"] for r in run.of_type(HELM_RELEASE)}


def test_aks_partitioned_mig_without_the_operator_advertises_mig_slices() -> None:
    pool = {"name": "a100", "vmSize": A100, "migProfile": "MIG3g", "count": 1}
    run = ok(run_main(config(gpuPools=[pool], devicePlugin={"migStrategy": "mixed"})))
    [agent] = run.of_type(AGENT_POOL)
    assert agent.inputs["gpuInstanceProfile"] == "MIG3g"  # AKS partitions: it installs the driver
    assert agent.inputs["gpuProfile"] == {"driver": "Install"}
    values = release(run, "nvidia-device-plugin")["values"]
    assert values["migStrategy"] == "mixed"
    assert config_doc(values, "default", operator=False)["flags"] == {"migStrategy": "mixed"}
    assert values["gfd"] == {"enabled": True}  # AKS's MIG guide installs the chart with gpu-feature-discovery
    assert values["nfd"]["worker"]["tolerations"] == values["tolerations"]
    scheduling = run.outputs["gpuPools"]["a100"]["scheduling"]
    # One A100 80GB, MIG3g: two 3g.40gb instances, advertised by name under the mixed strategy.
    assert (scheduling["resourceName"], scheduling["allocatablePerNode"]) == ("nvidia.com/mig-3g.40gb", 2)


def test_operator_pools_advertise_what_the_contract_says() -> None:
    pools = [
        {"name": "t4", "vmSize": T4, "minCount": 1, "maxCount": 2, "sharing": {"mps": {"replicas": 4}}},
        {"name": "a100", "vmSize": A100, "migProfile": "MIG3g", "count": 1},
    ]
    run = ok(run_main(config(gpuPools=pools, gpuOperator={"enabled": True, "migStrategy": "single"})))
    values = release(run, "gpu-operator")["values"]
    assert config_doc(values, "t4", operator=True)["sharing"]["mps"]["resources"] == [
        {"name": "nvidia.com/gpu", "replicas": 4}
    ]
    assert values["migManager"] == {"enabled": True}
    out = run.outputs["gpuPools"]
    assert (out["t4"]["scheduling"]["resourceName"], out["t4"]["scheduling"]["allocatablePerNode"]) == (
        "nvidia.com/gpu",
        4,
    )
    # single strategy: each MIG instance is an nvidia.com/gpu.
    assert (out["a100"]["scheduling"]["resourceName"], out["a100"]["scheduling"]["allocatablePerNode"]) == (
        "nvidia.com/gpu",
        2,
    )
    assert {p["scheduling"]["devicePlugin"] for p in out.values()} == {GPU_OPERATOR}
    assert not [r for r in run.of_type(HELM_RELEASE) if r.inputs["chart"] == "nvidia-device-plugin"]


def test_nap_pool_limit_is_in_the_units_karpenter_counts() -> None:
    nap = {"name": "infer", "gpuModels": ["T4"], "limits": {"gpus": 2}, "sharing": {"mps": {"replicas": 4}}}
    run = ok(run_main(config(gpuNodePools=[nap])))
    [node_pool] = [r for r in run.records if r.type == "kubernetes:karpenter.sh/v1:NodePool"]
    # Defect: Karpenter counts a running node's replicas (2 GPUs x 4 = 8), so a limit of "2" stopped at half a GPU.
    assert node_pool.inputs["spec"]["limits"] == {"nvidia.com/gpu": "8"}
    values = release(run, "nvidia-device-plugin")["values"]
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms[0]["matchExpressions"][0]["values"] == ["infer"]
    assert values["gfd"] == {"enabled": True}  # the MPS control daemon needs gpu-feature-discovery's label
    scheduling = run.outputs["gpuNodePools"]["infer"]["scheduling"]
    assert (scheduling["resourceName"], scheduling["allocatablePerNode"], scheduling["devicePlugin"]) == (
        "nvidia.com/gpu",
        4,
        DEVICE_PLUGIN_CHART,
    )
    assert run.outputs["gpuNodePools"]["infer"]["maxGpus"] == 2


def test_kaito_beside_operator_pools_takes_a_taint_the_add_on_plugin_does_not_tolerate() -> None:
    stack = config(
        gpuPools=[{"name": "t4", "vmSize": T4, "count": 1, "sharing": {"timeSlicing": {"replicas": 2}}}],
        gpuOperator={"enabled": True},
        kaito={"enabled": True, "workspaces": [{"name": "phi", "preset": "phi-4-mini-instruct", "instanceType": A100}]},
    )
    run = ok(run_main(stack))
    [agent] = run.of_type(AGENT_POOL)
    assert agent.inputs["nodeTaints"] == [KAITO_SAFE_TAINT]
    values = release(run, "gpu-operator")["values"]
    assert {"key": "azure-gpu-platform/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"} in values[
        "daemonsets"
    ]["tolerations"]
    scheduling = run.outputs["gpuPools"]["t4"]["scheduling"]
    assert scheduling["tolerations"] == [
        {"key": "azure-gpu-platform/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]
    assert (scheduling["devicePlugin"], scheduling["allocatablePerNode"]) == (GPU_OPERATOR, 2)


# --------------------------------------------------------------------------------------------- refusals


def test_kaito_add_on_and_the_nvidia_taint_is_two_device_plugins() -> None:
    # Defect 2: the add-on's DaemonSet tolerates nvidia.com/gpu (kaito v0.6.0), so it lands beside the operator's.
    stack = config(
        gpuPools=[{"name": "t4", "vmSize": T4, "count": 1, "taints": ["nvidia.com/gpu=present:NoSchedule"]}],
        gpuOperator={"enabled": True},
        kaito={"enabled": True},
    )
    found = problems(stack)
    message = found["gpuPools[0].taints"]
    assert message.startswith("t4: 2 NVIDIA device plugins land on these GPU nodes (the NVIDIA GPU operator's device")
    assert "e.g. azure-gpu-platform/gpu=present:NoSchedule" in message


def test_operator_tolerating_kaito_nodes_is_two_device_plugins_there() -> None:
    stack = config(
        gpuPools=[{"name": "t4", "vmSize": T4, "count": 1, "taints": ["sku=gpu:NoSchedule"]}],
        gpuOperator={"enabled": True},
        kaito={"enabled": True, "workspaces": [{"name": "phi", "preset": "phi-4-mini-instruct", "instanceType": A100}]},
    )
    found = problems(stack)
    assert found["kaito.workspaces[0]"].startswith("kaito.workspaces[0] (phi): 2 NVIDIA device plugins land")
    assert "gpuPools[0].taints" in found  # the pool itself gets the add-on's plugin too


def test_device_plugin_settings_beside_the_operator_are_refused() -> None:
    found = problems(config(gpuPools=[{"name": "t4", "vmSize": T4}], gpuOperator={"enabled": True}, devicePlugin={}))
    assert found["devicePlugin"].startswith("set, but gpuOperator.enabled is true")


def test_an_unknown_device_plugin_chart_version_is_refused() -> None:
    found = problems(config(gpuPools=[{"name": "t4", "vmSize": T4}], devicePlugin={"version": "0.17.0"}))
    assert found["devicePlugin.version"] == (
        "'0.17.0' is not a chart version the facts were read at (gpu_catalog/facts/device_plugins.json). "
        "Allowed: 0.20.0."
    )


def test_operator_installed_drivers_need_one_os_version() -> None:
    pools = [
        {"name": "t4", "vmSize": T4, "count": 1},
        {"name": "old", "vmSize": T4, "count": 1, "osSku": "Ubuntu2204"},
    ]
    found = problems(config(gpuPools=pools, gpuOperator={"enabled": True}))
    assert "gpuPools[0] (t4): Ubuntu 24.04; gpuPools[1] (old): Ubuntu 22.04" in found["gpuOperator"]


def test_an_azure_linux_system_pool_beside_ubuntu_operator_pools_is_fine() -> None:
    # The AKS article says the operator is "not compatible with multiple OS versions"; NVIDIA's documentation says
    # CPU-only nodes may run any OS: the shipped stacks (Azure Linux system pool, Ubuntu GPU pools) stay valid.
    cfg = validate_stack_config(
        config(gpuPools=[{"name": "t4", "vmSize": T4, "count": 1}], gpuOperator={"enabled": True}),
        stack_file="stacks/Pulumi.dev.yaml",
    )
    assert cfg.cluster.systemPool.osSku == "AzureLinux"


def test_kaito_add_on_beside_nap_is_warned_with_the_evidence(monkeypatch: pytest.MonkeyPatch) -> None:
    import pulumi

    logged: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda msg, *a, **k: logged.append(msg))
    stack = config(
        gpuNodePools=[{"name": "infer", "gpuModels": ["T4"], "limits": {"gpus": 1}}],
        gpuOperator={"enabled": True},
        kaito={"enabled": True},
    )
    ok(run_main(stack))
    warnings = [w for w in logged if "node auto-provisioning (NAP) on one cluster" in w]
    assert len(warnings) == 1
    assert "AKSNodeClass 'default'" in warnings[0]


# --------------------------------------------------------------------------------------------- the rule itself


def _node(*taints: str, mig: tuple[str, int] | None = None) -> GpuNode:
    return GpuNode("AgentPool aks-t4", "Linux", 1, taints, mig=mig)


def test_a_node_no_plugin_tolerates_advertises_nothing() -> None:
    op = operator_daemonset((Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule"),), "single", {})
    stack = node_stack(_node("sku=gpu:NoSchedule"), [op])
    assert stack.advertised == ()
    [finding] = node_stack_findings(stack)
    assert finding.message.startswith(
        "AgentPool aks-t4: no NVIDIA device plugin runs on these GPU nodes (the NVIDIA GPU operator's device plugin: "
        "it does not tolerate the taint sku=gpu:NoSchedule)"
    )


def test_prefer_no_schedule_never_keeps_a_daemonset_off() -> None:
    stack = node_stack(_node("x=y:PreferNoSchedule"), [kaito_addon_daemonset()])
    assert [p.plugin for p in stack.plugins] == ["kaito-addon"]
    assert node_stack_findings(stack) == []


def test_mig_with_strategy_none_advertises_nothing() -> None:
    op = operator_daemonset((Toleration(None, "Exists"),), "none", {})
    [finding] = node_stack_findings(node_stack(_node(mig=("3g.40gb", 2)), [op]))
    assert "migStrategy none" in finding.message


def test_shared_config_is_selected_by_the_node_label() -> None:
    node = GpuNode("p", "Linux", 2, (), {"nvidia.com/device-plugin.config": "p"})
    op = operator_daemonset((), "single", {"default": None, "p": Sharing("timeSlicing", 3, rename_by_default=True)})
    [ad] = node_stack(node, [op]).advertised
    assert (ad.resource, ad.per_node) == ("nvidia.com/gpu.shared", 6)


def test_ubuntu_release_follows_the_kubernetes_minor() -> None:
    assert ubuntu_release("Ubuntu", (1, 33)) == "Ubuntu 22.04"
    assert ubuntu_release("Ubuntu", (1, 34)) == "Ubuntu 24.04"
    assert operator_driver_os_findings({"a": "Ubuntu 24.04", "b": "Ubuntu 24.04"}) == []


def test_every_rule_of_the_model_names_recorded_sources() -> None:
    import json

    from gpu_catalog.device_plugins import DEVICE_PLUGIN_FACTS, load_device_plugin_facts

    doc = json.loads(DEVICE_PLUGIN_FACTS.read_text(encoding="utf-8"))
    sources = load_device_plugin_facts().sources
    for key in ("napSharingSources", "operatorOsSources", "kaitoNapSources"):
        assert doc[key] and set(doc[key]) <= set(sources), key
    for source in sources.values():
        assert source["repository"] and source["path"] and source["read"] == "2026-12-01"
        assert "commit" in source or "tag" in source or source["path"].startswith("issues/")
