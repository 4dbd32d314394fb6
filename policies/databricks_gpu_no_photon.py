"""databricks-gpu-no-photon: Photon is not available on GPU compute."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from ._databricks import EXAMPLE_RUNTIME, gpu_cluster
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review

NAME = "databricks-gpu-no-photon"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    review = Review(report, args)
    cluster = gpu_cluster(args, review)
    if cluster is not None:
        engine = cluster.props.get("runtimeEngine")
        version = cluster.spark_version
        if engine is UNKNOWN:
            review.unknown_field("runtimeEngine")
        elif isinstance(engine, str) and engine.upper() == "PHOTON":
            review.violation(
                "runtimeEngine: PHOTON is set on a GPU cluster, but Photon does not run on GPU compute (Databricks "
                "rejects the combination). Set runtimeEngine: STANDARD (or leave it unset)."
            )
        if version is UNKNOWN:
            review.unknown_field("sparkVersion")
        elif isinstance(version, str) and "photon" in version.lower():
            review.violation(
                f"sparkVersion: {version} is a Photon runtime on a GPU cluster, but Photon does not run on GPU "
                f"compute. Use a GPU ML runtime such as {EXAMPLE_RUNTIME}."
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="No Photon (runtimeEngine PHOTON or a photon runtime) on Databricks GPU clusters.",
    why="Photon is a CPU engine that Databricks does not offer on GPU compute; the cluster fails to create.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "databricks", "runtime"],
    fix="Set runtimeEngine: STANDARD and a '-gpu-ml-' runtime.",
)
