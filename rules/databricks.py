"""Databricks GPU clusters: every guard rail once, as a pure function over :class:`DatabricksCluster` facts.

Callers: the stack config (``stack_config/databricks.py`` builds facts from a ``databricks.clusters[i]`` entry
and refuses at ``databricks.clusters[i].<key>``) and the policy pack (``policies/databricks_gpu_*.py`` judge the
facts of the cluster spec ``policies/_specs.py`` builds from the engine properties of a
``databricks:index/cluster:Cluster``, and report ``<field>: <message>``). A finding's
field is the resource's property name (``nodeTypeId``, ``sparkVersion``, ``runtimeEngine``, ``singleUserName``,
``sparkConf.<key>``) or, for what only a stack file has, its key (``dedicatedGroup``, ``tasksPerGpu``).

Two neighbours: :mod:`rules.databricks_facts` reads the facts file and the catalog (runtime support dates, the node
types Azure Databricks offers); :mod:`rules.databricks_policy` is the generated cluster policy's vocabulary (runtime
pattern, access modes, cost tags, what the policy refuses).

Facts behind the rules (sources and dates: ``gpu_catalog/facts/databricks.json``):

- GPU compute runs the GPU flavour of Databricks Runtime ML: ``<major>[.<minor>].x-gpu-ml-scala<2.12|2.13>``
  (DBR 17 and later ship Scala 2.13 only; DBR 15 and earlier Scala 2.12; DBR 16 offered both; DBR 18 LTS is keyed
  by its major alone, ``18.x-…``). The default is the current LTS ``17.3.x-gpu-ml-scala2.13``. With
  ``kind: CLASSIC_PREVIEW`` the request names the DBR release (``17.3.x-scala2.13``) and ``useMlRuntime: true``;
  Databricks then runs the GPU ML flavour because the node type is a GPU (provider docs: the effective runtime is
  determined by ``spark_version``, ``use_ml_runtime`` and whether ``node_type_id`` is a GPU node). Databricks
  refuses a GPU runtime on CPU nodes.
- A custom container (Databricks Container Services) needs a standard runtime, not an ML runtime.
- Worker and driver must be GPU node types that Azure Databricks offers (``support.databricks`` in the catalog).
  Node types come from this project's catalog, never from the provider's ``get_node_type`` lookup, which silently
  falls back to a CPU size when no GPU size matches.
- Photon does not run on GPU instance types.
- Dedicated access always names its principal: the Databricks provider requires ``single_user_name`` for
  ``data_security_mode`` ``SINGLE_USER``. It names a user, or a group only with ``kind: CLASSIC_PREVIEW`` and
  ``DATA_SECURITY_MODE_DEDICATED`` (an alias of ``SINGLE_USER`` available only with ``kind``; Public Preview
  "Compute: Dedicated group clusters", Unity Catalog, DBR 15.4+).
- GPU scheduling: ``spark.task.resource.gpu.amount`` is the GPUs one task takes. Spark accepts a whole number or a
  fraction ≤ 0.5 (it runs ``floor(1/amount)`` tasks per GPU). Single-node compute has no GPU scheduling.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_DOWN, Decimal
from typing import Final

from gpu_catalog import default_catalog, is_gpu_size
from gpu_catalog.problems import show
from rules.sizes import DEFAULT_FLOOR, check_gpu_size

from . import Finding, NotApplicable
from .databricks_facts import (
    GPU_ML_RUNTIME_RE,
    STANDARD_RUNTIME_RE,
    databricks_gpu_sizes,
    offered_by_databricks,
    runtime_release,
    runtime_support_problem,
)

# -- runtimes ---------------------------------------------------------------------------------------------------------

GPU_ML_MARKER: Final = "-gpu-ml-"
"""What names a GPU ML runtime key (``17.3.x-gpu-ml-scala2.13``)."""
ML_MARKER: Final = "-ml-"
"""What names any ML runtime key: GPU (``-gpu-ml-``), CPU (``-cpu-ml-``) or plain (``-ml-``)."""
PHOTON_MARKER: Final = "photon"
EXAMPLE_GPU_ML_RUNTIME: Final = "17.3.x-gpu-ml-scala2.13"
"""The default runtime: Databricks Runtime 17.3 LTS for Machine Learning, GPU flavour (LTS until 2028-10-22)."""
EXAMPLE_GPU_ML_RUNTIME_18: Final = "18.x-gpu-ml-scala2.13"
"""Databricks Runtime 18 LTS ML (GPU), keyed by its major alone."""
EXAMPLE_STANDARD_RUNTIME: Final = "17.3.x-scala2.13"
"""A standard (non-ML) runtime: for custom containers, and the DBR release that goes with ``kind``."""
AUTOTERMINATION_MIN: Final = 10
"""Databricks' smallest automatic termination (minutes); 0 would mean never."""
AUTOTERMINATION_MAX: Final = 10000
"""Databricks' largest automatic termination in minutes: "between 10 and 10000"
(databricks/terraform-provider-databricks ``docs/resources/cluster.md``, the provider pulumi-databricks bridges)."""
DEFAULT_AUTOTERMINATION: Final = 60
"""The platform's automatic termination (minutes) when a stack file or a cluster policy does not set one."""
MIN_GROUP_RUNTIME: Final = (15, 4)
"""Group-dedicated compute needs Databricks Runtime 15.4 or above."""
_MIN_GROUP_RELEASE: Final = f"{MIN_GROUP_RUNTIME[0]}.{MIN_GROUP_RUNTIME[1]}"

