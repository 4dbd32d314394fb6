"""The three shipped stacks' quota tables, checked against a hand calculation; the section in every format; and the
offline preflight never importing the Azure SDK (``-X importtime`` of a real run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from preflight.cost import estimate_cost
from preflight.model import RecordedResource
from preflight.quota import quota_demand
from preflight.render import render
from preflight.report import Report
from tests.preflight.sarif_schema import sarif_errors
from tests.shared_runs import shipped_stack_run

REPO = Path(__file__).resolve().parents[2]
STACKS = ("dev", "staging", "prod")
AZURE_SDK = ("azure.mgmt.compute", "azure.identity")


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    """The three stacks' JSON reports (run once per session, ``tests/shared_runs.py``); dev's with ``-X importtime``."""
    out: dict[str, Any] = {}
    for s in STACKS:
        run = shipped_stack_run(s, "json")
        assert run.code == 0, run.stderr[-2000:]
        out[s] = json.loads(run.stdout)
        out[f"{s}.stderr"] = run.stderr
    return out


def table(doc: dict[str, Any]) -> dict[tuple[str, str], tuple[int, int]]:
    return {(r["region"], r["quota"]): (r["vcpusMin"], r["vcpusMax"]) for r in doc["quota"]["rows"]}


def test_dev_table_by_hand(runs: dict[str, Any]) -> None:
    # t4: Standard_NC4as_T4_v3 (4 vCPUs), minCount 1 .. maxCount 2, spot -> low-priority 4..8, no family, no regular;
    # plus its upgrade surge (AKS's default 10 % of 2, rounded up: 1 node) -> 12.
    assert table(runs["dev"]) == {("westeurope", "cores"): (0, 0), ("westeurope", "lowPriorityCores"): (4, 12)}
    assert runs["dev"]["quota"]["cpuPools"][0]["vmSize"] == "Standard_D4ds_v5"
    assert runs["dev"]["quota"]["unknown"] == []


def test_staging_table_by_hand(runs: dict[str, Any]) -> None:
    # a100: Standard_NC24ads_A100_v4 x 1 (count) = 24.
    # KAITO phi-4-mini: Standard_NV36ads_A10_v5 x 1 = 36.
    # NAP infer: limit 8 nvidia.com/gpu as sent (2 physical GPUs x 4 MPS replicas: the burst bound), T4 sizes:
    #   NC4as 8 x 4 = 32, NC8as 8 x 8 = 64, NC16as 8 x 16 = 128, NC64as ceil(8/4) = 2 x 64 = 128 -> max 128, min 0.
    # a100's upgrade surge (AKS's default 10 % of 1, rounded up: 1 node) = 24 more at the maximum.
    # cores: 24 + 36 + 0 = 60 .. 24 + 24 + 36 + 128 = 212.
    assert table(runs["staging"]) == {
        ("westeurope", "StandardNCADSA100v4Family"): (24, 48),
        ("westeurope", "StandardNCASv3_T4Family"): (0, 128),
        ("westeurope", "StandardNVADSA10v5Family"): (36, 36),
        ("westeurope", "cores"): (60, 212),
    }
    nap = next(u for u in runs["staging"]["quota"]["byResource"] if u["role"] == "nodepool")
    # the same size the cost estimate prices at its maximum (NC16as x 8)
    cost = next(c for c in runs["staging"]["cost"]["byResource"] if c["role"].startswith("nodepool"))
    assert (nap["vmSize"], nap["nodesMax"]) == (cost["vmSize"], cost["nodesMax"]) == ("Standard_NC16as_T4_v3", 8)


def test_prod_table_by_hand(runs: dict[str, Any]) -> None:
    # A100 family (NC24ads_A100_v4 = 24 vCPUs, NC48ads_A100_v4 = 48):
    #   a100mig 1..4 x 24 = 24..96; KAITO phi-4 24, mistral-7b 24; Databricks ml-training workers 1..4 x 48 = 48..192,
    #   driver 48 -> min 24 + 24 + 24 + 48 + 48 = 168, max 96 + 24 + 24 + 192 + 48 = 384.
    # H100 (ND96isr_H100_v5 = 96): 1..2 -> 96..192.  T4 (NC8as_T4_v3 = 8): 1..4 -> 8..32.
    # A10 (NV36ads_A10_v5 = 36): batch-inference workers 1..2 -> 36..72, driver 36 -> 72..108.
    # Each AKS GPU pool's upgrade surge at the maximum (AKS's default 10 %, rounded up: 1 node each): a100mig +24,
    #   h100 +96, t4 +8.
    # cores: 168 + 96 + 8 + 72 = 344 .. 408 + 288 + 40 + 108 = 844.
    assert table(runs["prod"]) == {
        ("westeurope", "StandardNCADSA100v4Family"): (168, 384 + 24),
        ("westeurope", "standardNDSH100v5Family"): (96, 192 + 96),
        ("westeurope", "StandardNCASv3_T4Family"): (8, 32 + 8),
        ("westeurope", "StandardNVADSA10v5Family"): (72, 108),
        ("westeurope", "cores"): (344, 844),
    }


def test_the_quota_section_is_the_only_new_key_and_live_is_off(runs: dict[str, Any]) -> None:
    for s in STACKS:
        doc = runs[s]
        assert list(doc)[-1] == "quota"
        assert doc["quota"]["live"] is None
        assert doc["quota"]["unit"] == "vCPUs"


def test_the_offline_preflight_never_imports_the_azure_sdk(runs: dict[str, Any]) -> None:
    imported = {line.rsplit("|", 1)[-1].strip() for line in runs["dev.stderr"].splitlines() if "import time:" in line}
    assert "preflight.quota" in imported and "preflight.cli" in imported
    assert not [m for m in imported if m.startswith(AZURE_SDK)]
    assert "preflight.live_quota" not in imported


def _report(doc: dict[str, Any]) -> Report:
    resources = [
        RecordedResource(urn=r["urn"], type=r["type"], name=r["name"], inputs=r["inputs"], parent=r["parent"])
        for r in doc["resources"]
    ]
    return Report(
        stack=doc["stack"],
        project=doc["project"],
        program_dir=REPO,
        stack_file=REPO / "stacks" / f"Pulumi.{doc['stack']}.yaml",
        resources=resources,
        violations=[],
        policies=[],
        pack_name="azure-gpu-platform",
        pack_version="0",
        cost=estimate_cost(resources),
        quota=quota_demand(resources, default_region="westeurope"),
    )


def test_text_markdown_and_sarif_show_the_table(runs: dict[str, Any]) -> None:
    report = _report(runs["prod"])
    text = render(report, "text")
    assert "GPU quota demand — vCPUs per region and Azure quota family" in text
    assert "westeurope  StandardNCADSA100v4Family  168        408" in text
    assert "westeurope  Total Regional vCPUs       344        844" in text
    assert "CPU pool aks-cluster (agentPoolProfiles[system]) Standard_D8ds_v5 ×3" in text
    md = render(report, "markdown")
    assert "#### GPU quota demand" in md
    assert "| westeurope | standardNDSH100v5Family | 96 | 288 | aks-h100 (pool), aks-h100 (pool.upgradeSurge) |" in md
    sarif = json.loads(render(report, "sarif"))
    assert sarif_errors(sarif) == []
    quota = sarif["runs"][0]["properties"]["quota"]
    assert {(r["quota"], r["vcpusMax"]) for r in quota["rows"]} >= {("cores", 844), ("StandardNVADSA10v5Family", 108)}
    dev = render(_report(runs["dev"]), "text")
    assert (
        "westeurope  Total Regional Low-priority vCPUs  4          12         aks-t4 (pool), aks-t4 (pool.upgradeSurge)"
        in dev
    )
