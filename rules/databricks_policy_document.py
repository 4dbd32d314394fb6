"""The Databricks cluster policy document for GPU clusters, generated from the Databricks rules
(:mod:`rules.databricks`, :mod:`rules.databricks_policy`, :mod:`rules.databricks_shapes`). Pure: the day is passed in;
no Pulumi import. The component (``components/databricks.py``) and the export (``exports/databricks_policy.py``,
``python -m exports databricks-policy``) build it here.

What the policy fixes or limits, and the rule behind each:

- ``node_type_id`` / ``driver_node_type_id``: an ``allowlist`` of the catalog sizes Azure Databricks offers that
  every size rule accepts with the configured floor (``databricks-gpu-node-types`` with the size rules, as the stack
  config applies it). A CPU node type is not on it. The driver may be omitted (Databricks then uses the workers'
  type, which is on the list).
- ``spark_version``: a ``regex`` (:func:`rules.databricks_shapes.shape_runtime_re` on the given ``today``) of
  the releases ``gpu_catalog/facts/databricks.json`` lists as supported on that day only (``databricks-gpu-runtime``):
  a release past its end of support (or one the facts do not list) does not match, so the policy changes on each
  end-of-support date. A ``regex`` rather than an ``allowlist`` of keys: one alternative per release covers both
  Scala suffixes (the reference's limitation types: ``fixed``, ``forbidden``, ``allowlist``, ``blocklist``,
  ``regex``, ``range``, ``unlimited``). CPU ML and Photon runtime keys never match.
- One policy per request shape (``shape``, :mod:`rules.databricks_shapes`), because a policy has one limitation per
  attribute and no condition between them: ``gpu-ml`` (the default, the classic request) admits GPU ML runtime keys
  only and forbids ``kind``, ``use_ml_runtime`` and ``docker_image.url``; ``kind`` admits DBR release keys and fixes
  ``kind: CLASSIC_PREVIEW`` and ``use_ml_runtime: true`` (Databricks applies fixed values to omitted attributes, so a
  release key alone runs the GPU ML runtime) and forbids an image; ``container`` admits DBR release keys with a
  required ``docker_image.url`` and forbids ``use_ml_runtime``. Each refuses a standard runtime without an image.
  ``any`` admits all three shapes and therefore a standard runtime too (a release key with neither
  ``use_ml_runtime`` nor an image): the platform deploys it only for a stack whose clusters mix shapes, where the
  rules refuse that request in the stack config, the components and the pack.
- ``runtime_engine``: ``fixed`` to ``STANDARD`` (``databricks-gpu-no-photon``).
- ``data_security_mode``: an ``allowlist`` of ``SINGLE_USER`` and its alias ``DATA_SECURITY_MODE_DEDICATED`` (the
  ``kind`` request; a user or a group), and ``single_user_name`` required (``databricks-gpu-dedicated-access``).
  Shared (``USER_ISOLATION``, ``DATA_SECURITY_MODE_STANDARD``), ``DATA_SECURITY_MODE_AUTO``, ``NONE`` and the legacy
  modes are not on it.
- ``autotermination_minutes``: a ``range`` from 10 to 10000 minutes (Databricks' bounds; 0, never, is outside it).
- ``custom_tags.<tag>``: each cost tag required (``unlimited``, not optional).

Policy definition syntax (``fixed``/``value``, ``allowlist``/``values``, ``regex``/``pattern``,
``range``/``minValue``/``maxValue``, ``unlimited``, ``isOptional``, ``defaultValue``, ``hidden``, attribute paths such
as ``custom_tags.<name>``): Databricks "Compute policy reference"; sources in ``conformance/facts/azure_policy.json``
(``databricks-policy-reference``, ``tf-databricks-cluster-policy``).

Every GPU cluster request the platform sends fits the policy of its shape — a user's (``SINGLE_USER``, a GPU ML runtime
key), a group's (``kind: CLASSIC_PREVIEW``, ``DATA_SECURITY_MODE_DEDICATED``, the DBR release key,
``use_ml_runtime: true``) and a custom container's (a standard runtime): with ``databricks.clusterPolicy`` every
cluster of the stack references the policy of the shape they share (:func:`rules.databricks_shapes.policy_shape`),
and :func:`rules.databricks_shapes.shape_refusals` says, attribute by attribute, what it refuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, Final

from gpu_catalog.catalog import Catalog

from .databricks import (
    AUTOTERMINATION_MAX,
    AUTOTERMINATION_MIN,
    CLASSIC_PREVIEW,
    DEFAULT_AUTOTERMINATION,
    SINGLE_USER,
    STANDARD_ENGINE,
)
from .databricks_facts import accepted_node_types
from .databricks_policy import (
    DEFAULT_COST_TAGS,
    POLICY_ACCESS_MODES,
    cost_tags_problem,
    floor_problem,
)
from .databricks_shapes import (
    SHAPE_ANY,
    SHAPE_CONTAINER,
    SHAPE_GPU_ML,
    SHAPE_KIND,
    check_shape,
    shape_default_runtime,
    shape_runtime_re,
)
from .sizes import DEFAULT_FLOOR

TAG_PREFIX: Final = "custom_tags."


_FORBIDDEN: Final = {"type": "forbidden", "hidden": True}
_SHAPE_LIMITS: Final[dict[str, dict[str, dict[str, Any]]]] = {
    SHAPE_GPU_ML: {"kind": _FORBIDDEN, "use_ml_runtime": _FORBIDDEN, "docker_image.url": _FORBIDDEN},
    SHAPE_KIND: {
        "kind": {"type": "fixed", "value": CLASSIC_PREVIEW, "hidden": True},
        "use_ml_runtime": {"type": "fixed", "value": True, "hidden": True},
        "docker_image.url": _FORBIDDEN,
    },
    SHAPE_CONTAINER: {
        "use_ml_runtime": _FORBIDDEN,
        "docker_image.url": {"type": "unlimited", "isOptional": False},
    },
    SHAPE_ANY: {},
}
"""The attributes each request shape forbids, fixes or requires beside ``spark_version``."""


def cluster_policy_definition(
    *,
    floor: str = DEFAULT_FLOOR,
    cost_tags: Sequence[str] = DEFAULT_COST_TAGS,
    today: date,
    catalog: Catalog | None = None,
    shape: str = SHAPE_GPU_ML,
) -> dict[str, dict[str, Any]]:
    """The policy definition (the JSON document ``ClusterPolicy.definition`` takes), keyed by attribute path, for the
    request ``shape`` (:mod:`rules.databricks_shapes`; default ``gpu-ml``, the classic request, closed).

    ``today`` dates the node types (retired sizes leave) and the runtimes (ended releases leave). Raises
    ``ValueError`` for an unknown floor, a floor no Databricks size meets, an empty cost tag, an unknown shape, or no
    runtime release supported on ``today``.
    """
    check_shape(shape)
    problem = floor_problem(floor, today=today, catalog=catalog) or cost_tags_problem(cost_tags)
    if problem is not None:
        raise ValueError(problem)
    nodes = accepted_node_types(floor, today=today, catalog=catalog)
    definition: dict[str, dict[str, Any]] = {
        "node_type_id": {"type": "allowlist", "values": nodes},
        "driver_node_type_id": {"type": "allowlist", "values": nodes, "isOptional": True},
        "spark_version": {
            "type": "regex",
            "pattern": shape_runtime_re(today, shape).pattern,
            "defaultValue": shape_default_runtime(today, shape),
        },
        **_SHAPE_LIMITS[shape],
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


_SHAPE_RUNTIMES: Final = {
    SHAPE_GPU_ML: "GPU ML runtime keys of supported releases (no kind, no custom container)",
    SHAPE_KIND: "the DBR release of a supported release with kind CLASSIC_PREVIEW and use_ml_runtime fixed",
    SHAPE_CONTAINER: "a custom container on the DBR release of a supported release",
    SHAPE_ANY: (
        "GPU ML runtime keys of supported releases (or the DBR release with kind CLASSIC_PREVIEW and use_ml_runtime, "
        "or a custom container)"
    ),
}


def description(floor: str = DEFAULT_FLOOR, shape: str = SHAPE_GPU_ML) -> str:
    return (
        "azure-gpu-platform GPU clusters: GPU node types from the catalog at or above the floor "
        f"{floor}, {_SHAPE_RUNTIMES[check_shape(shape)]}, Photon off, dedicated access (a user, or a group with "
        "kind), automatic termination "
        f"{AUTOTERMINATION_MIN}-{AUTOTERMINATION_MAX} minutes, cost tags required. Generated by "
        "exports/databricks_policy.py from rules/databricks.py."
    )
