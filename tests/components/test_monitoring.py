"""GPU monitoring in the platform: stack config → GpuMonitoring → resources as the engine sees them → contract;
refusals name the key and the allowed values; the new inputs conform to the upstream facts."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import check_resource, failures
from stack_config import StackConfigError
from tests.components.harness import HELM_RELEASE, MANAGED_CLUSTER, merged, run_main, run_stack

WORKSPACE = "azure-native:monitor:AzureMonitorWorkspace"
DCE = "azure-native:monitor:DataCollectionEndpoint"
DCR = "azure-native:monitor:DataCollectionRule"
DCRA = "azure-native:monitor:DataCollectionRuleAssociation"
ACTION_GROUP = "azure-native:monitor:ActionGroup"
RULE_GROUP = "azure-native:alertsmanagement:PrometheusRuleGroup"
SERVICE_MONITOR = "kubernetes:azmonitoring.coreos.com/v1:ServiceMonitor"
GROUP_ID = (
    "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-ops/providers/microsoft.insights/"
    "actionGroups/gpu-oncall"
)
WS_ID = (
    "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-ops/providers/Microsoft.Monitor/accounts/amw"
)
CLUSTER_ID = "/mock/azure-native:containerservice:ManagedCluster/aks-cluster"
NO_OPERATOR: dict[str, Any] = {
    "environment": "dev",
    "location": "westeurope",
    "gpuPools": [
        {"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "minCount": 0, "maxCount": 3},
        {"name": "spot", "vmSize": "Standard_NC4as_T4_v3", "count": 1, "spot": True, "taints": ["sku=gpu:NoSchedule"]},
    ],
}


@pytest.fixture(scope="module")
def prod() -> Any:
    run = run_stack("prod")
    assert run.error is None, run.error
    return run


def test_prod_registers_the_managed_prometheus_chain(prod: Any) -> None:
    cluster = prod.one(MANAGED_CLUSTER).inputs
    assert cluster["azureMonitorProfile"] == {
        "metrics": {"enabled": True, "kubeStateMetrics": {"metricLabelsAllowlist": "nodes=[azure-gpu-platform/pool]"}}
    }
    assert prod.one(WORKSPACE).inputs["azureMonitorWorkspaceName"] == "amw-aks-gpu-prod"
    dce = prod.one(DCE).inputs
    assert (dce["dataCollectionEndpointName"], dce["kind"], dce["location"]) == (
        "MSProm-westeurope-aks-gpu-prod",
        "Linux",
        "westeurope",
    )
    dcr = prod.by_name("monitoring-dcr", DCR).inputs
    assert dcr["dataSources"] == {
        "prometheusForwarder": [
            {"name": "PrometheusDataSource", "streams": ["Microsoft-PrometheusMetrics"], "labelIncludeFilter": {}}
        ]
    }
    assert dcr["dataFlows"] == [{"streams": ["Microsoft-PrometheusMetrics"], "destinations": ["MonitoringAccount1"]}]
    account = dcr["destinations"]["monitoringAccounts"][0]
    assert account["name"] == "MonitoringAccount1" and account["accountResourceId"].endswith("/monitoring-workspace")
    dcra = prod.by_name("monitoring-dcra", DCRA).inputs
    assert dcra["resourceUri"] == CLUSTER_ID
    assert dcra["dataCollectionRuleId"] == "/mock/azure-native:monitor:DataCollectionRule/monitoring-dcr"
    assert dcra["associationName"] == "MSProm-westeurope-aks-gpu-prod"


def test_prod_alerts_go_to_the_stack_action_group(prod: Any) -> None:
    group = prod.one(ACTION_GROUP).inputs
    assert group["emailReceivers"] == [
        {"name": "gpu-alerts", "emailAddress": "gpu-oncall@example.com", "useCommonAlertSchema": True}
    ]
    assert group["groupShortName"] == "gpuaksgpupro" and group["location"] == "Global"
    rules = prod.one(RULE_GROUP).inputs
    assert rules["clusterName"] == "aks-gpu-prod" and rules["interval"] == "PT1M"
    assert rules["scopes"] == ["/mock/azure-native:monitor:AzureMonitorWorkspace/monitoring-workspace", CLUSTER_ID]
    by_alert = {r["alert"]: r for r in rules["rules"]}
    assert by_alert["GpuIdleUnallocated"]["expression"] == (
        'max by (hostname, UUID) (DCGM_FI_DEV_GPU_UTIL{GPU_I_PROFILE="", exported_pod=""} unless on (hostname, UUID) '
        'DCGM_FI_PROF_GR_ENGINE_ACTIVE{GPU_I_PROFILE!=""}) < 5'
    )
    assert by_alert["GpuIdleUnallocated"]["for"] == by_alert["MigInstanceIdleUnallocated"]["for"] == "PT60M"
    assert "DCGM_FI_DEV_GPU_UTIL" not in by_alert["MigInstanceIdleWhileAllocated"]["expression"]
    assert by_alert["GpuMemoryNearFull"]["for"] == "PT10M" and by_alert["GpuMemoryNearFull"]["severity"] == 2.0
    assert "for" not in by_alert["GpuXidError"]
    assert {r["actions"][0]["actionGroupId"] for r in rules["rules"]} == {
        "/mock/azure-native:monitor:ActionGroup/monitoring-action-group"
    }
    assert sorted(a for a in by_alert if a.startswith("GpuPoolAtMax_")) == [
        "GpuPoolAtMax_a100mig",
        "GpuPoolAtMax_h100",
        "GpuPoolAtMax_t4",
    ]


def test_prod_scrapes_the_operator_exporter_and_exports_the_contract(prod: Any) -> None:
    monitor = prod.one(SERVICE_MONITOR).inputs
    assert monitor["metadata"] == {"name": "nvidia-dcgm-exporter-gpu-metrics", "namespace": "gpu-operator"}
    assert monitor["spec"]["selector"] == {"matchLabels": {"app": "nvidia-dcgm-exporter"}}
    assert monitor["spec"]["endpoints"] == [{"port": "gpu-metrics", "interval": "30s", "honorLabels": False}]
    assert monitor["spec"]["labelLimit"] == 63.0
    charts = [r.inputs["chart"] for r in prod.of_type(HELM_RELEASE)]
    assert "dcgm-exporter" not in charts  # the operator's own exporter serves every pool
    assert prod.outputs["monitoringWorkspaceId"].endswith("/monitoring-workspace")
    assert prod.outputs["alertActionGroupId"].endswith("/monitoring-action-group")


def test_prod_monitoring_inputs_conform(prod: Any) -> None:
    for type_ in (MANAGED_CLUSTER, WORKSPACE, DCE, DCR, DCRA, ACTION_GROUP, RULE_GROUP, SERVICE_MONITOR):
        for r in prod.of_type(type_):
            found = failures(check_resource(r.type, r.inputs, name=r.name))
            assert found == [], [str(f) for f in found]


def test_without_the_operator_the_chart_serves_every_pool_and_existing_ids_are_used() -> None:
    monitoring = {"enabled": True, "workspaceId": WS_ID, "actionGroup": {"existingId": GROUP_ID}}
    run = run_main(merged(NO_OPERATOR, monitoring=monitoring))
    assert run.error is None, run.error
    assert run.of_type(WORKSPACE) == [] and run.of_type(ACTION_GROUP) == []
    release = next(r for r in run.of_type(HELM_RELEASE) if r.inputs["chart"] == "dcgm-exporter")
    assert release.inputs["version"] == "4.8.2"
    assert release.inputs["repositoryOpts"] == {"repo": "https://nvidia.github.io/dcgm-exporter/helm-charts"}
    values = release.inputs["values"]
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [
        {"matchExpressions": [{"key": "azure-gpu-platform/pool", "operator": "In", "values": ["t4", "spot"]}]}
    ]
    assert values["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "effect": "NoSchedule", "value": "present"},
        {"key": "sku", "operator": "Equal", "effect": "NoSchedule", "value": "gpu"},
        {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "effect": "NoSchedule", "value": "spot"},
    ]
    assert values["serviceMonitor"] == {"enabled": False}
    monitor = run.one(SERVICE_MONITOR).inputs
    assert monitor["metadata"]["namespace"] == "dcgm-exporter"
    assert monitor["spec"]["selector"] == {"matchLabels": {"app.kubernetes.io/name": "dcgm-exporter"}}
    assert run.one(DCR).inputs["destinations"]["monitoringAccounts"][0]["accountResourceId"] == WS_ID
    rules = run.one(RULE_GROUP).inputs
    assert rules["scopes"][0] == WS_ID
    assert {r["actions"][0]["actionGroupId"] for r in rules["rules"]} == {GROUP_ID}
    assert [r["alert"] for r in rules["rules"] if r["alert"].startswith("GpuPoolAtMax")] == ["GpuPoolAtMax_t4"]
    assert run.outputs["alertActionGroupId"] == GROUP_ID and run.outputs["monitoringWorkspaceId"] == WS_ID
    assert [str(f) for f in check_resource(release.type, release.inputs, name=release.name)] == []  # covered, clean


def test_bad_monitoring_input_is_refused_with_keys_and_allowed_values() -> None:
    monitoring = {
        "enabled": True,
        "workspaceLocation": "swedencentral",
        "alerts": {"idleUtilisationPercent": 101, "memoryPercent": -5},
        "actionGroup": {"existingId": "/subscriptions/x/resourceGroups/rg/providers/microsoft.insights/actionGroups/a"},
    }
    run = run_main(merged(NO_OPERATOR, monitoring=monitoring))
    assert isinstance(run.error, StackConfigError), run.error
    text = str(run.error)
    assert "monitoring.alerts.idleUtilisationPercent: 101 is not a percentage. Allowed: 0 to 100." in text
    assert "monitoring.alerts.memoryPercent: -5 is not a percentage. Allowed: 0 to 100." in text
    assert "monitoring.actionGroup.existingId: '/subscriptions/x/" in text
    assert "Allowed: /subscriptions/<subscription GUID>/resourceGroups/<group>/providers/microsoft.insights/" in text
    assert "swedencentral" not in text  # an unrecorded region is no evidence: a warning, never a refusal
    assert "(3 problems;" in text
    assert [r for r in run.records if r.custom] == []  # nothing registered


def test_an_action_group_receiver_is_required() -> None:
    run = run_main(merged(NO_OPERATOR, monitoring={"enabled": True}))
    assert isinstance(run.error, StackConfigError)
    expected = "monitoring: actionGroup is required with enabled: true: GPU alerts need exactly one receiver. Allowed"
    assert expected in str(run.error)


def test_monitoring_off_registers_nothing_new() -> None:
    run = run_main(merged(NO_OPERATOR))
    assert run.error is None, run.error
    assert run.of_type(RULE_GROUP) == [] and run.of_type(SERVICE_MONITOR) == []
    assert "azureMonitorProfile" not in run.one(MANAGED_CLUSTER).inputs
    assert run.outputs["monitoringWorkspaceId"] is None


def test_the_component_args_refuse_what_the_stack_config_refuses() -> None:
    from components.monitoring import GpuMonitoringArgs
    from components.validation import InvalidArgsError
    from rules.monitoring import Thresholds

    with pytest.raises(InvalidArgsError) as raised:
        GpuMonitoringArgs(
            cluster_name="aks",
            cluster_location="westeurope",
            resource_group_name="rg",
            workspace_location="swedencentral",
            thresholds=Thresholds(idle_percent=150),
        )
    lines = str(raised.value).splitlines()
    assert lines == [
        "GpuMonitoring 'aks': invalid arguments (2 problems; nothing was registered):",
        "  idle_percent: 150 is not a percentage. Allowed: 0 to 100.",
        "  email: GPU alerts need exactly one receiver: email or action_group_id.",
    ]


def test_an_unrecorded_workspace_region_deploys_with_an_unverified_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    import pulumi

    warned: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda msg, *a, **k: warned.append(msg))
    monitoring = {"enabled": True, "workspaceLocation": "swedencentral", "actionGroup": {"existingId": GROUP_ID}}
    run = run_main(merged(NO_OPERATOR, monitoring=monitoring))
    assert run.error is None, run.error
    assert run.one(DCR).inputs["location"] == "swedencentral"
    mine = [w for w in warned if "swedencentral" in w]
    assert len(mine) == 1 and mine[0].startswith(
        "GpuMonitoring 'aks-gpu-dev': workspace_location: 'swedencentral' is unverified for Azure Monitor workspaces"
    )
    assert "no evidence against other regions" in mine[0]


def test_prod_says_plainly_that_kaito_nodes_are_not_monitored() -> None:
    from components.monitoring import advisory_findings
    from composition.monitoring_wiring import gpu_monitoring_args
    from stack_config import config_from_stack_yaml, validate_stack_config
    from tests.components.harness import stack_config

    cfg = validate_stack_config(config_from_stack_yaml(stack_config("prod")), stack_file="Pulumi.prod.yaml")
    args = gpu_monitoring_args(cfg, {})
    assert list(args.unmonitored_kaito_workspaces) == ["phi-4", "mistral-7b"]
    found = advisory_findings(args)
    assert [f.field for f in found] == ["kaito.workspaces"]
    assert found[0].message.startswith(
        "the GPU nodes of the KAITO workspaces phi-4, mistral-7b are not monitored: their taint sku=gpu:NoSchedule "
        "keeps the GPU operator's DCGM exporter off (it tolerates only nvidia.com/gpu)"
    )
