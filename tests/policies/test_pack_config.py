"""Issue 40, one exemption for every engine: ``python -m preflight.pack_config`` writes the file ``pulumi up
--policy-pack-config`` reads, and the pack configured with exactly that file judges the stack as the preflight does.

The preflight runs in-process (``tests/shared_runs.preflight_in_process``: its program in this process, its pack the
session's); the pack judged with the generated file is the session's too (``tests/policies/conftest.py``), configured
with that file as the engine would (``Configure``). Today is the suite's (``AGP_TODAY=2026-11-30``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from preflight import pack_config as cmd
from preflight.analyzer.client import PolicyPackProcess
from preflight.model import RecordedResource
from tests.shared_runs import PooledPackProcess, preflight_in_process

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "exemptions" / "Pulumi.legacy-t4.yaml"
RAW = REPO / "tests" / "fixtures" / "raw_program"
TODAY = "2026-11-30"
PREFLIGHT_ONLY = {"gpu-budget", "exemption-expiring"}
"""Policies of the preflight's own (budget, exemptions ending soon): not the pack's."""
REASON = "The legacy scorer needs CUDA 11 on T4 until its port to A100 (ML-1234), due in January."


@pytest.fixture(autouse=True)
def pooled_pack(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command reads the pack's policies and schemas from a running pack: the worker's pooled one (the session's
    on the suite's day, ``tests/shared_runs.py``) rather than a new process per run."""
    monkeypatch.setattr(cmd, "PolicyPackProcess", PooledPackProcess)


