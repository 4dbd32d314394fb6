"""databricks-gpu-runtime: GPU node types ⇔ a ``-gpu-ml-`` runtime, or a standard runtime with a custom image.

With ``kind: CLASSIC_PREVIEW`` the request names the DBR release (``17.3.x-scala2.13``) and ``useMlRuntime: true``;
Databricks then runs the GPU ML flavour because the node type is a GPU (provider docs: the effective runtime is
determined by ``spark_version``, ``use_ml_runtime`` and whether ``node_type_id`` is a GPU node).
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs, Severity

from rules.resource_types import is_databricks_cluster

from ._databricks import CLASSIC_PREVIEW, EXAMPLE_RUNTIME, GPU_ML_MARKER, ML_MARKER, gpu_cluster
from ._meta import MANDATORY, GpuResourcePolicy
from ._resources import UNKNOWN, Review, get, plain

NAME = "databricks-gpu-runtime"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_databricks_cluster(args.resource_type):
        return
    review = Review(report, args)
    props = plain(args.props)
    version = get(props, "sparkVersion")
    image = get(props, "dockerImage", "url")
    cluster = gpu_cluster(args, review)
    has_kind = cluster.has_kind() if cluster is not None else False
    use_ml = get(props, "useMlRuntime")
    if version is UNKNOWN:
        review.unknown_field("sparkVersion")
    elif image is UNKNOWN:
        review.unknown_field("dockerImage.url")
    elif cluster is not None and has_kind is UNKNOWN:
        review.unknown_field("kind")
    elif cluster is not None and has_kind and use_ml is UNKNOWN:
        review.unknown_field("useMlRuntime")
    elif isinstance(version, str):
        lowered = version.lower()
        gpu_ml = GPU_ML_MARKER in lowered
        ml = ML_MARKER in lowered
        if cluster is not None:
            release_with_ml = bool(has_kind) and use_ml is True
            ml_runtime = ml or release_with_ml
            gpu_runtime = gpu_ml or (release_with_ml and not ml)
            if image and ml_runtime:
                shown = version if ml else f"{version} with useMlRuntime: true"
                review.violation(
                    f"sparkVersion: {shown} is a Databricks Runtime for ML, but the cluster uses a custom "
                    "container (dockerImage): custom containers are only supported on standard runtimes. Use a "
                    "standard runtime (e.g. 17.3.x-scala2.13) with a CUDA image, or drop dockerImage and keep the "
                    "GPU ML runtime."
                )
            elif not image and not gpu_runtime and has_kind:
                review.violation(
                    f"useMlRuntime: the cluster has GPU node types and kind {CLASSIC_PREVIEW} but runtime {version} "
                    f"{'with' if use_ml is True else 'without'} useMlRuntime: true is not a GPU ML runtime: with "
                    "kind, Databricks runs the GPU ML runtime (the only one that ships CUDA) when sparkVersion is the "
                    "DBR release and useMlRuntime is true. Set sparkVersion: 17.3.x-scala2.13 and useMlRuntime: true."
                )
            elif not image and not gpu_runtime:
                review.violation(
                    f"sparkVersion: the cluster has GPU node types but runtime {version} is not a GPU ML runtime: "
                    "only '-gpu-ml-' runtimes ship the CUDA libraries, so the GPUs would be unusable. Use "
                    f"{EXAMPLE_RUNTIME} (17.3 LTS; DBR 17+ is scala2.13 only), or kind {CLASSIC_PREVIEW} with the "
                    "DBR release and useMlRuntime: true, or a standard runtime with a custom GPU image."
                )
        elif gpu_ml and isinstance(get(props, "nodeTypeId"), str) and not review.unknown:
            review.violation(
                f"sparkVersion: {version} is a GPU ML runtime but the node types are not GPU sizes: Databricks "
                "refuses GPU runtimes on CPU nodes. Use GPU node types (e.g. Standard_NV36ads_A10_v5) or a CPU runtime "
                f"(drop '{GPU_ML_MARKER.strip('-')}')."
            )
    review.finish()


POLICY = GpuResourcePolicy(
    name=NAME,
    what="Databricks GPU node types go with a '-gpu-ml-' runtime (or, with kind CLASSIC_PREVIEW, useMlRuntime: "
    "true; or a standard runtime with a custom image), and a '-gpu-ml-' runtime only with GPU node types.",
    why="Only GPU ML runtimes ship CUDA; custom containers need a standard (non-ML) runtime; Databricks rejects a "
    "GPU runtime on CPU nodes.",
    validate=validate,
    level=MANDATORY,
    severity=Severity.HIGH,
    topics=["gpu", "databricks", "runtime"],
    fix=f"Use sparkVersion {EXAMPLE_RUNTIME} on GPU node types (with kind CLASSIC_PREVIEW: 17.3.x-scala2.13 and "
    "useMlRuntime: true), or a standard runtime plus dockerImage.",
)
