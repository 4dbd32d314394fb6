"""Databricks cluster policy for GPU clusters, for teams that manage policies elsewhere (``python -m exports
databricks-policy``).

The document — what it fixes or limits, the rule behind each, one policy per request shape — is built by
:mod:`rules.databricks_policy_document` (the platform's component builds the same one from there). This module is the
adapter: the day defaults to :func:`gpu_catalog.clock.today`, read once per call here (the rules take the day).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from gpu_catalog import clock
from gpu_catalog.catalog import Catalog
from rules import databricks_policy_document as document
from rules.databricks_facts import accepted_node_types
from rules.databricks_policy import DEFAULT_COST_TAGS
from rules.databricks_policy_document import TAG_PREFIX, description
from rules.databricks_shapes import SHAPE_GPU_ML
from rules.sizes import DEFAULT_FLOOR

__all__ = ["TAG_PREFIX", "allowed_node_types", "cluster_policy_definition", "description"]


def allowed_node_types(
    floor: str = DEFAULT_FLOOR, today: date | None = None, catalog: Catalog | None = None
) -> list[str]:
    """:func:`rules.databricks_facts.accepted_node_types` (the GPU node types the policy allows, sorted by name) on
    ``today`` (default: the clock's day)."""
    return accepted_node_types(floor, today=today or clock.today(), catalog=catalog)


def cluster_policy_definition(
    *,
    floor: str = DEFAULT_FLOOR,
    cost_tags: Sequence[str] = DEFAULT_COST_TAGS,
    today: date | None = None,
    catalog: Catalog | None = None,
    shape: str = SHAPE_GPU_ML,
) -> dict[str, dict[str, Any]]:
    """:func:`rules.databricks_policy_document.cluster_policy_definition` on ``today`` (default: the clock's day).
    Raises ``ValueError`` as it does."""
    return document.cluster_policy_definition(
        floor=floor, cost_tags=cost_tags, today=today or clock.today(), catalog=catalog, shape=shape
    )