# -- the request ------------------------------------------------------------------------------------------------------

PHOTON: Final = "PHOTON"
STANDARD_ENGINE: Final = "STANDARD"
"""``runtime_engine`` of every GPU cluster."""
SINGLE_USER: Final = "SINGLE_USER"
"""Dedicated access to one user (the classic shape, no ``kind``): ``single_user_name`` is required."""
DEDICATED: Final = "DATA_SECURITY_MODE_DEDICATED"
"""Dedicated access with ``kind: CLASSIC_PREVIEW``: ``single_user_name`` may then name a group."""
DEDICATED_MODES: Final = (SINGLE_USER, DEDICATED)
CLASSIC_PREVIEW: Final = "CLASSIC_PREVIEW"
"""``kind`` of the newer cluster request shape (``useMlRuntime``, ``isSingleNode``, group-dedicated compute)."""
EXAMPLE_USER: Final = "alice@contoso.com"
PRINCIPAL_HELP: Final = (
    f"set singleUserName to a workspace user's e-mail (dataSecurityMode {SINGLE_USER}), e.g. '{EXAMPLE_USER}', or "
    "dedicate the cluster to a workspace group: dedicatedGroup in a stack file, which puts the group's name in "
    f"singleUserName with kind {CLASSIC_PREVIEW} and dataSecurityMode {DEDICATED} (needs the workspace preview "
    f"'Compute: Dedicated group clusters', Unity Catalog and DBR {_MIN_GROUP_RELEASE}+)"
)

# -- GPU scheduling ---------------------------------------------------------------------------------------------------

TASK_GPU_AMOUNT: Final = "spark.task.resource.gpu.amount"
GPU_RESOURCE_MARKER: Final = ".resource.gpu."
"""What names a GPU scheduling setting in ``sparkConf`` (``spark.task.resource.gpu.amount``, …)."""
PROFILE_KEY: Final = "spark.databricks.cluster.profile"
SINGLE_NODE_PROFILE: Final = "singleNode"
MAX_GPU_FRACTION: Final = 0.5
"""The largest fraction of a GPU Spark gives one task (a larger amount must be a whole number)."""
MAX_TASKS_PER_GPU: Final = 1031
"""The most tasks per GPU whose share ``1/N`` :func:`task_gpu_amount` can write: with 6 decimals, 1/1032 rounds to an
amount whose inverse is 1033 (tests/stack_config/test_stack_mistakes.py checks both ends). Far above any real
sharing; the bound keeps an absurd value a config error instead of a crash."""


