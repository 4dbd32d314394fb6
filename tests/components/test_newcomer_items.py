"""What a newcomer tripped on (issue 40, item 10), each shown on the program or the shipped files: NAP sharing without
the GPU operator, the dev stack without it, and the docs that say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.components.harness import HELM_RELEASE, run_main, stack_config
from tests.components.test_nap import NODE_CLASS, NODE_POOL, config

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_nap_sharing_works_without_the_gpu_operator() -> None:
    """A NAP pool with MPS ×4 and gpuOperator.enabled false: AKS installs the driver (gpu.mode Driver) and the
    nvidia-device-plugin chart renders the pool's sharing config on its nodes."""
    nap = {
        "name": "infer",
        "sizes": ["Standard_NC4as_T4_v3"],
        "limits": {"gpus": 4},
        "sharing": {"mps": {"replicas": 4}},
    }
    run = run_main(config(gpuOperator={"enabled": False}, gpuPools=[], gpuNodePools=[nap]))
    assert run.error is None, run.error
    chart = run.one(HELM_RELEASE)
    assert chart.name == "nvidia-device-plugin-release"
    values = chart.inputs["values"]
    assert values["config"]["map"]["infer"] == (
        "version: v1\nflags:\n  migStrategy: single\nsharing:\n  mps:\n    renameByDefault: false\n    resources:\n"
        "    - name: nvidia.com/gpu\n      replicas: 4\n"
    )
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "azure-gpu-platform/pool", "operator": "In", "values": ["infer"]}]}]
    labels = run.one(NODE_POOL).inputs["spec"]["template"]["metadata"]["labels"]
    assert labels == {"nvidia.com/device-plugin.config": "infer", "azure-gpu-platform/pool": "infer"}
    assert run.one(NODE_CLASS).inputs["spec"]["gpu"] == {"mode": "Driver"}
    assert "works **with or without the GPU operator**" in (DOCS / "nap.md").read_text()


def test_the_dev_stack_runs_without_the_operator_and_the_docs_say_so() -> None:
    assert stack_config("dev")["azure-gpu-platform:gpuOperator"] == {"enabled": False}
    assert (
        "**dev** (Free tier, one spot T4 pool time-sliced ×4, **no GPU operator**"
        in (DOCS / "stack-config.md").read_text()
    )
    assert json.dumps(stack_config("dev")).count("timeSlicing") == 1


SNAPSHOTS = Path(__file__).with_name("snapshots")


def _types(stack: str) -> set[str]:
    rows = json.loads((SNAPSHOTS / f"{stack}.json").read_text())
    types = {row["urn"].split("::")[2].split("$")[-1] for row in rows if row["custom"]}
    return {t for t in types if not t.startswith("pulumi:providers:")}


def _section(title: str) -> str:
    text = (DOCS / "deploying.md").read_text()
    start = text.index(title)
    return text[start : text.index("\n## ", start + 1) if "\n## " in text[start + 1 :] else None]


def test_the_resource_providers_of_each_shipped_stack() -> None:
    """From the URN snapshots of the shipped stacks (what the preflight registers): dev needs five namespaces,
    monitoring adds four (staging), Databricks one more (prod); docs/deploying.md lists each for its stack."""
    from rules.resource_providers import resource_providers

    base = ["Microsoft.Authorization", "Microsoft.Compute", "Microsoft.ContainerService", "Microsoft.Network"]
    base += ["Microsoft.Resources"]
    monitoring = [
        "Microsoft.AlertsManagement",
        "Microsoft.Insights",
        "Microsoft.Monitor",
        "Microsoft.OperationalInsights",
    ]
    assert resource_providers(_types("dev")) == base
    assert resource_providers(_types("staging")) == sorted(base + monitoring)
    assert resource_providers(_types("prod")) == sorted([*base, *monitoring, "Microsoft.Databricks"])
    text = (DOCS / "deploying.md").read_text()
    step = text[text.index("5. **Register the resource providers**") : text.index("6. **Request GPU quota**")]
    for namespace in resource_providers(_types("prod")):
        assert f"`{namespace}`" in step, namespace


def test_unknown_azure_modules_are_refused_by_the_provider_table() -> None:
    from rules.resource_providers import resource_providers

    assert resource_providers(["kubernetes:helm.sh/v3:Release", "azure-native:monitor:AzureMonitorWorkspace"]) == [
        "Microsoft.Monitor"
    ]
    with pytest.raises(KeyError, match="azure-native:storage:StorageAccount"):
        resource_providers(["azure-native:storage:StorageAccount"])


def test_the_first_up_section_names_every_resource_type_and_where_the_databricks_workspace_goes() -> None:
    section = _section("## What the first `pulumi up` creates")
    for stack in ("dev", "staging", "prod"):
        for token in sorted(_types(stack)):
            assert f"`{token}`" in section, (stack, token)
    assert "`dbw-gpu-prod-managed-rg`" in section and "Where a created workspace goes" in section
    assert stack_config("prod")["azure-gpu-platform:databricks"]["workspace"] == {"name": "dbw-gpu-prod"}
