"""Issue 37's audit gaps at the stack file and at each door, on copies of ``examples/landing-zone``: no
``maxUnavailable`` on the system pool (stack file, Python API, component package; the wire rule is in
tests/conformance/test_landing_zone_fields.py), a not-allowed date range that ends before it starts, the system pool's
subnet when pools join your subnets, and NAP's burst bound (``gpuNodePools``) in the system pool's /26."""

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
from tests.components.test_landing_zone import SPOKE, example_config
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


# ------------------------------------------------------------------------------------------------ maintenance


def test_a_not_allowed_range_that_ends_before_it_starts_is_refused_in_the_stack_file() -> None:
    config = copy.deepcopy(example_config())
    window = config[CLUSTER]["maintenance"]["autoUpgrade"]
    window["notAllowedDates"] = [{"start": "2027-01-04", "end": "2026-12-19"}]
    assert _problems(config) == [
        Problem("cluster.maintenance.autoUpgrade.notAllowedDates[0]", "ends (2026-12-19) before it starts (2027-01-04)")
    ]
    window["notAllowedDates"] = [{"start": "2026-12-19", "end": "2027-01-04"}]  # the shipped freeze
    assert [
        (d.start.isoformat(), d.end.isoformat())
        for d in _validate(config).cluster.maintenance.autoUpgrade.notAllowedDates
    ] == [("2026-12-19", "2027-01-04")]


# ------------------------------------------------------------------------------------------------ subnets

SYSTEM_SUBNET_NEEDED = (
    "required when pools join your subnets: a cluster's pools share one VNet, so the system pool names its subnet too"
)


def test_the_system_pool_names_its_subnet_when_pools_join_yours() -> None:
    config = copy.deepcopy(example_config())
    del config[CLUSTER]["systemPool"]["vnetSubnetId"]
    assert _problems(config) == [
        Problem(
            "cluster.systemPool.vnetSubnetId", f"{SYSTEM_SUBNET_NEEDED} (one of cluster.network.subnets: gpu, system)"
        ),
        # and without it the cluster is not in your subnets, where userDefinedRouting needs it
        Problem(
            "cluster.network.outboundType",
            "userDefinedRouting needs the cluster in your own subnets: a route table with 0.0.0.0/0 to a firewall or "
            "NVA associated with every node subnet",
        ),
    ]


def test_a_gpu_pool_in_your_subnet_needs_the_system_pool_in_one_too() -> None:
    """No ``cluster.network.subnets`` described: a GPU pool naming a subnet is enough to ask for the system pool's."""
    config = copy.deepcopy(example_config())
    network = config[CLUSTER]["network"]
    del network["subnets"], network["outboundType"]
    del config[CLUSTER]["systemPool"]["vnetSubnetId"]
    assert _problems(config) == [Problem("cluster.systemPool.vnetSubnetId", SYSTEM_SUBNET_NEEDED)]
    config[CLUSTER]["systemPool"]["vnetSubnetId"] = f"{SPOKE}/snet-aks-system"
    assert _validate(config).cluster.systemPool.vnetSubnetId == f"{SPOKE}/snet-aks-system"


# ------------------------------------------------------------------------------------------------ NAP burst


def _with_nap(gpus: int) -> dict[str, Any]:
    """The example with a NAP pool of A100 nodes (one GPU each) up to ``gpus`` GPUs, launched in the cluster's default
    subnet (the system pool's /26: 59 usable addresses, 3 system nodes + 1 surge); the A100 agent pool at a fixed
    count (NAP refuses autoscaling agent pools)."""
    config = copy.deepcopy(example_config())
    pool = config["azure-gpu-platform:gpuPools"][0]
    del pool["minCount"], pool["maxCount"]
    pool["count"] = 2
    config["azure-gpu-platform:gpuNodePools"] = [
        {"name": "burst", "sizes": ["Standard_NC24ads_A100_v4"], "limits": {"gpus": gpus}}
    ]
    return config


def test_a_nap_burst_that_overflows_the_system_subnet_is_refused_with_the_numbers() -> None:
    assert _problems(_with_nap(56)) == [
        Problem(
            "cluster.network.subnets.system",
            "subnet 'system' (10.240.0.0/26: 59 usable addresses, Azure keeps 5) cannot hold its pools at their worst "
            "case: 60 addresses needed (systemPool: (3 + 1 surge) nodes × 1 = 4; gpuNodePools.burst: (56 + 0 surge) "
            "nodes × 1 = 56). Use a larger prefix, fewer nodes (maxCount, maxSurge) or another subnet for a pool",
        )
    ]


def test_a_nap_burst_that_fits_the_system_subnet_passes() -> None:
    cfg = _validate(_with_nap(55))  # 4 + 55 = 59 addresses: exactly the /26's usable ones
    assert [(n.name, n.limits.gpus) for n in cfg.gpuNodePools] == [("burst", 55)]
