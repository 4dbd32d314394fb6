"""databricks-gpu-node-types: a GPU cluster uses Databricks-supported GPU node types for workers and driver."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from gpu_catalog import default_catalog

from ._databricks import gpu_cluster
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review

NAME = "databricks-gpu-node-types"


def _supported() -> str:
    sizes = [s for s in default_catalog().sizes() if s.databricks_supported and not s.is_retired()]
    sizes.sort(key=lambda s: (s.price_usd_per_hour is None, s.price_usd_per_hour or 0.0, s.name))
    return ", ".join(s.name for s in sizes[:3])


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster = gpu_cluster(args, review)
    if cluster is not None:
        fields = {"nodeTypeId": cluster.worker, "driverNodeTypeId": cluster.driver}
        gpu_role = "the driver uses" if cluster.is_gpu(cluster.driver) else "the workers use"
        for path, value in fields.items():
            role = "worker" if path == "nodeTypeId" else "driver"
            if value is UNKNOWN:
                review.unknown_field(path)
            elif not cluster.is_gpu(value):
                review.violation(
                    f"{path}: the {role} node type {value or '(not set)'} is not a GPU size while {gpu_role} GPUs: "
                    "Databricks GPU compute needs GPU node types for the workers and the driver (the "
                    f"GPU runtime does not start otherwise). Use a GPU node type such as {_supported()} for both."
                )
            else:
                size = default_catalog().lookup(value)
                if size is not None and not size.databricks_supported:
                    review.violation(
                        f"{path}: {size.name} ({size.gpu_model}) is not a GPU instance type Azure Databricks "
                        f"supports, so the cluster cannot be created. Use one of {_supported()}."
                    )
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
)
