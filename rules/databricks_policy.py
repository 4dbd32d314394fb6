"""The generated Databricks cluster policy's vocabulary: the runtime keys, access modes and cost tags it admits, and
what it refuses in a cluster request (:func:`policy_refusals`).

The policy document is written by :mod:`rules.databricks_policy_document` from these; the components check a cluster
against them before the policy would refuse it. The guard rails themselves are :mod:`rules.databricks`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from datetime import date
from typing import Final

from gpu_catalog import Catalog, default_catalog
from rules.sizes import floor_size

from . import Finding
from .databricks import (
    CLASSIC_PREVIEW,
    DEDICATED_MODES,
    EXAMPLE_GPU_ML_RUNTIME,
    STANDARD_ENGINE,
    DatabricksCluster,
    plain_runtime,
)
from .databricks_facts import accepted_node_types, release_label, supported_releases, supported_rows


def policy_runtime_re(today: date) -> re.Pattern[str]:
    """The runtime keys the generated cluster policy admits on ``today`` (its ``spark_version`` regex): the key shapes
    of :data:`POLICY_RUNTIME_RE` (a GPU ML runtime key or a DBR release key), for the releases supported on that day
    only (:func:`supported_releases`), e.g. ``^(?:19|18|17\\.3|…)\\.x-(?:gpu-ml-)?scala(2\\.1[23])$``. The policy
    changes on each end-of-support date in ``gpu_catalog/facts/databricks.json``.

    Raises ``ValueError`` when the facts list no release supported on ``today``."""
    releases = supported_releases(today)
    if not releases:
        raise ValueError(
            f"no Databricks Runtime release is supported on {today.isoformat()} (gpu_catalog/facts/databricks.json): "
            "refresh the facts (python -m gpu_catalog.refresh)"
        )
    alternatives = "|".join(re.escape(release_label(r)) for r in releases)
    return re.compile(rf"^(?:{alternatives})\.x-(?:gpu-ml-)?scala(2\.1[23])$")


def policy_default_runtime(today: date) -> str:
    """The cluster policy's default ``spark_version`` on ``today``: :data:`EXAMPLE_GPU_ML_RUNTIME` while its release
    is supported, else the newest supported LTS release's GPU ML key (``facts.runtimes.supported[].gpuMlKey``)."""
    if policy_runtime_re(today).match(EXAMPLE_GPU_ML_RUNTIME):
        return EXAMPLE_GPU_ML_RUNTIME
    keys = [key for _, end, key, lts in supported_rows() if key and lts and (end is None or end > today)]
    if not keys:
        raise ValueError(
            f"no supported LTS GPU ML runtime key on {today.isoformat()} (gpu_catalog/facts/databricks.json)"
        )
    return keys[0]


# -- the cluster policy's shape and cost tags --------------------------------------------------------------------------


POLICY_RUNTIME_RE: Final = re.compile(r"^(\d+)(?:\.(\d+))?\.x-(?:gpu-ml-)?scala(2\.1[23])$")
"""The runtime key shapes the generated cluster policy admits (its ``spark_version`` regex,
:func:`policy_runtime_re`, narrows the release to those supported on the day): a GPU ML runtime key (the classic
request, ``17.3.x-gpu-ml-scala2.13``) or a DBR release key (``17.3.x-scala2.13``), which the newer request
sends with ``kind: CLASSIC_PREVIEW`` and ``use_ml_runtime: true`` (Databricks then runs the GPU ML flavour on GPU
nodes) and a custom container sends with its image. CPU ML (``-cpu-ml-``, ``-ml-``) and Photon keys do not match.

A policy has one limitation per attribute and no condition between attributes (Databricks "Compute policy
reference"), so it cannot tie a release key to ``use_ml_runtime`` or ``docker_image``: a release key with neither (a
standard runtime, no CUDA) passes the policy; :func:`rules.databricks.gpu_runtime` (stack config, components, pack)
refuses it."""
POLICY_ACCESS_MODES: Final = DEDICATED_MODES
"""The ``data_security_mode`` values the generated policy allows: ``SINGLE_USER`` (classic request) and its alias
``DATA_SECURITY_MODE_DEDICATED`` (with ``kind``; the API reports it back as ``SINGLE_USER``, sources in
``conformance/facts/databricks_cluster.json``). Both are listed, so the policy holds whichever spelling Databricks
evaluates."""


