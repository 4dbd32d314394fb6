"""A stack-file model generated from a spec's keys (:mod:`rules.specs.keys`): one key per spec field a stack file
writes, typed, bounded, defaulted and documented as the spec declares it, in the spec's order.

``spec_model("GpuPoolConfig", AksGpuPool, base=_GpuPoolKeys, types={...})``: ``base`` holds what only the stack file
has (validators, derived properties); ``types`` the keys the stack takes in a shape of its own (a ``translated`` key:
``driver``, ``sharing``, ``upgrade``) or checks its own way; ``kinds`` the value shapes the stack file spells with a
pattern (a subnet id, a Kubernetes version). A new spec field of a plain type needs no line here or in the model.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, create_model

from rules.specs.keys import KeyTypeError, SpecKey, door_types

from .base import StrictModel

_M = TypeVar("_M", bound=StrictModel)

_LITERAL: Any = Literal
_SCALARS = (str, int, bool, float)


def _value_type(k: SpecKey, kinds: Mapping[str, Any]) -> Any:
    """The key's stack-file type without ``None`` and bounds."""
    if k.key.kind is not None:
        if k.key.kind not in kinds:
            raise KeyTypeError(
                f"{k.written}: kind {k.key.kind!r} has no stack-file type; add it to the model's kinds "
                "(stack_config/models.py)"
            )
        return kinds[k.key.kind]
    tp, origin = k.value_type, typing.get_origin(k.value_type)
    if origin is Literal or (k.key.values and tp is str):
        return _LITERAL[k.values]
    if origin is tuple:
        item = typing.get_args(tp)[0]
        return list[_LITERAL[k.values]] if k.values else list[item]  # type: ignore[valid-type]
    if origin is Mapping or origin is dict:
        key_type, value_type = typing.get_args(tp)
        return dict[key_type, value_type]  # type: ignore[valid-type]
    if tp in _SCALARS:
        return tp
    raise KeyTypeError(
        f"{k.written}: the stack file has no type for {tp!r}; declare it in the model's types (stack_config/models.py)"
    )


def key_annotation(k: SpecKey, kinds: Mapping[str, Any]) -> Any:
    """The key's annotation: its type, its bounds, and ``| None`` when the spec field takes ``None``."""
    tp: Any = _value_type(k, kinds)
    if k.key.ge is not None or k.key.le is not None or k.key.min_length is not None:
        tp = Annotated[tp, Field(ge=k.key.ge, le=k.key.le, min_length=k.key.min_length)]
    return typing.Optional[tp] if k.optional else tp  # noqa: UP045  # built at run time: ``X | None`` needs a type


def _field(k: SpecKey, annotation: Any) -> tuple[Any, Any]:
    doc = k.key.doc or None
    if k.required:
        return annotation, Field(description=doc)
    if isinstance(k.default, Mapping):
        return annotation, Field(default_factory=dict, description=doc)
    if isinstance(k.default, tuple):
        return annotation, Field(default_factory=list, description=doc)
    return annotation, Field(default=k.default, description=doc)


def spec_model(
    name: str, spec: type, *, base: type[_M], doc: str, types: Mapping[str, Any], kinds: Mapping[str, Any]
) -> type[_M]:
    """The stack-file model of ``spec``'s keys (module docstring); ``types``: stack key → its annotation, for the
    keys the stack types itself (every ``translated`` key needs one); ``kinds``: a key's ``kind`` → its type."""
    typed = door_types(spec, "stack-file", lambda k: k.stack_key, types, lambda k: key_annotation(k, kinds))
    fields: dict[str, Any] = {written: _field(k, annotation) for written, (k, annotation) in typed.items()}
    model: type[_M] = create_model(name, __base__=base, __module__=base.__module__, __doc__=doc, **fields)
    return model