@dataclass(frozen=True, slots=True)
class DatabricksCluster:
    """What the rules know of one Databricks cluster: the request as the provider takes it.

    A stack file's cluster is a GPU cluster by declaration (``declared_gpu``); any other cluster is one when a node
    type is a GPU size. Values that are not set are ``None`` (``False`` for flags).
    """

    node_type: str | None = None
    """``nodeTypeId``, the workers' node type (``None``: not set, e.g. taken from an instance pool)."""
    driver_node_type: str | None = None
    """``driverNodeTypeId``; ``None``: the workers' node type, as Databricks defaults it."""
    declared_gpu: bool = False
    """A GPU cluster whatever its node types say (a stack file's ``databricks.clusters``)."""
    spark_version: str | None = None
    use_ml_runtime: bool = False
    kind: str | None = None
    custom_image: str | None = None
    """A custom container image (``dockerImage.url``; ``customImage`` in a stack file)."""
    runtime_engine: str | None = None
    data_security_mode: str | None = None
    single_user_name: str | None = None
    group: bool = False
    """The principal is a group (``dedicatedGroup`` in a stack file; a resource does not say)."""
    single_node: bool = False
    gpu_settings: tuple[str, ...] = ()
    """The GPU scheduling keys of ``sparkConf`` (see :func:`gpu_settings`)."""
    gpu_amount: str | float | None = None
    """``sparkConf`` ``spark.task.resource.gpu.amount`` as written."""
    workload: str | None = None
    """A stack file's ``workload``: ``training``, ``inference`` or ``singleNode``."""
    tasks_per_gpu: object = None
    """A stack file's ``tasksPerGpu`` as the file wrote it (a whole number ≥ 2 is allowed)."""
    num_workers: int | None = None
    """``numWorkers``; ``None``: not set."""
    autoscale: bool = False
    """``autoscale`` (``minWorkers``/``maxWorkers``) is set."""
    written_user: str | None = None
    """A stack file's ``singleUserName`` as written: with ``dedicatedGroup`` the principal (:attr:`single_user_name`)
    is the group, and a user written beside it is a second principal."""

    @property
    def driver(self) -> str | None:
        return self.driver_node_type if self.driver_node_type is not None else self.node_type

    @property
    def is_gpu_cluster(self) -> bool:
        return self.declared_gpu or is_gpu_node_type(self.node_type) or is_gpu_node_type(self.driver)

    @property
    def has_kind(self) -> bool:
        return self.kind is not None and self.kind.upper() == CLASSIC_PREVIEW


def is_gpu_node_type(value: str | None) -> bool:
    return value is not None and is_gpu_size(value)


def plain_runtime(spark_version: str) -> str:
    """The DBR release key of a GPU ML runtime key (``17.3.x-gpu-ml-scala2.13`` → ``17.3.x-scala2.13``).

    With ``kind: CLASSIC_PREVIEW`` the API takes the release in ``spark_version`` and ``use_ml_runtime: true``; it
    picks the GPU ML flavour itself from the GPU node type.
    """
    return spark_version.replace(GPU_ML_MARKER, "-", 1)


def gpu_settings(spark_conf: Mapping[str, object]) -> tuple[str, ...]:
    """The ``sparkConf`` keys that configure GPU scheduling."""
    return tuple(k for k in spark_conf if GPU_RESOURCE_MARKER in k)


def is_single_node_profile(profile: object) -> bool:
    """Whether ``spark.databricks.cluster.profile`` makes the cluster single-node (driver only)."""
    return str(profile if profile is not None else "").lower() == SINGLE_NODE_PROFILE.lower()


def task_gpu_amount(tasks_per_gpu: int) -> str:
    """``spark.task.resource.gpu.amount`` for ``tasks_per_gpu`` tasks sharing one GPU, as Spark accepts it.

    ``1/N`` as a decimal, rounded *down* (``floor(1/amount)`` must still be ``N``): 4 → ``"0.25"``, 3 → ``"0.333333"``.
    """
    whole = isinstance(tasks_per_gpu, int) and not isinstance(tasks_per_gpu, bool)
    if not whole or not 2 <= tasks_per_gpu <= MAX_TASKS_PER_GPU:
        raise ValueError(f"tasks per GPU must be a whole number from 2 to {MAX_TASKS_PER_GPU}, got {tasks_per_gpu!r}")
    amount = (Decimal(1) / Decimal(tasks_per_gpu)).quantize(Decimal("0.000001"), rounding=ROUND_DOWN)
    text = format(amount.normalize(), "f")
    if int(1 / float(text)) != tasks_per_gpu:  # pragma: no cover - guards the rounding above
        raise ValueError(f"cannot express 1/{tasks_per_gpu} as a Spark GPU amount")
    return text


