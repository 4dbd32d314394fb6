"""Config keys outside the project's namespace: a misspelled namespace is refused, any other unused key is named.

Pulumi hands a program every key of its stack file and never complains about one nobody reads. A section written
under ``azure-gpu-platfrom:gpuPools`` is therefore silently ignored, and the next ``pulumi up`` deletes the pools it
used to declare. :func:`foreign_key_findings` sorts every key that is not under this project's namespace:

- under a namespace close to the project's (a typo): a :class:`~gpu_catalog.problems.Problem`, naming the key it
  was meant to be;
- under the namespace of a provider the program uses (``azure-native``, ``kubernetes``, ``databricks``, ``time``) or
  ``pulumi``: fine when the provider declares that key (read from the installed provider package's
  ``config/vars.py``, its schema's config section, without importing it); otherwise a warning naming the closest key;
- referenced by a value of the project's config (``kaito.workspaces[].modelAccessTokenConfig: kaito:hfToken``): fine;
- anything else: a warning naming the closest known key.

Pure apart from reading the provider packages' files; no Pulumi import.
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gpu_catalog.problems import Problem

PROVIDER_PACKAGES: dict[str, str] = {
    "azure-native": "pulumi_azure_native",
    "kubernetes": "pulumi_kubernetes",
    "databricks": "pulumi_databricks",
    "time": "pulumiverse_time",
}
"""Config namespace → Python package of every provider this program creates resources with."""

PULUMI_NAMESPACE = "pulumi"
"""The engine's own keys (``pulumi:disable-default-providers``, ``pulumi:tags``): never this program's concern."""

NAMESPACE_TYPO_RATIO = 0.75
"""A namespace at least this similar to the project's (difflib ratio) is taken for a typo of it: ``azure-gpu-platfrom``
scores 0.94, ``gpu-platform`` 0.8, the provider namespaces at most 0.4."""

CONFIG_KEY_RE = re.compile(r"^[A-Za-z0-9][-A-Za-z0-9_.]*:[A-Za-z0-9][-A-Za-z0-9_.]*$")
"""A full Pulumi config key, ``namespace:name`` (what ``kaito.workspaces[].modelAccessTokenConfig`` names)."""
_VARS_KEY_RE = re.compile(r"__config__\.get\w*\(\s*'([^']+)'")


@functools.cache
def provider_config_keys(package: str) -> frozenset[str] | None:
    """The config keys a provider package declares (its ``config/vars.py``), or ``None`` when it ships no such file
    (then any key under its namespace is accepted)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        vars_file = Path(location) / "config" / "vars.py"
        if vars_file.is_file():
            return frozenset(_VARS_KEY_RE.findall(vars_file.read_text(encoding="utf-8")))
    return None


def referenced_keys(value: Any) -> set[str]:
    """Every string in a config value that names a config key (``kaito:hfToken``)."""
    if isinstance(value, str):
        return {value} if CONFIG_KEY_RE.match(value) else set()
    if isinstance(value, Mapping):
        return set().union(*(referenced_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(referenced_keys(v) for v in value))
    return set()


def _closest(word: str, candidates: Iterable[str]) -> str | None:
    found = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return found[0] if found else None


def is_namespace_typo(namespace: str, project: str) -> bool:
    if namespace == project:
        return False
    if namespace.lower().replace("_", "-") == project.lower():
        return True
    return difflib.SequenceMatcher(None, namespace.lower(), project.lower()).ratio() >= NAMESPACE_TYPO_RATIO


def foreign_key_findings(
    keys: Iterable[str], *, project: str, project_keys: Iterable[str], referenced: Iterable[str] = ()
) -> tuple[list[Problem], list[str]]:
    """``(problems, warnings)`` for the config keys that are not under ``project:`` (see the module docstring).

    ``project_keys`` are the top-level keys the project reads (to name the key a typo was meant to be).
    """
    allowed = set(project_keys)
    used = set(referenced)
    known: set[str] = {f"{project}:{k}" for k in allowed}
    for namespace, package in PROVIDER_PACKAGES.items():
        known.update(f"{namespace}:{k}" for k in provider_config_keys(package) or ())
    problems: list[Problem] = []
    warnings: list[str] = []
    for key in sorted(set(keys)):
        namespace, sep, name = key.partition(":")
        if not sep or namespace == project or key in used:
            continue
        if is_namespace_typo(namespace, project):
            meant = f"{project}:{name}" if name in allowed else None
            closest = meant or _closest(f"{project}:{name}", known)
            hint = f" Write it as '{closest}'." if closest else ""
            problems.append(
                Problem(
                    key,
                    f"namespace '{namespace}' is not this project's ('{project}'): Pulumi hands this key to no one, "
                    f"so its value would be ignored and the next `pulumi up` would delete what it used to "
                    f"declare.{hint}",
                )
            )
            continue
        if namespace == PULUMI_NAMESPACE:
            continue
        if namespace in PROVIDER_PACKAGES:
            declared = provider_config_keys(PROVIDER_PACKAGES[namespace])
            if declared is None or name in declared:
                continue
            closest = _closest(key, {f"{namespace}:{k}" for k in declared})
            hint = f"; did you mean '{closest}'?" if closest else f"; its keys: {', '.join(sorted(declared))}."
            warnings.append(f"{key}: the {namespace} provider has no config key '{name}', it is ignored{hint}")
            continue
        closest = _closest(key, known)
        hint = f"; the closest known key is '{closest}'" if closest else ""
        warnings.append(
            f"{key}: no provider or part of this program reads this key, it is ignored{hint}. Keys of this "
            f"project are under '{project}:'."
        )
    return problems, warnings
