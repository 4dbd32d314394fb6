"""Databricks cluster policy for GPU clusters, generated from the Databricks rules (:mod:`rules.databricks`).

What the policy fixes or limits, and the rule behind each:

- ``node_type_id`` / ``driver_node_type_id``: an ``allowlist`` of the catalog sizes Azure Databricks offers that
  every size rule accepts with the configured floor (``databricks-gpu-node-types`` with the size rules, as the stack
  config applies it). A CPU node type is not on it. The driver may be omitted (Databricks then uses the workers'
  type, which is on the list).
- ``spark_version``: a ``regex`` (:func:`rules.databricks_policy.policy_runtime_re` on the export's ``today``) that
  GPU ML runtime keys match (the classic request) and DBR release keys match (the ``kind: CLASSIC_PREVIEW`` request with
  ``use_ml_runtime: true``, and custom containers) (``databricks-gpu-runtime``), of the releases
  ``gpu_catalog/facts/databricks.json`` lists as supported on that day only: a release past its end of support (or
  one the facts do not list) does not match, so the policy changes on each end-of-support date. A ``regex`` rather
  than an ``allowlist`` of keys: one alternative per release covers both key shapes and both Scala suffixes (the
  reference's limitation types: ``fixed``, ``forbidden``, ``allowlist``, ``blocklist``, ``regex``, ``range``,
  ``unlimited``). CPU ML and Photon runtime keys do not match. What one
  limitation per attribute cannot say: a release key with neither ``use_ml_runtime`` nor a container image (a
  standard runtime) matches too; the rules refuse it in the stack config, the components and the pack.
- ``runtime_engine``: ``fixed`` to ``STANDARD`` (``databricks-gpu-no-photon``).
- ``data_security_mode``: an ``allowlist`` of ``SINGLE_USER`` and its alias ``DATA_SECURITY_MODE_DEDICATED`` (the
  ``kind`` request; a user or a group), and ``single_user_name`` required (``databricks-gpu-dedicated-access``).
  Shared (``USER_ISOLATION``, ``DATA_SECURITY_MODE_STANDARD``), ``DATA_SECURITY_MODE_AUTO``, ``NONE`` and the legacy
  modes are not on it.
- ``kind`` and ``use_ml_runtime`` are not limited: the API accepts ``kind`` ``CLASSIC_PREVIEW`` only, and the only
  limitation the reference shows for a boolean is ``fixed``, which would put ``use_ml_runtime`` into classic
  requests (where the API takes it only with ``kind``).
- ``autotermination_minutes``: a ``range`` from 10 to 10000 minutes (Databricks' bounds; 0, never, is outside it).
- ``custom_tags.<tag>``: each cost tag required (``unlimited``, not optional).

Policy definition syntax (``fixed``/``value``, ``allowlist``/``values``, ``regex``/``pattern``,
``range``/``minValue``/``maxValue``, ``unlimited``, ``isOptional``, ``defaultValue``, ``hidden``, attribute paths such
as ``custom_tags.<name>``): Databricks "Compute policy reference"; sources in ``conformance/facts/azure_policy.json``
(``databricks-policy-reference``, ``tf-databricks-cluster-policy``).

Every GPU cluster request the platform sends fits it — a user's (``SINGLE_USER``, a GPU ML runtime key), a group's
(``kind: CLASSIC_PREVIEW``, ``DATA_SECURITY_MODE_DEDICATED``, the DBR release key, ``use_ml_runtime: true``) and a
custom container's (a standard runtime): with ``databricks.clusterPolicy`` every cluster of the stack references it,
and :func:`rules.databricks_policy.policy_refusals` says, attribute by attribute, what it refuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, Final

from gpu_catalog import clock
from gpu_catalog.catalog import Catalog
from rules.databricks import (
    AUTOTERMINATION_MAX,
    AUTOTERMINATION_MIN,
    DEFAULT_AUTOTERMINATION,
    SINGLE_USER,
    STANDARD_ENGINE,
)
from rules.databricks_facts import accepted_node_types
from rules.databricks_policy import (
    DEFAULT_COST_TAGS,
    POLICY_ACCESS_MODES,
    cost_tags_problem,
    floor_problem,
    policy_default_runtime,
    policy_runtime_re,
)
from rules.sizes import DEFAULT_FLOOR

TAG_PREFIX: Final = "custom_tags."


def allowed_node_types(
    floor: str = DEFAULT_FLOOR, today: date | None = None, catalog: Catalog | None = None
) -> list[str]:
    """Catalog sizes Azure Databricks offers as GPU node types that every size rule accepts, sorted by name
    (:func:`rules.databricks_facts.accepted_node_types`) on ``today``; an adapter: ``today`` defaults to
    :func:`gpu_catalog.clock.today`, resolved here (the rules take the day)."""
    return accepted_node_types(floor, today=today or clock.today(), catalog=catalog)


def cluster_policy_definition(
    *,
    floor: str = DEFAULT_FLOOR,
    cost_tags: Sequence[str] = DEFAULT_COST_TAGS,
    today: date | None = None,
    catalog: Catalog | None = None,
) -> dict[str, dict[str, Any]]:
    """The policy definition (the JSON document ``ClusterPolicy.definition`` takes), keyed by attribute path.

    ``today`` (default: :func:`gpu_catalog.clock.today`, resolved here once: the rules take the day) dates the node
    types (retired sizes leave) and the runtimes (ended releases leave). Raises ``ValueError`` for an unknown floor,
    a floor no Databricks size meets, an empty cost tag, or no runtime release supported on ``today``.
    """
    day = today or clock.today()
    problem = floor_problem(floor, today=day, catalog=catalog) or cost_tags_problem(cost_tags)
    if problem is not None:
        raise ValueError(problem)
    nodes = accepted_node_types(floor, today=day, catalog=catalog)
    definition: dict[str, dict[str, Any]] = {
        "node_type_id": {"type": "allowlist", "values": nodes},
        "driver_node_type_id": {"type": "allowlist", "values": nodes, "isOptional": True},
        "spark_version": {
            "type": "regex",
            "pattern": policy_runtime_re(day).pattern,
            "defaultValue": policy_default_runtime(day),
        },
        "runtime_engine": {"type": "fixed", "value": STANDARD_ENGINE, "hidden": True},
        "data_security_mode": {"type": "allowlist", "values": list(POLICY_ACCESS_MODES), "defaultValue": SINGLE_USER},
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
        f"{floor}, GPU ML runtime keys of supported releases (or the DBR release with kind CLASSIC_PREVIEW and "
        "use_ml_runtime, or a custom container), Photon off, dedicated access (a user, or a group with kind), "
        "automatic termination "
        f"{AUTOTERMINATION_MIN}-{AUTOTERMINATION_MAX} minutes, cost tags required. Generated by "
        "exports/databricks_policy.py from rules/databricks.py."
    )
