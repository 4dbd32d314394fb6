"""How a user writes a spec's field: its stack-file key and its component-package input, declared once on the field.

A spec field that a door takes carries a :class:`Key` in its ``dataclasses.field`` metadata (``field(default=None,
metadata=key("...", ge=30))``). The doors build their schemas from it instead of restating the field:
``stack_config/models.py`` generates the ``gpuPools[i]`` model's keys (type, bounds, allowed values, default) and
``component_package/inputs.py`` the ``GpuPool`` input object (type, enum, description). Adding a pool field is then
the spec's field and its Pulumi input (``docs/architecture.md``, "How to add a pool field").

The type comes from the field's annotation (``int | None``, ``tuple[str, ...]``, ``Mapping[str, str]``, a
``Literal``); the key adds what the annotation cannot say. Pure: no Pulumi, no pydantic.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from functools import cache
from typing import Any, Final

KEY: Final = "azure-gpu-platform/key"
"""The metadata entry of a spec field that holds its :class:`Key`."""


@dataclass(frozen=True)
class Key:
    """A spec field as the doors take it (module docstring)."""

    doc: str
    """What the value means and its default, in Markdown (the package schema's description, the stack key's)."""
    name: str = ""
    """The key as written, in camelCase: ``""`` (the default) is the field's name in camelCase (``os_disk_type`` →
    ``osDiskType``), or the API's spelling (``osDiskSizeGB``); a renamed key (``driver`` for ``driver_skipped``) is
    the package input's name too, in snake case."""
    stack: bool = True
    """A stack file writes it (``gpuPools[i]``); otherwise the stack fills it in."""
    package: bool = True
    """The component package takes it as an input."""
    values: tuple[str, ...] = ()
    """The allowed strings when the annotation is no ``Literal`` (facts of the catalog or the rules): a stack file
    refuses others, the package offers them as an enum (scalar fields only)."""
    enum: str | None = None
    """The package enum's name (``component_package/enums.py``); default the key in PascalCase."""
    ge: int | None = None
    le: int | None = None
    min_length: int | None = None
    kind: str | None = None
    """A value shape beyond the Python type that each door spells its own way (``subnet_id``,
    ``kubernetes_version``): the doors map the kind to their type once, every field of that kind follows."""
    translated: bool = False
    """The doors take it in a shape of their own (a driver mode for ``driver_skipped``, a sharing object): each door
    declares its type and maps the value (a door without a type for it fails when its schema is built, naming the
    key). The others get their type from the annotation."""
    create_time: bool = False
    """AKS sets it only when the pool is created: changing it replaces the pool under a new Azure name (a stack file's
    ``azure_pool_name`` hashes it when written)."""


def key(doc: str, **options: Any) -> dict[str, Key]:
    """The ``metadata`` of a spec field the doors take: ``field(default=None, metadata=key("...", ge=0))``."""
    return {KEY: Key(doc, **options)}


def camel(name: str) -> str:
    """A spec field's name as a stack-file key: ``os_disk_type`` → ``osDiskType`` (``Key.name`` spells it otherwise
    where the API does: ``osDiskSizeGB``)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(key_name: str) -> str:
    """A stack-file key as a spec field's name: ``encryptionAtHost`` → ``encryption_at_host``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key_name).lower()


@dataclass(frozen=True)
class SpecKey:
    """One field of a spec that a door takes: its name, its :class:`Key`, its resolved annotation, its default."""

    name: str
    key: Key
    annotation: Any
    required: bool
    default: Any
    """The field's default (``MISSING`` when required; a ``default_factory``'s value otherwise)."""

    @property
    def written(self) -> str:
        """The key as written (camelCase)."""
        return self.key.name or camel(self.name)

    @property
    def stack_key(self) -> str | None:
        """The stack-file key, or ``None`` when a stack file does not write it."""
        return self.written if self.key.stack else None

    @property
    def package_key(self) -> str | None:
        """The package input's (snake-case) name, or ``None`` when the package does not take it: the field's name,
        or a renamed key's snake case (``driver`` for ``driver_skipped``)."""
        if not self.key.package:
            return None
        return self.name if self.written.lower() == camel(self.name).lower() else snake(self.written)

    @property
    def optional(self) -> bool:
        """The annotation admits ``None``."""
        return type(None) in typing.get_args(self.annotation)

    @property
    def value_type(self) -> Any:
        """The annotation without ``None``."""
        args = [a for a in typing.get_args(self.annotation) if a is not type(None)]
        if typing.get_origin(self.annotation) in (typing.Union, _UNION) and len(args) == 1:
            return args[0]
        return self.annotation

    @property
    def values(self) -> tuple[str, ...]:
        """The allowed strings: the key's, else the annotation's ``Literal`` (of the value or of a tuple's items)."""
        if self.key.values:
            return self.key.values
        tp = self.value_type
        if typing.get_origin(tp) is tuple:
            tp = typing.get_args(tp)[0]
        return tuple(str(v) for v in typing.get_args(tp)) if typing.get_origin(tp) is typing.Literal else ()


_UNION: Final = type(int | None)


@cache
def spec_keys(spec: type) -> tuple[SpecKey, ...]:
    """The fields of ``spec`` (a dataclass) that carry a :class:`Key`, in the spec's order."""
    hints = typing.get_type_hints(spec)
    out: list[SpecKey] = []
    for f in fields(spec):
        found = f.metadata.get(KEY)
        if not isinstance(found, Key):
            continue
        required = f.default is MISSING and f.default_factory is MISSING
        default = f.default_factory() if f.default_factory is not MISSING else f.default
        out.append(SpecKey(f.name, found, hints[f.name], required, default))
    return tuple(out)


def stack_fields(spec: type) -> Mapping[str, str]:
    """Stack-file key → spec field, for every field a stack file writes."""
    return {k.stack_key: k.name for k in spec_keys(spec) if k.stack_key is not None}


def key_fields(spec: type) -> Mapping[str, str]:
    """Key as written (camelCase, as the rules name a finding's field) → spec field, for every key of ``spec``."""
    return {k.written: k.name for k in spec_keys(spec)}


class KeyTypeError(TypeError):
    """A door cannot type a spec key: the message names the key and where its type belongs."""


def door_types(
    spec: type,
    door: str,
    written: Callable[[SpecKey], str | None],
    types: Mapping[str, Any],
    derive: Callable[[SpecKey], Any],
) -> dict[str, tuple[SpecKey, Any]]:
    """The keys ``door`` (``stack file``, ``package``) takes of ``spec``, by the name it writes them (``written``),
    each with its type: the door's own (``types``, required for a ``translated`` key), else ``derive(key)``. Raises
    :class:`KeyTypeError` naming the key a door has no type for, or a type for a key the spec lacks."""
    out: dict[str, tuple[SpecKey, Any]] = {}
    for k in spec_keys(spec):
        name = written(k)
        if name is None:
            continue
        if name in types:
            out[name] = (k, types[name])
        elif k.key.translated:
            raise KeyTypeError(f"{name}: a translated key; declare its {door} type in the door's types")
        else:
            out[name] = (k, derive(k))
    unknown = set(types) - set(out)
    if unknown:
        raise KeyTypeError(f"{door} types for keys {spec.__name__} does not have: {', '.join(sorted(unknown))}")
    return out