def _not_gpu(cluster: DatabricksCluster) -> NotApplicable | None:
    if cluster.is_gpu_cluster:
        return None
    return NotApplicable("no GPU node type (nodeTypeId, driverNodeTypeId): not a GPU cluster")


# -- databricks-gpu-node-types ----------------------------------------------------------------------------------------


def _node_type_problem(value: str | None, role: str, *, size_rules: bool, floor: str, today: date) -> str | None:
    if value is None or not is_gpu_size(value):
        subject = f"{value} is not a GPU node type" if value else f"the {role} node type is not set"
        return (
            f"{subject}: a GPU cluster needs GPU node types for its workers and its driver (the GPU ML runtime's "
            f"CUDA libraries do not run on a CPU node). Allowed: {', '.join(databricks_gpu_sizes(today))}"
        )
    catalog = default_catalog()
    if size_rules:
        findings = check_gpu_size(value, floor=floor, today=today, require_aks=False, catalog=catalog)
        if findings:
            return " ".join(f.message for f in findings)
    size = catalog.lookup(value)
    if size is not None and not offered_by_databricks(size):
        return (
            f"{size.name} ({size.gpu_model}) is not offered by Azure Databricks as a GPU node type, so the cluster "
            f"cannot be created. Allowed: {', '.join(databricks_gpu_sizes(today))}"
        )
    return None


def gpu_node_types(
    cluster: DatabricksCluster, *, size_rules: bool = False, floor: str = DEFAULT_FLOOR, today: date
) -> list[Finding] | NotApplicable:
    """Workers and driver of a GPU cluster are GPU node types that Azure Databricks offers.

    ``size_rules`` also applies the catalog's size rules (known, not retired on ``today``, not NVv4, not below
    ``floor``), as the stack config does; the policy pack has a policy per size rule. At most one finding per node type.
    """
    if (na := _not_gpu(cluster)) is not None:
        return na
    findings: list[Finding] = []
    for field, role, value in (
        ("nodeTypeId", "worker", cluster.node_type),
        ("driverNodeTypeId", "driver", cluster.driver),
    ):
        problem = _node_type_problem(value, role, size_rules=size_rules, floor=floor, today=today)
        if problem is not None:
            findings.append(Finding(field, problem))
    return findings


# -- databricks-gpu-no-photon -----------------------------------------------------------------------------------------


def gpu_no_photon(cluster: DatabricksCluster) -> list[Finding] | NotApplicable:
    """No Photon on a GPU cluster: neither ``runtimeEngine: PHOTON`` nor a Photon runtime."""
    if (na := _not_gpu(cluster)) is not None:
        return na
    findings: list[Finding] = []
    if cluster.runtime_engine is not None and cluster.runtime_engine.upper() == PHOTON:
        findings.append(
            Finding(
                "runtimeEngine",
                f"Photon is on (runtimeEngine {PHOTON}), but Photon does not run on GPU instance types: Databricks "
                f"rejects the combination, so the GPU cluster cannot start. Turn Photon off: runtimeEngine "
                f"{STANDARD_ENGINE}, the default (in a stack file, photon must be false).",
            )
        )
    version = cluster.spark_version
    if version is not None and PHOTON_MARKER in version.lower():
        findings.append(
            Finding(
                "sparkVersion",
                f"{version} is a Photon runtime, but Photon does not run on GPU instance types (Databricks rejects "
                f"the combination). Use a GPU ML runtime such as {EXAMPLE_GPU_ML_RUNTIME}.",
            )
        )
    return findings


# -- databricks-gpu-runtime -------------------------------------------------------------------------------------------


