"""Issue 27, item 5: the remaining bad-input classes, each with a concrete stack-file mistake, refused (or warned) on
the key written, with the allowed values, in one run with the others."""

from __future__ import annotations

import copy
import resource
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_catalog.clock import TODAY_ENV
from preflight.stackfile import MAX_EXPANDED_NODES, StackFileError, parse, read_stack_file
from rules.databricks_facts import runtime_support_problem
from stack_config import validate_stack_config
from stack_config.inert import inert_settings
from stack_config.loading import config_from_stack_yaml
from tests.components.harness import stack_config
from tests.components.test_deployable import T4, config, problems
from tests.preflight.test_cli import preflight

WINDOWS_137 = (
    "Windows2022 (Windows Server 2022) is not supported on Kubernetes 1.37: AKS supports it up to 1.36 (Azure/AKS "
    "CHANGELOG.md, release notes 2026-06-19). Allowed: Kubernetes 1.36 or earlier on this pool (orchestratorVersion), "
    "or a Linux pool (Windows Server 2025 is not an osSKU of the API version the program uses)."
)


def _prod() -> dict[str, Any]:
    return config_from_stack_yaml(stack_config("prod"))


# ----------------------------------------------------------------------------------------- YAML booleans as numbers


def test_yaml_booleans_where_numbers_are_read_are_refused_everywhere_in_one_run() -> None:
    data = config(
        gpuPools=[{**T4, "minCount": True, "maxCount": 2, "sharing": {"timeSlicing": {"replicas": True}}}],
        gpuNodePools=[{"name": "infer", "gpuModels": ["T4"], "limits": {"gpus": False}}],
        kaito={
            "enabled": True,
            "workspaces": [
                {
                    "name": "phi",
                    "preset": "phi-4-mini-instruct",
                    "instanceType": "Standard_NV36ads_A10_v5",
                    "count": True,
                }
            ],
        },
    )
    data["cluster"]["access"]["propagationWaitSeconds"] = True
    found = problems(data)
    expected = "must be a number, got the YAML boolean {b} (it would be read as {n}); write the number itself."
    for key, b, n in [
        ("gpuPools[0].minCount", "true", 1),
        ("gpuPools[0].sharing.timeSlicing.replicas", "true", 1),
        ("gpuNodePools[0].limits.gpus", "false", 0),
        ("kaito.workspaces[0].count", "true", 1),
        ("cluster.access.propagationWaitSeconds", "true", 1),
    ]:
        assert found[key] == expected.format(b=b, n=n), key


def test_a_real_boolean_switch_still_takes_a_boolean() -> None:
    cfg = validate_stack_config(config(gpuPools=[{**T4, "spot": True}]), stack_file="stacks/Pulumi.dev.yaml")
    assert cfg.gpuPools[0].spot is True


# ---------------------------------------------------------------------------- settings that do nothing (warnings)


def test_settings_without_their_switch_are_warned_about_naming_key_and_switch() -> None:
    data = config(
        azurePolicy={"effect": "Deny", "scope": "subscription"},
        gpuOperator={"enabled": False, "migStrategy": "mixed"},
    )
    data["cluster"]["access"].update({"grantDeployer": False, "propagationWaitSeconds": 60})
    cfg = validate_stack_config(data, stack_file="stacks/Pulumi.dev.yaml")
    assert inert_settings(cfg) == [
        "azurePolicy.effect, azurePolicy.scope do nothing while azurePolicy.enabled is false: no Azure Policy "
        "definition or assignment is created. Set azurePolicy.enabled: true to use them, or remove them.",
        "gpuOperator.migStrategy does nothing while gpuOperator.enabled is false: the GPU operator chart is not "
        "installed. Set gpuOperator.enabled: true to use it, or remove it.",
        "cluster.access.deployerPrincipalType, cluster.access.propagationWaitSeconds do nothing while "
        "cluster.access.grantDeployer is false: no role assignment is created for the deploying identity (and none "
        "for admin groups: the list is empty). Set cluster.access.grantDeployer: true to use them, or remove them.",
    ]


def test_the_three_stacks_have_no_inert_setting() -> None:
    for stack in ("dev", "staging", "prod"):
        data = config_from_stack_yaml(stack_config(stack))
        assert inert_settings(validate_stack_config(data, stack_file=stack)) == [], stack


# ----------------------------------------------------------------------------- dated facts: Databricks runtimes


