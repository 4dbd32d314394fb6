"""The request shapes a generated Databricks cluster policy can be closed for, and which shape a stack's clusters use.

A compute policy has one limitation per attribute and no condition between attributes (Databricks "Compute policy
reference"; sources in ``conformance/facts/azure_policy.json``), so one policy that admits a GPU ML runtime key
(``17.3.x-gpu-ml-scala2.13``, the classic request) *and* a DBR release key (``17.3.x-scala2.13``, which the ``kind``
request sends with ``use_ml_runtime: true`` and a custom container sends with its image) admits the DBR release key
alone too: a standard runtime, no CUDA. That is a product of per-attribute sets, so no choice of limitations closes
it while all three request shapes pass. One policy per request shape closes it:

- ``gpu-ml`` (the classic request): ``spark_version`` matches GPU ML runtime keys only; ``kind``,
  ``use_ml_runtime`` and ``docker_image.url`` are ``forbidden``.
- ``kind`` (``kind: CLASSIC_PREVIEW``, ``use_ml_runtime: true``, the DBR release key): ``kind`` and
  ``use_ml_runtime`` are ``fixed`` (Databricks applies a fixed value to an omitted attribute: the Clusters API's
  ``apply_policy_default_values`` "When set to false, only fixed values from the policy will be applied",
  databricks/terraform-provider-databricks ``internal/service/compute_tf/model.go`` ``ClusterSpec``), so a request
  with the release key and no ``use_ml_runtime`` runs the GPU ML runtime and ``use_ml_runtime: false`` is refused;
  ``docker_image.url`` is ``forbidden`` (a container needs a standard runtime).
- ``container`` (a custom image with a standard runtime): ``docker_image.url`` is required and ``use_ml_runtime``
  ``forbidden``; the image brings CUDA.
- ``any``: all three; ``spark_version`` admits both key forms and a release key with neither ``use_ml_runtime`` nor
  an image passes. Only for a stack whose clusters mix shapes; the rules (stack config, components, pack) refuse that
  request, and in Databricks a user without the unrestricted cluster-creation entitlement can create clusters only
  through the policies they may use (CAN_USE), so a team that needs a closed policy uses one shape per policy.

The platform deploys the closed policy of the one shape its clusters use (:func:`policy_shape`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from datetime import date
from typing import Final

from rules.databricks import CLASSIC_PREVIEW, DatabricksCluster, plain_runtime
from rules.databricks_policy import policy_default_runtime, policy_refusals, policy_runtime_re

from . import Finding

SHAPE_GPU_ML: Final = "gpu-ml"
SHAPE_KIND: Final = "kind"
SHAPE_CONTAINER: Final = "container"
SHAPE_ANY: Final = "any"
SHAPES: Final = (SHAPE_GPU_ML, SHAPE_KIND, SHAPE_CONTAINER, SHAPE_ANY)
"""The request shapes a policy can be generated for (``python -m exports databricks-policy --shape``)."""

_KEY_FORMS: Final = {
    SHAPE_GPU_ML: "gpu-ml-",
    SHAPE_KIND: "",
    SHAPE_CONTAINER: "",
    SHAPE_ANY: "(?:gpu-ml-)?",
}


def request_shape(cluster: DatabricksCluster) -> str:
    """The shape of one cluster request: ``container`` with a custom image, ``kind`` with ``kind: CLASSIC_PREVIEW``,
    else ``gpu-ml`` (the classic request)."""
    if cluster.custom_image:
        return SHAPE_CONTAINER
    if cluster.has_kind:
        return SHAPE_KIND
    return SHAPE_GPU_ML


def policy_shape(clusters: Iterable[DatabricksCluster]) -> str:
    """The closed shape every cluster uses, ``any`` when they mix shapes, ``gpu-ml`` (the classic request, what the
    documented examples send) without clusters."""
    shapes = {request_shape(c) for c in clusters}
    if not shapes:
        return SHAPE_GPU_ML
    return shapes.pop() if len(shapes) == 1 else SHAPE_ANY


def check_shape(shape: str) -> str:
    """``shape`` when it is one of :data:`SHAPES`, else ``ValueError`` naming the allowed values."""
    if shape not in SHAPES:
        raise ValueError(f"unknown request shape {shape!r}: use one of {', '.join(SHAPES)}")
    return shape


def shape_runtime_re(today: date, shape: str = SHAPE_ANY) -> re.Pattern[str]:
    """The ``spark_version`` regex of the policy for ``shape`` on ``today``: the releases supported that day
    (:func:`rules.databricks.supported_releases`) in the shape's key form (GPU ML keys for ``gpu-ml``, DBR release
    keys for ``kind`` and ``container``, both for ``any``). Raises ``ValueError`` when no release is supported."""
    combined = policy_runtime_re(today).pattern  # both key forms, the supported releases; raises without any
    return re.compile(combined.replace(_KEY_FORMS[SHAPE_ANY], _KEY_FORMS[check_shape(shape)], 1))


def shape_default_runtime(today: date, shape: str = SHAPE_ANY) -> str:
    """The policy's default ``spark_version``: the GPU ML key (:func:`rules.databricks.policy_default_runtime`), or its
    DBR release key for the ``kind`` and ``container`` shapes."""
    key = policy_default_runtime(today)
    return plain_runtime(key) if check_shape(shape) in (SHAPE_KIND, SHAPE_CONTAINER) else key


def _shape_attribute_refusals(cluster: DatabricksCluster, shape: str) -> list[Finding]:
    found: list[Finding] = []
    where = f"the cluster policy (request shape {shape})"
    if shape == SHAPE_GPU_ML and cluster.kind is not None:
        found.append(Finding("kind", f"{where} forbids kind: send a GPU ML runtime key without kind"))
    if shape in (SHAPE_GPU_ML, SHAPE_CONTAINER) and cluster.use_ml_runtime:
        found.append(Finding("useMlRuntime", f"{where} forbids useMlRuntime"))
    if shape == SHAPE_KIND:
        if not cluster.has_kind:
            found.append(Finding("kind", f"{where} fixes kind to {CLASSIC_PREVIEW}"))
        if not cluster.use_ml_runtime:
            found.append(Finding("useMlRuntime", f"{where} fixes useMlRuntime to true (the GPU ML runtime)"))
    if shape in (SHAPE_GPU_ML, SHAPE_KIND) and cluster.custom_image:
        found.append(Finding("customImage", f"{where} forbids a custom image (dockerImage.url)"))
    if shape == SHAPE_CONTAINER and not cluster.custom_image:
        found.append(
            Finding("customImage", f"{where} requires a custom image (dockerImage.url) with a standard runtime")
        )
    return found


def shape_refusals(
    cluster: DatabricksCluster, node_types: Collection[str], *, today: date, shape: str = SHAPE_ANY
) -> list[Finding]:
    """What the policy generated for ``shape`` refuses in a cluster request, attribute by attribute: what
    :func:`rules.databricks.policy_refusals` says, with the runtime judged by the shape's key form
    (:func:`shape_runtime_re`) and the attributes the shape forbids, fixes or requires."""
    found = policy_refusals(cluster, node_types, today=today)
    if check_shape(shape) == SHAPE_ANY:
        return found
    found = [f for f in found if f.field != "sparkVersion"]
    pattern = shape_runtime_re(today, shape)
    version = cluster.spark_version
    if version is None or pattern.match(version) is None:
        example = shape_default_runtime(today, shape)
        found.append(
            Finding(
                "sparkVersion",
                f"{version or 'no runtime'} does not match the cluster policy's runtime pattern {pattern.pattern} "
                f"(request shape {shape}): e.g. {example}",
            )
        )
    return found + _shape_attribute_refusals(cluster, shape)
