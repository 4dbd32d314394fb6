"""`python -m preflight` end to end: the real program under mocks, the real policy pack over gRPC.

The CLI's contracts (exit codes 0, 1, 2; text, JSON, Markdown, SARIF) each have one run in a real ``python -m
preflight`` process (tests/shared_runs.py, the list in docs/ci.md); the other runs call the CLI's ``main(argv)`` in
this process (:func:`tests.shared_runs.preflight_in_process`), which saves an interpreter and the SDK imports per run.
The raw-program runs are shared per output format.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_catalog import default_catalog
from tests.preflight.sarif_schema import sarif_errors
from tests.shared_runs import (
    Run,
    preflight_in_process,
    preflight_process,
    shared_process_run,
    shared_run,
    shipped_stack_run,
)

REPO = Path(__file__).resolve().parents[2]
RAW = REPO / "tests" / "fixtures" / "raw_program"
RAW_STACK = RAW / "Pulumi.test.yaml"
RAW_PRE = "urn:pulumi:test::raw-gpu-program::"
AMD_URN = f"{RAW_PRE}azure-native:containerservice:AgentPool::amd"
P100_URN = f"{RAW_PRE}azure-native:containerservice:AgentPool::p100"
T4_URN = f"{RAW_PRE}databricks:index/cluster:Cluster::t4-photon"
RAW_STACK_URN = f"{RAW_PRE}pulumi:pulumi:Stack::raw-gpu-program-test"
STACK_FILES = sorted((REPO / "stacks").glob("Pulumi.*.yaml"))

pytestmark = pytest.mark.slow


def price(size: str) -> float:
    value = default_catalog()[size].price_usd_per_hour
    assert value is not None, f"{size} has no indicative price in the catalog"
    return value


def preflight(*args: str, cwd: Path = REPO) -> Run:
    """``python -m preflight <args>`` as the CLI's ``main(argv)`` in this process (see the module docstring)."""
    return preflight_in_process(*args, cwd=cwd)


def raw_run(fmt: str) -> Run:
    """The raw program's report in ``fmt`` (exit 1), once per session: SARIF in a real process (exit 1 and SARIF end
    to end), the others in this process (JSON end to end is dev's report, exit 0)."""
    args = ("--program", str(RAW), "--config-file", str(RAW_STACK), "--format", fmt)
    if fmt == "sarif":
        return shared_process_run(f"raw-{fmt}", *args)
    return shared_run(f"in-process-raw-{fmt}", lambda: preflight_in_process(*args))


@cache
def raw_json() -> dict[str, Any]:
    run = raw_run("json")
    assert run.code == 1, run.stderr
    return json.loads(run.stdout)


# ---------------------------------------------------------------------------------------------------------------------
# the raw program: another team's resources, three GPU guard-rail breaches


def test_raw_program_exits_1_and_reports_each_violation_with_its_urn() -> None:
    doc = raw_json()
    mandatory = {(v["policyName"], v["urn"]) for v in doc["violations"] if v["enforcementLevel"] == "mandatory"}
    assert ("gpu-size-no-nvv4", AMD_URN) in mandatory
    assert ("gpu-size-minimum", P100_URN) in mandatory
    assert ("gpu-size-not-retired", P100_URN) in mandatory
    assert ("databricks-gpu-no-photon", T4_URN) in mandatory
    messages = {(v["policyName"], v["urn"]): v["message"] for v in doc["violations"]}
    assert "Standard_NV32as_v4" in messages[("gpu-size-no-nvv4", AMD_URN)]
    assert "Standard_NC6s_v2" in messages[("gpu-size-minimum", P100_URN)]
    assert "PHOTON" in messages[("databricks-gpu-no-photon", T4_URN)]
    for v in doc["violations"]:
        assert v["policyPackName"] in ("azure-gpu-guardrails", "azure-gpu-platform-preflight")


def test_policy_config_from_the_stack_file_reaches_the_pack() -> None:
    # Pulumi.test.yaml sets raw-gpu-program:policy: {gpu-pool-tainted: disabled}; the pools have no taints.
    assert not [v for v in raw_json()["violations"] if v["policyName"] == "gpu-pool-tainted"]


