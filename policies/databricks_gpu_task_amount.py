"""databricks-gpu-task-amount: sane GPU scheduling settings (``spark.task.resource.gpu.amount``).

The rule: :func:`rules.databricks.gpu_task_amount`.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.databricks import MAX_GPU_FRACTION, TASK_GPU_AMOUNT, gpu_task_amount
from rules.resource_types import is_databricks_cluster

from ._databricks import gpu_cluster, report_findings
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review

NAME = "databricks-gpu-task-amount"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster = gpu_cluster(args, review)
    conf = cluster.spark_conf() if cluster is not None else None
    if conf is UNKNOWN:
        review.unknown_field("sparkConf")
    elif cluster is not None and isinstance(conf, dict):
        facts = cluster.facts  # the GPU keys, the amount as written, single-node only when known to be
        single = cluster.is_single_node()
        if single is UNKNOWN and facts.gpu_settings:
            review.unknown_field("numWorkers/autoscale/isSingleNode")  # checked as a multi-node cluster
        if conf.get(TASK_GPU_AMOUNT) is UNKNOWN and single is not True:
            review.unknown_field(f"sparkConf.{TASK_GPU_AMOUNT}")
        report_findings(review, gpu_task_amount(facts))
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what=f"On Databricks GPU clusters, {TASK_GPU_AMOUNT} is ≤ {MAX_GPU_FRACTION} or a whole number and never more "
    "than a worker's GPUs; single-node clusters carry no GPU scheduling settings.",
    why=f"Spark only accepts fractions ≤ {MAX_GPU_FRACTION} or whole GPUs per task; more GPUs than a worker has "
    "leaves every task pending; GPU scheduling is off on single-node compute.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "databricks", "scheduling"],
    fix=f"Set {TASK_GPU_AMOUNT} to the worker's GPU count (training) or 1/N ≤ {MAX_GPU_FRACTION} (inference); "
    "remove it on single-node clusters.",
    applies_to=is_databricks_cluster,
)
