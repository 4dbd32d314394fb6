"""databricks-gpu-node-types: a GPU cluster uses Databricks-supported GPU node types for workers and driver.

The rule: :func:`rules.databricks.gpu_node_types` (the catalog's size rules are policies of their own here).
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.databricks import gpu_node_types
from rules.resource_types import is_databricks_cluster

from ._databricks import gpu_cluster, report_findings
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, request_today

NAME = "databricks-gpu-node-types"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster = gpu_cluster(args, review)
    if cluster is not None:
        unknown = [path for path in ("nodeTypeId", "driverNodeTypeId") if cluster.get(path) is UNKNOWN]
        for path in unknown:
            review.unknown_field(path)
        report_findings(review, gpu_node_types(cluster.facts, today=request_today()), unknown=unknown)
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="A Databricks cluster with a GPU node type uses GPU node types that Azure Databricks supports for both "
    "workers (nodeTypeId) and driver (driverNodeTypeId).",
    why="Databricks GPU runtimes need GPUs on every node and only offer some Azure GPU sizes; get_node_type("
    "min_gpus=1) silently falls back to a CPU size, so node types come from the catalog.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "databricks", "vm-size"],
    fix="Set nodeTypeId and driverNodeTypeId to Databricks-supported GPU sizes from the catalog.",
    applies_to=is_databricks_cluster,
)
