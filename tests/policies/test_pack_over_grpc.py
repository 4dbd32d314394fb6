"""End to end: the real pack in policies/ started as the engine starts it and driven over the analyzer gRPC protocol.

The pack is started ONCE for this module (``python -u -m pulumi.policy <engine> <abs policies/>``, cwd policies/) and
every test sends its resources through that one process: GetAnalyzerInfo, Configure with policy config, Remediate +
Analyze per resource, AnalyzeStack. Properties are exactly what the engine sends: camelCase inputs, numbers as
doubles, unknown preview values as the engine's sentinel string.
"""

from __future__ import annotations

from typing import Any

import pytest

from preflight.analyzer.client import PolicyPackProcess
from preflight.analyzer.protocol import Analysis, PolicyConfigError, Violation
from preflight.model import RecordedResource
from preflight.wire import UNKNOWN
from tests.policies.acceptance import ACCEPTED, REJECTED

pytestmark = pytest.mark.slow

PREFIX = "urn:pulumi:dev::azure-gpu-platform::"
POOL = "azure-native:containerservice:AgentPool"
CLUSTER = "azure-native:containerservice:ManagedCluster"
DBX = "databricks:index/cluster:Cluster"
HELM = "kubernetes:helm.sh/v3:Release"
KAITO = "kubernetes:kaito.sh/v1beta1:Workspace"

# The rule that must be among each rejected size's mandatory violations.
EXPECTED_RULE = {
    "Standard_NV16as_v4": "gpu-size-no-nvv4",
    "standard_nv32as_v4": "gpu-size-no-nvv4",
    "Standard_NC6": "gpu-size-not-retired",
    "Standard_NC6s_v2": "gpu-size-minimum",
    "Standard_ND6s": "gpu-size-minimum",
    "Standard_NV12s_v3": "gpu-size-minimum",
    "Standard_NV6ads_A10_v5": "gpu-size-minimum",
    "Standard_NC6s_v3": "gpu-size-not-retired",
    "Standard_NC99zz_v9": "gpu-size-known",
}


def agent_pool(name: str, vm_size: Any, **overrides: Any) -> RecordedResource:
    """A compliant Linux GPU pool as the engine sees it (camelCase inputs, numbers as floats), with one change."""
    inputs: dict[str, Any] = {
        "resourceGroupName": "rg-gpu",
        "resourceName": "aks-gpu",
        "agentPoolName": name[:12],
        "vmSize": vm_size,
        "count": 1.0,
        "mode": "User",
        "osType": "Linux",
        "osSKU": "Ubuntu",
        "gpuProfile": {"driver": "Install"},
        "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"],
        "securityProfile": {"sshAccess": "Disabled"},  # Microsoft's built-in 'should disable SSH' (advisory)
    }
    inputs.update(overrides)
    return RecordedResource(urn=f"{PREFIX}{POOL}::{name}", type=POOL, name=name, inputs=inputs)


def of(analysis: Analysis, r: RecordedResource, level: str | None = None) -> list[Violation]:
    return [v for v in analysis.violations if v.urn == r.urn and (level is None or v.enforcement_level == level)]


@pytest.fixture(scope="module")
def pack(preview_pack: PolicyPackProcess) -> PolicyPackProcess:
    """The session's pack (``tests/policies/conftest.py``), with the default policy config."""
    preview_pack.configure(None)
    return preview_pack


@pytest.fixture
def default_config(pack: PolicyPackProcess) -> PolicyPackProcess:
    pack.configure(None)
    return pack


def test_get_analyzer_info_lists_every_policy_of_the_pack(pack: PolicyPackProcess) -> None:
    from policies.pack import ALL_POLICIES, PACK_NAME

    info = pack.analyzer_info()
    assert info.name == PACK_NAME == "azure-gpu-guardrails"
    assert info.supports_config
    assert [p.name for p in info.policies] == sorted(p.name for p in ALL_POLICIES)
    levels = {p.name: p.enforcement_level for p in info.policies}
    for rule in ("gpu-size-no-nvv4", "gpu-size-minimum", "gpu-size-not-retired", "gpu-size-known"):
        assert levels[rule] == "mandatory", rule
    minimum = info.policy("gpu-size-minimum")
    assert minimum.config_schema["minimumSize"]["default"] == "Standard_NC6s_v3"
    assert "Standard_NC24ads_A100_v4" in minimum.config_schema["minimumSize"]["enum"]
    assert {p.policy_type for p in info.policies} == {"resource", "stack"}


def test_configure_sends_a_level_and_the_schema_defaults_for_every_policy(pack: PolicyPackProcess) -> None:
    config = pack.configure(None)
    info = pack.analyzer_info()
    assert set(config) == {p.name for p in info.policies}
    assert all(
        c["enforcementLevel"] == p.enforcement_level for p, c in zip(info.policies, config.values(), strict=True)
    )
    assert config["gpu-size-minimum"] == {"enforcementLevel": "mandatory", "minimumSize": "Standard_NC6s_v3"}


