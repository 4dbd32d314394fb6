"""Stack-config problems in words: pydantic errors → :class:`~gpu_catalog.problems.Problem` (file, key path, what is
allowed), and :class:`StackConfigError`, the refusal listing all of them."""

from __future__ import annotations

import os
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Union

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from gpu_catalog.problems import Problem, key_path, render_problems, show

from .base import NAMESPACE, PATTERN_WORDS, STACK_FILE_ENV, StrictModel

# --------------------------------------------------------------------------------------------------- errors


class StackConfigError(ValueError):
    """The stack configuration is invalid. The message lists every problem, one per line. Inside a Pulumi program the
    composition root raises it as a ``pulumi.RunError`` too (:class:`composition.stack_file.StackFileRefused`), so the
    CLI prints the list without a traceback."""

    def __init__(self, problems: Sequence[Problem], stack_file: str) -> None:
        self.problems = list(problems)
        self.stack_file = stack_file
        super().__init__(render_problems(stack_file, self.problems, NAMESPACE))

    @property
    def paths(self) -> list[str]:
        return [p.path for p in self.problems]


def stack_file_name(stack: str) -> str:
    """The stack file named in messages: ``$AGP_STACK_FILE``, else ``stacks/Pulumi.<stack>.yaml``."""
    override = os.environ.get(STACK_FILE_ENV)
    if override:
        return override
    return f"stacks/Pulumi.{stack}.yaml"


def _unwrap(annotation: Any) -> list[Any]:
    """The concrete types inside Optional/Union/Annotated/list/dict, for walking a key path through the models."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        out: list[Any] = []
        for arg in typing.get_args(annotation):
            out.extend(_unwrap(arg))
        return out
    return [annotation]


def _model_at(model: type[BaseModel], loc: Sequence[int | str]) -> type[BaseModel] | None:
    """The model class that owns the key at ``loc`` (all but the last element), or ``None``."""
    current: list[Any] = [model]
    for part in loc:
        nxt: list[Any] = []
        for typ in current:
            origin = typing.get_origin(typ)
            args = typing.get_args(typ)
            if isinstance(part, int) and origin in (list, Sequence):
                nxt.extend(_unwrap(args[0]))
            elif isinstance(part, str) and origin in (dict, Mapping) and len(args) == 2:
                nxt.extend(_unwrap(args[1]))
            elif isinstance(part, str) and isinstance(typ, type) and issubclass(typ, BaseModel):
                field = typ.model_fields.get(part)
                if field is not None:
                    nxt.extend(_unwrap(field.annotation))
        current = nxt
    for typ in current:
        if isinstance(typ, type) and issubclass(typ, BaseModel):
            return typ
    return None


def _model_names() -> set[str]:
    names: set[str] = set()
    todo: list[type] = [StrictModel]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return names


def _clean_loc(err: ErrorDetails) -> list[int | str]:
    """The error's location as keys of the stack file (pydantic adds validator and union-member names)."""
    loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith(("function-", "literal[", "dict[")))]
    # Union members add their type name to the location (e.g. 'TimeSlicingConfig'); drop those.
    model_names = _model_names()
    return [p for p in loc if not (isinstance(p, str) and p in model_names)]


def _error_to_problem(err: ErrorDetails, root: type[BaseModel]) -> Problem:
    loc = _clean_loc(err)
    path = key_path(loc)
    kind = err["type"]
    if kind == "extra_forbidden":
        owner = _model_at(root, loc[:-1])
        allowed = ", ".join(owner.model_fields) if owner is not None else "see the documentation"
        return Problem(path, f"unknown key. Allowed keys here: {allowed}.")
    if kind == "missing":
        return Problem(path, "required key is missing.")
    msg = err["msg"]
    got = err.get("input")
    if kind == "string_type" and isinstance(got, int | float) and not isinstance(got, bool):
        return Problem(path, _number_for_string(got, loc))
    if kind == "string_pattern_mismatch":
        pattern = (err.get("ctx") or {}).get("pattern", "")
        msg = f"{_describe_pattern(str(pattern))}"
    elif msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    return Problem(path, f"{msg}{_got(got, msg)}.".replace("..", "."))


def _got(value: Any, message: str) -> str:
    """`` (got <value>)`` unless the message already shows the value (or it is a whole mapping or list)."""
    if isinstance(value, dict | list) or value is None:
        return ""
    if any(text in message for text in {show(value), repr(value), str(value)} if len(text) > 1):
        return ""
    return f" (got {show(value)})"


def _number_for_string(value: float, loc: Sequence[int | str]) -> str:
    key = str(loc[-1]) if loc else ""
    if isinstance(value, float) and ("version" in key.lower()):
        return (
            f"must be a string, and YAML read {show(value)} as a number: an unquoted 1.30 is the number 1.3 (the "
            f'trailing zero is lost). Quote it: {key}: "{value:.2f}".'
        )
    return f'must be a string, and YAML read {show(value)} as a number. Quote it: {key}: "{value}".'


def _describe_pattern(pattern: str) -> str:
    return PATTERN_WORDS.get(pattern, "has the wrong format")  # every model pattern is worded (tests check)
