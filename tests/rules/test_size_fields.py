"""The size table (gpu_catalog/facts/vm_size_fields.json) against the providers' own schemas, and the path walker.

Every azure-native entry is re-read from the installed pulumi-azure-native SDK: the type token is the one its resource
class registers, and each path (size fields, ``when`` conditions, node counts) follows ``@pulumi.getter`` wire names
through the SDK's ``*Args`` input types. The classic ``azure`` provider is not a dependency: its entries were read the
same way from the pulumi-azure 6.40.1 wheel (recorded in the file's ``sources``) and are checked here for shape only.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import typing
from typing import Any

import pytest

from rules.size_fields import FAMILIES, SizeResource, find_values, size_table

TABLE = size_table()
NATIVE = [r for r in TABLE.resources if r.type.startswith("azure-native:")]


def _args_classes(annotation: Any, module: Any) -> list[type]:
    """The ``*Args`` input types an annotation names (through Optional, Input, Sequence, Union, forward refs)."""
    found: list[type] = []

    def visit(t: Any) -> None:
        if isinstance(t, typing.ForwardRef):
            t = t.__forward_arg__
        if isinstance(t, str):
            name = t.strip("'\"")
            package = sys.modules[module.__name__.rsplit(".", 1)[0]]
            for scope in (module, importlib.import_module(package.__name__ + "._inputs"), package):
                if hasattr(scope, name):
                    found.append(getattr(scope, name))
                    return
            return
        if inspect.isclass(t) and t.__name__.endswith("Args"):
            found.append(t)
            return
        for arg in typing.get_args(t):
            visit(arg)

    visit(annotation)
    return found


def _wire_properties(cls: type) -> dict[str, property]:
    return {
        v.fget._pulumi_name: v  # type: ignore[union-attr]
        for v in vars(cls).values()
        if isinstance(v, property) and hasattr(v.fget, "_pulumi_name")
    }


def sdk_resolves(args_class: type, path: str) -> bool:
    """Whether the wire path exists in the SDK's input types (any branch of a union will do)."""
    steps = path.replace("[]", "").split(".")
    current = [args_class]
    for i, step in enumerate(steps):
        following: list[type] = []
        for cls in current:
            prop = _wire_properties(cls).get(step)
            if prop is None:
                continue
            if i == len(steps) - 1:
                return True
            annotation = inspect.signature(prop.fget).return_annotation  # type: ignore[arg-type]
            following += _args_classes(annotation, sys.modules[cls.__module__])
        if not following:
            return False
        current = list(dict.fromkeys(following))
    return False


def _sdk(entry: SizeResource) -> tuple[type, type]:
    _, module, name = entry.type.split(":")
    package = importlib.import_module(f"pulumi_azure_native.{module}")
    return getattr(package, name), getattr(package, f"{name}Args")


@pytest.mark.parametrize("entry", NATIVE, ids=[r.type for r in NATIVE])
def test_azure_native_token_and_paths_come_from_the_sdk(entry: SizeResource) -> None:
    resource, args = _sdk(entry)
    assert f"'{entry.type}'" in inspect.getsource(resource), "the resource class registers another token"
    paths = [s.path for s in entry.sizes] + [c for s in entry.sizes for c, _ in s.when]
    for key in ("count", "min", "max", "formula"):
        if key in entry.nodes:
            paths.append(entry.nodes[key])
    paths += list(entry.nodes.get("sum", []))
    for path in paths:
        assert sdk_resolves(args, path), f"{entry.type}: {path} is not in pulumi-azure-native's input types"


def test_a_wrong_path_is_caught() -> None:
    from pulumi_azure_native import compute

    assert sdk_resolves(compute.VirtualMachineArgs, "hardwareProfile.vmSize")
    assert not sdk_resolves(compute.VirtualMachineArgs, "hardwareProfile.size")
    assert not sdk_resolves(compute.VirtualMachineArgs, "vmSize")


def test_the_issue_s_types_are_all_covered() -> None:
    by_type = {r.type: [s.path for s in r.sizes] for r in TABLE.resources}
    assert by_type["azure-native:containerservice:AgentPool"] == [
        "vmSize",
        "virtualMachinesProfile.scale.manual[].size",
    ]
    assert by_type["azure-native:compute:VirtualMachine"] == ["hardwareProfile.vmSize"]
    assert by_type["azure-native:compute:VirtualMachineScaleSet"] == ["sku.name", "skuProfile.vmSizes[].name"]
    assert by_type["azure-native:machinelearningservices:Compute"] == ["properties.properties.vmSize"]
    assert by_type["azure-native:batch:Pool"] == ["vmSize"]
    assert by_type["azure:containerservice/kubernetesCluster:KubernetesCluster"] == ["defaultNodePool.vmSize"]
    assert by_type["azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool"] == ["vmSize"]
    assert by_type["azure:machinelearning/computeCluster:ComputeCluster"] == ["vmSize"]
    assert by_type["azure:machinelearning/computeInstance:ComputeInstance"] == ["virtualMachineSize"]
    assert {r.family for r in TABLE.resources} == set(FAMILIES)
    for r in TABLE.resources:
        assert r.source in TABLE.sources and all(s.sdk for s in r.sizes), r.type


def test_versioned_azure_native_tokens_match() -> None:
    entry = TABLE.for_type("azure-native:compute/v20240701:VirtualMachine")
    assert entry is not None and entry.type == "azure-native:compute:VirtualMachine"
    assert TABLE.for_type("azure-native:compute:VirtualMachineExtension") is None


def _unknown(value: Any) -> bool:
    return value == "?"


def test_find_values_names_every_entry_and_unknowns() -> None:
    props = {
        "agentPoolProfiles": [
            {"virtualMachinesProfile": {"scale": {"manual": [{"size": "a"}, {"size": "?"}]}}},
            "?",
            {"vmSize": "b"},
        ]
    }
    assert list(find_values(props, "agentPoolProfiles[].virtualMachinesProfile.scale.manual[].size", _unknown)) == [
        ("agentPoolProfiles[0].virtualMachinesProfile.scale.manual[0].size", "a"),
        ("agentPoolProfiles[0].virtualMachinesProfile.scale.manual[1].size", "?"),
        ("agentPoolProfiles[1]", "?"),
    ]
    assert list(find_values({"agentPoolProfiles": "?"}, "agentPoolProfiles[].vmSize", _unknown)) == [
        ("agentPoolProfiles", "?")
    ]
    assert list(find_values({"sku": {"capacity": 2.0}}, "sku.name", _unknown)) == []
