"""Report renderings from a hand-built verdict (no subprocess): text, JSON shape, Markdown, SARIF 2.1.0 validity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from preflight.analyzer.protocol import NotApplicable, PolicyInfo, Violation
from preflight.cost import BUDGET_PACK, check_budget, estimate_cost, parse_budget
from preflight.model import RecordedResource
from preflight.render import render
from preflight.report import Report, budget_policy, budget_violation
from preflight.report_json import to_json
from preflight.report_sarif import render_sarif
from preflight.wire import SECRET_SIG, SIG_KEY
from tests.preflight.sarif_schema import sarif_errors

PRE = "urn:pulumi:dev::azure-gpu-platform::"
STACK = f"{PRE}pulumi:pulumi:Stack::azure-gpu-platform-dev"
COMP = f"{PRE}agp:index:AksGpuCluster::aks"
POOL = f"{PRE}agp:index:AksGpuCluster$azure-native:containerservice:AgentPool::gpu"
AMD = f"{PRE}azure-native:containerservice:AgentPool::amd"


def make_report(tmp_path: Path, *, mandatory: bool = True, budget_level: str = "advisory") -> Report:
    program = tmp_path / "program"
    program.mkdir(parents=True)
    (program / "__main__.py").write_text(
        'import pulumi\npool = make_pool(vm_size="Standard_NV32as_v4")\n', encoding="utf-8"
    )
    stack_file = tmp_path / "Pulumi.dev.yaml"
    stack_file.write_text(
        "config:\n  azure-gpu-platform:gpuPools:\n    - name: gpu\n      vmSize: Standard_NC24ads_A100_v4\n"
        "  azure-gpu-platform:budget:\n    monthlyUsd: 1000\n",
        encoding="utf-8",
    )
    resources = [
        RecordedResource(urn=STACK, type="pulumi:pulumi:Stack", name="azure-gpu-platform-dev", inputs={}, custom=False),
        RecordedResource(urn=COMP, type="agp:index:AksGpuCluster", name="aks", inputs={}, parent=STACK, custom=False),
        RecordedResource(
            urn=POOL,
            type="azure-native:containerservice:AgentPool",
            name="gpu",
            parent=COMP,
            inputs={
                "vmSize": "Standard_NC24ads_A100_v4",
                "enableAutoScaling": True,
                "minCount": 1.0,
                "maxCount": 3.0,
                "tags": {"token": {SIG_KEY: SECRET_SIG, "value": "hunter2"}},
            },
        ),
        RecordedResource(
            urn=AMD,
            type="azure-native:containerservice:AgentPool",
            name="amd",
            parent=STACK,
            inputs={"vmSize": "Standard_NV32as_v4", "count": 2.0},
        ),
    ]
    policies = [
        PolicyInfo(
            name="gpu-size-no-nvv4",
            description="No NVv4 — AKS does not support it.",
            enforcement_level="mandatory",
            policy_type="resource",
            severity="high",
            remediation_steps="Use an NVIDIA size.",
            tags=("gpu",),
        ),
        PolicyInfo(
            name="gpu-pool-tainted",
            description="GPU pools are tainted — or ordinary pods land on them.",
            enforcement_level="advisory",
            policy_type="resource",
        ),
    ]
    violations = [
        Violation(
            policy_name="gpu-pool-tainted",
            policy_pack_name="azure-gpu-guardrails",
            enforcement_level="advisory",
            urn=POOL,
            message="GPU pools are tainted.\nnodeTaints: pool 'gpu' has no | NoSchedule taint.",
            description="GPU pools are tainted.",
        ),
        Violation(
            policy_name="gpu-size-no-nvv4",
            policy_pack_name="azure-gpu-guardrails",
            enforcement_level="mandatory" if mandatory else "advisory",
            urn=AMD,
            message="No NVv4.\nvmSize: Standard_NV32as_v4 is an NVv4 size.",
            description="No NVv4.",
        ),
    ]
    cost = estimate_cost(resources)
    where = f"{stack_file}: azure-gpu-platform:budget"
    finding = check_budget(cost, parse_budget({"monthlyUsd": 1000, "enforcementLevel": budget_level}, where=where))
    assert finding is not None and finding.over
    violations.append(budget_violation(finding, STACK))
    return Report(
        stack="dev",
        project="azure-gpu-platform",
        program_dir=program,
        stack_file=stack_file,
        resources=resources,
        violations=violations,
        policies=[*policies, budget_policy(budget_level)],
        pack_name="azure-gpu-guardrails",
        pack_version="0.1.0",
        cost=cost,
        budget=finding,
    )


def test_exit_code_follows_mandatory_violations(tmp_path: Path) -> None:
    assert make_report(tmp_path / "a").exit_code == 1
    assert make_report(tmp_path / "b", mandatory=False).exit_code == 0
    assert make_report(tmp_path / "c", mandatory=False, budget_level="mandatory").exit_code == 1


def test_json_has_the_issue_shape_and_masks_secrets(tmp_path: Path) -> None:
    doc = json.loads(render(make_report(tmp_path), "json"))
    assert doc["stack"] == "dev"
    for r in doc["resources"]:
        assert {"urn", "type", "name", "parent", "inputs"} <= set(r)
    for v in doc["violations"]:
        assert {"policyName", "policyPackName", "enforcementLevel", "urn", "message"} <= set(v)
    cost = doc["cost"]
    assert {"currency", "indicative", "hourlyMin", "hourlyMax", "monthlyMin", "monthlyMax", "byResource"} <= set(cost)
    assert cost["currency"] == "USD" and cost["indicative"] is True
    for line in cost["byResource"]:
        assert {"urn", "vmSize", "nodesMin", "nodesMax", "hourlyMin", "hourlyMax"} <= set(line)
    pool = next(r for r in doc["resources"] if r["urn"] == POOL)
    assert pool["parent"] == COMP
    assert pool["inputs"]["tags"] == {"token": "[secret]"}
    assert "hunter2" not in json.dumps(doc)
    # sorted: mandatory first
    assert [v["policyName"] for v in doc["violations"]] == ["gpu-size-no-nvv4", "gpu-budget", "gpu-pool-tainted"]
    budget = next(v for v in doc["violations"] if v["policyName"] == "gpu-budget")
    assert (budget["policyPackName"], budget["enforcementLevel"], budget["urn"]) == (BUDGET_PACK, "advisory", STACK)
    assert doc["summary"] == {"resources": 4, "violations": 3, "mandatory": 1, "advisory": 2, "exitCode": 1}


def test_text_has_tree_grouped_violations_with_fixes_and_cost_table(tmp_path: Path) -> None:
    text = render(make_report(tmp_path), "text")
    assert "  pulumi:pulumi:Stack  azure-gpu-platform-dev\n" in text
    assert "  ├─ agp:index:AksGpuCluster  aks\n" in text
    assert "  │  └─ azure-native:containerservice:AgentPool  gpu  [Standard_NC24ads_A100_v4 ×1–3]\n" in text
    assert "  └─ azure-native:containerservice:AgentPool  amd  [Standard_NV32as_v4 ×2]\n" in text
    mandatory = text.index("Mandatory violations (1)")
    advisory = text.index("Advisory violations (2)")
    assert mandatory < advisory
    assert (
        f"      urn: {AMD}\n      message: vmSize: Standard_NV32as_v4 is an NVv4 size.\n      policy: No NVv4.\n"
        in text
    )
    assert "      fix: Use an NVIDIA size.\n" in text
    assert "AgentPool gpu" in text and "$3.67" in text and "$11.02" in text  # A100 1–3 nodes per hour
    assert "total" in text
    assert "budget: OVER BUDGET" in text
    assert text.rstrip().endswith("Result: FAIL — 1 mandatory, 2 other violation(s) (exit 1)")


def test_markdown_for_pull_request_comments(tmp_path: Path) -> None:
    md = render(make_report(tmp_path), "markdown")
    assert md.startswith("### ❌ GPU preflight `dev`: 1 mandatory, 2 advisory violation(s)")
    # the policy's description (which the engine puts first in the message) is left out of the table
    assert "| mandatory | `gpu-size-no-nvv4` | `AgentPool amd` | vmSize: Standard_NV32as_v4 is an NVv4 size. |" in md
    assert "has no \\| NoSchedule taint" in md  # table cells escape pipes
    assert "| `AgentPool gpu` | pool | `Standard_NC24ads_A100_v4` | 1–3 | $3.67–$11.02 |" in md
    assert "<details><summary>Resources (4)</summary>" in md


def test_sarif_is_valid_with_one_rule_per_policy_and_located_results(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    doc = json.loads(render_sarif(report, root=tmp_path))
    assert sarif_errors(doc) == []
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["gpu-size-no-nvv4", "gpu-pool-tainted", "gpu-budget"]
    assert rules[0]["defaultConfiguration"] == {"level": "error"}
    assert rules[0]["properties"]["security-severity"] == "8.0"
    results = {r["ruleId"]: r for r in run["results"]}
    nvv4 = results["gpu-size-no-nvv4"]
    assert nvv4["level"] == "error"
    assert nvv4["message"] == {"text": "vmSize: Standard_NV32as_v4 is an NVv4 size."}
    assert rules[nvv4["ruleIndex"]]["id"] == "gpu-size-no-nvv4"
    loc = nvv4["locations"][0]
    # the NVv4 size is not in the stack file, so the program line that names it is the location
    assert loc["physicalLocation"]["artifactLocation"] == {"uri": "program/__main__.py", "uriBaseId": "%SRCROOT%"}
    assert loc["physicalLocation"]["region"] == {"startLine": 2}
    assert loc["logicalLocations"][0]["fullyQualifiedName"] == AMD
    # the budget violation points at the stack file
    budget_loc = results["gpu-budget"]["locations"][0]["physicalLocation"]
    assert budget_loc["artifactLocation"]["uri"] == "Pulumi.dev.yaml"
    assert budget_loc["region"] == {"startLine": 5}  # the budget key
    assert results["gpu-pool-tainted"]["level"] == "warning"


def test_sarif_of_a_clean_run_is_valid(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    report.violations = []
    doc = json.loads(render_sarif(report))
    assert sarif_errors(doc) == []
    assert doc["runs"][0]["results"] == []


def test_unknown_format_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        render(make_report(tmp_path), "xml")


def test_to_json_lists_unpriced_sizes(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    report.resources.append(
        RecordedResource(
            urn=f"{PRE}azure-native:containerservice:AgentPool::h100",
            type="azure-native:containerservice:AgentPool",
            name="h100",
            inputs={"vmSize": "Standard_NC40ads_H100_v5", "count": 1.0},
        )
    )
    report.cost = estimate_cost(report.resources)
    doc = to_json(report)
    assert doc["cost"]["unpriced"] == ["Standard_NC40ads_H100_v5"]
    text = render(report, "text")
    assert "not priced: Standard_NC40ads_H100_v5 (AgentPool h100): no indicative price in the catalog" in text


def test_not_applicable_policies_are_listed_not_counted(tmp_path: Path) -> None:
    report = make_report(tmp_path, mandatory=False)
    report.not_applicable = [
        NotApplicable(policy_name="kaito-workspace-instance-type", urn=AMD, reason="preset unknown")
    ]
    assert report.exit_code == 0
    text = render(report, "text")
    assert "Not applicable (1): policies that could not check a resource" in text
    assert "  · [kaito-workspace-instance-type] AgentPool amd: preset unknown" in text
    doc = to_json(report)
    assert doc["notApplicable"] == [
        {"policyName": "kaito-workspace-instance-type", "urn": AMD, "reason": "preset unknown"}
    ]