def test_budget_from_the_stack_file_is_an_advisory_gpu_budget_violation() -> None:
    [budget] = [v for v in raw_json()["violations"] if v["policyName"] == "gpu-budget"]
    assert budget["enforcementLevel"] == "advisory"
    assert budget["urn"] == RAW_STACK_URN
    # at max: 2 x NV32as_v4, 3 x NC6s_v2, 2 + 1 x NC4as_T4_v3 (workers + driver), 730 h
    monthly = 730 * (
        2 * price("Standard_NV32as_v4") + 3 * price("Standard_NC6s_v2") + 3 * price("Standard_NC4as_T4_v3")
    )
    assert budget["message"].startswith(f"Indicative GPU cost can reach ${monthly:,.2f}/month at maximum node counts")
    assert "over the budget of $5,000.00/month" in budget["message"]


def test_json_shape_and_recorded_resources() -> None:
    doc = raw_json()
    assert doc["stack"] == "test"
    assert isinstance(doc["resources"], list) and isinstance(doc["violations"], list)
    for r in doc["resources"]:
        assert set(r) >= {"urn", "type", "name", "parent", "inputs"}
        assert isinstance(r["urn"], str) and "pulumi:pulumi:Stack$" not in r["urn"]
    for v in doc["violations"]:
        assert set(v) >= {"policyName", "policyPackName", "enforcementLevel", "urn", "message"}
    amd = next(r for r in doc["resources"] if r["urn"] == AMD_URN)
    assert amd["parent"] == RAW_STACK_URN
    assert amd["inputs"]["vmSize"] == "Standard_NV32as_v4"
    assert amd["inputs"]["count"] == 2.0
    assert amd["inputs"]["resourceName"] == "rawaks"  # stack config reached the program
    cost = doc["cost"]
    assert set(cost) >= {"currency", "indicative", "hourlyMin", "hourlyMax", "monthlyMin", "monthlyMax", "byResource"}
    assert (cost["currency"], cost["indicative"]) == ("USD", True)
    lines = {(c["urn"], c.get("role")): c for c in cost["byResource"]}
    amd_cost = lines[(AMD_URN, "pool")]
    assert (amd_cost["vmSize"], amd_cost["nodesMin"], amd_cost["nodesMax"]) == ("Standard_NV32as_v4", 2, 2)
    assert amd_cost["hourlyMin"] == pytest.approx(2 * price("Standard_NV32as_v4"))
    p100 = lines[(P100_URN, "pool")]
    assert (p100["nodesMin"], p100["nodesMax"]) == (1, 3)
    assert p100["hourlyMax"] == pytest.approx(3 * price("Standard_NC6s_v2"))
    assert lines[(T4_URN, "workers")]["nodesMax"] == 2
    expected = 2 * price("Standard_NV32as_v4") + 3 * price("Standard_NC6s_v2") + 3 * price("Standard_NC4as_T4_v3")
    assert cost["hourlyMax"] == pytest.approx(expected, abs=1e-3)


def test_sarif_output_validates_and_has_one_rule_per_policy() -> None:
    run = raw_run("sarif")
    assert run.code == 1, run.stderr
    doc = json.loads(run.stdout)
    assert sarif_errors(doc) == []
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids))
    assert {"gpu-size-no-nvv4", "gpu-size-minimum", "gpu-size-not-retired", "databricks-gpu-no-photon"} <= set(ids)
    assert "gpu-budget" in ids
    results = doc["runs"][0]["results"]
    nvv4 = next(r for r in results if r["ruleId"] == "gpu-size-no-nvv4")
    assert nvv4["level"] == "error"
    loc = nvv4["locations"][0]
    assert loc["logicalLocations"][0]["fullyQualifiedName"] == AMD_URN
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == "tests/fixtures/raw_program/__main__.py"
    line = loc["physicalLocation"]["region"]["startLine"]
    assert "Standard_NV32as_v4" in (RAW / "__main__.py").read_text().splitlines()[line - 1]