def test_each_rejected_size_gets_a_mandatory_violation_and_accepted_sizes_get_none(
    default_config: PolicyPackProcess,
) -> None:
    pools = {size: agent_pool(f"pool{i}", size) for i, size in enumerate(REJECTED + ACCEPTED)}
    result = default_config.analyze_many(pools.values())
    for size in REJECTED:
        mandatory = of(result, pools[size], "mandatory")
        assert mandatory, f"{size}: no mandatory violation"
        assert EXPECTED_RULE[size] in {v.policy_name for v in mandatory}, (size, mandatory)
        assert all(v.policy_pack_name == "azure-gpu-guardrails" for v in mandatory)
    for size in ACCEPTED:
        assert of(result, pools[size]) == [], size


def test_rejection_messages_name_the_fix(default_config: PolicyPackProcess) -> None:
    nvv4, k80, unknown = (agent_pool("a", "Standard_NV16as_v4"), agent_pool("b", "Standard_NC6"),
                          agent_pool("c", "Standard_NC99zz_v9"))  # fmt: skip
    result = default_config.analyze_many([nvv4, k80, unknown])
    by_rule = {(v.urn, v.policy_name): v.message for v in result.violations}
    assert "AKS does not support the NVv4 series" in by_rule[(nvv4.urn, "gpu-size-no-nvv4")]
    assert "migration target: Standard_NC4as_T4_v3" in by_rule[(k80.urn, "gpu-size-not-retired")]
    assert "Closest known sizes: Standard_NC6s_v3" in by_rule[(unknown.urn, "gpu-size-known")]