def gpu_runtime(cluster: DatabricksCluster, *, today: date) -> list[Finding] | NotApplicable:
    """GPU node types go with a GPU ML runtime (with ``kind``: the DBR release and ``useMlRuntime: true``), a custom
    container with a standard runtime, and a GPU ML runtime only with GPU node types; and a GPU cluster's runtime is
    not past its end of support on ``today`` (:func:`runtime_support_problem`)."""
    version = cluster.spark_version
    if version is None:
        return NotApplicable("sparkVersion is not set")
    lowered = version.lower()
    gpu_ml = GPU_ML_MARKER in lowered
    ml = ML_MARKER in lowered
    if not cluster.is_gpu_cluster:
        if gpu_ml and cluster.node_type is not None:
            return [
                Finding(
                    "sparkVersion",
                    f"{version} is a GPU ML runtime but the node types are not GPU sizes: Databricks refuses GPU "
                    f"runtimes on CPU nodes. Use GPU node types (e.g. {_cheapest_databricks_size(today)}) or a CPU "
                    f"runtime (drop '{GPU_ML_MARKER.strip('-')}').",
                )
            ]
        return NotApplicable("no GPU node type and no GPU ML runtime")
    release_with_ml = cluster.has_kind and cluster.use_ml_runtime
    ml_runtime = ml or release_with_ml
    runs_gpu_ml = gpu_ml or (release_with_ml and not ml)
    image = cluster.custom_image
    if image and ml_runtime:
        shown = version if ml else f"{version} with useMlRuntime: true"
        message = (
            f"{shown} is an ML runtime, but customImage {image} is set (dockerImage on the cluster): Databricks "
            f"Container Services needs a standard (non-ML) runtime, e.g. {EXAMPLE_STANDARD_RUNTIME}; the image "
            "brings CUDA and the ML libraries. Use a standard runtime with the image, or drop the image to use the "
            f"GPU ML runtime ({EXAMPLE_GPU_ML_RUNTIME})."
        )
        return [Finding("sparkVersion", message)]
    if not image and not runs_gpu_ml and cluster.has_kind:
        message = (
            f"the cluster has GPU node types and kind {CLASSIC_PREVIEW} but runtime {version} "
            f"{'with' if cluster.use_ml_runtime else 'without'} useMlRuntime: true is not a GPU ML runtime: with "
            "kind, Databricks runs the GPU ML runtime (the only one that ships CUDA) when sparkVersion is the DBR "
            f"release and useMlRuntime is true. Set sparkVersion: {EXAMPLE_STANDARD_RUNTIME} and useMlRuntime: true."
        )
        return [Finding("useMlRuntime", message)]
    if not image and not runs_gpu_ml:
        message = (
            f"{version} is not a GPU ML runtime: only '{GPU_ML_MARKER}' runtimes ship the CUDA libraries, so the "
            f"cluster's GPUs would be unusable. Use a GPU ML runtime such as {EXAMPLE_GPU_ML_RUNTIME} (17.3 LTS, the "
            f"default) or {EXAMPLE_GPU_ML_RUNTIME_18} (18 LTS; DBR 17+ is Scala 2.13 only), or a standard runtime "
            "with a custom GPU image."
        )
        return [Finding("sparkVersion", message)]
    ended = runtime_support_problem(version, today)  # the dated fact: stack config, components and the pack pass today
    return [Finding("sparkVersion", ended)] if ended else []


def _cheapest_databricks_size(today: date) -> str:
    sizes = [s for s in default_catalog().sizes() if offered_by_databricks(s) and not s.is_retired(today)]
    sizes.sort(key=lambda s: s.price_order)
    return sizes[0].name


def _scala_problem(major: int, scala: str) -> str | None:
    if major >= 17 and scala != "2.13":
        return f"Databricks Runtime {major} and later ship Scala 2.13 only (use scala2.13)"
    if major <= 15 and scala != "2.12":
        return f"Databricks Runtime {major} ships Scala 2.12 (use scala2.12)"
    return None