def test_text_report_to_an_output_file_without_progress_when_not_a_terminal(tmp_path: Path) -> None:
    out = tmp_path / "report" / "raw.txt"
    run = preflight("--program", str(RAW), "--config-file", str(RAW_STACK), "--output", str(out))
    assert run.code == 1, run.stderr
    assert run.stdout == ""  # the report went to the file
    text = out.read_text(encoding="utf-8")
    assert "Mandatory violations" in text and "GPU cost" in text
    assert f"urn: {AMD_URN}" in text
    assert text.rstrip().splitlines()[-1].startswith("Result: FAIL")
    assert "s] running" not in run.stderr  # no progress lines: stderr is a pipe here


# ---------------------------------------------------------------------------------------------------------------------
# exit code 2: invalid config, unreadable program, bad usage


def test_invalid_budget_key_exits_2_naming_file_and_key(tmp_path: Path) -> None:
    stack = tmp_path / "Pulumi.bad.yaml"
    stack.write_text(
        yaml.safe_dump({"config": {"raw-gpu-program:budget": {"monthlyUsd": -1, "currency": "EUR"}}}), encoding="utf-8"
    )
    run = preflight("--program", str(RAW), "--config-file", str(stack))
    assert run.code == 2
    assert run.stdout == ""
    assert run.stderr.splitlines() == [
        f"preflight: error: invalid stack configuration in {stack} (2 problems; keys are under 'raw-gpu-program:'; "
        "nothing was deployed):",
        f"  {stack}: budget.currency: unknown key (allowed: monthlyUsd, enforcementLevel)",
        f"  {stack}: budget.monthlyUsd: must be a number greater than 0, got -1",
    ]


def test_unknown_policy_in_policy_config_exits_2_naming_file_and_key(tmp_path: Path) -> None:
    stack = tmp_path / "Pulumi.bad.yaml"
    stack.write_text(yaml.safe_dump({"config": {"raw-gpu-program:policy": {"gpu-size-minimun": "mandatory"}}}))
    run = preflight("--program", str(RAW), "--config-file", str(stack))
    assert run.code == 2
    assert run.stderr.splitlines() == [
        f"preflight: error: invalid stack configuration in {stack} (1 problem; keys are under 'raw-gpu-program:'; "
        "nothing was deployed):",
        f"  {stack}: policy.gpu-size-minimun: no such policy in policy pack 'azure-gpu-guardrails'; did you mean "
        "'gpu-size-minimum'?",
    ]


def test_program_that_is_not_a_program_exits_2(tmp_path: Path) -> None:
    run = preflight_process("--program", str(tmp_path), "--config-file", str(RAW_STACK))  # exit 2 end to end
    assert run.code == 2
    assert f"preflight: error: {tmp_path}: no Pulumi.yaml (not a Pulumi program directory)" in run.stderr


@cache
def _usage_run(args: tuple[str, ...]) -> Run:
    """One run per distinct argument list (two cases read the same run)."""
    return preflight(*args)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--format", "xml"], "invalid choice: 'xml'"),
        (["--stack", "dev", "--config-file", "x.yaml"], "not allowed with argument"),
        # No stack file: the program runs with empty config, as Pulumi would, and ours refuses that config.
        (["--stack", "nope"], "the program ran with empty stack config"),
        (["--stack", "nope"], "stacks/Pulumi.nope.yaml: environment: required key is missing."),
        (["--stack", "../etc/x"], "--stack '../etc/x': a stack name is letters, digits"),
    ],
)
def test_bad_usage_exits_2(args: list[str], needle: str) -> None:
    run = _usage_run(tuple(args))
    assert run.code == 2
    assert needle in run.stderr


# ---------------------------------------------------------------------------------------------------------------------
# this repository's program and stacks


def _needs_program() -> None:
    if not (REPO / "__main__.py").is_file() or not STACK_FILES:
        pytest.skip("the repository's program (__main__.py) and stacks/ are not present yet")