def test_a_databricks_runtime_past_its_end_of_support_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _prod()
    cluster = copy.deepcopy(data["databricks"]["clusters"][0])
    cluster.pop("kind", None)
    data["databricks"]["clusters"] = [{**cluster, "sparkVersion": "13.3.x-gpu-ml-scala2.12"}]
    found = problems(data)
    assert found["databricks.clusters[0].sparkVersion"] == (
        "13.3.x-gpu-ml-scala2.12: Databricks Runtime 13.3 reached its end of support on 2026-08-22 (today is "
        "2026-11-30; gpu_catalog/facts/databricks.json). Use a supported LTS release: 18, 17.3, 16.4, 15.4, 14.3."
    )
    # 14.3 LTS is supported today and ends 2027-02-01: the same key is refused from that day.
    assert runtime_support_problem("14.3.x-gpu-ml-scala2.12", _day("2027-01-31")) is None
    assert runtime_support_problem("14.3.x-gpu-ml-scala2.12", _day("2027-02-01")) == (
        "14.3.x-gpu-ml-scala2.12: Databricks Runtime 14.3 reached its end of support on 2027-02-01 (today is "
        "2027-02-01; gpu_catalog/facts/databricks.json). Use a supported LTS release: 18, 17.3, 16.4, 15.4."
    )
    assert runtime_support_problem("11.3.x-gpu-ml-scala2.12", _day("2026-11-30")) == (
        "11.3.x-gpu-ml-scala2.12: Databricks Runtime 11.3 is older than every release the facts list as supported "
        "(gpu_catalog/facts/databricks.json): past its end of support. Use a supported LTS release: 18, 17.3, 16.4, "
        "15.4, 14.3."
    )


def _day(iso: str) -> Any:
    from datetime import date

    return date.fromisoformat(iso)


# ---------------------------------------------------------------------------------- node OS against Kubernetes


def test_windows_server_2022_is_refused_from_kubernetes_1_37() -> None:
    win = {"name": "win", "vmSize": "Standard_NC4as_T4_v3", "count": 1, "os": "Windows"}
    data = config(gpuPools=[{**win, "osSku": "Windows2022"}])
    data["cluster"]["kubernetesVersion"] = "1.37"
    assert problems(data)["gpuPools[0].osSku"] == WINDOWS_137
    # The user wrote only `os: Windows`: the refusal names that key, not the osSku they never wrote.
    data["gpuPools"] = [win]
    found = problems(data)
    assert "gpuPools[0].osSku" not in found
    assert found["gpuPools[0].os"] == WINDOWS_137


def test_ubuntu_22_04_is_refused_from_2027_06_30_wherever_a_pool_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    data = config(gpuPools=[{**T4, "osSku": "Ubuntu2204"}])
    data["cluster"]["systemPool"] = {"osSku": "Ubuntu2204"}
    assert validate_stack_config(copy.deepcopy(data), stack_file="stacks/Pulumi.dev.yaml")  # 2026-11-30: still fine
    monkeypatch.setenv(TODAY_ENV, "2027-06-30")
    found = problems(data)
    message = (
        "Ubuntu2204 (Ubuntu 22.04): AKS creates no new node pools with it from 2027-06-30 (Azure/AKS CHANGELOG.md, "
        "release notes 2026-04-02); today is 2027-06-30. Allowed: osSku Ubuntu (Ubuntu 24.04 from Kubernetes 1.34) or "
        "AzureLinux."
    )
    assert found["gpuPools[0].osSku"] == message
    assert found["cluster.systemPool.osSku"] == message


# --------------------------------------------------------------------------------- pinned chart versions, no pool


def test_an_unknown_pinned_gpu_operator_version_is_refused_with_no_pool_using_it() -> None:
    data = config(gpuPools=[], gpuOperator={"enabled": True, "version": "v99.1.0"})
    assert problems(data)["gpuOperator.version"] == (
        "GPU operator v99.1.0 is not a release this project has checked against NVIDIA's platform support matrix "
        "(known: v25.3.4, v25.10.1, v26.3.3, v26.7.0; default v26.7.0). Pin one of them, or add the release with its "
        "validated Kubernetes range to gpu_catalog/facts/gpu_operator.json."
    )
    data = config(gpuOperator={"enabled": False, "version": "v99.1.0"})
    assert "gpuOperator.version" in problems(data)  # off, but pinned: refused all the same
    data = config(gpuPools=[], devicePlugin={"version": "0.99.0"})
    assert problems(data)["devicePlugin.version"] == (
        "'0.99.0' is not a chart version the facts were read at (gpu_catalog/facts/device_plugins.json). "
        "Allowed: 0.20.0."
    )