def runtime_key(cluster: DatabricksCluster) -> list[Finding] | NotApplicable:
    """Stack files only: ``sparkVersion`` is a runtime key this project knows, with the Scala its release ships.

    The policy pack does not apply it: a raw cluster may name any runtime Databricks offers.
    """
    version = cluster.spark_version
    if version is None:
        return NotApplicable("sparkVersion is not set")
    if cluster.custom_image:
        m = STANDARD_RUNTIME_RE.match(version)
        if m is None:
            return [
                Finding(
                    "sparkVersion",
                    f"{version} is not a standard Databricks runtime key: with a custom image use "
                    f"'<major>[.<minor>].x-scala<2.12|2.13>', e.g. {EXAMPLE_STANDARD_RUNTIME}",
                )
            ]
    else:
        m = GPU_ML_RUNTIME_RE.match(version)
        if m is None:
            return [
                Finding(
                    "sparkVersion",
                    f"{version} is not a GPU ML runtime key: GPU clusters need "
                    f"'<major>[.<minor>].x-gpu-ml-scala<2.12|2.13>', e.g. {EXAMPLE_GPU_ML_RUNTIME} (17.3 LTS, the "
                    f"default) or {EXAMPLE_GPU_ML_RUNTIME_18} (18 LTS); DBR 17+ is Scala 2.13 only",
                )
            ]
    problem = _scala_problem(int(m.group(1)), m.group(3))
    return [Finding("sparkVersion", f"{version}: {problem}")] if problem else []  # end of support: gpu_runtime


# -- databricks-gpu-dedicated-access ----------------------------------------------------------------------------------


def gpu_dedicated_access(cluster: DatabricksCluster) -> list[Finding] | NotApplicable:
    """A GPU cluster uses dedicated access (``SINGLE_USER``, or ``DATA_SECURITY_MODE_DEDICATED`` with ``kind``) and
    names its principal in ``singleUserName``."""
    if (na := _not_gpu(cluster)) is not None:
        return na
    mode = cluster.data_security_mode
    if mode is None or mode.upper() not in DEDICATED_MODES:
        return [
            Finding(
                "dataSecurityMode",
                f"a GPU cluster needs dedicated access, but dataSecurityMode is {mode or 'not set'}: the GPU ML "
                "runtimes are not supported in standard (shared) access mode, and without an explicit mode the "
                f"workspace default applies. Set dataSecurityMode: {SINGLE_USER} with singleUserName (a user), or "
                f"kind: {CLASSIC_PREVIEW} with dataSecurityMode: {DEDICATED} and singleUserName (a user or group).",
            )
        ]
    mode = mode.upper()
    findings: list[Finding] = []
    if mode == DEDICATED and not cluster.has_kind:
        findings.append(
            Finding(
                "dataSecurityMode",
                f"{DEDICATED} is only available when kind is {CLASSIC_PREVIEW}, but kind is not set: Databricks "
                f"refuses the request. Set kind: {CLASSIC_PREVIEW}, or use dataSecurityMode: {SINGLE_USER} with a "
                "user in singleUserName.",
            )
        )
    principal = cluster.single_user_name
    if principal is None or not principal.strip():
        findings.append(
            Finding(
                "singleUserName",
                f"a GPU cluster runs in dedicated access mode (dataSecurityMode {mode}), so singleUserName is "
                "required: the Databricks provider only creates dedicated compute with its principal; "
                f"{PRINCIPAL_HELP}",
            )
        )
    return findings


def dedicated_group(cluster: DatabricksCluster) -> list[Finding] | NotApplicable:
    """Stack files only: a cluster dedicated to a group (``kind: CLASSIC_PREVIEW``) runs DBR 15.4+ and no custom
    container. A resource does not say whether ``singleUserName`` names a group, so the policy pack cannot apply it.
    """
    if not cluster.group:
        return NotApplicable("the cluster is not dedicated to a group")
    findings: list[Finding] = []
    if cluster.custom_image:
        findings.append(
            Finding(
                "dedicatedGroup",
                f"dedicatedGroup cannot be combined with customImage: group-dedicated compute (kind "
                f"{CLASSIC_PREVIEW}) with Databricks Container Services is not covered by the sources this project "
                "verified; assign the cluster to a user (singleUserName) or drop customImage",
            )
        )
    version = cluster.spark_version
    release = runtime_release(version) if version is not None else None
    if release is not None and release < MIN_GROUP_RUNTIME:
        findings.append(
            Finding(
                "dedicatedGroup",
                f"dedicatedGroup needs Databricks Runtime {_MIN_GROUP_RELEASE} or above, but sparkVersion is "
                f"{version}: use {EXAMPLE_GPU_ML_RUNTIME}, or assign the cluster to a user (singleUserName)",
            )
        )
    return findings


