"""rules.monitoring and the DCGM exporter in the node-stack model: pure rules, and every alert's PromQL parsed with a
real PromQL parser (promql-parser) and checked against the metric names both pinned exporters expose."""

from __future__ import annotations

import json
import re
from typing import Any

import promql_parser
import pytest

from gpu_catalog.monitoring import MONITORING_FACTS, MonitoringFactsError, load_monitoring_facts, monitoring_facts_from
from rules.monitoring import (
    ScaledPool,
    Thresholds,
    action_group_id,
    email_address,
    gpu_alert_rules,
    ksm_label,
    percent,
    pool_at_max_alert,
    workspace_id,
    workspace_region,
)
from rules.node_stack import (
    DCGM_CHART,
    DCGM_OPERATOR,
    OPERATOR_DEFAULT_TOLERATION,
    GpuNode,
    describe_exporter,
    metrics_exporter_findings,
    metrics_exporters,
    taint_tolerations,
)

FACTS = load_monitoring_facts()
POOLS = [ScaledPool("t4", max_nodes=4), ScaledPool("h100nap", max_gpus=16), ScaledPool("a100", kind="mig")]
GROUP = (
    "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-ops/providers/microsoft.insights/"
    "actionGroups/gpu-oncall"
)


def selectors(expr: Any) -> list[Any]:
    """Every vector selector in a parsed PromQL expression."""
    found: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            found.append(node)
            return
        for attr in ("lhs", "rhs", "expr", "vector_selector", "param"):
            child = getattr(node, attr, None)
            if child is not None and not isinstance(child, str | int | float):
                walk(child)
        for arg in getattr(node, "args", None) or []:
            walk(arg)

    walk(expr)
    return found


def test_every_alert_expression_parses_and_names_only_exported_metrics() -> None:
    rules = gpu_alert_rules(Thresholds(), POOLS)
    assert [r.alert for r in rules] == [
        "GpuIdleWhileAllocated",
        "GpuIdleUnallocated",
        "MigInstanceIdleWhileAllocated",
        "MigInstanceIdleUnallocated",
        "GpuMemoryNearFull",
        "GpuXidError",
        "GpuRowRemapFailure",
        "GpuPoolAtMax_t4",
        "GpuPoolAtMax_h100nap",
    ]
    allowed = FACTS.common_metrics | {FACTS.node_labels_metric}
    for rule in rules:
        names = {s.name for s in selectors(promql_parser.parse(rule.expression))}
        assert names, rule.alert
        assert names <= allowed, (rule.alert, names - allowed)


