"""databricks-gpu-task-amount: sane GPU scheduling settings (``spark.task.resource.gpu.amount``)."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from gpu_catalog import default_catalog

from ._databricks import gpu_cluster
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review

NAME = "databricks-gpu-task-amount"
KEY = "spark.task.resource.gpu.amount"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster = gpu_cluster(args, review)
    if cluster is None:
        review.finish()
        return
    conf = cluster.spark_conf()
    if conf is UNKNOWN:
        review.unknown_field("sparkConf")
        review.finish()
        return
    gpu_keys = [k for k in conf if ".resource.gpu." in k]
    single = cluster.is_single_node()
    if single is UNKNOWN:
        if gpu_keys:
            review.unknown_field("numWorkers/autoscale/isSingleNode")
    elif single:
        for key in gpu_keys:
            review.violation(
                f"sparkConf.{key}: GPU scheduling is off on single-node compute, so this setting has no effect (the "
                "driver runs every task with all its GPUs). Remove it, or use a multi-node cluster."
            )
        review.finish()
        return
    raw = conf.get(KEY)
    if raw is UNKNOWN:
        review.unknown_field(f"sparkConf.{KEY}")
    elif raw is not None:
        try:
            amount = float(raw)
        except (TypeError, ValueError):
            amount = None
        worker = default_catalog().lookup(cluster.worker) if isinstance(cluster.worker, str) else None
        if amount is None or amount <= 0:
            review.violation(
                f"sparkConf.{KEY}: {raw!r} is not a positive number. Use the GPUs per worker for training (e.g. 1) "
                "or 1/N (≤ 0.5) to share a GPU between N inference tasks."
            )
        elif amount > 0.5 and not amount.is_integer():
            review.violation(
                f"sparkConf.{KEY}: {raw} is neither ≤ 0.5 nor a whole number, which Spark rejects (a task gets a "
                "fraction 1/N of a GPU, or whole GPUs). Use 0.5, 0.25, … for inference or a whole number for "
                "training."
            )
        elif worker is not None and amount > worker.gpu_count:
            review.violation(
                f"sparkConf.{KEY}: {raw} GPUs per task but each worker ({worker.name}) has only {worker.gpu_count} "
                "GPU(s), so no task could ever be scheduled. Use at most the worker's GPU count."
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what=f"On Databricks GPU clusters, {KEY} is ≤ 0.5 or a whole number and never more than a worker's GPUs; "
    "single-node clusters carry no GPU scheduling settings.",
    why="Spark only accepts fractions ≤ 0.5 or whole GPUs per task; more GPUs than a worker has leaves every task "
    "pending; GPU scheduling is off on single-node compute.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "databricks", "scheduling"],
    fix=f"Set {KEY} to the worker's GPU count (training) or 1/N ≤ 0.5 (inference); remove it on single-node clusters.",
)
