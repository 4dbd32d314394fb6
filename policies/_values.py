"""Values as the engine sends them, without pulumi_policy's proxies, and one policy run's verdict.

The lowest layer of the pack's readers (``policies/_resources.py`` and ``policies/_karpenter.py`` build on it; both
re-use these names, and policies import them from ``policies/_resources.py``): :func:`plain` unwraps the proxy and
turns the engine's unknown sentinels into :data:`UNKNOWN`, :func:`get` reads a path of a plain value, and
:class:`Review` reports violations, then states what could not be checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pulumi_policy import ReportViolation, ResourceValidationArgs, StackValidationArgs
from pulumi_policy.proxy import (
    UNKNOWN_ARCHIVE_VALUE,
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_ASSET_VALUE,
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
    UnknownValueError,
    _DictProxy,
    _ListProxy,
)

_SENTINELS: Final = frozenset(
    {
        UNKNOWN_BOOLEAN_VALUE,
        UNKNOWN_NUMBER_VALUE,
        UNKNOWN_STRING_VALUE,
        UNKNOWN_ARRAY_VALUE,
        UNKNOWN_ASSET_VALUE,
        UNKNOWN_ARCHIVE_VALUE,
        UNKNOWN_OBJECT_VALUE,
    }
)


class _Unknown:
    """A value that is not known during a preview (computed from another resource's output)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN: Final = _Unknown()


def plain(value: Any) -> Any:
    """The engine's values without pulumi_policy's proxies; unknown sentinels become :data:`UNKNOWN`.

    The proxies are read through their documented ``__target`` escape hatch, so reading never raises. The common
    types are dispatched on their exact class (no ABC ``isinstance`` per node); anything else falls back to the
    ``Mapping`` / ``Sequence`` protocol. Policies read a resource through :func:`props_of`, which converts it once.
    """
    kind = type(value)
    if kind is str:
        return UNKNOWN if value in _SENTINELS else value
    if kind is _DictProxy:
        return {k: plain(v) for k, v in value["__target"].items()}
    if kind is _ListProxy:
        return [plain(v) for v in value["__target"]]
    if kind is float or kind is bool or kind is int or value is None:
        return value
    if kind is dict:
        return {k: plain(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [plain(v) for v in value]
    if isinstance(value, str):
        return UNKNOWN if value in _SENTINELS else value
    if isinstance(value, Mapping):
        target = value if isinstance(value, dict) else value["__target"]
        return {k: plain(v) for k, v in target.items()}
    if isinstance(value, Sequence):
        target = value if isinstance(value, list | tuple) else value["__target"]  # type: ignore[call-overload]
        return [plain(v) for v in target]
    return value


def get(obj: Any, *path: str | int) -> Any:
    """The value at ``path`` in a :func:`plain` value: ``None`` when absent, :data:`UNKNOWN` when unknown."""
    for key in path:
        if obj is UNKNOWN:
            return UNKNOWN
        if type(key) is str:  # exact classes first: the pack reads thousands of paths
            if type(obj) is not dict:
                return None
            obj = obj.get(key)
        elif type(obj) is not list or not isinstance(key, int) or key >= len(obj):
            return None
        else:
            obj = obj[key]
        if obj is None:
            return None
    return obj


def as_bool(value: Any) -> bool | None:
    """Booleans as Helm values and Spark conf carry them (``true``/``"true"``); ``None`` when not a boolean."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


@dataclass(frozen=True, slots=True)
class SizeField:
    """One place a VM size is named: the field path and its value (a string, or :data:`UNKNOWN`)."""

    path: str
    value: str | _Unknown


def is_unknown(value: Any) -> bool:
    """Whether a :func:`plain` value is :data:`UNKNOWN` (for ``rules`` readers that take the test as a parameter)."""
    return value is UNKNOWN


def unknown_fields_error(unknown: list[str]) -> UnknownValueError:
    """pulumi_policy's ``UnknownValueError`` naming every field of a review that was unknown during preview."""
    error = UnknownValueError(UNKNOWN_STRING_VALUE, [unknown[0]])
    error.message = (
        f"{', '.join(unknown)} can't be known during preview and "
        f"{'were' if len(unknown) > 1 else 'was'} not checked (every known value was); the check runs "
        "again when `pulumi up` knows the value"
    )
    return error


class Review:
    """One policy run over one resource (or the stack): reports violations, then states what could not be checked.

    Unknown values (previews): every known value is checked first and its violations reported. If any checked
    field was unknown, :meth:`finish` then raises pulumi_policy's ``UnknownValueError`` naming every unknown
    field, so the SDK adds its standard *advisory* diagnostic "can't run policy '<name>' ... during preview:
    <fields> ..." — visible in the preview output, never blocking it, and never a silent pass. At
    ``pulumi up`` the values are known and the policy runs at its configured level.

    Values that are simply not there to check (e.g. a KAITO preset newer than the preset table) are recorded with
    :meth:`not_checked` and reported through ``args.not_applicable(reason)`` when nothing else was reported.
    """

    def __init__(
        self, report: ReportViolation, args: ResourceValidationArgs | StackValidationArgs | None = None
    ) -> None:
        self._report = report
        self._args = args
        self.violations: list[str] = []
        self.unknown: list[str] = []
        self.unchecked: list[str] = []

    def violation(self, message: str, urn: str | None = None) -> None:
        self.violations.append(message)
        self._report(message, urn)

    def unknown_field(self, path: str) -> None:
        if path not in self.unknown:
            self.unknown.append(path)

    def not_checked(self, reason: str) -> None:
        self.unchecked.append(reason)

    def finish(self) -> None:
        if self.unknown:
            # Built in another function: a local holding the error would tie this frame and everything it reaches to
            # the error's traceback in a reference cycle (the pack runs without the cyclic collector: _collector.py).
            raise unknown_fields_error(self.unknown)
        if self.unchecked and not self.violations and self._args is not None:
            self._args.not_applicable("; ".join(self.unchecked))
