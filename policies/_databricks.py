"""What the Databricks GPU policies share: is a ``databricks:index/cluster:Cluster`` a GPU cluster, what runtime.

Facts (``gpu_catalog/facts/databricks.json``): GPU compute needs GPU node types for the workers *and* the driver and
a ``-gpu-ml-`` Databricks Runtime for ML (e.g. ``17.3.x-gpu-ml-scala2.13``), or — with ``kind: CLASSIC_PREVIEW`` —
the DBR release plus ``useMlRuntime: true``, or a standard runtime with a custom container; Photon is not available
on GPU compute; GPU compute needs dedicated access with a principal (``singleUserName``); GPU scheduling is off on
single-node compute; ``spark.task.resource.gpu.amount`` is ≤ 0.5 or a whole number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulumi_policy import ResourceValidationArgs

from gpu_catalog import is_gpu_size
from rules.resource_types import is_databricks_cluster

from ._resources import UNKNOWN, Review, get, plain

GPU_ML_MARKER = "-gpu-ml-"
ML_MARKER = "-ml-"
EXAMPLE_RUNTIME = "17.3.x-gpu-ml-scala2.13"
"""Databricks Runtime 17.3 LTS ML (GPU); DBR 17+ is Scala 2.13 only."""
CLASSIC_PREVIEW = "CLASSIC_PREVIEW"
"""``kind`` of the newer cluster request shape (``useMlRuntime``, ``isSingleNode``, group-dedicated compute)."""


@dataclass(frozen=True, slots=True)
class DbxCluster:
    props: dict[str, Any]
    worker: Any
    """nodeTypeId: a name, None (absent, e.g. from an instance pool or policy) or UNKNOWN."""
    driver: Any
    """driverNodeTypeId, defaulting to the worker type as Databricks does."""

    def is_gpu(self, value: Any) -> bool:
        return isinstance(value, str) and is_gpu_size(value)

    @property
    def has_gpu(self) -> bool:
        return self.is_gpu(self.worker) or self.is_gpu(self.driver)

    @property
    def spark_version(self) -> Any:
        return get(self.props, "sparkVersion")

    @property
    def kind(self) -> Any:
        """``kind`` (``CLASSIC_PREVIEW`` or absent), or UNKNOWN."""
        return get(self.props, "kind")

    def has_kind(self) -> bool | Any:
        """Whether the request uses ``kind: CLASSIC_PREVIEW``; UNKNOWN when ``kind`` is."""
        kind = self.kind
        if kind is UNKNOWN:
            return UNKNOWN
        return isinstance(kind, str) and kind.upper() == CLASSIC_PREVIEW

    def spark_conf(self) -> dict[str, Any] | Any:
        conf = get(self.props, "sparkConf")
        return conf if conf is UNKNOWN or isinstance(conf, dict) else {}

    def is_single_node(self) -> bool | Any:
        """Single-node (driver-only) compute; UNKNOWN when that depends on an unknown value."""
        single = get(self.props, "isSingleNode")
        if single is UNKNOWN:
            return UNKNOWN
        if single is True:
            return True
        conf = self.spark_conf()
        if conf is UNKNOWN:
            return UNKNOWN
        if str(conf.get("spark.databricks.cluster.profile", "")).lower() == "singlenode":
            return True
        workers = get(self.props, "numWorkers")
        autoscale = get(self.props, "autoscale")
        if workers is UNKNOWN or autoscale is UNKNOWN:
            return UNKNOWN
        return autoscale is None and (workers is None or workers == 0)


def gpu_cluster(args: ResourceValidationArgs, review: Review) -> DbxCluster | None:
    """The cluster when it has a GPU node type (worker or driver); ``None`` otherwise.

    Unknown node types are recorded on ``review`` (the cluster may turn out to be a GPU cluster).
    """
    if not is_databricks_cluster(args.resource_type):
        return None
    props = plain(args.props)
    worker = get(props, "nodeTypeId")
    driver = get(props, "driverNodeTypeId")
    if driver is None:
        driver = worker
    cluster = DbxCluster(props, worker, driver)
    if cluster.has_gpu:
        return cluster
    if worker is UNKNOWN:
        review.unknown_field("nodeTypeId")
    if get(props, "driverNodeTypeId") is UNKNOWN:
        review.unknown_field("driverNodeTypeId")
    return None
