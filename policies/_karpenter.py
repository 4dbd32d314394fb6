"""Reading a Karpenter NodePool (``kubernetes:karpenter.sh/v1:NodePool``) as the engine sends it: its requirements,
the sizes they allow (resolved through the catalog by :mod:`rules.karpenter`) and its limits.

Works on :func:`policies._resources.plain` values: unknown values during a preview come back as paths to report, never
as a pass. Raw NodePools count as much as the platform's own.
"""

from __future__ import annotations

from typing import Any

from rules.karpenter import NodePoolSizes, Requirement, nodepool_sizes

from ._resources import UNKNOWN, SizeField, get, join_path

REQUIREMENTS_PATH = ("spec", "template", "spec", "requirements")


def requirements(props: Any) -> tuple[list[Requirement], list[str]]:
    """The NodePool's requirements that are known, and the paths of the unknown ones."""
    raw = get(props, *REQUIREMENTS_PATH)
    base = join_path(*REQUIREMENTS_PATH)
    if raw is UNKNOWN:
        return [], [base]
    out: list[Requirement] = []
    unknown: list[str] = []
    for i, entry in enumerate(raw if isinstance(raw, list) else []):
        path = join_path(base, i)
        if entry is UNKNOWN:
            unknown.append(path)
            continue
        if not isinstance(entry, dict):
            continue
        key, op, values = entry.get("key"), entry.get("operator"), entry.get("values") or []
        if UNKNOWN in (key, op) or values is UNKNOWN or any(v is UNKNOWN for v in values):
            unknown.append(path)
            continue
        if isinstance(key, str) and isinstance(op, str):
            out.append(Requirement(key, op, tuple(str(v) for v in values)))
    return out, unknown


def allowed_sizes(props: Any) -> tuple[NodePoolSizes, list[str]]:
    """The sizes the NodePool allows, and the unknown requirement paths (with one unknown, the open set is not
    resolved: a requirement that was not read could narrow it)."""
    reqs, unknown = requirements(props)
    sizes = nodepool_sizes(reqs)
    if unknown:
        sizes = NodePoolSizes(sizes.named, tuple(n.size for n in sizes.named if n.size in sizes.admitted))
    return sizes, unknown


def nodepool_size_fields(props: Any) -> tuple[list[SizeField], list[str]]:
    """Every size a NodePool allows, as size fields: ``spec.template.spec.requirements[i].values[j]`` for a size an
    ``In`` list names, ``spec.template.spec.requirements (admits <size>)`` for one an open requirement lets in."""
    sizes, unknown = allowed_sizes(props)
    base = join_path(*REQUIREMENTS_PATH)
    fields = [SizeField(join_path(base, n.requirement, "values", n.value), n.size) for n in sizes.named]
    if not unknown:
        fields += [SizeField(f"{base} (admits {name})", name) for name in sizes.extra]
    return fields, unknown
