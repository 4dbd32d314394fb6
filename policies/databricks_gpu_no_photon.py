"""databricks-gpu-no-photon: Photon is not available on GPU compute.

The rule: :func:`rules.databricks.gpu_no_photon`.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.databricks import GPU_ML_MARKER, STANDARD_ENGINE, gpu_no_photon
from rules.resource_types import is_databricks_cluster

from ._databricks import gpu_cluster, report_findings
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review

NAME = "databricks-gpu-no-photon"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster = gpu_cluster(args, review)
    if cluster is not None:
        engine, version = cluster.get("runtimeEngine"), cluster.get("sparkVersion")
        unknown = [path for path, value in (("runtimeEngine", engine), ("sparkVersion", version)) if value is UNKNOWN]
        for path in unknown:
            review.unknown_field(path)
        report_findings(review, gpu_no_photon(cluster.facts), unknown=unknown)
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="No Photon (runtimeEngine PHOTON or a photon runtime) on Databricks GPU clusters.",
    why="Photon is a CPU engine that Databricks does not offer on GPU compute; the cluster fails to create.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "databricks", "runtime"],
    fix=f"Set runtimeEngine: {STANDARD_ENGINE} and a '{GPU_ML_MARKER}' runtime.",
    applies_to=is_databricks_cluster,
)
