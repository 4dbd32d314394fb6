"""Issue 25 end to end: the stack file's ``exemptions`` through the preflight's CLI (the program under mocks, the
real pack over gRPC), for a raw program and for a stack of this platform, with concrete dates (``--today``). The
Markdown report is the CLI's one Markdown run in a real ``python -m preflight`` process; the others run ``main(argv)``
in this process (tests/shared_runs.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.preflight.sarif_schema import sarif_errors
from tests.preflight.test_cli import P100_URN, RAW, RAW_STACK, REPO, Run, preflight
from tests.shared_runs import preflight_process

pytestmark = pytest.mark.slow

EXAMPLE = REPO / "examples" / "exemptions" / "Pulumi.legacy-t4.yaml"
T4_POOL = (
    "urn:pulumi:legacy-t4::azure-gpu-platform::azure-gpu-platform:components:AksGpuCluster$"
    "azure-gpu-platform:components:GpuNodePool$azure-native:containerservice:AgentPool::aks-t4"
)
REASON = "P100 pool kept for the legacy scorer until the January migration"


def raw_stack(tmp_path: Path, *entries: dict[str, Any], **extra: Any) -> Path:
    doc = yaml.safe_load(RAW_STACK.read_text(encoding="utf-8"))
    doc["config"]["raw-gpu-program:exemptions"] = list(entries)
    doc["config"].update({f"raw-gpu-program:{k}": v for k, v in extra.items()})
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def entry(**changes: Any) -> dict[str, Any]:
    return {
        "policy": "gpu-size-minimum",
        "resource": "p100",
        "reason": REASON,
        "owner": "ml-platform@contoso.com",
        "expires": "2027-01-15",
        **changes,
    }


def run_raw(stack: Path, fmt: str, today: str = "2026-11-30") -> Run:
    return preflight("--program", str(RAW), "--config-file", str(stack), "--format", fmt, "--today", today)


def keys(violations: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(v["policyName"], v["urn"]) for v in violations}


def test_raw_program_an_exempted_violation_is_shown_not_counted_and_the_rest_stays_mandatory(tmp_path: Path) -> None:
    run = run_raw(raw_stack(tmp_path, entry()), "json")
    assert run.code == 1, run.stderr  # the P100 pool is still retired, the AMD pool still NVv4
    doc = json.loads(run.stdout)
    assert ("gpu-size-minimum", P100_URN) not in keys(doc["violations"])
    assert ("gpu-size-not-retired", P100_URN) in keys(doc["violations"])
    assert [(x["policyName"], x["urn"], x["enforcementLevel"]) for x in doc["exemptedViolations"]] == [
        ("gpu-size-minimum", P100_URN, "mandatory")
    ]
    assert doc["exemptions"] == [
        {
            "policy": "gpu-size-minimum",
            "resource": "p100",
            "reason": REASON,
            "owner": "ml-platform@contoso.com",
            "expires": "2027-01-15",
            "category": "Waiver",
            "daysLeft": 46,
            "status": "active",
        }
    ]


def test_raw_program_sarif_carries_the_exempted_violation_as_an_external_suppression(tmp_path: Path) -> None:
    run = run_raw(raw_stack(tmp_path, entry()), "sarif")
    assert run.code == 1, run.stderr
    doc = json.loads(run.stdout)
    assert sarif_errors(doc) == []
    results = doc["runs"][0]["results"]
    suppressed = [r for r in results if r.get("suppressions")]
    assert [(r["ruleId"], r["properties"]["urn"]) for r in suppressed] == [("gpu-size-minimum", P100_URN)]
    assert suppressed[0]["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": REASON,
            "properties": {
                "owner": "ml-platform@contoso.com",
                "expires": "2027-01-15",
                "daysLeft": 46,
                "category": "Waiver",
                "resource": "p100",
            },
        }
    ]
    assert any(r["ruleId"] == "gpu-size-not-retired" and not r.get("suppressions") for r in results)


def test_raw_program_on_the_expiry_date_the_violation_is_back(tmp_path: Path) -> None:
    run = run_raw(raw_stack(tmp_path, entry()), "json", today="2027-01-15")
    assert run.code == 1, run.stderr
    doc = json.loads(run.stdout)
    assert ("gpu-size-minimum", P100_URN) in keys(doc["violations"])
    assert doc["exemptedViolations"] == []
    assert doc["exemptions"][0]["status"] == "expired" and doc["exemptions"][0]["daysLeft"] == 0


def test_malformed_entries_are_each_refused_with_the_key_and_the_allowed_values(tmp_path: Path) -> None:
    stack = raw_stack(
        tmp_path,
        entry(policy="gpu-size-minimun"),
        entry(reason=""),
        entry(expires="2027-07-01"),
        entry(resource="urn:pulumi:*::*::*::*"),
        exemptionMaxDays=180,
    )
    run = run_raw(stack, "text")
    assert run.code == 2, run.stdout
    lines = [line.strip() for line in run.stderr.splitlines()]
    label = f"{stack}: "
    assert any(
        line.startswith(
            f"{label}exemptions[0].policy: 'gpu-size-minimun' is not a policy of the pack (did you mean "
            "'gpu-size-minimum'?); allowed: aks-control-plane-logs, aks-cost-analysis-requires-paid-tier, "
        )
        for line in lines
    ), run.stderr
    assert (
        f"{label}exemptions[1].reason: must say why this resource may break the rule (at least 10 characters); got ''"
        in lines
    )
    assert (
        f"{label}exemptions[2].expires: 2027-07-01 is 213 days ahead; allowed: at most 180 days ahead (on or before "
        "2027-05-29); renew it when it runs out"
    ) in lines
    assert any(
        line.startswith(f"{label}exemptions[3].resource: 'urn:pulumi:*::*::*::*': the resource name must be literal")
        for line in lines
    )


def test_an_exemption_that_matches_no_resource_is_refused(tmp_path: Path) -> None:
    run = run_raw(raw_stack(tmp_path, entry(resource="p200")), "text")
    assert run.code == 2, run.stdout
    # the closest name is offered; the names are the program's resources, not the engine's default providers
    assert (
        f"{tmp_path / 'Pulumi.test.yaml'}: exemptions[0].resource: 'p200' matches no resource of the stack (did you "
        "mean 'p100'?); allowed: a resource's name or URN (names: aks, amd, p100, rg, t4-photon)\n"
    ) in run.stderr
    assert "default_" not in run.stderr


# ---------------------------------------------------------------------------------------------------------------------
# a stack of this platform (examples/exemptions/Pulumi.legacy-t4.yaml)


def test_stack_with_an_active_exemption_passes_and_lists_it() -> None:
    run = preflight("--config-file", str(EXAMPLE), "--today", "2026-11-30")
    assert run.code == 0, run.stderr + run.stdout
    assert "Exemptions (1 active, 0 expired)" in run.stdout
    assert (
        "  · [gpu-size-minimum] aks-t4 (Waiver): The legacy scorer needs CUDA 11 on T4 until its port to A100 "
        "(ML-1234), due in January. (owner ml-platform@contoso.com; expires 2027-01-15, 46 days left)"
    ) in run.stdout
    assert f"    - [gpu-size-minimum] {T4_POOL}: vmSize: Standard_NC4as_T4_v3 " in run.stdout
    # the violations left are advisory: the fixed one-node T4 pool's idle cost, and Microsoft's built-in AKS
    # definitions the example's cluster leaves at AKS's defaults (docs/security-checks.md)
    assert "Advisory violations (7)\n" in run.stdout
    assert "  ! [gpu-pool-idle-minimum] AgentPool aks-t4" in run.stdout
    assert "Mandatory violations" not in run.stdout


def test_stack_with_an_exemption_ending_soon_gets_an_advisory_finding() -> None:
    run = preflight_process("--config-file", str(EXAMPLE), "--today", "2027-01-05", "--format", "markdown")
    assert run.code == 0, run.stderr
    assert "| advisory | `exemption-expiring` |" in run.stdout
    assert "the exemption of gpu-size-minimum for aks-t4 ends on 2027-01-15 (10 days left; owner " in run.stdout
    assert "| `gpu-size-minimum` | `aks-t4` | expiring | 10 | The legacy scorer needs CUDA 11" in run.stdout


def test_stack_on_the_expiry_date_is_refused_again_by_the_floor() -> None:
    """What the example's comment says: from 2027-01-15 the preflight exits 2 (the stack config refuses the pool
    before anything runs) and the refusal names the expired entry with its date."""
    run = preflight("--config-file", str(EXAMPLE), "--today", "2027-01-15")
    assert run.code == 2, run.stdout
    assert (
        "gpuPools[1].vmSize: Standard_NC4as_T4_v3 (NVIDIA Tesla T4 16 GiB, 1 GPU) is below the GPU floor" in run.stderr
    )
    assert (
        "Pulumi.legacy-t4.yaml: exemptions[0].expires: the exemption of gpu-size-minimum for aks-t4 (owner "
        "ml-platform@contoso.com) expired on 2027-01-15, so it no longer waives gpuPools[1] (t4), which "
        "gpu-size-minimum refuses (gpuPools[1].vmSize); allowed: fix the pool, or renew the exemption with a new "
        "reason and an expiry date in the future\n"
    ) in run.stderr
    assert "(2 problems;" in run.stderr
    comment = EXAMPLE.read_text(encoding="utf-8")
    assert "`preflight` exits 2" in comment and "exits 1" not in comment