@pytest.mark.parametrize("stack_file", STACK_FILES, ids=[p.name for p in STACK_FILES])
def test_every_stack_passes(stack_file: Path) -> None:
    _needs_program()
    stack = stack_file.name[len("Pulumi.") : -len(".yaml")]
    run = shipped_stack_run(stack, "json")  # run once per session, shared with the quota tests
    assert run.code == 0, run.stderr + run.stdout[-3000:]
    doc = json.loads(run.stdout)
    assert doc["stack"] == stack
    assert not [v for v in doc["violations"] if v["enforcementLevel"] == "mandatory"]
    assert any(r["type"] == "azure-native:containerservice:AgentPool" for r in doc["resources"])
    assert doc["cost"]["byResource"], "every stack has at least one priced GPU pool"
    if stack == "prod":  # issue 12: the guard rails outside Pulumi, deployed by the stack
        types = {r["type"] for r in doc["resources"]}
        assert {
            "azure-native:authorization:PolicyDefinition",
            "azure-native:authorization:PolicyAssignment",
            "databricks:index/clusterPolicy:ClusterPolicy",
        } <= types


def test_invalid_key_in_a_stack_file_exits_2_naming_file_and_key(tmp_path: Path) -> None:
    _needs_program()
    doc = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    doc["config"]["azure-gpu-platform:gpuPoolz"] = [{"name": "t4", "vmSize": "Standard_NC4as_T4_v3"}]
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    run = preflight("--config-file", str(stack))
    assert run.code == 2, run.stdout
    assert str(stack) in run.stderr
    assert "gpuPoolz" in run.stderr
    assert run.stdout == ""


def test_program_without_a_stack_file_runs_with_empty_config(tmp_path: Path) -> None:
    program = tmp_path / "raw"
    program.mkdir()
    for name in ("Pulumi.yaml", "__main__.py"):
        (program / name).write_text((RAW / name).read_text(encoding="utf-8"), encoding="utf-8")
    run = preflight("--program", str(program), "--stack", "ci", "--format", "json")
    assert run.code == 1, run.stderr  # the program's own violations, not a usage error
    doc = json.loads(run.stdout)
    assert doc["stack"] == "ci" and doc["stackFile"] is None
    assert doc["warnings"][0] == (
        f"no stack file {program / 'Pulumi.ci.yaml'}: the program ran with empty stack config (and Pulumi.yaml "
        "defaults), as `pulumi preview --stack ci` does for a stack without one"
    )
    assert {v["policyName"] for v in doc["violations"]} >= {"gpu-size-no-nvv4", "gpu-size-not-retired"}


def test_a_stack_fails_its_preflight_on_the_day_its_kubernetes_version_expires() -> None:
    # Our program refuses the stack file itself (exit 2, invalid config) ...
    ours = preflight("--stack", "dev", "--today", "2027-07-01")
    assert ours.code == 2
    assert (
        "stacks/Pulumi.dev.yaml: cluster.kubernetesVersion: Kubernetes 1.36 can no longer be created on AKS: its end "
        "of life was 2027-06-30 (today is 2027-07-01)"
    ) in ours.stderr
    # ... and the policy pack refuses another team's raw program on the same day (exit 1).
    raw = preflight("--program", str(RAW), "--config-file", str(RAW_STACK), "--format", "json", "--today", "2027-07-01")
    assert raw.code == 1, raw.stderr
    doc = json.loads(raw.stdout)
    assert doc["checkedOn"] == "2027-07-01"
    version = [v for v in doc["violations"] if v["policyName"] == "aks-kubernetes-version-supported"]
    assert [v["urn"] for v in version] == [f"{RAW_PRE}azure-native:containerservice:ManagedCluster::aks"]
    assert version[0]["enforcementLevel"] == "mandatory"


def test_bad_today_exits_2() -> None:
    run = preflight("--stack", "dev", "--today", "next week")
    assert run.code == 2
    assert run.stderr == "preflight: error: --today 'next week': expected a date YYYY-MM-DD\n"


# ------------------------------------------------------------------ issue 10: every mistake of a file in one run