def generate(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "pack-config.json"
    assert cmd.main([*args, "--out", str(out), "--today", TODAY]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def preflight_json(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "report.json"
    run = preflight_in_process(*args, "--format", "json", "--output", str(out), "--today", TODAY)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert run.code == (1 if report["summary"]["mandatory"] else 0), run.stderr
    return report


def recorded(report: dict[str, Any]) -> list[RecordedResource]:
    keys = ("urn", "type", "name", "inputs", "parent", "custom", "provider", "dependencies", "protect")
    return [RecordedResource(**{k: r[k] for k in keys}) for r in report["resources"]]


def pack_verdict(pack: PolicyPackProcess, config: dict[str, Any], report: dict[str, Any]) -> dict[tuple, str]:
    """``(policy, urn, level)`` → message of the pack's verdict on the preflight's resources under ``config``."""
    pack.configure(config)
    resources = recorded(report)
    pack.know_providers(resources)
    analysis = pack.analyze_many(resources)
    analysis.extend(pack.analyze_stack(resources))
    return {(v.policy_name, v.urn, v.enforcement_level): v.message for v in analysis.violations}


def preflight_verdict(report: dict[str, Any]) -> dict[tuple, str]:
    return {
        (v["policyName"], v["urn"], v["enforcementLevel"]): v["message"]
        for v in report["violations"]
        if v["policyName"] not in PREFLIGHT_ONLY
    }


def test_the_generated_file_is_the_shape_the_engine_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert generate(tmp_path, "--config-file", str(EXAMPLE)) == {
        "gpu-size-minimum": {
            "minimumSize": "Standard_NC24ads_A100_v4",
            "exemptions": [
                {
                    "resource": "aks-t4",
                    "reason": REASON,
                    "owner": "ml-platform@contoso.com",
                    "expires": "2027-01-15",
                    "category": "Waiver",
                }
            ],
        }
    }


def test_the_pack_under_the_generated_file_agrees_with_the_preflight_on_the_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, preview_pack: PolicyPackProcess
) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("AGP_TODAY", TODAY)
    config = generate(tmp_path, "--config-file", str(EXAMPLE))
    report = preflight_json(tmp_path, "--config-file", str(EXAMPLE))
    before = len(preview_pack.logs)
    verdict = pack_verdict(preview_pack, config, report)
    assert verdict == preflight_verdict(report)
    t4 = next(r["urn"] for r in report["resources"] if r["name"] == "aks-t4" and r["type"].endswith(":AgentPool"))
    cluster = next(r["urn"] for r in report["resources"] if r["type"].endswith(":ManagedCluster"))
    a100 = next(r["urn"] for r in report["resources"] if r["name"] == "aks-a100" and r["type"].endswith(":AgentPool"))
    # advisories only: the T4 pool's idle cost, and Microsoft's built-in AKS definitions the example (a dev cluster)
    # leaves at AKS's defaults (docs/security-checks.md)
    assert set(verdict) == {
        ("gpu-pool-idle-minimum", t4, "advisory"),
        ("aks-node-ssh-disabled", t4, "advisory"),
        ("aks-node-ssh-disabled", a100, "advisory"),
        ("aks-node-ssh-disabled", cluster, "advisory"),
        ("aks-run-command-disabled", cluster, "advisory"),
        ("aks-image-cleaner-enabled", cluster, "advisory"),
        ("aks-control-plane-logs", cluster, "advisory"),
    }
    # the one exempted violation: not counted by the preflight, not reported by the pack, logged on the pool
    assert [(x["policyName"], x["urn"]) for x in report["exemptedViolations"]] == [("gpu-size-minimum", t4)]
    logged = [m for m in preview_pack.logs[before:] if m.urn == t4 and "exempted from gpu-size-minimum" in m.message]
    assert len(logged) == 1 and logged[0].severity == "warning"
    assert f"exempted from gpu-size-minimum: {REASON} (owner ml-platform@contoso.com; expires 2027-01-15" in (
        logged[0].message
    )
    # without the file (what the deploy guide did before: only the policy key), the pack refuses the pool
    unexempted = pack_verdict(preview_pack, {"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}}, report)
    assert ("gpu-size-minimum", t4, "mandatory") in unexempted


def raw_stack(tmp_path: Path, *entries: dict[str, Any]) -> Path:
    doc = yaml.safe_load((RAW / "Pulumi.test.yaml").read_text(encoding="utf-8"))
    doc["config"]["raw-gpu-program:exemptions"] = list(entries)
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def test_an_expired_exemption_is_named_alike_by_the_pack_and_the_preflight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, preview_pack: PolicyPackProcess
) -> None:
    monkeypatch.setenv("AGP_TODAY", TODAY)
    stack = raw_stack(
        tmp_path,
        {
            "policy": "gpu-size-minimum",
            "resource": "p100",
            "reason": "P100 pool kept for the legacy scorer",
            "owner": "ml-platform@contoso.com",
            "expires": TODAY,  # expired today: it no longer applies
        },
    )
    args = ("--program", str(RAW), "--config-file", str(stack))
    config = generate(tmp_path, *args)
    assert config == {
        "gpu-pool-tainted": "disabled",
        "gpu-size-minimum": {
            "exemptions": [
                {
                    "resource": "p100",
                    "reason": "P100 pool kept for the legacy scorer",
                    "owner": "ml-platform@contoso.com",
                    "expires": "2026-11-30",
                    "category": "Waiver",
                }
            ]
        },
    }
    report = preflight_json(tmp_path, *args)
    verdict = pack_verdict(preview_pack, config, report)
    assert verdict == preflight_verdict(report)  # the same violations, the same messages
    (message,) = [m for (policy, urn, _), m in verdict.items() if policy == "gpu-size-minimum" and urn.endswith("p100")]
    assert message.endswith(
        "[the exemption of gpu-size-minimum for p100 (owner ml-platform@contoso.com) expired on 2026-11-30: from that "
        "day it no longer waives this violation; fix the resource or renew the exemption with a new reason and expiry "
        "date]"
    )


def test_a_refused_stack_file_writes_nothing_and_names_every_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = raw_stack(
        tmp_path,
        {
            "policy": "gpu-size-minimun",
            "resource": "p100",
            "reason": "too short",
            "owner": "x",
            "expires": "2027-01-15",
        },
        {"policy": "gpu-size-minimum", "resource": "p100", "reason": "P100 pool kept", "owner": "x", "expires": "2028"},
    )
    out = tmp_path / "pack-config.json"
    code = cmd.main(["--program", str(RAW), "--config-file", str(stack), "--out", str(out), "--today", TODAY])
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert f"pack_config: error: invalid stack configuration in {stack} (3 problems; keys are under " in err
    assert (
        f"  {stack}: exemptions[0].policy: 'gpu-size-minimun' is not a policy of the pack (did you mean "
        "'gpu-size-minimum'?); allowed: "
    ) in err
    assert f"  {stack}: exemptions[0].reason: must say why this resource may break the rule (at least 10 " in err
    assert f"  {stack}: exemptions[1].expires: must be a date YYYY-MM-DD; got '2028'" in err
