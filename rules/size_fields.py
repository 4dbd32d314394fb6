"""Where a resource names an Azure VM size: the table in ``gpu_catalog/facts/vm_size_fields.json``, read once.

One entry per resource type token (azure-native, the classic Terraform-bridged ``azure`` provider, Databricks,
KAITO): its *family* (``aks``, ``vm``, ``ml``, ``batch``, …: policy config scopes rules by family), the paths of its
size fields as the engine sends them (camelCase wire names; ``[]`` = every entry of a list), an optional condition
(``when``: the field counts only when another field has one of the listed values, compared as ARM compares enum
strings, case-insensitively) and how the cost estimate counts the resource's nodes. A new resource type is one more
entry in the data file; the policies, the cost estimate and ``RULES.md`` all read this table. No Pulumi imports.

Karpenter NodePools name no size field: the sizes their requirements admit are read by :mod:`rules.karpenter`. Their
family (``aks``: node auto-provisioning creates AKS nodes) is decided here too, by :func:`size_family`, the one place
every reader (policies, policy config scoping, ``RULES.md``) asks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Final

from rules.resource_types import is_karpenter_node_pool

SIZE_FIELDS_PATH: Final = Path(__file__).resolve().parents[1] / "gpu_catalog" / "facts" / "vm_size_fields.json"


@dataclass(frozen=True, slots=True)
class SizePath:
    """One size field of a resource type: its path (``virtualMachinesProfile.scale.manual[].size``) and the
    conditions under which it names a VM size (``{"properties.computeType": ("AmlCompute", ...)}``)."""

    path: str
    when: tuple[tuple[str, tuple[str, ...]], ...] = ()
    sdk: str = ""
    """The SDK input type and property the path ends in (the evidence, e.g. ``ManualScaleProfileArgs.size``)."""


@dataclass(frozen=True, slots=True)
class SizeResource:
    """A resource type that names VM sizes."""

    type: str
    pattern: re.Pattern[str]
    family: str
    resource: str
    """What it is, in words (``virtual machine``)."""
    sizes: tuple[SizePath, ...]
    source: str
    nodes: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """How the cost estimate counts nodes (see ``preflight/cost.py``); empty when it prices the type itself."""


def _pattern(token: str, match: str | None) -> re.Pattern[str]:
    """The type token as a regex; azure-native tokens also match their explicit API-version modules
    (``azure-native:compute/v20240701:VirtualMachine``)."""
    if match:
        return re.compile(match)
    if token.startswith("azure-native:"):
        _, module, name = token.split(":")
        return re.compile(rf"^azure-native:{re.escape(module)}(?:/v[0-9a-z]+)?:{re.escape(name)}$")
    return re.compile(rf"^{re.escape(token)}$")


@dataclass(frozen=True)
class SizeTable:
    resources: tuple[SizeResource, ...]
    families: Mapping[str, str]
    sources: Mapping[str, Mapping[str, str]]

    _by_type: dict[str, SizeResource | None] = field(
        default_factory=dict[str, "SizeResource | None"], init=False, repr=False, compare=False
    )
    """:meth:`for_type` answers, per type token (the lookup is a linear regex scan)."""

    def for_type(self, resource_type: str) -> SizeResource | None:
        if resource_type not in self._by_type:
            self._by_type[resource_type] = next(
                (entry for entry in self.resources if entry.pattern.match(resource_type)), None
            )
        return self._by_type[resource_type]


def load_size_table(path: Path = SIZE_FIELDS_PATH) -> SizeTable:
    doc = json.loads(path.read_text(encoding="utf-8"))
    families: dict[str, str] = dict(doc["families"])
    sources: dict[str, dict[str, str]] = dict(doc["sources"])
    resources: list[SizeResource] = []
    for raw in doc["resources"]:
        if raw["family"] not in families:
            raise ValueError(f"{path.name}: {raw['type']}: unknown family {raw['family']!r}")
        if raw["source"] not in sources:
            raise ValueError(f"{path.name}: {raw['type']}: unknown source {raw['source']!r}")
        sizes = tuple(
            SizePath(
                s["path"],
                tuple((k, tuple(v)) for k, v in (s.get("when") or {}).items()),
                s.get("sdk", ""),
            )
            for s in raw["sizes"]
        )
        resources.append(
            SizeResource(
                type=raw["type"],
                pattern=_pattern(raw["type"], raw.get("match")),
                family=raw["family"],
                resource=raw["resource"],
                sizes=sizes,
                source=raw["source"],
                nodes=raw.get("nodes") or {},
            )
        )
    return SizeTable(tuple(resources), families, sources)


@cache
def size_table() -> SizeTable:
    """The table (read once)."""
    return load_size_table()


FAMILIES: Final = tuple(size_table().families)
"""Every family name, in the data file's order (the allowed values of the policies' ``families`` config)."""

KARPENTER_FAMILY: Final = "aks"
"""The family of Karpenter NodePools: node auto-provisioning creates AKS nodes."""


@lru_cache(maxsize=1024)
def size_family(resource_type: str) -> str | None:
    """The family of a resource type that names VM sizes (``None``: it names none): the table entry's, and
    :data:`KARPENTER_FAMILY` for a Karpenter NodePool (whose sizes :mod:`rules.karpenter` reads from requirements)."""
    if is_karpenter_node_pool(resource_type):
        return KARPENTER_FAMILY
    entry = size_table().for_type(resource_type)
    return entry.family if entry is not None else None


def names_vm_sizes(resource_type: str) -> bool:
    """Whether resources of this type name VM sizes (:func:`size_family` is not ``None``): what the size rules read."""
    return size_family(resource_type) is not None


def join_path(*parts: str | int) -> str:
    """``agentPoolProfiles[1].vmSize`` style paths, as messages name fields."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part:
            out += f".{part}" if out else part
    return out


