"""``scaleDownMode`` (REST API 2025-09-01 ``ScaleDownMode``): a pool field added on the spec and its ``AgentPool``
input only; the stack file, the Python API and the component package take it through the spec's key."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from component_package.args import pool_spec
from component_package.inputs import GpuPool
from components.gpu_node_pool import GpuNodePool, GpuNodePoolArgs, GpuPoolSpec
from components.pool_scheduling import PoolDevicePlugin
from components.validation import InvalidArgsError
from gpu_catalog.device_plugins import load_device_plugin_facts
from stack_config import StackConfigError, validate_stack_config
from stack_config.specs import gpu_pool

from .harness import run_program

TODAY = datetime.date(2026, 12, 3)
AGENT_POOL = "azure-native:containerservice:AgentPool"
PLUGIN = PoolDevicePlugin(load_device_plugin_facts().chart.version)
A100 = "Standard_NC24ads_A100_v4"  # the catalog's default OS disk: Managed (64 GiB temp disk)
T4 = "Standard_NC4as_T4_v3"  # the catalog's default OS disk: Ephemeral


def _stack(pool: dict[str, Any]) -> Any:
    data = {
        "environment": "dev",
        "location": "westeurope",
        "cluster": {"access": {"grantDeployer": False}},
        "gpuPools": [{"name": "gpu", "vmSize": A100, "count": 1, **pool}],
    }
    return validate_stack_config(data, stack_file="s.yaml", today=TODAY)


def _agent_pool(spec: GpuPoolSpec) -> dict[str, Any]:
    run = run_program(
        lambda: GpuNodePool("gpu", GpuNodePoolArgs(pool=spec, resource_group_name="rg", cluster_name="aks")),
        config={},
    )
    assert run.error is None, run.error
    return run.one(AGENT_POOL).inputs


def test_the_three_doors_send_it() -> None:
    cfg = _stack({"scaleDownMode": "Deallocate"})
    from_stack = gpu_pool(cfg, cfg.gpuPools[0])
    from_python = GpuPoolSpec(name="gpu", vm_size=A100, scale_down_mode="Deallocate", device_plugin=PLUGIN, today=TODAY)
    package: GpuPool = {"name": "gpu", "vm_size": A100, "scale_down_mode": "Deallocate", "device_plugin": {}}
    from_package = pool_spec(package)
    assert {from_stack.scale_down_mode, from_python.scale_down_mode, from_package.scale_down_mode} == {"Deallocate"}
    inputs = _agent_pool(from_python)
    assert (inputs["scaleDownMode"], inputs["osDiskType"]) == ("Deallocate", "Managed")


def test_unset_it_is_not_sent() -> None:
    spec = GpuPoolSpec(name="gpu", vm_size=A100, device_plugin=PLUGIN, today=TODAY)
    assert "scaleDownMode" not in _agent_pool(spec)


def test_deallocate_with_an_ephemeral_os_disk_is_refused_on_every_door() -> None:
    with pytest.raises(StackConfigError) as caught:
        _stack({"vmSize": T4, "scaleDownMode": "Deallocate"})
    assert "s.yaml: gpuPools[0].scaleDownMode: Deallocate is not supported with an ephemeral OS disk" in str(
        caught.value
    )
    with pytest.raises(InvalidArgsError, match="scale_down_mode: Deallocate is not supported with an ephemeral"):
        GpuPoolSpec(name="gpu", vm_size=T4, scale_down_mode="Deallocate", device_plugin=PLUGIN, today=TODAY)
    managed = GpuPoolSpec(
        name="gpu", vm_size=T4, scale_down_mode="Deallocate", os_disk_type="Managed", device_plugin=PLUGIN, today=TODAY
    )
    assert managed.findings(today=TODAY) == []


def test_a_value_outside_the_rest_specs_enum_is_refused() -> None:
    with pytest.raises(StackConfigError) as caught:
        _stack({"scaleDownMode": "Stop"})
    assert "gpuPools[0].scaleDownMode: Input should be 'Delete' or 'Deallocate' (got 'Stop')." in str(caught.value)
