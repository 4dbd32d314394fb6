"""The schema's input object of a spec, generated from the spec's keys (:mod:`rules.specs.keys`): one input per spec
field the package takes, typed (an enum for allowed values), required or not, and described as the spec declares it.

``spec_input("GpuPool", AksGpuPool, doc=..., types={...})`` builds the ``TypedDict`` the schema is inferred from;
``types`` holds the inputs the package takes in a shape of its own (a ``translated`` key: ``driver``, ``sharing``,
``upgrade``, ``gpu_operator``, ``device_plugin``). The SDK reads a property's description from the source of a
written class, which a generated one has not: :func:`describe` adds them to the schema the provider serves
(``component_package/provider.py``). A new spec field of a plain type needs no line here or in ``inputs.py``.

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

import json
import typing
from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from pulumi.provider.experimental.util import camel_case

from component_package import enums
from rules.specs.keys import KeyTypeError, SpecKey, door_types

KINDS: Mapping[str, Any] = {"subnet_id": str, "kubernetes_version": str}
"""A key's ``kind`` → its input type (the rules check the shape)."""

FIELD_DOCS: dict[str, dict[str, str]] = {}
"""Generated input object → its properties' descriptions (schema names), for :func:`describe`."""

_SCALARS = (str, int, bool, float)


def _pascal(name: str) -> str:
    return name[:1].upper() + name[1:]


def _enum(k: SpecKey) -> Any:
    """The package enum of a key's allowed values: the one ``enums.py`` defines under the key's name (``OsSku``),
    else one made here from the values."""
    name = k.key.enum or _pascal(k.written)
    found = getattr(enums, name, None)
    if found is None:
        found = enums.string_enum(name, k.values, k.key.doc)
        setattr(enums, name, found)
    return found


def input_type(k: SpecKey) -> Any:
    """The key's input type (without ``NotRequired``)."""
    if k.key.kind is not None:
        if k.key.kind not in KINDS:
            raise KeyTypeError(f"{k.written}: kind {k.key.kind!r} has no input type; add it to KINDS in {__name__}")
        return KINDS[k.key.kind]
    tp, origin = k.value_type, typing.get_origin(k.value_type)
    if origin is typing.Literal or (k.key.values and tp is str):
        return _enum(k)
    if origin is tuple:
        item = typing.get_args(tp)[0]
        return list[str if typing.get_origin(item) is typing.Literal else item]  # type: ignore[misc]
    if origin is Mapping or origin is dict:
        key_type, value_type = typing.get_args(tp)
        return dict[key_type, value_type]  # type: ignore[valid-type]
    if tp in _SCALARS:
        return tp
    raise KeyTypeError(f"{k.written}: the package has no input type for {tp!r}; declare it in the input's types")


def spec_input(name: str, spec: type, *, doc: str, types: Mapping[str, Any]) -> Any:
    """The ``TypedDict`` of ``spec``'s package keys (module docstring); ``types``: input name → its type, for the
    inputs the package types itself (every ``translated`` key needs one)."""
    keys = door_types(spec, "package", lambda k: k.package_key, types, input_type)
    fields = {written: tp if k.required else NotRequired[tp] for written, (k, tp) in keys.items()}
    docs = {camel_case(written): k.key.doc for written, (k, _) in keys.items() if k.key.doc}
    typed: Any = TypedDict(name, fields)  # type: ignore[misc]  # the fields are the spec's, known at import
    typed.__doc__ = doc
    typed.__module__ = "component_package.inputs"
    FIELD_DOCS[name] = docs
    return typed


def describe(schema: str, package: str) -> str:
    """``schema`` (JSON) with the generated input objects' property descriptions (:data:`FIELD_DOCS`)."""
    doc = json.loads(schema)
    for name, docs in FIELD_DOCS.items():
        props = doc.get("types", {}).get(f"{package}:index:{name}", {}).get("properties", {})
        for prop, text in docs.items():
            found = props.get(prop)
            if found is None or "description" in found:
                continue
            found["description"] = text
            for inner in ("items", "additionalProperties"):  # the SDK describes a list's items and a map's values too
                if isinstance(found.get(inner), dict):
                    found[inner].setdefault("description", text)
    return json.dumps(doc)