def test_a_raised_floor_from_policy_config_rejects_t4(pack: PolicyPackProcess) -> None:
    t4, a100 = agent_pool("t4", "Standard_NC4as_T4_v3"), agent_pool("a100", "Standard_NC24ads_A100_v4")
    try:
        config = pack.configure({"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}})
        assert config["gpu-size-minimum"] == {
            "enforcementLevel": "mandatory",
            "minimumSize": "Standard_NC24ads_A100_v4",
        }
        result = pack.analyze_many([t4, a100])
        [v] = of(result, t4)
        assert (v.policy_name, v.enforcement_level) == ("gpu-size-minimum", "mandatory")
        assert "below the GPU floor Standard_NC24ads_A100_v4" in v.message
        assert of(result, a100) == []
    finally:
        pack.configure(None)


def test_levels_from_policy_config_reach_the_pack(pack: PolicyPackProcess) -> None:
    k80 = agent_pool("k80", "Standard_NC6")
    try:
        pack.configure({"all": "advisory", "gpu-size-not-retired": "mandatory"})
        result = pack.analyze(k80)
        assert {(v.policy_name, v.enforcement_level) for v in result.violations} == {
            ("gpu-size-minimum", "advisory"),
            ("gpu-size-not-retired", "mandatory"),
        }
        pack.configure({"gpu-size-minimum": "disabled", "gpu-size-not-retired": {"enforcementLevel": "disabled"}})
        assert pack.analyze(k80).violations == []
    finally:
        pack.configure(None)


def test_invalid_policy_config_is_rejected_before_it_reaches_the_pack(pack: PolicyPackProcess) -> None:
    pack.configure(None)
    with pytest.raises(PolicyConfigError) as err:
        pack.configure({"gpu-size-minimum": {"minimumSize": "Standard_NC6s_v9"}, "gpu-size-minimun": "advisory"})
    first, second = err.value.errors
    assert first == (
        "gpu-size-minimun: no such policy in policy pack 'azure-gpu-guardrails'; did you mean 'gpu-size-minimum'?"
    )
    # 66 catalog sizes: the closest ones, not all of them.
    assert second == (
        "gpu-size-minimum.minimumSize: 'Standard_NC6s_v9' is not one of the 112 allowed values; closest: "
        "Standard_NC6s_v3, Standard_NC6s_v2, Standard_NC6."
    )
    # nothing was sent: the default floor still applies
    assert pack.config is not None and pack.config["gpu-size-minimum"]["minimumSize"] == "Standard_NC6s_v3"


def test_unknown_vm_size_in_a_preview_is_reported_not_passed(default_config: PolicyPackProcess) -> None:
    unknown = agent_pool("later", UNKNOWN)
    result = default_config.analyze(unknown)
    reported = of(result, unknown)
    assert reported, "an unknown vmSize passed silently"
    assert {v.enforcement_level for v in reported} == {"advisory"}
    assert "gpu-size-minimum" in {v.policy_name for v in reported}
    assert all("vmSize can't be known during preview" in v.message for v in reported)
    # the pack survived: the next resource is still checked
    assert of(default_config.analyze(agent_pool("next", "Standard_NC6")), agent_pool("next", "x"), "mandatory")


def test_sizes_inside_managed_cluster_agent_pool_profiles(default_config: PolicyPackProcess) -> None:
    def cluster(name: str, *sizes: str) -> RecordedResource:
        no_ssh = {"sshAccess": "Disabled"}
        profiles = [
            {
                "name": "system",
                "vmSize": "Standard_D4s_v5",
                "count": 1.0,
                "mode": "System",
                "osType": "Linux",
                "securityProfile": no_ssh,
            }
        ]
        profiles += [
            {"name": f"gpu{i}", "vmSize": s, "count": 1.0, "mode": "User", "osType": "Linux",
             "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"], "securityProfile": no_ssh}
            for i, s in enumerate(sizes)
        ]  # fmt: skip
        inputs = {
            "resourceGroupName": "rg-gpu",
            "kubernetesVersion": "1.36",
            "agentPoolProfiles": profiles,
            # Microsoft's built-in AKS definitions the pack also judges (advisory): Run Command off, Image Cleaner on
            "apiServerAccessProfile": {"authorizedIPRanges": ["203.0.113.0/24"], "disableRunCommand": True},
            "securityProfile": {"imageCleaner": {"enabled": True, "intervalHours": 168.0}},
        }
        return RecordedResource(urn=f"{PREFIX}{CLUSTER}::{name}", type=CLUSTER, name=name, inputs=inputs)

    bad = cluster("bad", "Standard_NC24ads_A100_v4", "Standard_NV32as_v4")
    mixed = cluster("mixed", "Standard_NC6s_v2", UNKNOWN)
    good = cluster("good", "Standard_NC24ads_A100_v4", "Standard_NC4as_T4_v3")
    result = default_config.analyze_many([bad, mixed, good])

    [nvv4] = [v for v in of(result, bad, "mandatory") if v.policy_name == "gpu-size-no-nvv4"]
    assert "agentPoolProfiles[2].vmSize: Standard_NV32as_v4" in nvv4.message
    # a known bad size next to an unknown one is still rejected, and the unknown one is reported
    assert "gpu-size-minimum" in {v.policy_name for v in of(result, mixed, "mandatory")}
    assert any("agentPoolProfiles[2].vmSize can't be known" in v.message for v in of(result, mixed, "advisory"))
    assert of(result, good) == []


def test_databricks_gpu_clusters(default_config: PolicyPackProcess) -> None:
    def dbx(name: str, **overrides: Any) -> RecordedResource:
        inputs: dict[str, Any] = {
            "clusterName": name,
            "sparkVersion": "17.3.x-gpu-ml-scala2.13",
            "nodeTypeId": "Standard_NV36ads_A10_v5",
            "runtimeEngine": "STANDARD",
            "dataSecurityMode": "SINGLE_USER",
            "singleUserName": "ml-team@contoso.com",
            "numWorkers": 2.0,
            "sparkConf": {"spark.task.resource.gpu.amount": "1"},
        }
        inputs.update(overrides)
        return RecordedResource(urn=f"{PREFIX}{DBX}::{name}", type=DBX, name=name, inputs=inputs)

    good = dbx("good")
    photon = dbx("photon", runtimeEngine="PHOTON")
    retired = dbx("retired", nodeTypeId="Standard_NC6s_v3", driverNodeTypeId="Standard_NC6s_v2")
    result = default_config.analyze_many([good, photon, retired])
    assert of(result, good) == []
    assert [v.policy_name for v in of(result, photon, "mandatory")] == ["databricks-gpu-no-photon"]
    retired_rules = {v.policy_name for v in of(result, retired, "mandatory")}
    assert {"gpu-size-not-retired", "gpu-size-minimum"} <= retired_rules
    assert any(v.message.startswith(f"{v.description}\ndriverNodeTypeId: Standard_NC6s_v2") for v in result.violations)


def test_kaito_workspace_instance_types(default_config: PolicyPackProcess) -> None:
    def workspace(name: str, instance_type: str, preset: str) -> RecordedResource:
        inputs = {
            "apiVersion": "kaito.sh/v1beta1",
            "kind": "Workspace",
            "metadata": {"name": name, "namespace": "default"},
            "resource": {"instanceType": instance_type, "count": 1.0, "labelSelector": {"matchLabels": {"app": name}}},
            "inference": {"preset": {"name": preset}},
        }
        return RecordedResource(urn=f"{PREFIX}{KAITO}::{name}", type=KAITO, name=name, inputs=inputs)

    fits = workspace("fits", "Standard_NC24ads_A100_v4", "phi-4-mini-instruct")
    too_small = workspace("small", "Standard_NC4as_T4_v3", "phi-4")  # 16 GiB T4 < 40 GiB phi-4 needs
    amd = workspace("amd", "Standard_NV32as_v4", "phi-4-mini-instruct")
    result = default_config.analyze_many([fits, too_small, amd])
    assert of(result, fits) == []
    assert [v.policy_name for v in of(result, too_small, "mandatory")] == ["kaito-workspace-instance-type"]
    assert "gpu-size-no-nvv4" in {v.policy_name for v in of(result, amd, "mandatory")}


def test_analyze_stack_checks_the_gpu_operator_against_the_pools(default_config: PolicyPackProcess) -> None:
    operator = RecordedResource(
        urn=f"{PREFIX}{HELM}::gpu-operator",
        type=HELM,
        name="gpu-operator",
        inputs={
            "chart": "gpu-operator",
            "version": "v26.7.0",
            "namespace": "gpu-operator",
            "values": {"driver": {"enabled": True}},
        },
    )
    # AKS installs the driver AND the operator installs one: a conflict the stack policy must catch.
    installs = agent_pool("installs", "Standard_NC24ads_A100_v4", gpuProfile={"driver": "Install"})
    skipped = agent_pool("skipped", "Standard_NC24ads_A100_v4", gpuProfile={"driver": "None"},
                         enableAutoScaling=True, minCount=0.0, maxCount=3.0)  # fmt: skip
    for p in (installs, skipped):
        p.dependencies = [operator.urn]
    result = default_config.analyze_stack([operator, installs, skipped])
    by_rule = {v.policy_name: v for v in result.violations}
    assert by_rule["gpu-operator-driver-mode"].enforcement_level == "mandatory"
    assert by_rule["gpu-operator-driver-mode"].urn == installs.urn
    assert by_rule["gpu-operator-autoscale-min-count"].urn == skipped.urn
    assert "minCount" in by_rule["gpu-operator-autoscale-min-count"].message

    clean = agent_pool("clean", "Standard_NC24ads_A100_v4", gpuProfile={"driver": "None"})
    assert default_config.analyze_stack([operator, clean]).violations == []


def test_one_process_serves_many_resources(default_config: PolicyPackProcess) -> None:
    pid = default_config.pid
    sizes = REJECTED + ACCEPTED
    pools = [agent_pool(f"bulk{i}", sizes[i % len(sizes)]) for i in range(300)]
    result = default_config.analyze_many(pools)
    flagged = {v.urn for v in result.violations if v.enforcement_level == "mandatory"}
    assert flagged == {p.urn for p in pools if p.inputs["vmSize"] in REJECTED}
    assert default_config.pid == pid


def test_analyze_stack_reports_two_device_plugins_on_a_kaito_cluster(default_config: PolicyPackProcess) -> None:
    cluster = RecordedResource(
        urn=f"{PREFIX}{CLUSTER}::aks",
        type=CLUSTER,
        name="aks",
        inputs={
            "resourceGroupName": "rg-gpu",
            "resourceName": "aks-gpu",
            "kubernetesVersion": "1.34",
            "agentPoolProfiles": [
                {"name": "system", "vmSize": "Standard_D4s_v5", "count": 1.0, "mode": "System", "osType": "Linux"}
            ],
            "aiToolchainOperatorProfile": {"enabled": True},
            "oidcIssuerProfile": {"enabled": True},
        },
    )
    operator = RecordedResource(
        urn=f"{PREFIX}{HELM}::gpu-operator",
        type=HELM,
        name="gpu-operator",
        inputs={"chart": "gpu-operator", "namespace": "gpu-operator", "values": {"driver": {"enabled": False}}},
    )
    t4 = agent_pool("t4", "Standard_NC4as_T4_v3")  # tainted nvidia.com/gpu=present:NoSchedule: both tolerate it
    result = default_config.analyze_stack([cluster, operator, t4])
    [two] = [v for v in result.violations if v.policy_name == "gpu-node-device-plugin"]
    assert (two.urn, two.enforcement_level) == (t4.urn, "mandatory")
    assert (
        "2 NVIDIA device plugins land on these GPU nodes (the NVIDIA GPU operator's device plugin and the KAITO "
        "add-on's device plugin)" in two.message
    )

    safe = agent_pool("safe", "Standard_NC4as_T4_v3", nodeTaints=["azure-gpu-platform/gpu=present:NoSchedule"])
    operator.inputs["values"]["daemonsets"] = {
        "tolerations": [{"key": "azure-gpu-platform/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    }
    result = default_config.analyze_stack([cluster, operator, safe])
    assert [v for v in result.violations if v.policy_name == "gpu-node-device-plugin"] == []
