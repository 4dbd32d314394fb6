"""Databricks cluster policy for GPU clusters, generated from the Databricks rules (:mod:`rules.databricks`).

What the policy fixes or limits, and the rule behind each:

- ``node_type_id`` / ``driver_node_type_id``: an ``allowlist`` of the catalog sizes Azure Databricks offers that
  every size rule accepts with the configured floor (``databricks-gpu-node-types`` with the size rules, as the stack
  config applies it). A CPU node type is not on it. The driver may be omitted (Databricks then uses the workers'
  type, which is on the list).
- ``spark_version``: a ``regex`` that only GPU ML runtime keys match (``databricks-gpu-runtime``: only they ship
  CUDA); a CPU ML runtime, a standard runtime and a Photon runtime do not match.
- ``runtime_engine``: ``fixed`` to ``STANDARD`` (``databricks-gpu-no-photon``).
- ``data_security_mode``: ``fixed`` to ``SINGLE_USER``, and ``single_user_name`` required
  (``databricks-gpu-dedicated-access``).
- ``autotermination_minutes``: a ``range`` from 10 to 10000 minutes (Databricks' bounds; 0, never, is outside it).
- ``custom_tags.<tag>``: each cost tag required (``unlimited``, not optional).

Policy definition syntax (``fixed``/``value``, ``allowlist``/``values``, ``regex``/``pattern``,
``range``/``minValue``/``maxValue``, ``unlimited``, ``isOptional``, ``defaultValue``, ``hidden``, attribute paths such
as ``custom_tags.<name>``): Databricks "Compute policy reference"; sources in ``conformance/facts/azure_policy.json``
(``databricks-policy-reference``, ``tf-databricks-cluster-policy``).

The policy describes the classic GPU request shape the platform creates for a user (``SINGLE_USER`` with a GPU ML
runtime key). Clusters dedicated to a group (``kind: CLASSIC_PREVIEW``, a DBR release key with ``use_ml_runtime``) or
running a custom container (a standard runtime) have another shape; :func:`governs` says which clusters it fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, Final

from gpu_catalog.catalog import Catalog, default_catalog
from rules.databricks import (
    AUTOTERMINATION_MAX,
    AUTOTERMINATION_MIN,
    DEFAULT_AUTOTERMINATION,
    EXAMPLE_GPU_ML_RUNTIME,
    GPU_ML_RUNTIME_RE,
    SINGLE_USER,
    STANDARD_ENGINE,
    accepted_node_types,
    blank_cost_tags,
    policy_governs,
)
from rules.sizes import DEFAULT_FLOOR, floor_size

DEFAULT_COST_TAGS: Final = ("cost-center",)
"""Tags every governed cluster must carry (its cost is charged to them)."""
TAG_PREFIX: Final = "custom_tags."

governs = policy_governs
"""Whether the policy fits a cluster request (:func:`rules.databricks.policy_governs`)."""


def allowed_node_types(
    floor: str = DEFAULT_FLOOR, today: date | None = None, catalog: Catalog | None = None
) -> list[str]:
    """Catalog sizes Azure Databricks offers as GPU node types that every size rule accepts, sorted by name
    (:func:`rules.databricks.accepted_node_types`)."""
    return accepted_node_types(floor, today, catalog)


def floor_problem(floor: str, today: date | None = None, catalog: Catalog | None = None) -> str | None:
    """Why no policy can be generated for the GPU floor ``floor`` (unknown, or no Databricks node type meets it)."""
    cat = catalog if catalog is not None else default_catalog()
    try:
        floor_size(floor, cat)
    except ValueError as exc:
        return str(exc)
    if not accepted_node_types(floor, today, cat):
        return f"no GPU node type Azure Databricks offers is at or above the floor {floor}"
    return None


def cost_tags_problem(cost_tags: Sequence[str]) -> str | None:
    """Why the cost tags cannot be required (an empty tag name)."""
    return "cost tags must be non-empty tag names" if blank_cost_tags(cost_tags) else None


def cluster_policy_definition(
    *,
    floor: str = DEFAULT_FLOOR,
    cost_tags: Sequence[str] = DEFAULT_COST_TAGS,
    today: date | None = None,
    catalog: Catalog | None = None,
) -> dict[str, dict[str, Any]]:
    """The policy definition (the JSON document ``ClusterPolicy.definition`` takes), keyed by attribute path.

    Raises ``ValueError`` for an unknown floor, a floor no Databricks size meets, or an empty cost tag.
    """
    problem = floor_problem(floor, today, catalog) or cost_tags_problem(cost_tags)
    if problem is not None:
        raise ValueError(problem)
    nodes = accepted_node_types(floor, today, catalog)
    definition: dict[str, dict[str, Any]] = {
        "node_type_id": {"type": "allowlist", "values": nodes},
        "driver_node_type_id": {"type": "allowlist", "values": nodes, "isOptional": True},
        "spark_version": {
            "type": "regex",
            "pattern": GPU_ML_RUNTIME_RE.pattern,
            "defaultValue": EXAMPLE_GPU_ML_RUNTIME,
        },
        "runtime_engine": {"type": "fixed", "value": STANDARD_ENGINE, "hidden": True},
        "data_security_mode": {"type": "fixed", "value": SINGLE_USER},
        "single_user_name": {"type": "unlimited", "isOptional": False},
        "autotermination_minutes": {
            "type": "range",
            "minValue": AUTOTERMINATION_MIN,
            "maxValue": AUTOTERMINATION_MAX,
            "defaultValue": DEFAULT_AUTOTERMINATION,
        },
    }
    for tag in sorted(set(cost_tags)):
        definition[f"{TAG_PREFIX}{tag}"] = {"type": "unlimited", "isOptional": False}
    return definition


def description(floor: str = DEFAULT_FLOOR) -> str:
    return (
        "azure-gpu-platform GPU clusters: GPU node types from the catalog at or above the floor "
        f"{floor}, GPU ML runtimes only, Photon off, dedicated (single user) access, automatic termination "
        f"{AUTOTERMINATION_MIN}-{AUTOTERMINATION_MAX} minutes, cost tags required. Generated by "
        "exports/databricks_policy.py from rules/databricks.py."
    )
