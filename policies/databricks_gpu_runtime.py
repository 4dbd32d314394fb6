"""databricks-gpu-runtime: GPU node types ⇔ a ``-gpu-ml-`` runtime, or a standard runtime with a custom image."""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from ._databricks import EXAMPLE_RUNTIME, GPU_ML_MARKER, ML_MARKER, gpu_cluster
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, is_databricks_cluster, plain

NAME = "databricks-gpu-runtime"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_databricks_cluster(args.resource_type):
        return
    review = Review(report, args)
    props = plain(args.props)
    version = get(props, "sparkVersion")
    image = get(props, "dockerImage", "url")
    cluster = gpu_cluster(args, review)
    if version is UNKNOWN:
        review.unknown_field("sparkVersion")
    elif image is UNKNOWN:
        review.unknown_field("dockerImage.url")
    elif isinstance(version, str):
        lowered = version.lower()
        gpu_ml = GPU_ML_MARKER in lowered
        ml = ML_MARKER in lowered
        if cluster is not None:
            if image and ml:
                review.violation(
                    f"sparkVersion: {version} is a Databricks Runtime for ML, but the cluster uses a custom "
                    "container (dockerImage): custom containers are only supported on standard runtimes. Use a "
                    "standard runtime (e.g. 15.4.x-scala2.12) with a CUDA image, or drop dockerImage and keep the "
                    "GPU ML runtime."
                )
            elif not image and not gpu_ml:
                review.violation(
                    f"sparkVersion: the cluster has GPU node types but runtime {version} is not a GPU ML runtime: "
                    "only '-gpu-ml-' runtimes ship the CUDA libraries, so the GPUs would be unusable. Use "
                    f"{EXAMPLE_RUNTIME} (DBR 17+: scala2.13), or a standard runtime with a custom GPU image."
                )
        elif gpu_ml and isinstance(get(props, "nodeTypeId"), str) and not review.unknown:
            review.violation(
                f"sparkVersion: {version} is a GPU ML runtime but the node types are not GPU sizes: Databricks "
                "refuses GPU runtimes on CPU nodes. Use GPU node types (e.g. Standard_NC4as_T4_v3) or a CPU runtime "
                f"(drop '{GPU_ML_MARKER.strip('-')}')."
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="Databricks GPU node types go with a '-gpu-ml-' runtime (or a standard runtime with a custom image), and "
    "a '-gpu-ml-' runtime only with GPU node types.",
    why="Only GPU ML runtimes ship CUDA; custom containers need a standard (non-ML) runtime; Databricks rejects a "
    "GPU runtime on CPU nodes.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "databricks", "runtime"],
    fix=f"Use sparkVersion {EXAMPLE_RUNTIME} on GPU node types, or a standard runtime plus dockerImage.",
)
