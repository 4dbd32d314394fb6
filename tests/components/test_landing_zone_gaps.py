"""Issue 37's audit gaps at the stack file and at each door, on copies of ``examples/landing-zone``: no
``maxUnavailable`` on the system pool (stack file, Python API, component package; the wire rule is in
tests/conformance/test_landing_zone_fields.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from component_package.aks_gpu_cluster import AksGpuCluster as PackageCluster
from components.aks_cluster import AksGpuClusterArgs, ClusterAccess
from components.validation import InvalidArgsError
from gpu_catalog.problems import Problem
from rules.network import UpgradeSettings
from rules.specs.aks_cluster import SystemPoolSpec
from stack_config import StackConfigError
from stack_config.loading import config_from_stack_yaml, validate_stack_config
from tests.components.harness import run_program
from tests.components.test_landing_zone import example_config
from tests.components.test_landing_zone_three_ways import STACK, example_cfg, package_args

STACK_FILE = "Pulumi.landing-zone.yaml"
CLUSTER = "azure-gpu-platform:cluster"
REFUSAL = (
    "'1': maxUnavailable cannot be set on a System pool (AKS: \"You can't set max unavailable on system node pools\", "
    "MicrosoftDocs/azure-aks-docs articles/aks/upgrade-aks-node-pools-rolling.md); leave it unset and upgrade by "
    "maxSurge"
)


def _validate(config: dict[str, Any]) -> Any:
    return validate_stack_config(config_from_stack_yaml(config), stack_file=STACK_FILE)


def _problems(config: dict[str, Any]) -> list[Problem]:
    with pytest.raises(StackConfigError) as caught:
        _validate(config)
    return caught.value.problems


# ------------------------------------------------------------------------------------------------ system pool


def test_the_stack_file_refuses_max_unavailable_on_the_system_pool() -> None:
    config = copy.deepcopy(example_config())
    config[CLUSTER]["systemPool"]["upgrade"] = {"maxSurge": "1", "maxUnavailable": "1"}
    with pytest.raises(StackConfigError) as caught:
        _validate(config)
    assert caught.value.problems == [Problem("cluster.systemPool.upgrade.maxUnavailable", REFUSAL)]
    assert f"{STACK_FILE}: cluster.systemPool.upgrade.maxUnavailable: '1': maxUnavailable cannot" in str(caught.value)


def test_the_stack_file_passes_max_unavailable_on_a_gpu_pool_and_surge_on_the_system_pool() -> None:
    config = copy.deepcopy(example_config())
    assert config[CLUSTER]["systemPool"]["upgrade"] == {"maxSurge": "1"}
    config["azure-gpu-platform:gpuPools"][0]["upgrade"] = {"maxSurge": "0", "maxUnavailable": "1"}
    cfg = _validate(config)
    assert (cfg.gpuPools[0].upgrade.maxUnavailable, cfg.cluster.systemPool.upgrade.maxUnavailable) == ("1", None)


def _args(upgrade: UpgradeSettings | None) -> AksGpuClusterArgs:
    return AksGpuClusterArgs(
        "aks",
        "rg",
        "westeurope",
        "1.36",
        access=ClusterAccess(grant_deployer=False),
        system_pool=SystemPoolSpec(upgrade=upgrade),
    )


def test_the_python_api_refuses_max_unavailable_on_the_system_pool() -> None:
    with pytest.raises(InvalidArgsError) as caught:
        _args(UpgradeSettings("1", "1"))
    assert [(f.field, f.message) for f in caught.value.findings] == [("system_pool.upgrade.maxUnavailable", REFUSAL)]
    assert _args(UpgradeSettings("1")).system_pool.upgrade == UpgradeSettings("1")


def test_the_component_package_refuses_max_unavailable_on_the_system_pool() -> None:
    from component_package.args import ArgsRefusedError

    args = package_args(example_cfg())
    args["system_pool"]["upgrade"] = {"max_surge": "1", "max_unavailable": "1"}
    run = run_program(lambda: PackageCluster("aks", args), config={}, stack=STACK)  # type: ignore[arg-type]
    assert isinstance(run.error, ArgsRefusedError)
    assert run.error.errors == [{"property_path": "systemPool.upgrade.maxUnavailable", "reason": REFUSAL}]
    assert run.records == []  # nothing registered
