"""Base class for every stack-config model: strict (unknown keys rejected), immutable, camelCase keys as written."""

import types
from datetime import date
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from gpu_catalog import clock


@cache
def _numeric_only(annotation: Any) -> bool:
    """Whether a field's type takes a number (int or float) but never a boolean."""

    def kinds(tp: Any) -> set[Any]:
        origin = get_origin(tp)
        if origin is Annotated:
            return kinds(get_args(tp)[0])
        if origin is Union or isinstance(tp, types.UnionType):
            return set().union(*(kinds(a) for a in get_args(tp)))
        return {tp}

    found = kinds(annotation)
    return bool(found & {int, float}) and bool not in found and Any not in found


class StrictModel(BaseModel):
    """A stack-config section. Keys are exactly the camelCase keys users write in ``stacks/Pulumi.<env>.yaml``."""

    # defer_build: a model's validator is built when it is first used, not when its class is created. Validating the
    # root StackConfig builds everything it needs; the nested models' own validators, which the program never uses
    # on their own, are not built twice at import (~120 ms of every program run and preflight; bench/RESULTS.md).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False, validate_default=True, defer_build=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_boolean_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        """YAML reads ``true``/``false`` (and ``yes``/``no`` in YAML 1.1 tools) as booleans, and a lax number field
        would take ``true`` as 1: a count, limit or size is refused when it is a boolean."""
        if isinstance(value, bool) and info.field_name is not None:
            field = cls.model_fields.get(info.field_name)
            if field is not None and _numeric_only(field.annotation):
                raise ValueError(
                    f"must be a number, got the YAML boolean {str(value).lower()} (it would be read as {int(value)}); "
                    "write the number itself"
                )
        return value


def empty_section() -> Any:
    """The default of a nested section (``cluster: ClusterConfig = empty_section()``): the section left out is
    validated as if it were written ``{}``, by the enclosing model's validator, when a stack file is read.

    A model instance as the default (``= ClusterConfig()``) would be validated on its own when its class is created,
    building a validator for each nested model at import that validating the stack file never uses (the root's
    validator includes every nested model's schema). The result is the same instance: every field at its default and
    ``model_fields_set`` empty.
    """
    return Field(default_factory=dict)


PATTERN_WORDS: dict[str, str] = {}
"""Every ``pattern`` a model field uses → what it means, in words (a refusal never prints a regex)."""


def worded(pattern: str, words: str) -> Any:
    """``Field(pattern=...)`` that registers what the pattern means for the refusal's message."""
    PATTERN_WORDS[pattern] = words
    return Field(pattern=pattern)


NAMESPACE = "azure-gpu-platform"
"""The stack-config namespace (the Pulumi project name)."""

STACK_FILE_ENV = "AGP_STACK_FILE"
"""When set, error messages name this file instead of ``stacks/Pulumi.<stack>.yaml`` (the preflight sets it)."""


TODAY = "today"
"""The key of the validation context (``model_validate(data, context={TODAY: day})``) that carries the day: the
stack's models and their validators check dated rules against it instead of reading the clock."""


def context_today(info: ValidationInfo) -> date:
    """The day a field validator checks against: the validation context's, else :func:`gpu_catalog.clock.today`."""
    given = info.context.get(TODAY) if isinstance(info.context, dict) else None
    return given if isinstance(given, date) else clock.today()