def test_every_problem_of_the_file_in_one_list_whoever_finds_it(tmp_path: Path) -> None:
    """A duplicate key (the reader), a budget and a policy mistake (the preflight) and pool mistakes (the program):
    one refusal, one format, nothing hidden behind the first error."""
    dev = (REPO / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
    text = (
        dev.replace("monthlyUsd: 1500", "monthlyUsd: -1")
        .replace("      spot: true\n", "      spot: true\n      spot: false\n")
        .replace("      vmSize: Standard_NC4as_T4_v3\n", "      vmSize: Standard_NV32as_v4\n")
        .replace("  azure-gpu-platform:location: westeurope\n", "  azure-gpu-platform:location: westeurpoe\n")
        + "  azure-gpu-platform:policy:\n    gpu-size-minimun: mandatory\n"
    )
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text(text, encoding="utf-8")
    run = preflight("--config-file", str(stack))
    assert run.code == 2
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert lines[0] == (
        f"preflight: error: invalid stack configuration in {stack} (6 problems; keys are under 'azure-gpu-platform:'; "
        "nothing was deployed):"
    )
    paths = [line.removeprefix(f"  {stack}: ").split(": ", 1)[0] for line in lines[1:]]
    # The program's problems first (shape, then the rules), then the preflight's on keys not yet named.
    assert paths == [
        "location",
        "gpuPools[0].vmSize",
        "gpuPools[0].vmSize",
        "budget.monthlyUsd",
        "gpuPools[0].spot",
        "policy.gpu-size-minimun",
    ], lines
    assert lines[5] == (
        f"  {stack}: gpuPools[0].spot: duplicate key: line 34 sets it to true and line 35 again to false; Pulumi "
        "refuses a stack file with a duplicate key. Keep one."
    )
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    ("mutate", "line"),
    [
        (
            lambda text: text.encode("utf-16"),
            "(encoding): the file is UTF-16 (it starts with a UTF-16 byte-order mark); Pulumi reads stack files as "
            "UTF-8. Save it as UTF-8 (with or without BOM) and run again.",
        ),
        (
            lambda text: text.replace("azure-gpu-platform:gpuPools", "azure-gpu-platfrom:gpuPools").encode(),
            "azure-gpu-platfrom:gpuPools: namespace 'azure-gpu-platfrom' is not this project's ('azure-gpu-platform'): "
            "Pulumi hands this key to no one, so its value would be ignored and the next `pulumi up` would delete "
            "what it used to declare. Write it as 'azure-gpu-platform:gpuPools'.",
        ),
    ],
    ids=["utf-16", "misspelled-namespace"],
)
def test_unreadable_or_ignored_sections_exit_2_in_one_line(tmp_path: Path, mutate: Any, line: str) -> None:
    dev = (REPO / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_bytes(mutate(dev))
    run = preflight("--config-file", str(stack))
    assert (run.code, run.stdout) == (2, "")
    assert run.stderr.splitlines() == [
        f"preflight: error: invalid stack configuration in {stack} (1 problem; keys are under 'azure-gpu-platform:'; "
        "nothing was deployed):",
        f"  {stack}: {line}",
    ]


def test_keys_nobody_reads_are_warned_about_in_the_report(tmp_path: Path) -> None:
    dev = (REPO / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text(
        dev.replace("  azure-native:location:", "  acme:team: ml\n  azure-native:locaton:"), encoding="utf-8"
    )
    run = preflight("--config-file", str(stack), "--format", "json")
    assert run.code == 0, run.stderr
    warnings = json.loads(run.stdout)["warnings"]
    # the stack file's own warnings (dev's hardening advisories, issue 29, follow them)
    assert [w for w in warnings if w.startswith(f"{stack}: ")] == [
        f"{stack}: acme:team: no provider or part of this program reads this key, it is ignored. Keys of this "
        "project are under 'azure-gpu-platform:'.",
        f"{stack}: azure-native:locaton: the azure-native provider has no config key 'locaton', it is ignored; did "
        "you mean 'azure-native:location'?",
    ]
    advisories = [w for w in warnings if w.startswith("AksGpuCluster 'aks-gpu-dev': ")]
    assert [w.split(": ", 1)[1].split(":")[0] for w in advisories] == [
        "the Kubernetes API server is open to the internet",
        "Run Command is enabled",
        "SSH is on for the nodes of system, t4",
        "Image Cleaner is off",
        "no diagnostic setting sends the cluster's control-plane logs anywhere, and AKS keeps none itself",
        "no network policy engine",
        "no Container Insights",
        "encryption at host is off on system, t4",
    ]