# -- databricks-gpu-task-amount ---------------------------------------------------------------------------------------


def _amount(raw: str | float) -> float | None:
    try:
        return float(raw)
    except (TypeError, ValueError):
        return None


def gpu_task_amount(cluster: DatabricksCluster) -> list[Finding] | NotApplicable:
    """``spark.task.resource.gpu.amount`` is ≤ 0.5 or a whole number and at most a worker's GPUs; a single-node
    cluster has no GPU scheduling settings."""
    if (na := _not_gpu(cluster)) is not None:
        return na
    if cluster.single_node:
        return [
            Finding(
                f"sparkConf.{key}",
                "GPU scheduling is off on single-node compute, so this setting has no effect (the driver runs every "
                "task with all its GPUs). Remove it, or use a multi-node cluster.",
            )
            for key in cluster.gpu_settings
        ]
    raw = cluster.gpu_amount
    if raw is None:
        return NotApplicable(f"{TASK_GPU_AMOUNT} is not set")
    field = f"sparkConf.{TASK_GPU_AMOUNT}"
    amount = _amount(raw)
    worker = default_catalog().lookup(cluster.node_type) if cluster.node_type is not None else None
    if amount is None or amount <= 0:
        message = (
            f"{raw!r} is not a positive number. Use the GPUs per worker for training (e.g. 1) or 1/N "
            f"(≤ {MAX_GPU_FRACTION}) to share a GPU between N inference tasks."
        )
    elif amount > MAX_GPU_FRACTION and not amount.is_integer():
        message = (
            f"{raw} is neither ≤ {MAX_GPU_FRACTION} nor a whole number, which Spark rejects (a task gets a fraction "
            "1/N of a GPU, or whole GPUs). Use 0.5, 0.25, … for inference or a whole number for training."
        )
    elif worker is not None and amount > worker.gpu_count:
        message = (
            f"{raw} GPUs per task but each worker ({worker.name}) has only {worker.gpu_count} GPU(s), so no task "
            "could ever be scheduled. Use at most the worker's GPU count."
        )
    else:
        return []
    return [Finding(field, message)]


def tasks_per_gpu(cluster: DatabricksCluster) -> list[Finding]:
    """Stack files only: ``tasksPerGpu`` (inference only, required there) is a whole number from 2 to
    :data:`MAX_TASKS_PER_GPU`, so that the cluster's ``spark.task.resource.gpu.amount`` (``1/N``) is a fraction Spark
    accepts (≤ 0.5) and reads back as N tasks per GPU."""
    value, workload = cluster.tasks_per_gpu, cluster.workload
    if value is None:
        if workload == "inference":
            return [
                Finding(
                    "tasksPerGpu",
                    "tasksPerGpu is required for workload 'inference': how many Spark tasks share one GPU (a whole "
                    f"number ≥ 2; the cluster sets {TASK_GPU_AMOUNT} = 1/tasksPerGpu)",
                )
            ]
        return []
    if workload is not None and workload != "inference":
        return [
            Finding(
                "tasksPerGpu",
                f"tasksPerGpu only applies to workload 'inference' (this cluster is {workload!r}: training gives "
                "each task all GPUs of its worker; singleNode has no GPU scheduling)",
            )
        ]
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        return [
            Finding(
                "tasksPerGpu",
                f"tasksPerGpu must be a whole number ≥ 2, got {show(value)}: Spark shares a GPU between N tasks by "
                f"giving each 1/N of it ({TASK_GPU_AMOUNT}), and accepts a fraction only when it is ≤ "
                f"{MAX_GPU_FRACTION}, i.e. 1/N with N ≥ 2. For one task per GPU use workload 'training'",
            )
        ]
    if value > MAX_TASKS_PER_GPU:
        return [
            Finding(
                "tasksPerGpu",
                f"tasksPerGpu must be at most {MAX_TASKS_PER_GPU}, got {show(value)}: the cluster gives each task 1/N "
                f"of a GPU ({TASK_GPU_AMOUNT}, written with 6 decimals), and past {MAX_TASKS_PER_GPU} that share no "
                "longer reads back as N tasks",
            )
        ]
    return []


