"""The report of a fleet stack: per member its region, cost, idle cost and quota demand, and the fleet's totals, in
every format; a stack without the ``fleet-member`` tag reports as before (no ``fleet`` key, no section)."""

from __future__ import annotations

import json
from pathlib import Path

from preflight.cost import estimate_cost
from preflight.fleet_members import fleet_membership
from preflight.fleet_report import HUB_NOTES
from preflight.model import RecordedResource
from preflight.quota import quota_demand
from preflight.render import render
from preflight.report import Report
from preflight.report_json import to_json
from tests.preflight.fleet_recorded import PRE, THREE, fleet_resources, member_resources
from tests.preflight.sarif_schema import sarif_errors


def _report(tmp_path: Path, resources: list[RecordedResource]) -> Report:
    return Report(
        stack="fleet",
        project="azure-gpu-platform",
        program_dir=tmp_path,
        stack_file=None,
        resources=resources,
        violations=[],
        policies=[],
        pack_name="azure-gpu-guardrails",
        pack_version="0.1.0",
        cost=estimate_cost(resources),
        quota=quota_demand(resources, default_region="westeurope"),
    )


def test_membership_by_tag_provider_and_name_prefix() -> None:
    membership = fleet_membership(fleet_resources(THREE))
    assert membership is not None
    assert membership.members == ("eus", "sec", "weu")
    assert dict(membership.regions) == {"eus": ("eastus",), "sec": ("swedencentral",), "weu": ("westeurope",)}
    assert dict(membership.groups) == {"eus": "rest", "sec": "rest", "weu": "canary"}
    # the KAITO workspace has no tag: its provider (named weu-aks-k8s, untagged: by its prefix) is weu's
    assert membership.of(f"{PRE}kubernetes:kaito.sh/v1beta1:Workspace::weu-kaito-phi") == "weu"
    assert membership.of(f"{PRE}azure-native:resources:Resource::gpu-fleet") is None
    assert membership.of(f"{PRE}azure-native:resources:Resource::gpu-fleet-member-weu") is None


def test_no_tag_no_fleet() -> None:
    assert fleet_membership(member_resources(THREE[0])[2:]) is None  # the provider and workspace: untagged


def test_each_member_workspace_counts_in_its_own_region() -> None:
    """Without the fleet, a KAITO workspace among several clusters fell back to the stack's default region."""
    demand = quota_demand(fleet_resources(THREE), default_region="westeurope")
    kaito = {u.name: u.region for u in demand.uses if u.role == "workspace"}
    assert kaito == {"sec-kaito-phi": "swedencentral", "weu-kaito-phi": "westeurope"}
    rows = {(r.region, r.quota): (r.vcpus_min, r.vcpus_max) for r in demand.rows()}
    assert rows == {
        ("eastus", "StandardNCASv3_T4Family"): (8, 12),  # + one upgrade-surge node
        ("eastus", "cores"): (8, 12),
        ("swedencentral", "StandardNCASv3_T4Family"): (8, 48),
        ("swedencentral", "cores"): (8, 48),
        ("westeurope", "StandardNCADSA100v4Family"): (24, 96),  # 3 nodes + 1 surge
        ("westeurope", "StandardNCASv3_T4Family"): (8, 8),
        ("westeurope", "cores"): (32, 104),
    }


def test_json_per_member_and_totals(tmp_path: Path) -> None:
    doc = to_json(_report(tmp_path, fleet_resources(THREE)))["fleet"]
    weu, sec, eus = (next(m for m in doc["members"] if m["name"] == n) for n in ("weu", "sec", "eus"))
    assert weu == {
        "name": "weu",
        "group": "canary",
        "regions": ["westeurope"],
        "resources": 4,
        "cost": {"hourlyMin": 4.425, "hourlyMax": 11.771, "monthlyMin": 3230.25, "monthlyMax": 8592.83, "unpriced": []},
        "idle": {"hourly": 4.425, "monthly": 3230.25},
        "quota": [
            {"region": "westeurope", "quota": "StandardNCADSA100v4Family", "label": "StandardNCADSA100v4Family",
             "vcpusMin": 24, "vcpusMax": 96},
            {"region": "westeurope", "quota": "StandardNCASv3_T4Family", "label": "StandardNCASv3_T4Family",
             "vcpusMin": 8, "vcpusMax": 8},
            {"region": "westeurope", "quota": "cores", "label": "Total Regional vCPUs",
             "vcpusMin": 32, "vcpusMax": 104},
        ],
    }  # fmt: skip
    assert sec["cost"]["monthlyMin"] == 548.96 and sec["cost"]["monthlyMax"] == 2744.8
    assert sec["idle"] == {"hourly": 0.752, "monthly": 548.96}  # the pool scales from 0; the workspace's node runs
    assert eus["cost"]["monthlyMin"] == eus["cost"]["monthlyMax"] == 767.96 and eus["regions"] == ["eastus"]
    totals = doc["totals"]
    assert totals["members"] == 3 and totals["regions"] == ["eastus", "swedencentral", "westeurope"]
    assert totals["cost"]["monthlyMin"] == 4547.17 and totals["cost"]["monthlyMax"] == 12105.59
    assert totals["idle"] == {"hourly": 6.229, "monthly": 4547.17}
    assert len(totals["quota"]) == 7
    assert doc["hub"] == {"enabled": False, "priced": True, "note": HUB_NOTES[False]}  # the fixture's Fleet: no hub
    assert HUB_NOTES[False] == (
        "no hub: a fleet without one costs nothing (update orchestration only; placements need a hub)"
    )


