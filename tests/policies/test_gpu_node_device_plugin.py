"""gpu-node-device-plugin (stack, mandatory): no GPU node pool of the stack gets two device plugins, and a MIG pool's
plugin advertises its MIG devices; gpu-node-device-plugin-missing (advisory): a pool with no plugin of the stack.

Compliant baseline: a T4 AgentPool tainted nvidia.com/gpu=present:NoSchedule and a gpu-operator release whose
daemonsets tolerate it (the chart default). One mutation per test; raw resources, camelCase, numbers as floats.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel

from policies.gpu_node_device_plugin import POLICY
from policies.gpu_node_device_plugin_missing import POLICY as MISSING
from tests.policies._helpers import (
    AGENT_POOL,
    CLUSTER,
    HELM_RELEASE,
    MANAGED_CLUSTER,
    UNKNOWN,
    run_stack_policy,
    urn_of,
    with_,
)

DAEMONSET = "kubernetes:apps/v1:DaemonSet"
NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
SAFE_TAINT = "azure-gpu-platform/gpu=present:NoSchedule"

T4_POOL: dict[str, Any] = {
    "resourceGroupName": "rg-gpu-dev",
    "resourceName": "aks-gpu-dev",
    "agentPoolName": "t4",
    "vmSize": "Standard_NC4as_T4_v3",
    "count": 1.0,
    "mode": "User",
    "osType": "Linux",
    "osSKU": "Ubuntu",
    "gpuProfile": {"driver": "Install"},
    "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"],
    "nodeLabels": {"azure-gpu-platform/pool": "t4"},
}

OPERATOR: dict[str, Any] = {
    "chart": "gpu-operator",
    "version": "v25.10.0",
    "namespace": "gpu-operator",
    "repositoryOpts": {"repo": "https://helm.ngc.nvidia.com/nvidia"},
    "values": {
        "driver": {"enabled": False},
        "toolkit": {"enabled": False},
        "mig": {"strategy": "single"},
        "daemonsets": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
    },
}

OUR_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
CHART: dict[str, Any] = {
    "chart": "nvidia-device-plugin",
    "version": "0.20.0",
    "namespace": "nvidia-device-plugin",
    "repositoryOpts": {"repo": "https://nvidia.github.io/k8s-device-plugin"},
    "values": {
        "migStrategy": "single",
        "config": {"map": {"default": "version: v1\nflags:\n  migStrategy: single\n"}, "default": "default"},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "azure-gpu-platform/pool", "operator": "In", "values": ["t4"]}]}
                    ]
                }
            }
        },
        "tolerations": [OUR_TOLERATION],
        "gfd": {"enabled": False},
    },
}

RAW_DAEMONSET: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "DaemonSet",
    "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "gpu-resources"},
    "spec": {
        "selector": {"matchLabels": {"name": "nvidia-device-plugin-ds"}},
        "template": {
            "metadata": {"labels": {"name": "nvidia-device-plugin-ds"}},
            "spec": {
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "priorityClassName": "system-node-critical",
                "containers": [
                    {"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}
                ],
            },
        },
    },
}


def stack(pool: dict[str, Any] = T4_POOL, *others: tuple[str, str, dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(AGENT_POOL, "gpupool", pool), *others]


def test_two_plugins_are_mandatory_and_none_is_advisory_with_the_config_option() -> None:
    assert POLICY.enforcement_level == EnforcementLevel.MANDATORY
    assert MISSING.enforcement_level == EnforcementLevel.ADVISORY
    assert POLICY.config_schema is not None and "devicePluginOutsideStack" not in POLICY.config_schema.properties
    assert MISSING.config_schema is not None
    assert MISSING.config_schema.properties["devicePluginOutsideStack"]["type"] == "boolean"


def test_operator_tolerating_the_pool_passes() -> None:
    outcome = run_stack_policy(POLICY, stack(T4_POOL, (HELM_RELEASE, "op", OPERATOR)))
    assert outcome.violations == []
    assert outcome.preview_unknown is None


def test_no_release_is_none_advisory_and_says_how_to_declare_an_outside_plugin() -> None:
    assert run_stack_policy(POLICY, stack()).violations == []
    outcome = run_stack_policy(MISSING, stack())
    assert outcome.violations == [
        "gpupool: node pool 't4' (Standard_NC4as_T4_v3): no NVIDIA device plugin runs on these GPU nodes, so they "
        "advertise no nvidia.com/gpu and pods that request GPUs stay Pending. AKS installs the GPU driver only, never "
        "a device plugin (azure-aks-docs use-nvidia-gpu.md). Deploy the NVIDIA GPU operator or the "
        "nvidia-device-plugin chart for these nodes. If a device plugin reaches these nodes from outside this program "
        "(GitOps such as Flux or Argo CD, kubectl, another stack), declare it with the node label "
        "azure-gpu-platform/device-plugin=external on the pool (AgentPool nodeLabels, a NodePool's "
        "spec.template.metadata.labels), or set the policy config "
        "gpu-node-device-plugin-missing.devicePluginOutsideStack: true for the whole stack."
    ]
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "gpupool")]


def test_a_pool_declaring_an_outside_plugin_passes_and_two_declared_are_still_refused() -> None:
    declared = with_(
        T4_POOL, nodeLabels={"azure-gpu-platform/pool": "t4", "azure-gpu-platform/device-plugin": "external"}
    )
    assert run_stack_policy(MISSING, stack(declared)).violations == []
    assert run_stack_policy(POLICY, stack(declared)).violations == []
    [message] = run_stack_policy(POLICY, stack(declared, (HELM_RELEASE, "op", OPERATOR))).violations
    assert message.startswith(
        "gpupool: node pool 't4' (Standard_NC4as_T4_v3): 2 NVIDIA device plugins land on these GPU nodes (the NVIDIA "
        "GPU operator's device plugin and the device plugin installed outside this program)"
    )


def test_a_mig_pool_declaring_an_outside_plugin_is_not_judged_on_an_unknown_strategy() -> None:
    pool = with_(
        T4_POOL,
        vmSize="Standard_NC24ads_A100_v4",
        gpuInstanceProfile="MIG3g",
        nodeLabels={"azure-gpu-platform/device-plugin": "external"},
    )
    assert run_stack_policy(POLICY, stack(pool)).violations == []


def test_operator_beside_the_kaito_addon_is_two() -> None:
    outcome = run_stack_policy(
        POLICY, stack(T4_POOL, (MANAGED_CLUSTER, "aks", CLUSTER), (HELM_RELEASE, "op", OPERATOR))
    )
    [message] = outcome.violations
    assert message.startswith(
        "gpupool: node pool 't4' (Standard_NC4as_T4_v3): 2 NVIDIA device plugins land on these GPU nodes (the NVIDIA "
        "GPU operator's device plugin and the KAITO add-on's device plugin)"
    )
    assert "e.g. azure-gpu-platform/gpu=present:NoSchedule" in message
    assert outcome.violation_urns == [urn_of(AGENT_POOL, "gpupool")]


def test_inline_profile_beside_the_kaito_addon_is_two_on_the_cluster() -> None:
    gpu_profile = {k: v for k, v in T4_POOL.items() if k not in ("resourceGroupName", "resourceName", "agentPoolName")}
    cluster = with_(CLUSTER, agentPoolProfiles=[CLUSTER["agentPoolProfiles"][0], {"name": "t4", **gpu_profile}])
    outcome = run_stack_policy(POLICY, [(MANAGED_CLUSTER, "aks", cluster), (HELM_RELEASE, "op", OPERATOR)])
    [message] = outcome.violations
    assert message.startswith("aks: agentPoolProfiles[1]: node pool 't4' (Standard_NC4as_T4_v3): 2 NVIDIA device")
    assert outcome.violation_urns == [urn_of(MANAGED_CLUSTER, "aks")]


def test_safe_taint_keeps_the_kaito_addon_off() -> None:
    pool = with_(T4_POOL, nodeTaints=[SAFE_TAINT])
    tolerating = {"key": "azure-gpu-platform/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    values = with_(OPERATOR["values"], daemonsets={"tolerations": [tolerating]})
    operator = with_(OPERATOR, values=values)
    resources = stack(pool, (MANAGED_CLUSTER, "aks", CLUSTER), (HELM_RELEASE, "op", operator))
    assert run_stack_policy(POLICY, resources).violations == []


def test_operator_not_tolerating_the_safe_taint_is_none_and_says_why() -> None:
    pool = with_(T4_POOL, nodeTaints=[SAFE_TAINT])
    [message] = run_stack_policy(MISSING, stack(pool, (HELM_RELEASE, "op", OPERATOR))).violations
    assert (
        "(the NVIDIA GPU operator's device plugin: it does not tolerate the taint "
        "azure-gpu-platform/gpu=present:NoSchedule)" in message
    )


def test_operator_with_its_device_plugin_disabled_is_none() -> None:
    values = with_(OPERATOR["values"], devicePlugin={"enabled": False})
    outcome = run_stack_policy(MISSING, stack(T4_POOL, (HELM_RELEASE, "op", with_(OPERATOR, values=values))))
    assert len(outcome.violations) == 1
    assert "no NVIDIA device plugin runs" in outcome.violations[0]


def test_chart_with_our_affinity_and_tolerations_passes() -> None:
    assert run_stack_policy(POLICY, stack(T4_POOL, (HELM_RELEASE, "dp", CHART))).violations == []


def test_chart_with_its_default_affinity_and_no_gfd_is_none() -> None:
    values = with_(CHART["values"], affinity=None)
    [message] = run_stack_policy(MISSING, stack(T4_POOL, (HELM_RELEASE, "dp", with_(CHART, values=values)))).violations
    assert "no NVIDIA device plugin runs" in message
    assert "the nvidia-device-plugin chart: its node affinity needs the label nvidia.com/gpu.present in true" in message


def test_chart_with_its_default_affinity_and_gfd_passes() -> None:
    values = with_(CHART["values"], affinity=None, gfd={"enabled": True})
    assert run_stack_policy(POLICY, stack(T4_POOL, (HELM_RELEASE, "dp", with_(CHART, values=values)))).violations == []


def test_chart_default_tolerations_miss_an_equal_taint_of_another_key() -> None:
    pool = with_(T4_POOL, nodeTaints=["sku=gpu:NoSchedule"])
    values = with_(CHART["values"], tolerations=None)
    [message] = run_stack_policy(MISSING, stack(pool, (HELM_RELEASE, "dp", with_(CHART, values=values)))).violations
    assert "it does not tolerate the taint sku=gpu:NoSchedule" in message


def test_operator_and_chart_together_are_two() -> None:
    resources = stack(T4_POOL, (HELM_RELEASE, "op", OPERATOR), (HELM_RELEASE, "dp", CHART))
    [message] = run_stack_policy(POLICY, resources).violations
    assert "2 NVIDIA device plugins land" in message
    assert "Run one device plugin per node" in message


def test_raw_daemonset_tolerating_the_taint_passes() -> None:
    assert run_stack_policy(POLICY, stack(T4_POOL, (DAEMONSET, "nvdp", RAW_DAEMONSET))).violations == []


def test_raw_daemonset_of_another_image_does_not_count() -> None:
    other = with_(RAW_DAEMONSET)
    other["spec"]["template"]["spec"]["containers"][0]["image"] = "mcr.microsoft.com/oss/kube-proxy:v1.31"
    assert len(run_stack_policy(MISSING, stack(T4_POOL, (DAEMONSET, "other", other))).violations) == 1


def test_spot_pool_needs_the_spot_taint_tolerated() -> None:
    pool = with_(T4_POOL, scaleSetPriority="Spot")
    [message] = run_stack_policy(MISSING, stack(pool, (DAEMONSET, "nvdp", RAW_DAEMONSET))).violations
    assert "it does not tolerate the taint kubernetes.azure.com/scalesetpriority=spot:NoSchedule" in message


def test_mig_pool_with_chart_mig_strategy_none_is_flagged() -> None:
    pool = with_(T4_POOL, vmSize="Standard_NC24ads_A100_v4", gpuInstanceProfile="MIG3g")
    values = with_(CHART["values"], migStrategy="none")
    [message] = run_stack_policy(POLICY, stack(pool, (HELM_RELEASE, "dp", with_(CHART, values=values)))).violations
    assert message == (
        "gpupool: node pool 't4' (Standard_NC24ads_A100_v4): the GPUs are partitioned into MIG 3g.40gb instances, "
        "but the nvidia-device-plugin chart runs with migStrategy none, which advertises no MIG device: pods get no "
        "usable GPU. Allowed: migStrategy single or mixed."
    )


def test_windows_pool_passes_without_a_release() -> None:
    pool = with_(T4_POOL, osType="Windows", osSKU="Windows2022", agentPoolName="win")
    assert run_stack_policy(POLICY, stack(pool)).violations == []


def test_outside_stack_silences_none_only() -> None:
    config = {"devicePluginOutsideStack": True}
    assert len(run_stack_policy(MISSING, stack()).violations) == 1
    assert run_stack_policy(MISSING, stack(), config).violations == []
    two = stack(T4_POOL, (MANAGED_CLUSTER, "aks", CLUSTER), (HELM_RELEASE, "op", OPERATOR))
    assert len(run_stack_policy(POLICY, two).violations) == 1


def test_gpu_nodepool_reads_its_template() -> None:
    nodepool = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "infer"},
        "spec": {
            "template": {
                "metadata": {"labels": {"azure-gpu-platform/pool": "infer"}},
                "spec": {
                    "requirements": [
                        {"key": "karpenter.azure.com/sku-name", "operator": "In", "values": ["Standard_NC4as_T4_v3"]}
                    ],
                    "taints": [{"key": "azure-gpu-platform/gpu", "value": "present", "effect": "NoSchedule"}],
                },
            },
            "limits": {"nvidia.com/gpu": "4"},
        },
    }
    resources = [(MANAGED_CLUSTER, "aks", CLUSTER), (NODE_POOL, "np", nodepool), (HELM_RELEASE, "op", OPERATOR)]
    [message] = run_stack_policy(MISSING, resources).violations
    assert message.startswith("np: spec.template: NodePool 'infer': no NVIDIA device plugin runs")
    assert "the KAITO add-on's device plugin: it does not tolerate the taint azure-gpu-platform/gpu" in message


def test_several_clusters_are_not_told_apart() -> None:
    other = with_(T4_POOL, resourceName="aks-other", agentPoolName="t4b")
    resources = stack(T4_POOL, (AGENT_POOL, "other", other), (HELM_RELEASE, "op", OPERATOR))
    assert run_stack_policy(POLICY, resources).not_applicable == []
    outcome = run_stack_policy(MISSING, resources)
    assert outcome.violations == []
    [note] = outcome.not_applicable
    assert "this stack has 2 AKS clusters" in note
    assert note.endswith("so whether a device plugin lands on these GPU nodes was not checked")
    assert "gpu-operator Helm release 'op'" in note


def test_several_clusters_still_report_what_holds_for_any_of_them() -> None:
    other = with_(T4_POOL, resourceName="aks-other", agentPoolName="t4b")
    outcome = run_stack_policy(MISSING, stack(T4_POOL, (AGENT_POOL, "other", other)))
    assert len(outcome.violations) == 2  # no release at all: none on either cluster


def test_unknown_values_are_reported_not_passed() -> None:
    pool = with_(T4_POOL, nodeTaints=UNKNOWN)
    outcome = run_stack_policy(POLICY, stack(pool, (HELM_RELEASE, "op", OPERATOR)))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert "gpupool: nodeTaints can't be known during preview" in outcome.preview_unknown
    values = with_(OPERATOR["values"], daemonsets={"tolerations": UNKNOWN})
    outcome = run_stack_policy(POLICY, stack(T4_POOL, (HELM_RELEASE, "op", with_(OPERATOR, values=values))))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert "op: values.daemonsets.tolerations" in outcome.preview_unknown


def test_amd_pool_needs_no_nvidia_device_plugin() -> None:
    pool = with_(T4_POOL, vmSize="Standard_ND96isr_MI300X_v5")
    assert run_stack_policy(POLICY, stack(pool)).violations == []
