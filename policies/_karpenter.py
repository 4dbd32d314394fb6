"""Reading a Karpenter NodePool (``kubernetes:karpenter.sh/v1:NodePool``) as the engine sends it: its requirements,
the sizes they allow (resolved through the catalog by :mod:`rules.karpenter`), what they say about GPUs
(:class:`rules.karpenter.GpuScope`) and its limits.

Works on :func:`policies._values.plain` values: unknown values during a preview come back as paths to report, never
as a pass. Raw NodePools count as much as the platform's own.

Only an explicitly GPU NodePool meets the size rules (``gpu-size-*``) and ``gpu-nodepool-limits``; a NodePool that
excludes GPUs meets neither; one that does not constrain GPUs gets one finding from ``gpu-nodepool-constrains-gpus``.
A size rule reports one violation per NodePool however many admitted sizes it refuses
(:func:`rules.karpenter.summarise_sizes`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rules.karpenter import (
    GPU_RESOURCE,
    REQUIREMENTS_PATH,
    GpuScope,
    NodePoolSizes,
    gpu_scope,
    nodepool_sizes,
    read_requirements,
    selects_gpus,
    summarise_sizes,
)
from rules.size_fields import join_path
from rules.sizes import SizeFinding

from ._values import UNKNOWN, Review, SizeField, get, is_unknown


@dataclass(frozen=True, slots=True)
class NodePoolView:
    """A NodePool's sizes and GPU scope as the policies see them."""

    sizes: NodePoolSizes
    unknown: list[str]
    """Requirement paths unknown during the preview."""
    scope: GpuScope | None
    """``None``: a requirement is unknown and the known ones do not ask for GPUs, so the scope is not known yet."""


def allowed_sizes(props: Any) -> tuple[NodePoolSizes, list[str]]:
    """The sizes the NodePool allows, and the unknown requirement paths (with one unknown, the open set is not
    resolved: a requirement that was not read could narrow it)."""
    reqs, unknown = read_requirements(props, is_unknown)
    sizes = nodepool_sizes(reqs)
    if unknown:  # only the named sizes the known requirements admit (catalog spelling; names compare like the catalog)
        named = {n.size.lower() for n in sizes.named}
        sizes = NodePoolSizes(sizes.named, tuple(name for name in sizes.admitted if name.lower() in named))
    return sizes, unknown


def read_nodepool(props: Any) -> NodePoolView:
    """The NodePool's allowed sizes, unknown requirement paths and GPU scope (:func:`rules.karpenter.gpu_scope`)."""
    reqs, _ = read_requirements(props, is_unknown)
    sizes, unknown = allowed_sizes(props)
    if not unknown:
        return NodePoolView(sizes, unknown, gpu_scope(reqs))
    explicit = any(selects_gpus(r) for r in reqs) and sizes.is_gpu()
    return NodePoolView(sizes, unknown, GpuScope.EXPLICIT if explicit else None)


def nodepool_name(props: Any, fallback: str) -> str:
    name = get(props, "metadata", "name")
    return name if isinstance(name, str) and name else fallback


def gpu_tainted(props: Any) -> bool | None:
    """Whether the NodePool's nodes get a taint keyed ``nvidia.com/gpu`` (``None``: the taints are unknown)."""
    taints = get(props, "spec", "template", "spec", "taints")
    if taints is UNKNOWN:
        return None
    entries = taints if isinstance(taints, list) else []
    if any(get(t, "key") is UNKNOWN for t in entries):
        return None
    return any(get(t, "key") == GPU_RESOURCE for t in entries)


def nodepool_size_fields(props: Any) -> tuple[list[SizeField], list[str]]:
    """Every size an explicitly GPU NodePool allows, as size fields: ``spec.template.spec.requirements[i].values[j]``
    for a size an ``In`` list names, ``spec.template.spec.requirements (admits <size>)`` for one an open requirement
    lets in. None for a NodePool that excludes or does not constrain GPUs."""
    view = read_nodepool(props)
    if view.scope is not GpuScope.EXPLICIT:
        return [], view.unknown
    base = join_path(*REQUIREMENTS_PATH)
    fields = [SizeField(join_path(base, n.requirement, "values", n.value), n.size) for n in view.sizes.named]
    if not view.unknown:
        fields += [SizeField(f"{base} (admits {name})", name) for name in view.sizes.extra]
    return fields, view.unknown


def review_nodepool_sizes(props: Any, review: Review, check: Callable[[str], SizeFinding | None]) -> None:
    """Run one size rule on every size a NodePool allows and report one violation for the NodePool
    (:func:`rules.karpenter.summarise_sizes`); unknown requirements are recorded on ``review``."""
    fields, unknown = nodepool_size_fields(props)
    for path in unknown:
        review.unknown_field(path)
    refused: list[tuple[str, str, str]] = []
    for field in fields:
        if field.value is UNKNOWN:
            review.unknown_field(field.path)
            continue
        finding = check(str(field.value))
        if finding is not None:
            refused.append((field.path, str(field.value), finding.message))
    message = summarise_sizes(nodepool_name(props, "(unnamed)"), refused)
    if message is not None:
        review.violation(message)
