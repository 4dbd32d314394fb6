"""``--live`` without Azure: the real azure-mgmt-compute client over azure-core's requests transport answering with
Microsoft's recorded REST examples (tests/fixtures/azure_quota/SOURCES.json) and edited copies of them."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from azure.core.exceptions import ClientAuthenticationError
from azure.mgmt.compute import ComputeManagementClient

from preflight.cli import REPO_ROOT, _Progress, build_parser, run_preflight  # pyright: ignore[reportPrivateUsage]
from preflight.live_quota import (
    QUOTA_POLICY,
    RESTRICTED_POLICY,
    ZONES_POLICY,
    _read_skus,  # pyright: ignore[reportPrivateUsage]
    _read_usages,  # pyright: ignore[reportPrivateUsage]
    run_live_check,
    subscription_from,
)
from preflight.model import RecordedResource
from preflight.quota import QuotaDemand, quota_demand
from preflight.render import render
from tests.preflight.azure_recorded import FIXTURES, RecordedAdapter, StaticToken, body, recorded_transport
from tests.shared_runs import programs_in_process, shipped_stack_run

SUB = "00000000-0000-0000-0000-000000000000"
REPO = Path(__file__).resolve().parents[2]
POOL = "azure-native:containerservice:AgentPool"


def client(adapter: RecordedAdapter) -> ComputeManagementClient:
    return ComputeManagementClient(StaticToken(), SUB, transport=recorded_transport(adapter))  # pyright: ignore[reportArgumentType]


def test_fixtures_name_their_sources() -> None:
    sources = json.loads((FIXTURES / "SOURCES.json").read_text())
    for name, src in sources["vendored"].items():
        assert (FIXTURES / name).is_file()
        assert src["repository"] == "Azure/azure-rest-api-specs"
        assert src["path"].startswith("specification/compute/resource-manager/Microsoft.Compute/")
        assert len(src["commit"]) == 40
    for name, origin in sources["edited"].items():
        doc = json.loads((FIXTURES / name).read_text())
        assert origin in doc["_note"] and origin in sources["vendored"]


def test_microsofts_usage_list_example_through_the_real_client() -> None:
    adapter = RecordedAdapter(usages={"*": body("Usage_List_MaximumSet_Gen.json")}, skus={"value": []})
    assert _read_usages(client(adapter), "westus") == {"aaaaaaaaaaaaaaaaaa": (17, 19)}
    # the example's nextLink is followed (answered with an empty page)
    assert len(adapter.requests_seen) == 2
    assert "/locations/westus/usages?api-version=" in adapter.requests_seen[0]
    assert adapter.requests_seen[1].endswith("aaaaaaaaaaaaaaaaaaaaaaaaaaa")


def test_microsofts_resource_skus_example_through_the_real_client() -> None:
    adapter = RecordedAdapter(usages={}, skus=body("ListAvailableResourceSkusForARegion.json"))
    got = _read_skus(client(adapter), "westus")
    assert got == {
        "standard_a0": {"offered": True, "restricted": [], "zones": ["1", "2"]},
        "standard_a1": {"offered": True, "restricted": [], "zones": ["1", "2", "3"]},
    }
    assert "$filter=location%20eq%20%27westus%27" in adapter.requests_seen[0]


@pytest.fixture(scope="module")
def prod() -> QuotaDemand:
    """prod's demand from its recorded resources (the stack test's JSON, run once per session)."""
    run = shipped_stack_run("prod", "json")
    assert run.code == 0, run.stderr[-2000:]
    out = run.stdout
    doc = json.loads(out)
    resources = [
        RecordedResource(urn=r["urn"], type=r["type"], name=r["name"], inputs=r["inputs"], parent=r["parent"])
        for r in doc["resources"]
    ]
    return quota_demand(resources, default_region="westeurope")


def live(demand: QuotaDemand, usage: str, skus: str, level: str = "advisory") -> Any:
    adapter = RecordedAdapter(usages={"westeurope": body(usage)}, skus=body(skus))
    start = time.monotonic()
    result = run_live_check(
        demand, subscription=SUB, level=level, credential=StaticToken(), transport=recorded_transport(adapter)
    )
    assert time.monotonic() - start < 5.0  # the live check's share of the preflight, recorded responses
    return result


def test_prod_fits_the_recorded_quota_but_not_its_h100_upgrade_surge(prod: QuotaDemand) -> None:
    result = live(prod, "usage_westeurope.json", "skus_westeurope.json")
    # every pool at its maximum fits; the H100 pool's upgrade surge (AKS's default: one more ND96isr_H100_v5, 96
    # vCPUs) does not: 192 + 96 = 288 against a limit of 200
    (finding,) = result.findings
    assert (finding.policy_name, finding.enforcement_level) == (QUOTA_POLICY, "advisory")
    assert finding.message.startswith(
        "westeurope standardNDSH100v5Family: the stack needs up to 288 vCPUs at maximum scale (aks-h100 (pool) 192, "
        "aks-h100 (pool.upgradeSurge) 96); limit 200, in use 0, headroom 200: short by 88 vCPUs."
    )
    a100 = next(f for f in result.families if f.quota == "StandardNCADSA100v4Family")
    assert (a100.needed_max, a100.limit, a100.in_use, a100.headroom, a100.short) == (408, 500, 24, 476, False)
    cores = next(f for f in result.families if f.quota == "cores")
    assert (cores.needed_max, cores.limit, cores.in_use, cores.headroom) == (844, 1000, 24, 976)
    sizes = {s.vm_size: (s.offered, s.restricted, s.zones_offered) for s in result.sizes}
    assert sizes["Standard_NC24ads_A100_v4"] == (True, (), ("1", "2", "3"))


def test_a_shortfall_names_family_numbers_and_pools(prod: QuotaDemand) -> None:
    result = live(prod, "usage_westeurope_shortfall.json", "skus_westeurope.json", level="mandatory")
    finding = next(f for f in result.findings if "StandardNCADSA100v4Family" in f.message)
    assert (finding.policy_name, finding.enforcement_level) == (QUOTA_POLICY, "mandatory")
    assert finding.message.startswith(
        "westeurope StandardNCADSA100v4Family: the stack needs up to 408 vCPUs at maximum scale "
        "(aks-a100mig (pool) 96, aks-a100mig (pool.upgradeSurge) 24, databricks-ml-training (driver) 48, "
        "databricks-ml-training (workers) 192, kaito-mistral-7b (workspace) 24, kaito-phi-4 (workspace) 24); limit "
        "300, in use 24, headroom 276: short by 132 vCPUs. Ask for more: Azure portal > Quotas > Compute"
    )


def test_a_restricted_size_is_its_own_finding(prod: QuotaDemand) -> None:
    result = live(prod, "usage_westeurope.json", "skus_westeurope_restricted.json")
    (finding,) = [f for f in result.findings if f.policy_name != QUOTA_POLICY]  # the H100 surge's shortfall apart
    assert (finding.policy_name, finding.enforcement_level) == (RESTRICTED_POLICY, "advisory")
    assert finding.message.startswith(
        "westeurope Standard_ND96isr_H100_v5: restricted for this subscription (NotAvailableForSubscription); used by "
        "aks-h100 (pool), aks-h100 (pool.upgradeSurge)."
    )


def test_a_zone_mismatch_is_its_own_finding(prod: QuotaDemand) -> None:
    result = live(prod, "usage_westeurope.json", "skus_westeurope_zones.json")
    (finding,) = [f for f in result.findings if f.policy_name != QUOTA_POLICY]  # the H100 surge's shortfall apart
    assert finding.policy_name == ZONES_POLICY
    assert finding.message.startswith(
        "westeurope Standard_NC24ads_A100_v4: zone(s) 3 asked for by aks-a100mig (pool), aks-a100mig "
        "(pool.upgradeSurge) do not offer the size (zones offered: 1, 2; asked: 1, 2, 3)."
    )


def test_a_size_the_region_does_not_list_is_not_offered() -> None:
    demand = quota_demand(
        [RecordedResource(urn="urn:x::p", type=POOL, name="p", inputs={"vmSize": "Standard_NC96ads_A100_v4"})],
        default_region="westeurope",
    )
    result = live(demand, "usage_westeurope.json", "skus_westeurope.json")
    assert [f.policy_name for f in result.findings] == [RESTRICTED_POLICY]
    assert "Standard_NC96ads_A100_v4: not offered in the region" in result.findings[0].message


class _NoCredential:
    def get_token(self, *scopes: str, **kwargs: Any) -> Any:
        raise ClientAuthenticationError(
            "DefaultAzureCredential failed to retrieve a token from the included credentials."
        )


class _NoNetwork(RecordedAdapter):
    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        raise requests.ConnectionError("Name or service not known: management.azure.com")


def test_no_subscription_no_credentials_no_network_api_error_each_one_line(prod: QuotaDemand) -> None:
    assert run_live_check(prod, subscription=None).line == (
        "live quota check did not run: no subscription: set azure-native:subscriptionId in the stack file or "
        "$AZURE_SUBSCRIPTION_ID; the offline result stands"
    )
    adapter = RecordedAdapter(usages={}, skus={})
    no_creds = run_live_check(prod, subscription=SUB, credential=_NoCredential(), transport=recorded_transport(adapter))
    assert not no_creds.ran and no_creds.reason.startswith("no Azure credentials (DefaultAzureCredential failed")
    offline = _NoNetwork(usages={}, skus={})
    no_net = run_live_check(prod, subscription=SUB, credential=StaticToken(), transport=recorded_transport(offline))
    assert not no_net.ran and no_net.reason.startswith("no network (")
    forbidden = RecordedAdapter(usages={}, skus={}, status=403)
    denied = run_live_check(prod, subscription=SUB, credential=StaticToken(), transport=recorded_transport(forbidden))
    assert not denied.ran and denied.reason.startswith("Azure API error 403: ")


def test_subscription_from_the_stack_then_the_environment() -> None:
    assert subscription_from({"azure-native:subscriptionId": " abc "}, {"AZURE_SUBSCRIPTION_ID": "env"}) == "abc"
    assert subscription_from({}, {"AZURE_SUBSCRIPTION_ID": "env"}) == "env"
    assert subscription_from({}, {}) is None


def test_cli_live_mandatory_shortfall_exits_1_and_reports_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_SUBSCRIPTION_ID", SUB)
    args: argparse.Namespace = build_parser().parse_args(["--stack", "prod", "--live", "--live-level", "mandatory"])
    assert args.program == REPO_ROOT
    adapter = RecordedAdapter(
        usages={"westeurope": body("usage_westeurope_shortfall.json")}, skus=body("skus_westeurope_zones.json")
    )
    with open(os.devnull, "w") as quiet, programs_in_process():  # the program in this process (tests/shared_runs.py)
        report = run_preflight(
            args, _Progress(quiet), live_credential=StaticToken(), live_transport=recorded_transport(adapter)
        )
    assert report.exit_code == 1
    assert {v.policy_name for v in report.mandatory} == {QUOTA_POLICY, ZONES_POLICY}
    assert report.live is not None and report.live.ran
    text = render(report, "text")
    assert f"Live quota check: ran for subscription {SUB} in " in text
    zones = next(v for v in report.violations if v.policy_name == ZONES_POLICY)
    assert zones.urn.endswith("AgentPool::aks-a100mig")
    assert "westeurope  StandardNCADSA100v4Family  408            300    24      276       SHORT" in text
    doc = json.loads(render(report, "json"))
    assert doc["quota"]["live"]["families"][0]["short"] is True
    sarif = json.loads(render(report, "sarif"))
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert {QUOTA_POLICY, RESTRICTED_POLICY, ZONES_POLICY} <= rules
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {QUOTA_POLICY, ZONES_POLICY}
