"""Validating a stack config: every problem of the file in one refusal, keys outside the namespace included.
Pulumi-free: the program reads the engine's config and calls :func:`validate_stack_config`
(:mod:`composition.stack_file`)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from gpu_catalog import clock
from gpu_catalog.problems import Problem, key_path

from .base import NAMESPACE, TODAY
from .checks import (
    semantic_problems,
)
from .errors import (
    StackConfigError,
    _clean_loc,
    _error_to_problem,
)
from .fleet import FleetConfig, FleetMemberConfig
from .fleet_members import expand_member, fleet_moves_versions, fleet_problems
from .models import StackConfig

# --------------------------------------------------------------------------------------------------- loading


def _merge_same_path(problems: list[Problem]) -> list[Problem]:
    """A union (e.g. a level or a dict) reports one error per alternative: fold them into one line per key path."""
    merged: dict[str, list[str]] = {}
    for p in problems:
        msgs = merged.setdefault(p.path, [])
        if p.message not in msgs:
            msgs.append(p.message)
    out: list[Problem] = []
    for path, msgs in merged.items():
        if len(msgs) == 1:
            out.append(Problem(path, msgs[0]))
            continue
        got = re.search(r" \(got .*\)\.$", msgs[-1])
        parts = [re.sub(r"( \(got .*\))?\.$", "", m) for m in msgs]
        out.append(Problem(path, "; or ".join(parts) + (got.group(0) if got else ".")))
    return out


def no_config_values(key: str) -> bool:
    """``config_present`` for a caller without a Pulumi config (the tests, tools reading a stack file): no config key
    outside the typed stack config is set."""
    del key
    return False


def validate_stack_config(
    data: Mapping[str, Any],
    *,
    stack_file: str,
    extra: Sequence[Problem] = (),
    config_present: Callable[[str], bool] = no_config_values,
    today: date | None = None,
) -> StackConfig:
    """Validate a plain dict (keys without the namespace) and return the model, or raise :class:`StackConfigError`.

    Every problem of the file is reported in one run: when some keys have the wrong shape (``budget.monthlyUsd: -1``),
    the cross-field rules still run on the rest (see :func:`_checked_without`), so a budget typo does not hide a pool
    that AKS would refuse. ``extra`` are problems found elsewhere in the same file (keys outside the namespace).
    ``config_present`` tells whether a Pulumi config key outside the namespace is set (a KAITO workspace's token
    config): the Pulumi program passes the engine's config (``composition/stack_file.py``); the default knows none.
    ``today`` dates every rule (default: :func:`gpu_catalog.clock.today`, read here once and handed down through
    the validation context and :attr:`StackConfig.today`).
    Pure: no Pulumi engine needed (the preflight and the tests call it).
    """
    day = today or clock.today()
    try:
        cfg = StackConfig.model_validate(dict(data), context={TODAY: day})
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        problems = _merge_same_path([_error_to_problem(e, StackConfig) for e in errors])
        problems += _checked_without(data, errors, {p.path for p in problems}, config_present, day)
        problems += _fleet_of_broken_template(data, problems, config_present, day)
        raise StackConfigError([*extra, *problems], stack_file) from None
    problems = [*extra, *semantic_problems(cfg, config_present=config_present)]
    if cfg.fleet is not None:
        expanded, found = fleet_problems(
            data,
            cfg.fleet,
            location=cfg.location,
            day=day,
            config_present=config_present,
            template_problems=problems,
        )
        cfg._fleet = expanded
        problems += found
    if problems:
        raise StackConfigError(problems, stack_file)
    return cfg


def _fleet_of_broken_template(
    data: Mapping[str, Any], problems: Sequence[Problem], config_present: Callable[[str], bool], day: date
) -> list[Problem]:
    """Every well-formed member's problems when the stack has structural ones (every problem at once); a problem the
    template already reports is not repeated per member. The fleet-wide rules wait for a well-formed stack."""
    raw = data.get("fleet")
    members = raw.get("members") if isinstance(raw, Mapping) else None
    if not isinstance(members, list):
        return []
    try:
        upgrades = fleet_moves_versions(FleetConfig.model_validate(raw, context={TODAY: day}))
    except ValidationError:
        upgrades = False  # the fleet section's own problems are reported by the root model
    found: list[Problem] = []
    for i, item in enumerate(members):
        try:
            member = FleetMemberConfig.model_validate(item, context={TODAY: day})
        except ValidationError:
            continue  # reported on its own key by the root model
        found += expand_member(
            data,
            i,
            member,
            day=day,
            config_present=config_present,
            template_problems=problems,
            fleet_upgrades=upgrades,
        )[1]
    return found


_PLACEHOLDERS: dict[str, Any] = {"environment": "dev", "location": "westeurope"}
"""Stand-ins for a required top-level key that is missing or malformed, only so the other rules can run."""


def _checked_without(
    data: Mapping[str, Any],
    errors: Sequence[ErrorDetails],
    reported: set[str],
    config_present: Callable[[str], bool],
    day: date,
) -> list[Problem]:
    """The cross-field problems of the config with every malformed key left out (optional keys fall back to their
    defaults; a required top-level key gets a stand-in), except those on a section that already has a problem:
    rules there would judge the stand-ins. Empty when the config cannot be made structurally valid that way."""
    repaired: Any = copy.deepcopy(dict(data))
    broken: set[str] = set()
    for _ in range(4):
        for err in errors:
            loc = _clean_loc(err)
            removed = _drop(repaired, loc, missing=err["type"] == "missing")
            if removed is None:
                return []
            broken.add(removed)
            broken.add(key_path(loc[:2]) if len(loc) > 1 and isinstance(loc[1], int) else key_path(loc[:1]))
        try:
            cfg = StackConfig.model_validate(repaired, context={TODAY: day})
        except ValidationError as again:
            errors = again.errors(include_url=False)
            continue
        return [
            p
            for p in semantic_problems(cfg, config_present=config_present)
            if p.path not in reported and not any(_under(p.path, section) for section in broken)
        ]
    return []


def _under(path: str, section: str) -> bool:
    return path == section or path.startswith((f"{section}.", f"{section}["))


def _drop(data: Any, loc: Sequence[int | str], *, missing: bool) -> str | None:
    """Leave out the malformed value at ``loc`` (for a missing key, the section that lacks it; for a bad list item,
    the whole list, so no index shifts), or give a required top-level key its stand-in. The path left out, or
    ``None`` when nothing can be."""
    target = list(loc[:-1] if missing else loc)
    while target and isinstance(target[-1], int):
        target.pop()
    if not target or not isinstance(data, dict):
        return None
    if len(target) == 1 and target[0] in _PLACEHOLDERS:
        data[target[0]] = _PLACEHOLDERS[str(target[0])]
        return key_path(target)
    parent = data
    for part in target[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return key_path(target)  # already left out with an enclosing value
    if isinstance(parent, dict):
        parent.pop(target[-1], None)
    return key_path(target)


def config_from_stack_yaml(config_section: Mapping[str, Any]) -> dict[str, Any]:
    """The ``config:`` section of a stack file → the dict :func:`validate_stack_config` takes.

    Keys of other namespaces (``azure-native:location``) are dropped; ``azure-gpu-platform:<key>`` keeps ``<key>``.
    """
    prefix = f"{NAMESPACE}:"
    return {k[len(prefix) :]: v for k, v in config_section.items() if k.startswith(prefix)}


def decode_config_value(value: Any) -> Any:
    """A config value as the language host passes it (a string) → what the models validate: objects, lists and
    booleans JSON-decoded; any other string stays a string (``"1.33"`` must not become a float)."""
    if not isinstance(value, str):
        return value
    try:
        decoded = json.loads(value)
    except json.JSONDecodeError:
        return value
    return decoded if isinstance(decoded, dict | list | bool) else value