def test_the_alert_metrics_are_in_both_exporters_default_lists() -> None:
    used = {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_XID_ERRORS"}
    used |= {"DCGM_FI_PROF_GR_ENGINE_ACTIVE"}
    assert used <= FACTS.chart.exporter.metrics and used <= FACTS.operator.metrics
    assert FACTS.operator.metrics - FACTS.chart.exporter.metrics == {"DCGM_FI_DEV_FB_RESERVED"}
    assert "DCGM_FI_DEV_FB_RESERVED" not in FACTS.common_metrics


def test_a_misspelled_metric_would_fail_the_membership_check() -> None:
    names = {s.name for s in selectors(promql_parser.parse("avg(DCGM_FI_DEV_GPU_UTILS) > 1"))}
    assert names == {"DCGM_FI_DEV_GPU_UTILS"} and not names <= FACTS.common_metrics
    with pytest.raises(ValueError):
        promql_parser.parse("max_over_time(DCGM_FI_DEV_GPU_UTIL[30m) < 5")


def test_thresholds_and_window_reach_the_expressions() -> None:
    rules = {r.alert: r for r in gpu_alert_rules(Thresholds(idle_percent=12.5, idle_minutes=90, memory_percent=90))}
    assert rules["GpuIdleWhileAllocated"].expression == (
        "max by (hostname, UUID, exported_namespace, exported_pod) "
        '(DCGM_FI_DEV_GPU_UTIL{GPU_I_PROFILE="", exported_pod!=""} unless on (hostname, UUID) '
        'DCGM_FI_PROF_GR_ENGINE_ACTIVE{GPU_I_PROFILE!=""}) < 12.5'
    )
    assert rules["MigInstanceIdleUnallocated"].expression == (
        "max by (hostname, UUID, GPU_I_ID, GPU_I_PROFILE) "
        '(100 * DCGM_FI_PROF_GR_ENGINE_ACTIVE{GPU_I_PROFILE!="", exported_pod=""}) < 12.5'
    )
    assert {r.for_minutes for a, r in rules.items() if "Idle" in a} == {90}
    assert rules["GpuMemoryNearFull"].expression.endswith(") > 90")
    assert "GpuPoolAtMax_t4" not in rules


def test_pool_at_max_uses_the_deploy_time_maximum_and_the_pool_label() -> None:
    rules = {r.alert: r for r in gpu_alert_rules(Thresholds(), POOLS)}
    assert ksm_label("azure-gpu-platform/pool") == "label_azure_gpu_platform_pool"
    assert rules["GpuPoolAtMax_t4"].expression == 'count(kube_node_labels{label_azure_gpu_platform_pool="t4"}) >= 4'
    assert rules["GpuPoolAtMax_t4"].for_minutes == 30
    assert rules["GpuPoolAtMax_h100nap"].expression == (
        'count(count by (node, UUID) (label_replace(DCGM_FI_DEV_FB_USED, "node", "$1", "hostname", "(.+)") '
        "* on (node) group_left (label_azure_gpu_platform_pool) max by (node, label_azure_gpu_platform_pool) "
        '(kube_node_labels{label_azure_gpu_platform_pool="h100nap"}))) >= 16'
    )


def test_alert_names_are_metric_names_as_the_rule_group_schema_asks() -> None:
    """definitions/prometheusRuleGroupProperties.json (2023-03-01): 'Must be a valid metric name'; a NodePool's
    DNS-1123 name keeps its letters and digits, its '-' and '.' become '_'."""
    assert pool_at_max_alert("gpu-h100.spot") == "GpuPoolAtMax_gpu_h100_spot"
    pools = (*POOLS, ScaledPool("gpu-h100", max_gpus=8))
    for rule in gpu_alert_rules(Thresholds(), pools):
        assert re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*", rule.alert), rule.alert


@pytest.mark.parametrize(("value", "ok"), [(0, True), (100, True), (5.5, True), (-0.1, False), (100.5, False)])
def test_percent(value: float, ok: bool) -> None:
    found = percent("monitoring.alerts.memoryPercent", value)
    assert (found == []) == ok
    if not ok:
        assert found[0].field == "monitoring.alerts.memoryPercent"
        assert found[0].message == f"{value:g} is not a percentage. Allowed: 0 to 100."


def test_ids_and_addresses() -> None:
    assert action_group_id("x", GROUP) == []
    assert action_group_id("x", GROUP.replace("microsoft.insights", "Microsoft.Insights")) == []
    bad = action_group_id("x", "/subscriptions/abc/resourceGroups/rg/providers/microsoft.insights/actionGroups/a")
    assert bad[0].message.startswith("'/subscriptions/abc/")
    assert "Allowed: /subscriptions/<subscription GUID>/resourceGroups/<group>/providers/microsoft.insights" in (
        bad[0].message
    )
    ws = (
        "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg/providers/Microsoft.Monitor/accounts/amw"
    )
    assert workspace_id("x", ws) == []
    assert workspace_id("x", ws.replace("Microsoft.Monitor/accounts", "Microsoft.OperationalInsights/workspaces"))
    assert email_address("x", "gpu@example.com") == []
    assert email_address("x", "gpu at example.com")[0].message.endswith("Allowed: one address, name@domain.")


def test_workspace_region_is_only_ever_a_warning() -> None:
    """A refusal needs positive evidence; the recorded list is evidence only for the regions it names."""
    assert workspace_region("location", "westeurope") == []
    assert workspace_region("location", "WestEurope") == []
    found = workspace_region("location", "swedencentral")
    assert len(found) == 1 and found[0].message.startswith("'swedencentral' is unverified for Azure Monitor workspaces")
    assert "Allowed" not in found[0].message
    assert "add the region to gpu_catalog/facts/gpu_monitoring.json with its source" in found[0].message


# ------------------------------------------------------------------------------ one DCGM exporter per GPU node

NODE = GpuNode(
    where="gpuPools[0] (t4)",
    os="Linux",
    gpus=1,
    taints=("nvidia.com/gpu=present:NoSchedule",),
    labels={"azure-gpu-platform/pool": "t4"},
)
OWN = taint_tolerations(NODE.taints)


def test_operator_exporter_alone() -> None:
    stack = metrics_exporters(NODE, operator=[OPERATOR_DEFAULT_TOLERATION], chart=None)
    assert describe_exporter(stack) == DCGM_OPERATOR and metrics_exporter_findings(stack) == []


def test_chart_alone_on_its_pools() -> None:
    stack = metrics_exporters(NODE, operator=None, chart=(OWN, {"azure-gpu-platform/pool": ("t4",)}))
    assert describe_exporter(stack) == DCGM_CHART and metrics_exporter_findings(stack) == []


def test_two_exporters_are_refused() -> None:
    stack = metrics_exporters(NODE, operator=[OPERATOR_DEFAULT_TOLERATION], chart=(OWN, {}))
    found = metrics_exporter_findings(stack)
    assert describe_exporter(stack) == "gpu-operator-dcgm-exporter + dcgm-exporter: two exporters"
    assert len(found) == 1 and found[0].message.startswith(
        "gpuPools[0] (t4): 2 DCGM exporters land on these GPU nodes (the GPU operator's DCGM exporter and the "
        "dcgm-exporter chart)"
    )


def test_no_exporter_is_refused_with_the_reason() -> None:
    stack = metrics_exporters(NODE, operator=None, chart=((), {"azure-gpu-platform/pool": ("t4",)}))
    found = metrics_exporter_findings(stack)
    assert len(found) == 1
    assert found[0].message.startswith(
        "gpuPools[0] (t4): no DCGM exporter runs on these GPU nodes (the dcgm-exporter chart: it does not tolerate "
        "the taint nvidia.com/gpu=present:NoSchedule)"
    )
    other_pool = metrics_exporters(NODE, operator=None, chart=(OWN, {"azure-gpu-platform/pool": ("h100",)}))
    assert "its node affinity needs the label azure-gpu-platform/pool in h100" in (
        metrics_exporter_findings(other_pool)[0].message
    )


# ------------------------------------------------------------------- label names are facts of an exporter version


def test_label_names_are_read_for_each_pinned_exporter_version() -> None:
    """The operator v26.7.0 runs dcgm-exporter 4.6.0-4.8.3 (hostname, PR #655 before release PR #711); the chart
    4.8.2 runs 4.5.3-4.8.2 (Hostname). Workload labels are stored under exported_* (honorLabels false)."""
    assert (FACTS.operator.version, FACTS.chart.exporter.version) == ("4.6.0-4.8.3", "4.5.3-4.8.2")
    operator, chart = FACTS.stored_labels(FACTS.operator), FACTS.stored_labels(FACTS.chart.exporter)
    assert (operator.node, chart.node) == ("hostname", "Hostname")
    assert (operator.pod, operator.namespace, operator.container) == (
        "exported_pod",
        "exported_namespace",
        "exported_container",
    )
    assert (operator.mig_profile, operator.mig_instance, operator.uuid) == ("GPU_I_PROFILE", "GPU_I_ID", "UUID")
    for version in FACTS.labels_by_version.values():
        assert version["source"] in FACTS.sources


@pytest.mark.parametrize(
    ("section", "image"),
    [
        ("operatorExporter", "nvcr.io/nvidia/k8s/dcgm-exporter:4.7.0-4.9.0-distroless"),
        ("dcgmExporterChart", "nvcr.io/nvidia/k8s/dcgm-exporter:4.6.0-4.8.3-distroless"),
    ],
)
def test_an_exporter_version_change_without_its_labels_read_is_refused(section: str, image: str) -> None:
    doc = json.loads(MONITORING_FACTS.read_text(encoding="utf-8"))
    doc[section]["image"] = image
    with pytest.raises(MonitoringFactsError, match=f"{section}.exporterVersion .* must be the version of its image"):
        monitoring_facts_from(doc)
    doc[section]["exporterVersion"] = image.split(":")[1].removesuffix("-distroless")
    if doc[section]["exporterVersion"] not in doc["metrics"]["labelsByExporterVersion"]:
        with pytest.raises(MonitoringFactsError, match="labelsByExporterVersion has"):
            monitoring_facts_from(doc)


def test_the_pinned_gpu_operator_is_the_one_whose_exporter_was_read() -> None:
    from stack_config.models import DEFAULT_GPU_OPERATOR_VERSION
    from tests.components.harness import stack_config

    assert DEFAULT_GPU_OPERATOR_VERSION == FACTS.operator_version == "v26.7.0"
    for stack in ("dev", "staging", "prod"):
        config = stack_config(stack)
        operator = config.get("azure-gpu-platform:gpuOperator", {})
        if config.get("azure-gpu-platform:monitoring", {}).get("enabled") and operator.get("enabled"):
            assert operator.get("version", DEFAULT_GPU_OPERATOR_VERSION) == FACTS.operator_version, stack


def test_mig_alerts_never_read_gpu_util_and_whole_gpu_alerts_skip_mig_instances() -> None:
    rules = {r.alert: r.expression for r in gpu_alert_rules(Thresholds(), POOLS)}
    for alert in ("MigInstanceIdleWhileAllocated", "MigInstanceIdleUnallocated"):
        names = {s.name for s in selectors(promql_parser.parse(rules[alert]))}
        assert names == {"DCGM_FI_PROF_GR_ENGINE_ACTIVE"}, alert
        assert 'GPU_I_PROFILE!=""' in rules[alert]
    for alert in ("GpuIdleWhileAllocated", "GpuIdleUnallocated"):
        assert 'DCGM_FI_DEV_GPU_UTIL{GPU_I_PROFILE=""' in rules[alert]
    only_whole = {r.alert for r in gpu_alert_rules(Thresholds(), [ScaledPool("t4", kind="time-slicing")])}
    assert not any(a.startswith("Mig") for a in only_whole)