# -- workers and principal (stack files and the component) -----------------------------------------------------------


def workers(cluster: DatabricksCluster) -> list[Finding]:
    """Stack files and the component: single-node compute has no workers (``numWorkers`` 0 or unset, no
    ``autoscale``); any other cluster has workers, ``numWorkers`` ≥ 1 or ``autoscale``, not both. At most one finding
    per field (``numWorkers``, ``autoscale``, ``workload``)."""
    workload, count = cluster.workload, cluster.num_workers
    shown = f"workload {workload!r}" if workload is not None else "a multi-node cluster"
    found: list[Finding] = []
    if count is not None and cluster.single_node and count != 0:
        found.append(
            Finding(
                "numWorkers",
                f"numWorkers must be 0 (or unset) for workload 'singleNode', got {count}: single-node compute runs "
                "Spark on the driver only",
            )
        )
    elif count is not None and not cluster.single_node and count < 1:
        found.append(
            Finding(
                "numWorkers",
                f"numWorkers must be ≥ 1 for {shown}, got {count}; for a driver-only cluster use workload 'singleNode'",
            )
        )
    if cluster.single_node:
        if cluster.autoscale:
            found.append(
                Finding("autoscale", "autoscale does not apply to workload 'singleNode' (driver only, no workers)")
            )
    elif cluster.autoscale and count is not None:
        found.append(
            Finding("autoscale", "set either numWorkers (fixed size) or autoscale (minWorkers/maxWorkers), not both")
        )
    elif not cluster.autoscale and count is None:
        found.append(
            Finding(
                "workload",
                f"{shown} needs workers: set numWorkers (fixed size) or autoscale {{minWorkers, maxWorkers}}",
            )
        )
    return found


def one_principal(cluster: DatabricksCluster) -> list[Finding]:
    """Stack files only: dedicated compute has exactly one principal, a user (``singleUserName``) or a group
    (``dedicatedGroup``), not both."""
    if not cluster.group or cluster.written_user is None:
        return []
    return [
        Finding(
            "singleUserName",
            f"set either singleUserName (a user: {cluster.written_user!r}) or dedicatedGroup (a group: "
            f"{cluster.single_user_name!r}), not both: dedicated compute has exactly one principal",
        )
    ]


__all__ = [
    "AUTOTERMINATION_MAX",
    "AUTOTERMINATION_MIN",
    "CLASSIC_PREVIEW",
    "DEDICATED",
    "DEDICATED_MODES",
    "EXAMPLE_GPU_ML_RUNTIME",
    "EXAMPLE_GPU_ML_RUNTIME_18",
    "EXAMPLE_STANDARD_RUNTIME",
    "GPU_ML_MARKER",
    "MAX_GPU_FRACTION",
    "MAX_TASKS_PER_GPU",
    "MIN_GROUP_RUNTIME",
    "ML_MARKER",
    "PHOTON",
    "PRINCIPAL_HELP",
    "PROFILE_KEY",
    "SINGLE_NODE_PROFILE",
    "SINGLE_USER",
    "STANDARD_ENGINE",
    "TASK_GPU_AMOUNT",
    "DatabricksCluster",
    "dedicated_group",
    "gpu_dedicated_access",
    "gpu_no_photon",
    "gpu_node_types",
    "gpu_runtime",
    "gpu_settings",
    "gpu_task_amount",
    "is_gpu_node_type",
    "is_single_node_profile",
    "one_principal",
    "plain_runtime",
    "runtime_key",
    "task_gpu_amount",
    "tasks_per_gpu",
    "workers",
]


def cluster_slug(name: str) -> str:
    """A cluster's name as it appears in Pulumi resource names (lowercase, ``-`` for anything else)."""
    return "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in name.lower()).strip("-")
