"""Container Insights with managed-identity authentication (issue 36): the omsagent add-on's useAADAuth, the
MSCI-<region>-<cluster> data collection rule with the ContainerInsights extension and its streams, and the association
ContainerInsightsExtension — each field as Microsoft's onboarding template sends it (gpu_monitoring.json,
containerInsights); dev's deliberate "no Container Insights" stays an advisory warning."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance import check_resource, failures
from gpu_catalog.monitoring import load_monitoring_facts
from tests.shared_runs import shipped_stack_run

DCR = "azure-native:monitor:DataCollectionRule"
DCRA = "azure-native:monitor:DataCollectionRuleAssociation"
CLUSTER = "azure-native:containerservice:ManagedCluster"
STREAMS = [
    "Microsoft-ContainerLog",
    "Microsoft-ContainerLogV2",
    "Microsoft-KubeEvents",
    "Microsoft-KubePodInventory",
    "Microsoft-KubeNodeInventory",
    "Microsoft-KubePVInventory",
    "Microsoft-KubeServices",
    "Microsoft-KubeMonAgentEvents",
    "Microsoft-InsightsMetrics",
    "Microsoft-ContainerInventory",
    "Microsoft-ContainerNodeInventory",
    "Microsoft-Perf",
]
"""The streams parameter of Microsoft's template (microsoft/Docker-Provider
scripts/onboarding/aks/onboarding-using-msi-auth/existingClusterParam.json @ 28ef8eef)."""


def preflight(stack: str) -> dict[str, Any]:
    run = shipped_stack_run(stack, "json")
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def of_type(doc: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    return [r for r in doc["resources"] if r["type"] == type_]


@pytest.mark.parametrize("stack", ["staging", "prod"])
def test_staging_and_prod_onboard_container_insights_with_managed_identity(stack: str) -> None:
    doc = preflight(stack)
    cluster = of_type(doc, CLUSTER)[0]["inputs"]
    config = cluster["addonProfiles"]["omsagent"]["config"]
    assert config["useAADAuth"] == "true"
    workspace = config["logAnalyticsWorkspaceResourceID"]
    assert workspace.endswith("/workspaces/aks-logs")
    rule = next(r for r in of_type(doc, DCR) if r["inputs"]["dataCollectionRuleName"].startswith("MSCI-"))
    inputs = rule["inputs"]
    assert inputs["dataCollectionRuleName"] == f"MSCI-westeurope-aks-gpu-{stack}"
    assert (inputs["kind"], inputs["location"]) == ("Linux", "westeurope")
    assert inputs["dataSources"] == {
        "extensions": [
            {
                "name": "ContainerInsightsExtension",
                "extensionName": "ContainerInsights",
                "streams": STREAMS,
                "extensionSettings": {
                    "dataCollectionSettings": {
                        "interval": "1m",
                        "namespaceFilteringMode": "Off",
                        "namespaces": ["kube-system", "gatekeeper-system", "azure-arc"],
                        "enableContainerLogV2": True,
                    }
                },
            }
        ]
    }
    assert inputs["destinations"] == {"logAnalytics": [{"workspaceResourceId": workspace, "name": "ciworkspace"}]}
    assert inputs["dataFlows"] == [{"streams": STREAMS, "destinations": ["ciworkspace"]}]
    assert "dataCollectionEndpointId" not in inputs  # the template's endpoint is for high log scale mode only
    association = next(r for r in of_type(doc, DCRA) if r["inputs"]["associationName"] == "ContainerInsightsExtension")
    assert association["inputs"]["dataCollectionRuleId"].endswith("/dataCollectionRules/aks-ci-dcr")
    assert association["inputs"]["resourceUri"].endswith(f"/managedClusters/aks-gpu-{stack}")
    for r in (rule, association):
        assert [str(f) for f in failures(check_resource(r["type"], r["inputs"], name=r["name"]))] == []


def test_dev_has_no_container_insights_and_says_so_as_advice() -> None:
    doc = preflight("dev")
    assert "omsagent" not in (of_type(doc, CLUSTER)[0]["inputs"].get("addonProfiles") or {})
    assert of_type(doc, DCR) == [] and of_type(doc, DCRA) == []
    assert any(w.startswith("AksGpuCluster 'aks-gpu-dev': no Container Insights:") for w in doc["warnings"])
    assert doc["summary"]["exitCode"] == 0


def test_every_container_insights_fact_names_its_source() -> None:
    facts = load_monitoring_facts()
    ci = facts.container_insights
    assert ci.streams == tuple(STREAMS) and ci.addon_config == {"useAADAuth": "true"}
    source = facts.sources["containerInsights"]
    assert source["repository"] == "microsoft/Docker-Provider"
    assert "container-insights-authentication.md" in source["facts"]
