"""The doors' schemas are generated from the spec's keys (:mod:`rules.specs.keys`): the stack file's ``gpuPools[i]``
model (``stack_config/spec_models.py``) and the component package's ``GpuPool`` input
(``component_package/spec_inputs.py``). A spec field with a key reaches both with no other line."""

from __future__ import annotations

import ast
import datetime
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NotRequired

import pytest
from pydantic import ValidationError

from component_package import enums
from component_package.inputs import GpuPool
from component_package.spec_inputs import FIELD_DOCS, spec_input
from rules.specs import AksGpuPool
from rules.specs.keys import KeyTypeError, key, spec_keys, stack_fields
from stack_config import GpuPoolConfig, StackConfigError, validate_stack_config
from stack_config.base import StrictModel
from stack_config.spec_models import spec_model

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class _Toy:
    """A spec with one key of each shape the doors generate."""

    name: str = field(metadata=key("The name.", min_length=1))
    disk_gib: int | None = field(default=None, metadata=key("Disk size.", name="diskGiB", ge=30, le=2048))
    mode: Literal["Fast", "Slow"] | None = field(default=None, metadata=key("The mode."))
    tier: str | None = field(default=None, metadata=key("The tier.", values=("Gold", "Silver")))
    subnet: str | None = field(default=None, metadata=key("A subnet.", kind="subnet_id"))
    zones: tuple[Literal["1", "2"], ...] = field(default=(), metadata=key("Zones."))
    labels: dict[str, str] = field(default_factory=dict, metadata=key("Labels."))
    internal: str = field(default="x", metadata=key("Filled in by the stack.", stack=False, package=False))
    unkeyed: bool = False


def _model() -> type[StrictModel]:
    return spec_model("ToyConfig", _Toy, base=StrictModel, doc="toy", types={}, kinds={"subnet_id": str})


def test_a_stack_model_is_generated_from_the_keys() -> None:
    model = _model()
    assert list(model.model_fields) == ["name", "diskGiB", "mode", "tier", "subnet", "zones", "labels"]
    ok = model.model_validate({"name": "a", "diskGiB": 64, "mode": "Fast", "tier": "Gold", "zones": ["2"]})
    dumped = ok.model_dump()
    assert (dumped["diskGiB"], dumped["labels"], dumped["zones"], dumped["subnet"]) == (64, {}, ["2"], None)
    with pytest.raises(ValidationError) as caught:
        model.model_validate({"name": "", "diskGiB": 10, "mode": "Medium", "tier": "Bronze", "zones": ["3"]})
    assert {(e["loc"], e["type"]) for e in caught.value.errors()} == {
        (("name",), "string_too_short"),
        (("diskGiB",), "greater_than_equal"),
        (("mode",), "literal_error"),
        (("tier",), "literal_error"),
        (("zones", 0), "literal_error"),
    }
    assert model.model_fields["diskGiB"].description == "Disk size."


def test_a_package_input_is_generated_from_the_keys() -> None:
    typed = spec_input("ToyInput", _Toy, doc="toy", types={})
    hints = typing.get_type_hints(typed, include_extras=True)
    assert list(hints) == ["name", "disk_gib", "mode", "tier", "subnet", "zones", "labels"]
    assert hints["name"] is str
    assert hints["disk_gib"] == NotRequired[int]
    assert [m.value for m in typing.get_args(hints["tier"])[0]] == ["Gold", "Silver"]
    assert vars(enums)["Tier"].__doc__ == "The tier."
    assert hints["zones"] == NotRequired[list[str]]
    assert FIELD_DOCS["ToyInput"]["diskGib"] == "Disk size."


def test_a_translated_key_without_a_door_type_names_the_key() -> None:
    @dataclass(frozen=True)
    class Odd:
        shape: object = field(default=None, metadata=key("A shape.", translated=True))

    with pytest.raises(KeyTypeError, match=r"^shape: a translated key; declare its stack-file type"):
        spec_model("OddConfig", Odd, base=StrictModel, doc="", types={}, kinds={})
    with pytest.raises(KeyTypeError, match=r"^shape: a translated key; declare its package type"):
        spec_input("OddInput", Odd, doc="", types={})
    with pytest.raises(KeyTypeError, match=r"^package types for keys Odd does not have: shap$"):
        spec_input("OddInput", Odd, doc="", types={"shape": str, "shap": str})


def test_gpu_pools_keys_are_the_pool_specs_in_its_order() -> None:
    """``gpuPools[i]``'s keys, in the order a refusal lists them, are the spec's stack keys."""
    assert list(GpuPoolConfig.model_fields) == list(stack_fields(AksGpuPool))
    assert list(GpuPoolConfig.model_fields)[:4] == ["name", "vmSize", "os", "osSku"]


def test_the_package_pool_inputs_are_the_pool_specs() -> None:
    expected = [k.package_key for k in spec_keys(AksGpuPool) if k.package_key is not None]
    assert list(typing.get_type_hints(GpuPool)) == expected
    assert "driver" in expected and "driver_skipped" not in expected


def test_a_generated_key_is_refused_as_a_written_one_was() -> None:
    data = {
        "environment": "dev",
        "location": "westeurope",
        "cluster": {"access": {"grantDeployer": False}},
        "gpuPools": [{"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "osSku": "Foo", "maxPods": 5000}],
    }
    with pytest.raises(StackConfigError) as caught:
        validate_stack_config(data, stack_file="s.yaml", today=datetime.date(2026, 12, 3))
    lines = str(caught.value).splitlines()[1:]
    assert lines == [
        "  s.yaml: gpuPools[0].osSku: Input should be 'Ubuntu', 'Ubuntu2204', 'AzureLinux', 'AzureLinux3' or "
        "'Windows2022' (got 'Foo').",
        "  s.yaml: gpuPools[0].maxPods: Input should be less than or equal to 250 (got 5000).",
    ]


def test_the_type_checkers_view_of_gpu_pools_names_only_generated_keys() -> None:
    """``stack_config/models.py`` declares the keys the stack config reads for the type checker only; each must be a
    generated key (a typo would be an attribute error at run time)."""
    tree = ast.parse((ROOT / "stack_config" / "models.py").read_text())
    [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "_GpuPoolKeys"]
    [block] = [n for n in cls.body if isinstance(n, ast.If)]
    declared = [n.target.id for n in block.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
    assert declared and set(declared) <= set(GpuPoolConfig.model_fields)


def test_the_stack_config_docs_name_every_pool_key() -> None:
    """``docs/stack-config.md``'s ``gpuPools[]`` row names every key a stack file may write."""
    doc = (ROOT / "docs" / "stack-config.md").read_text()
    [row] = [line for line in doc.splitlines() if line.startswith("| `gpuPools[]` |")]
    named = set(re.findall(r"`([A-Za-z]+)`", row))
    missing = [k for k in GpuPoolConfig.model_fields if k not in named]
    assert not missing, f"docs/stack-config.md: the gpuPools[] row does not name {', '.join(missing)}"


def test_every_spec_key_is_typed_by_both_doors() -> None:
    """No spec key is left without a type by a door (each door's generator would raise when imported)."""
    stack: Any = GpuPoolConfig
    written = {k.stack_key for k in spec_keys(AksGpuPool) if k.stack_key}
    assert written == set(stack.model_fields)