def policy_refusals(cluster: DatabricksCluster, node_types: Collection[str], *, today: date) -> list[Finding]:
    """What the generated cluster policy refuses in a cluster request, attribute by attribute, with the constants the
    policy is generated from (``rules/databricks_policy_document.py``): node types not in ``node_types`` (the policy's
    allowlist), a runtime key :func:`policy_runtime_re` does not match on ``today`` (the wrong shape, or a release
    not supported that day), an access mode outside :data:`POLICY_ACCESS_MODES`, Photon, no principal. Cost tags are
    :func:`missing_cost_tags`."""
    allowed = ", ".join(node_types)
    found: list[Finding] = []
    for field, value in (("nodeTypeId", cluster.node_type), ("driverNodeTypeId", cluster.driver_node_type)):
        if value is not None and value not in node_types:
            found.append(Finding(field, f"{value} is not on the cluster policy's node type allowlist: {allowed}"))
    version = cluster.spark_version
    pattern = policy_runtime_re(today)
    if version is None or pattern.match(version) is None:
        supported = ", ".join(release_label(r) for r in supported_releases(today))
        found.append(
            Finding(
                "sparkVersion",
                f"{version or 'no runtime'} does not match the cluster policy's runtime pattern "
                f"{pattern.pattern}: a GPU ML runtime key such as {policy_default_runtime(today)}, or with kind "
                f"{CLASSIC_PREVIEW} (useMlRuntime: true) or a custom image the DBR release key such as "
                f"{plain_runtime(policy_default_runtime(today))}, of a release supported on {today.isoformat()} "
                f"({supported}; gpu_catalog/facts/databricks.json)",
            )
        )
    mode = cluster.data_security_mode
    if mode is not None and mode not in POLICY_ACCESS_MODES:
        found.append(
            Finding(
                "dataSecurityMode",
                f"{mode} is not allowed by the cluster policy: {' or '.join(POLICY_ACCESS_MODES)} (dedicated access)",
            )
        )
    if cluster.runtime_engine is not None and cluster.runtime_engine != STANDARD_ENGINE:
        found.append(Finding("runtimeEngine", f"the cluster policy fixes runtimeEngine to {STANDARD_ENGINE}"))
    if not (cluster.single_user_name or "").strip():
        found.append(Finding("singleUserName", "the cluster policy requires singleUserName (the principal)"))
    return found


def blank_cost_tags(tags: Iterable[str]) -> list[str]:
    """The cost tags that are not tag names (empty or blank)."""
    return [t for t in tags if not t.strip()]


def missing_cost_tags(cluster: DatabricksCluster, cost_tags: Iterable[str], *carried: Collection[str]) -> list[str]:
    """The cost tags a GPU cluster under the cluster policy does not carry in any of ``carried``, in ``cost_tags``
    order (the policy requires each one); empty for a cluster that is not a GPU cluster."""
    if not cluster.is_gpu_cluster:
        return []
    return [t for t in cost_tags if not any(t in tags for tags in carried)]


DEFAULT_COST_TAGS: Final = ("cost-center",)
"""Tags every cluster under the policy must carry (its cost is charged to them)."""


def cost_tags_problem(cost_tags: Sequence[str]) -> str | None:
    """Why the cost tags cannot be required (an empty tag name)."""
    return "cost tags must be non-empty tag names" if blank_cost_tags(cost_tags) else None


def floor_problem(floor: str, *, today: date, catalog: Catalog | None = None) -> str | None:
    """Why no policy can be generated for the GPU floor ``floor``: it is unknown, or no node type Azure Databricks
    offers meets it on ``today``."""
    cat = catalog if catalog is not None else default_catalog()
    try:
        floor_size(floor, cat)
    except ValueError as exc:
        return str(exc)
    if not accepted_node_types(floor, today=today, catalog=cat):
        return f"no GPU node type Azure Databricks offers is at or above the floor {floor}"
    return None
