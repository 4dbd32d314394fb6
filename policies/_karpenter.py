"""Reading a Karpenter NodePool (``kubernetes:karpenter.sh/v1:NodePool``) as the engine sends it: its requirements,
the sizes they allow (resolved through the catalog by :mod:`rules.karpenter`) and its limits.

Works on :func:`policies._resources.plain` values: unknown values during a preview come back as paths to report, never
as a pass. Raw NodePools count as much as the platform's own.
"""

from __future__ import annotations

from typing import Any

from rules.karpenter import REQUIREMENTS_PATH, NodePoolSizes, nodepool_sizes, read_requirements

from ._resources import SizeField, is_unknown, join_path


def allowed_sizes(props: Any) -> tuple[NodePoolSizes, list[str]]:
    """The sizes the NodePool allows, and the unknown requirement paths (with one unknown, the open set is not
    resolved: a requirement that was not read could narrow it)."""
    reqs, unknown = read_requirements(props, is_unknown)
    sizes = nodepool_sizes(reqs)
    if unknown:  # only the named sizes the known requirements admit (catalog spelling; names compare like the catalog)
        named = {n.size.lower() for n in sizes.named}
        sizes = NodePoolSizes(sizes.named, tuple(name for name in sizes.admitted if name.lower() in named))
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
