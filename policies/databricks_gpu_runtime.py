"""databricks-gpu-runtime: GPU node types ⇔ a ``-gpu-ml-`` runtime, or a standard runtime with a custom image.

The rule: :func:`rules.databricks.gpu_runtime` (with ``kind: CLASSIC_PREVIEW`` the request names the DBR
release and ``useMlRuntime: true``).
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.databricks import (
    CLASSIC_PREVIEW,
    EXAMPLE_GPU_ML_RUNTIME,
    EXAMPLE_STANDARD_RUNTIME,
    GPU_ML_MARKER,
    DatabricksCluster,
    gpu_runtime,
)
from rules.resource_types import is_databricks_cluster

from ._databricks import databricks_words, gpu_cluster, report_findings
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, props_of, request_today

NAME = "databricks-gpu-runtime"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_databricks_cluster(args.resource_type):
        return
    review = Review(report, args)
    props = props_of(args)
    version = get(props, "sparkVersion")
    image = get(props, "dockerImage", "url")
    cluster = gpu_cluster(args, review)
    has_kind = cluster.has_kind() if cluster is not None else False
    facts: DatabricksCluster | None = None
    if version is UNKNOWN:
        review.unknown_field("sparkVersion")
    elif image is UNKNOWN:
        review.unknown_field("dockerImage.url")
    elif cluster is not None and has_kind is UNKNOWN:
        review.unknown_field("kind")
    elif cluster is not None and has_kind and get(props, "useMlRuntime") is UNKNOWN:
        review.unknown_field("useMlRuntime")
    elif isinstance(version, str) and cluster is not None:
        facts = cluster.facts  # the runtime, the image, kind and useMlRuntime as written (all known here)
    elif isinstance(version, str) and not review.unknown:  # a CPU cluster, unless an unknown node type is a GPU
        facts = databricks_words(props)  # not a GPU deployable: no spec, the same words
    if facts is not None:
        report_findings(review, gpu_runtime(facts, today=request_today()))
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what=f"Databricks GPU node types go with a '{GPU_ML_MARKER}' runtime (or, with kind {CLASSIC_PREVIEW}, "
    f"useMlRuntime: true; or a standard runtime with a custom image), and a '{GPU_ML_MARKER}' runtime only with GPU "
    "node types.",
    why="Only GPU ML runtimes ship CUDA; custom containers need a standard (non-ML) runtime; Databricks rejects a "
    "GPU runtime on CPU nodes.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "databricks", "runtime"],
    fix=f"Use sparkVersion {EXAMPLE_GPU_ML_RUNTIME} on GPU node types (with kind {CLASSIC_PREVIEW}: "
    f"{EXAMPLE_STANDARD_RUNTIME} and useMlRuntime: true), or a standard runtime plus dockerImage.",
    applies_to=is_databricks_cluster,
)