def _with_hub(resources: list[RecordedResource]) -> list[RecordedResource]:
    fleet = next(r for r in resources if r.inputs.get("resourceType") == "fleets")
    fleet.inputs["properties"] = {"hubProfile": {"dnsPrefix": "gpu-fleet"}}
    return resources


HUB_ON = (
    "not priced: Fleet Manager runs and bills the hub, a single-node Standard-tier AKS cluster, every hour whether "
    "anything is placed or not (MicrosoftDocs/azure-aks-docs articles/kubernetes-fleet/concepts-choosing-fleet.md); "
    "the catalog prices no CPU VM size, so the fleet's totals leave it out: add one node's VM price and the Standard "
    'tier\'s per-cluster charge (docs/fleet.md, "Hub or no hub")'
)


def test_the_hub_line_says_it_is_not_priced_in_every_format(tmp_path: Path) -> None:
    report = _report(tmp_path, _with_hub(fleet_resources(THREE)))
    hub = {"enabled": True, "priced": False, "note": HUB_ON}
    assert to_json(report)["fleet"]["hub"] == hub
    assert json.loads(render(report, "json"))["fleet"]["hub"] == hub
    sarif = json.loads(render(report, "sarif"))
    assert sarif_errors(sarif) == []
    assert sarif["runs"][0]["properties"]["fleet"]["hub"] == hub
    text = render(report, "text").splitlines()
    total = next(n for n, line in enumerate(text) if line.strip().startswith("fleet (3 members)"))
    assert text[total + 1] == f"  hub: on — {HUB_ON}"
    md = render(report, "markdown").splitlines()
    assert f"**Hub:** on — {HUB_ON}" in md
    # the totals do not change with the hub: it is not priced
    assert to_json(report)["fleet"]["totals"]["cost"]["monthlyMax"] == 12105.59


def test_the_hub_line_without_a_fleet_resource_says_unknown(tmp_path: Path) -> None:
    resources = [r for r in fleet_resources(THREE) if r.inputs.get("resourceType") != "fleets"]
    doc = to_json(_report(tmp_path, resources))["fleet"]
    assert doc["hub"]["enabled"] is None and doc["hub"]["priced"] is False
    assert doc["hub"]["note"].startswith("unknown: the stack shows no Fleet resource, or its hub profile is unknown")


def test_text_markdown_and_sarif_show_members(tmp_path: Path) -> None:
    report = _report(tmp_path, fleet_resources(THREE))
    text = render(report, "text")
    section = text[text.index("Fleet — per member") :].splitlines()
    assert section[1].split() == ["member", "group", "region", "GPU", "$/month", "(min–max)", "idle", "$/month",
                                  "quota", "demand", "(vCPUs)"]  # fmt: skip
    weu = next(line for line in section if line.strip().startswith("weu "))
    assert "canary" in weu and "westeurope" in weu and "$3,230.25–$8,592.83" in weu
    assert weu.endswith("StandardNCADSA100v4Family 24–96, StandardNCASv3_T4Family 8, Total Regional vCPUs 32–104")
    total = next(line for line in section if line.strip().startswith("fleet (3 members)"))
    assert "3 region(s)" in total and "$4,547.17–$12,105.59" in total and total.endswith("per region: the quota table")
    md = render(report, "markdown")
    assert "#### Fleet: 3 members in 3 region(s)" in md
    assert "| sec | rest | swedencentral | $548.96–$2,744.80 | $548.96 |" in md
    sarif = json.loads(render(report, "sarif"))
    assert sarif_errors(sarif) == []
    props = sarif["runs"][0]["properties"]["fleet"]
    assert [m["name"] for m in props["members"]] == ["eus", "sec", "weu"]


def test_a_stack_without_a_fleet_has_no_fleet_section(tmp_path: Path) -> None:
    resources = [r for r in fleet_resources(THREE[:1]) if "fleets" not in str(r.inputs.get("resourceType"))]
    for r in resources:
        tags = r.inputs.get("tags")
        if isinstance(tags, dict):
            tags.pop("fleet-member")
    report = _report(tmp_path, resources)
    assert report.fleet is None
    assert "fleet" not in to_json(report)
    assert "Fleet" not in render(report, "text") and "Fleet" not in render(report, "markdown")
    assert "fleet" not in json.loads(render(report, "sarif"))["runs"][0]["properties"]


def test_live_reads_every_member_region() -> None:
    """``--live`` asks Azure once per member region (usages and Resource SKUs), through the real client."""
    from preflight.live_quota import run_live_check
    from tests.preflight.azure_recorded import RecordedAdapter, StaticToken, body, recorded_transport

    demand = quota_demand(fleet_resources(THREE), default_region="westeurope")
    adapter = RecordedAdapter(usages={"*": body("usage_westeurope.json")}, skus=body("skus_westeurope.json"))
    result = run_live_check(
        demand, subscription="0" * 8, credential=StaticToken(), transport=recorded_transport(adapter)
    )  # fmt: skip
    assert result.ran
    usages = sorted(u.split("/locations/")[1].split("/")[0] for u in adapter.requests_seen if "/usages?" in u)
    assert usages == ["eastus", "swedencentral", "westeurope"]
    skus = sorted(u.split("location%20eq%20%27")[1].split("%27")[0] for u in adapter.requests_seen if "/skus?" in u)
    assert skus == ["eastus", "swedencentral", "westeurope"]
    assert sorted({f.region for f in result.families}) == ["eastus", "swedencentral", "westeurope"]
    a100 = next(f for f in result.families if f.quota == "StandardNCADSA100v4Family")
    assert (a100.region, a100.needed_max, a100.uses) == (
        "westeurope",
        96,
        ("weu-aks-gpu (pool)", "weu-aks-gpu (pool.upgradeSurge)"),
    )