@cache
def parse_path(path: str) -> tuple[tuple[str, bool], ...]:
    """A field path (``scale.manual[].size``) as its steps: ``(key, is_list)``; parsed once per path."""
    return tuple((tok[:-2], True) if tok.endswith("[]") else (tok, False) for tok in path.split("."))


def find_values(obj: Any, path: str, is_unknown: Callable[[Any], bool]) -> Iterator[tuple[str, Any]]:
    """Every value at ``path`` in ``obj`` with its concrete path (``manual[1].size``); absent fields yield nothing.

    A value that is unknown (during a preview) on the way down is yielded at the path where it is unknown, so the
    caller can name it (``agentPoolProfiles`` when the whole list is computed).
    """
    return _walk(obj, parse_path(path), 0, "", is_unknown)


def _walk(
    value: Any, steps: tuple[tuple[str, bool], ...], i: int, prefix: str, is_unknown: Callable[[Any], bool]
) -> Iterator[tuple[str, Any]]:
    """:func:`find_values` from step ``i`` (a module function, not a closure: a recursive closure is a reference
    cycle that only the garbage collector frees, once per call)."""
    if is_unknown(value) or i == len(steps):
        if value is not None:
            yield prefix, value
        return
    if not isinstance(value, Mapping):
        return
    key, many = steps[i]
    here = f"{prefix}.{key}" if prefix else key  # join_path, inlined: a path is built for every value found
    child = value.get(key)
    if child is None:
        return
    if is_unknown(child):
        yield here, child
        return
    if not many:
        yield from _walk(child, steps, i + 1, here, is_unknown)
    elif isinstance(child, list):
        for j, entry in enumerate(child):
            yield from _walk(entry, steps, i + 1, f"{here}[{j}]", is_unknown)


def condition_holds(value: Any, allowed: tuple[str, ...]) -> bool:
    """A ``when`` condition, compared as ARM compares enum strings (case-insensitively)."""
    return isinstance(value, str) and value.lower() in {a.lower() for a in allowed}
