"""The package's output types and the output contract (``components/contract.py``) have one definition of their keys:
the contract's dataclasses. The TypedDicts only carry the schema's descriptions; they must name exactly the
dataclass's wire fields, and the conversion writes every field."""

from __future__ import annotations

import typing

import pytest

from component_package.outputs import OUTPUT_CONTRACT, scheduling_output
from components.contract import GpuPoolContract, Scheduling, Toleration, wire_fields, wire_key


@pytest.mark.parametrize("typed, entry", list(OUTPUT_CONTRACT.items()), ids=lambda c: c.__name__)
def test_output_type_names_exactly_the_contract_fields(typed: type, entry: type) -> None:
    assert sorted(typing.get_type_hints(typed)) == sorted(f.name for f in wire_fields(entry))


def test_the_pool_entry_has_no_wire_name_field() -> None:
    assert "name" not in [f.name for f in wire_fields(GpuPoolContract)]
    assert [wire_key(f.name) for f in wire_fields(Scheduling)][-3:] == [
        "mpsActiveThreadPercentage",
        "allocatablePerNode",
        "devicePlugin",
    ]


def test_scheduling_output_carries_every_field() -> None:
    sched = Scheduling(
        node_selector={"agentpool": "a100"},
        tolerations=[Toleration("nvidia.com/gpu", "Exists", "NoSchedule")],
        resource_name="nvidia.com/gpu.shared",
        sharing="mps",
        replicas=4,
        mps_active_thread_percentage=25,
        allocatable_per_node=4,
        device_plugin="gpu-operator",
    )
    assert scheduling_output(sched) == {
        "node_selector": {"agentpool": "a100"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "resource_name": "nvidia.com/gpu.shared",
        "sharing": "mps",
        "replicas": 4,
        "mps_active_thread_percentage": 25,
        "allocatable_per_node": 4,
        "device_plugin": "gpu-operator",
    }