# ------------------------------------------------------------------------------------------- YAML alias expansion


def _bomb(levels: int = 9) -> str:
    lines = ["config:", "  azure-gpu-platform:environment: dev", '  a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, levels):
        lines.append(f"  a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    lines.append(f"  azure-gpu-platform:tags: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def test_nested_aliases_that_multiply_are_refused_in_well_under_a_second(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.bomb.yaml"
    path.write_text(_bomb(), encoding="utf-8")
    start = time.process_time()  # CPU seconds: an expansion burns CPU, a loaded machine (CI, xdist) only waits
    with pytest.raises(StackFileError) as err:
        read_stack_file(path, label="stacks/Pulumi.bomb.yaml", project="azure-gpu-platform")
    assert time.process_time() - start < 0.5
    assert [(p.path, p.message.split(" (")[0]) for p in err.value.problems] == [
        ("line 10", f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} values")
    ]
    # An anchor reused a few times is fine.
    doc = parse("config:\n  a: &x {k: 1}\n  b: *x\n  c: *x\n", "azure-gpu-platform")
    assert doc.doc == {"config": {"a": {"k": 1}, "b": {"k": 1}, "c": {"k": 1}}}
    assert yaml.safe_load(_bomb(2))["config"]["azure-gpu-platform:tags"][0] == ["x"] * 9


def _cpu_seconds() -> float:
    """CPU seconds of this process and its waited-for children (the policy pack)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def test_the_preflight_exits_2_on_an_alias_bomb_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.bomb.yaml"
    path.write_text(_bomb(), encoding="utf-8")
    before = _cpu_seconds()
    run = preflight("--config-file", str(path))  # in this process (tests/shared_runs.py)
    cpu = _cpu_seconds() - before  # CPU, not the wait: a loaded machine only waits
    assert cpu < 10  # the program and the pack dominate; the refusal itself is < 0.5 s
    assert run.code == 2
    assert "YAML aliases expand to more than 100,000 values" in run.stderr
    assert "Traceback" not in run.stderr


# ----------------------------------------------------------------------------------- warnings on every exit code


def test_warnings_are_printed_on_exit_2_too(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(
        "config:\n  azure-native:locaton: westeurope\n  azure-gpu-platform:environment: dev\n"
        "  azure-gpu-platform:location: westeurope\n"
        "  azure-gpu-platform:gpuOperator: {enabled: true, version: v9.9.9}\n",
        encoding="utf-8",
    )
    run = preflight("--config-file", str(path), "--facts-max-age", "30", "--today", "2027-01-15")
    assert run.code == 2, run.stderr
    lines = run.stderr.splitlines()
    assert lines[0].startswith("preflight: error: invalid stack configuration in ")
    warnings = [line for line in lines if line.startswith("preflight: warning: ")]
    assert warnings[0] == (
        f"preflight: warning: {path}: azure-native:locaton: the azure-native provider has no config key 'locaton', it "
        "is ignored; did you mean 'azure-native:location'?"
    )
    assert any(
        "gpu_catalog/facts/karpenter.json: its sources were read on 2026-11-30, 46 days ago" in w for w in warnings
    )


# ------------------------------------------------------------------------------ keys the user did not write


def test_a_refusal_names_the_key_written_and_the_default_it_collided_with() -> None:
    data = config(gpuOperator={"enabled": True})
    data["cluster"]["kubernetesVersion"] = "1.37"
    found = problems(data)
    assert "gpuOperator.version" not in found  # never written in the stack file
    assert found["cluster.kubernetesVersion"] == (
        "'1.37' collides with the default gpuOperator.version v26.7.0 (not written in the stack file): gpuPools[0] "
        "(t4): GPU operator v26.7.0 is not validated on Kubernetes 1.37 with Ubuntu 22.04, Ubuntu 24.04 (NVIDIA's "
        "matrix for v26.7.0: Ubuntu 22.04 1.33–1.36; Ubuntu 24.04 1.32–1.36; Ubuntu 26.04 1.33–1.36). Releases "
        "validated for it: none known yet."
    )
    data["gpuOperator"]["version"] = "v26.7.0"  # written: the refusal is on it
    assert "gpuOperator.version" in problems(data)
