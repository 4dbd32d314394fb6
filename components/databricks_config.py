"""Stack-config models for Azure Databricks GPU clusters (the ``databricks`` key of a stack file).

Pure pydantic + the GPU catalog: no ``pulumi_databricks`` import here (it costs seconds and ~110 MB), so an
AKS-only stack can load and validate its config without it. Every check runs when the config is loaded, before any
resource is registered, and every message names the key and what is allowed.

Facts behind the checks (sources and dates: ``gpu_catalog/facts/databricks.json``):

- GPU compute runs the GPU flavour of Databricks Runtime ML: ``<major>[.<minor>].x-gpu-ml-scala<2.12|2.13>``
  (DBR 17 and later ship Scala 2.13 only; DBR 15 and earlier Scala 2.12; DBR 16 offered both; DBR 18 LTS is keyed
  by its major alone, ``18.x-…``). The default is the current LTS ``17.3.x-gpu-ml-scala2.13``.
- Dedicated access always names its principal: the Databricks provider requires ``single_user_name`` for
  ``data_security_mode`` ``SINGLE_USER``. A user (``singleUserName``, an e-mail) gets the classic shape; a group
  (``dedicatedGroup``) is only possible with ``kind: CLASSIC_PREVIEW`` and ``DATA_SECURITY_MODE_DEDICATED`` (Public
  Preview "Compute: Dedicated group clusters", Unity Catalog, DBR 15.4+), where ``spark_version`` is the plain DBR
  release and ``use_ml_runtime: true`` makes Databricks pick the GPU ML runtime from the GPU node type.
- Worker and driver must be GPU node types that Azure Databricks offers (``support.databricks`` in the catalog).
  Node types come from this project's catalog, never from the provider's ``get_node_type`` lookup, which silently
  falls back to a CPU size when no GPU size matches.
- Photon does not run on GPU instance types.
- A custom container (Databricks Container Services) needs a standard runtime, not an ML runtime.
- GPU scheduling: ``spark.task.resource.gpu.amount`` is the GPUs one task takes. Spark accepts a whole number or a
  fraction ≤ 0.5 (it runs ``floor(1/amount)`` tasks per GPU). Single-node compute has no GPU scheduling.
"""

from __future__ import annotations

import re
from decimal import ROUND_DOWN, Decimal
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from gpu_catalog import DEFAULT_FLOOR, GpuSize, check_gpu_size, default_catalog, is_gpu_size
from gpu_catalog.problems import show

from .config_base import StrictModel

WorkloadMode = Literal["training", "inference", "singleNode"]
WORKLOAD_MODES: tuple[str, ...] = ("training", "inference", "singleNode")

_GPU_ML_RE = re.compile(r"^(\d+)(?:\.(\d+))?\.x-gpu-ml-scala(2\.1[23])$")
_STANDARD_RE = re.compile(r"^(\d+)(?:\.(\d+))?\.x-scala(2\.1[23])$")
_ANY_ML_RE = re.compile(r"-(?:gpu-|cpu-)?ml-", re.IGNORECASE)
_WORKSPACE_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{1,62}[A-Za-z0-9]$")
_RG_NAME_RE = re.compile(r"^[-\w._()]{1,89}[-\w_()]$")
_WORKSPACE_URL_RE = re.compile(r"^https://adb-\d+\.\d+\.azuredatabricks\.net/?$")
_CLUSTER_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$")
_USER_NAME_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_GROUP_NAME_RE = re.compile(r"^\S(?:[^@\t\n\r]{0,254}\S)?$")

AUTOTERMINATION_MIN = 10
AUTOTERMINATION_MAX = 43200
DEFAULT_AUTOTERMINATION_MINUTES = 60
EXAMPLE_GPU_ML_RUNTIME = "17.3.x-gpu-ml-scala2.13"
"""The default runtime: Databricks Runtime 17.3 LTS for Machine Learning, GPU flavour (LTS until 2028-10-22)."""
EXAMPLE_STANDARD_RUNTIME = "17.3.x-scala2.13"
"""A standard (non-ML) runtime, for custom containers."""

SINGLE_USER = "SINGLE_USER"
"""Dedicated access to one user (the classic shape, no ``kind``): ``single_user_name`` is required."""
DEDICATED = "DATA_SECURITY_MODE_DEDICATED"
"""Dedicated access with ``kind: CLASSIC_PREVIEW``: ``single_user_name`` may then name a group."""
CLASSIC_PREVIEW = "CLASSIC_PREVIEW"
MIN_GROUP_RUNTIME = (15, 4)
"""Group-dedicated compute needs Databricks Runtime 15.4 or above."""
PRINCIPAL_HELP = (
    "set singleUserName to a workspace user's e-mail (dataSecurityMode SINGLE_USER), e.g. 'alice@contoso.com', or "
    "dedicatedGroup to a workspace group name (dataSecurityMode DATA_SECURITY_MODE_DEDICATED with kind "
    "CLASSIC_PREVIEW; needs the workspace preview 'Compute: Dedicated group clusters', Unity Catalog and DBR 15.4+)"
)


def databricks_gpu_sizes() -> list[str]:
    """Catalog sizes Azure Databricks offers as GPU node types, current ones only (for messages)."""
    return sorted(s.name for s in default_catalog().sizes() if s.databricks_supported and not s.is_retired())


def runtime_release(spark_version: str) -> tuple[int, int] | None:
    """``(major, minor)`` of a runtime key (``18.x-…`` is ``(18, 0)``), or ``None`` when it is not one."""
    m = _GPU_ML_RE.match(spark_version) or _STANDARD_RE.match(spark_version)
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2) or 0)


def plain_runtime(spark_version: str) -> str:
    """The DBR release key of a GPU ML runtime key (``17.3.x-gpu-ml-scala2.13`` → ``17.3.x-scala2.13``).

    With ``kind: CLASSIC_PREVIEW`` the API takes the release in ``spark_version`` and ``use_ml_runtime: true``; it
    picks the GPU ML flavour itself from the GPU node type.
    """
    return spark_version.replace("-gpu-ml-", "-", 1)


def _scala_problem(major: int, scala: str) -> str | None:
    if major >= 17 and scala != "2.13":
        return f"Databricks Runtime {major} and later ship Scala 2.13 only (use scala2.13)"
    if major <= 15 and scala != "2.12":
        return f"Databricks Runtime {major} ships Scala 2.12 (use scala2.12)"
    return None


def check_node_type(value: str, key: str, *, floor: str = DEFAULT_FLOOR) -> GpuSize:
    """Resolve a Databricks node type to its catalog size, or raise ``ValueError`` naming ``key``.

    A GPU cluster needs a GPU node type that Azure Databricks offers and that passes the project's size rules
    (known, not retired, not NVv4, not below the floor). Returns the catalog entry (canonical spelling).
    """
    allowed = ", ".join(databricks_gpu_sizes())
    cat = default_catalog()
    if not is_gpu_size(value, cat):
        raise ValueError(
            f"{key} {value!r} is not a GPU node type: a GPU cluster needs GPU workers and a GPU driver "
            f"(a CPU driver cannot run the GPU ML runtime's CUDA libraries). Allowed: {allowed}"
        )
    findings = check_gpu_size(value, floor=floor, require_aks=False, catalog=cat)
    if findings:
        raise ValueError(" ".join(f.message for f in findings))
    size = cat[value]
    if not size.databricks_supported:
        raise ValueError(
            f"{key} {size.name} ({size.gpu_model}) is not offered by Azure Databricks as a GPU node type. "
            f"Allowed: {allowed}"
        )
    return size


def cluster_slug(name: str) -> str:
    """A cluster's name as it appears in Pulumi resource names (lowercase, ``-`` for anything else)."""
    return "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in name.lower()).strip("-")


MAX_TASKS_PER_GPU = 1031
"""The most tasks per GPU whose share ``1/N`` :func:`task_gpu_amount` can write: with 6 decimals, 1/1032 rounds to an
amount whose inverse is 1033 (tests/components/test_stack_mistakes.py checks both ends). Far above any real
sharing; the bound keeps an absurd value a config error instead of a crash."""


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


class DatabricksWorkspaceConfig(StrictModel):
    """Create a workspace (``name``) or use an existing one (``url``); exactly one of the two.

    A created workspace is Premium (dedicated access mode and Unity Catalog need it), Hybrid compute mode (classic
    clusters in a managed resource group) and has no public IPs on cluster nodes (secure cluster connectivity).
    """

    name: str | None = None
    managedResourceGroup: str | None = None
    """Name of the resource group Azure Databricks manages for the cluster VMs (default ``<name>-managed-rg``)."""
    url: str | None = None
    """An existing workspace, e.g. ``https://adb-1234567890123456.7.azuredatabricks.net``."""
    tags: dict[str, str] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        if v is not None and not _WORKSPACE_NAME_RE.match(v):
            raise ValueError(
                f"name {v!r} is not a valid Azure Databricks workspace name: 3-64 characters, letters, digits, "
                "'_' and '-', starting and ending with a letter or digit"
            )
        return v

    @field_validator("managedResourceGroup")
    @classmethod
    def _mrg(cls, v: str | None) -> str | None:
        if v is not None and not _RG_NAME_RE.match(v):
            raise ValueError(
                f"managedResourceGroup {v!r} is not a valid resource group name: 1-90 letters, digits, '_', '-', "
                "'.', '(' or ')', not ending with '.'"
            )
        return v

    @field_validator("url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        if v is not None and not _WORKSPACE_URL_RE.match(v):
            raise ValueError(
                f"url {v!r} is not an Azure Databricks workspace URL: expected "
                "https://adb-<workspace-id>.<n>.azuredatabricks.net"
            )
        return v.rstrip("/") if v is not None else None

    @model_validator(mode="after")
    def _one_of(self) -> DatabricksWorkspaceConfig:
        if (self.name is None) == (self.url is None):
            raise ValueError(
                "set exactly one of name (create a Premium, Hybrid-compute, no-public-IP workspace) and url "
                "(use an existing workspace)"
            )
        if self.url is not None and self.managedResourceGroup is not None:
            raise ValueError("managedResourceGroup only applies when the workspace is created (name), not with url")
        return self

    @property
    def creates_workspace(self) -> bool:
        return self.name is not None

    @property
    def managed_resource_group_name(self) -> str:
        if self.name is None:
            raise ValueError("an existing workspace (url) has no managed resource group to create")
        return self.managedResourceGroup or f"{self.name}-managed-rg"


class DatabricksAutoscaleConfig(StrictModel):
    minWorkers: int = Field(ge=1)
    maxWorkers: int = Field(ge=1)

    @model_validator(mode="after")
    def _order(self) -> DatabricksAutoscaleConfig:
        if self.maxWorkers <= self.minWorkers:
            raise ValueError(
                f"maxWorkers ({self.maxWorkers}) must be greater than minWorkers ({self.minWorkers}); "
                "for a fixed size use numWorkers instead of autoscale"
            )
        return self


class DatabricksClusterConfig(StrictModel):
    """One GPU cluster. Field order matters: later validators read earlier fields (``info.data``)."""

    name: str
    customImage: str | None = None
    """A Databricks Container Services image (e.g. ``databricksruntime/gpu-pytorch:cuda11.8``); needs a standard
    (non-ML) runtime in ``sparkVersion``."""
    sparkVersion: str = EXAMPLE_GPU_ML_RUNTIME
    nodeTypeId: str
    driverNodeTypeId: str | None = None
    """Defaults to ``nodeTypeId``."""
    workload: WorkloadMode = "training"
    tasksPerGpu: int | None = None
    """Inference only: how many Spark tasks share one GPU (whole number ≥ 2)."""
    numWorkers: int | None = None
    autoscale: DatabricksAutoscaleConfig | None = None
    photon: bool = False
    autoterminationMinutes: int = DEFAULT_AUTOTERMINATION_MINUTES
    dedicatedGroup: str | None = None
    """A workspace group the cluster is dedicated to (``kind: CLASSIC_PREVIEW``, ``DATA_SECURITY_MODE_DEDICATED``);
    exclusive with ``singleUserName``. Needs the workspace preview "Compute: Dedicated group clusters"."""
    singleUserName: str | None = Field(default=None, validate_default=True)
    """The workspace user (e-mail) the dedicated-access cluster is assigned to (``SINGLE_USER``). One of
    ``singleUserName`` and ``dedicatedGroup`` is required: the provider refuses ``SINGLE_USER`` without it."""
    tags: dict[str, str] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _CLUSTER_NAME_RE.match(v):
            raise ValueError(
                f"name {v!r}: 1-100 characters, letters, digits, spaces, '.', '_' and '-', starting with a letter "
                "or digit"
            )
        return v

    @field_validator("sparkVersion")
    @classmethod
    def _spark_version(cls, v: str, info: ValidationInfo) -> str:
        custom_image = info.data.get("customImage")
        if custom_image:
            if _ANY_ML_RE.search(v):
                raise ValueError(
                    f"sparkVersion {v!r} is an ML runtime, but customImage {custom_image!r} is set: Databricks "
                    "Container Services needs a standard (non-ML) runtime, e.g. "
                    f"{EXAMPLE_STANDARD_RUNTIME!r}; the image brings CUDA and the ML libraries. Remove customImage "
                    f"to use the GPU ML runtime ({EXAMPLE_GPU_ML_RUNTIME!r})"
                )
            m = _STANDARD_RE.match(v)
            if not m:
                raise ValueError(
                    f"sparkVersion {v!r} is not a standard Databricks runtime key: with customImage use "
                    f"'<major>[.<minor>].x-scala<2.12|2.13>', e.g. {EXAMPLE_STANDARD_RUNTIME!r}"
                )
        else:
            m = _GPU_ML_RE.match(v)
            if not m:
                raise ValueError(
                    f"sparkVersion {v!r} is not a GPU ML runtime: GPU clusters need "
                    f"'<major>[.<minor>].x-gpu-ml-scala<2.12|2.13>', e.g. {EXAMPLE_GPU_ML_RUNTIME!r} (17.3 LTS, the "
                    "default) or '18.x-gpu-ml-scala2.13' (18 LTS); DBR 17+ is Scala 2.13 only"
                )
        problem = _scala_problem(int(m.group(1)), m.group(3))
        if problem:
            raise ValueError(f"sparkVersion {v!r}: {problem}")
        return v

    @field_validator("nodeTypeId")
    @classmethod
    def _node_type(cls, v: str) -> str:
        return check_node_type(v, "nodeTypeId").name

    @field_validator("driverNodeTypeId")
    @classmethod
    def _driver_node_type(cls, v: str | None) -> str | None:
        return None if v is None else check_node_type(v, "driverNodeTypeId").name

    @field_validator("tasksPerGpu", mode="before")
    @classmethod
    def _tasks_per_gpu(cls, v: Any, info: ValidationInfo) -> Any:
        workload = info.data.get("workload")
        if v is None:
            if workload == "inference":
                raise ValueError(
                    "tasksPerGpu is required for workload 'inference': how many Spark tasks share one GPU "
                    "(a whole number ≥ 2; the cluster sets spark.task.resource.gpu.amount = 1/tasksPerGpu)"
                )
            return v
        if workload is not None and workload != "inference":
            raise ValueError(
                f"tasksPerGpu only applies to workload 'inference' (this cluster is {workload!r}: training gives "
                "each task all GPUs of its worker; singleNode has no GPU scheduling)"
            )
        whole = isinstance(v, int) and not isinstance(v, bool)
        if isinstance(v, float) and v.is_integer():
            v, whole = int(v), True
        if not whole or v < 2:
            raise ValueError(
                f"tasksPerGpu must be a whole number ≥ 2, got {show(v)}: Spark shares a GPU between N tasks by "
                "giving each 1/N of it (spark.task.resource.gpu.amount), and accepts a fraction only when it is "
                "≤ 0.5, i.e. 1/N with N ≥ 2. For one task per GPU use workload 'training'"
            )
        if v > MAX_TASKS_PER_GPU:
            raise ValueError(
                f"tasksPerGpu must be at most {MAX_TASKS_PER_GPU}, got {show(v)}: the cluster gives each task 1/N of "
                "a GPU (spark.task.resource.gpu.amount, written with 6 decimals), and past "
                f"{MAX_TASKS_PER_GPU} that share no longer reads back as N tasks"
            )
        return v

    @field_validator("numWorkers")
    @classmethod
    def _num_workers(cls, v: int | None, info: ValidationInfo) -> int | None:
        workload = info.data.get("workload")
        if v is None:
            return v
        if workload == "singleNode":
            if v != 0:
                raise ValueError(
                    f"numWorkers must be 0 (or unset) for workload 'singleNode', got {v}: single-node compute "
                    "runs Spark on the driver only"
                )
            return v
        if v < 1:
            raise ValueError(
                f"numWorkers must be ≥ 1 for workload {workload!r}, got {v}; for a driver-only cluster use "
                "workload 'singleNode'"
            )
        return v

    @field_validator("autoscale")
    @classmethod
    def _autoscale(cls, v: DatabricksAutoscaleConfig | None, info: ValidationInfo) -> DatabricksAutoscaleConfig | None:
        workload = info.data.get("workload")
        num_workers = info.data.get("numWorkers")
        if workload == "singleNode":
            if v is not None:
                raise ValueError("autoscale does not apply to workload 'singleNode' (driver only, no workers)")
            return v
        if "numWorkers" not in info.data:
            return v  # numWorkers itself is invalid and already reported
        if v is not None and num_workers is not None:
            raise ValueError("set either numWorkers (fixed size) or autoscale (minWorkers/maxWorkers), not both")
        if v is None and num_workers is None and workload in ("training", "inference"):
            raise ValueError(
                f"workload {workload!r} needs workers: set numWorkers (fixed size) or autoscale "
                "{minWorkers, maxWorkers}"
            )
        return v

    @field_validator("dedicatedGroup")
    @classmethod
    def _dedicated_group(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is None:
            return v
        if "@" in v:
            raise ValueError(
                f"dedicatedGroup {v!r} looks like a user's e-mail: a user goes in singleUserName (dataSecurityMode "
                "SINGLE_USER); dedicatedGroup takes a workspace group's name, e.g. 'ml-platform'"
            )
        if not _GROUP_NAME_RE.match(v):
            raise ValueError(
                f"dedicatedGroup {v!r} is not a workspace group name: 1-256 characters, no leading or trailing "
                "whitespace, no line breaks"
            )
        if info.data.get("customImage"):
            raise ValueError(
                "dedicatedGroup cannot be combined with customImage: group-dedicated compute (kind CLASSIC_PREVIEW) "
                "with Databricks Container Services is not covered by the sources this project verified; assign "
                "the cluster to a user (singleUserName) or drop customImage"
            )
        version = info.data.get("sparkVersion")
        release = runtime_release(version) if isinstance(version, str) else None
        if release is not None and release < MIN_GROUP_RUNTIME:
            raise ValueError(
                f"dedicatedGroup needs Databricks Runtime 15.4 or above, but sparkVersion is {version!r}: use "
                f"{EXAMPLE_GPU_ML_RUNTIME!r}, or assign the cluster to a user (singleUserName)"
            )
        return v

    @field_validator("singleUserName")
    @classmethod
    def _single_user_name(cls, v: str | None, info: ValidationInfo) -> str | None:
        if "dedicatedGroup" not in info.data:
            return v  # dedicatedGroup itself is invalid and already reported
        group = info.data.get("dedicatedGroup")
        if v is None and group is None:
            raise ValueError(
                "singleUserName is required: a GPU cluster runs in dedicated access mode, and the Databricks "
                f"provider only creates dedicated compute with its principal; {PRINCIPAL_HELP}"
            )
        if v is not None and group is not None:
            raise ValueError(
                f"set either singleUserName (a user: {v!r}) or dedicatedGroup (a group: {group!r}), not both: "
                "dedicated compute has exactly one principal"
            )
        if v is not None and not _USER_NAME_RE.match(v):
            raise ValueError(
                f"singleUserName {v!r} is not a workspace user name: SINGLE_USER compute is assigned to one user, "
                "named by their e-mail (user name), e.g. 'alice@contoso.com'. To dedicate the cluster to a group, "
                "set dedicatedGroup instead"
            )
        return v

    @field_validator("photon")
    @classmethod
    def _photon(cls, v: bool) -> bool:
        if v:
            raise ValueError(
                "photon must be false: Photon does not run on GPU instance types, so a GPU cluster with Photon "
                "on fails to start (runtimeEngine is always STANDARD here)"
            )
        return v

    @field_validator("autoterminationMinutes")
    @classmethod
    def _autotermination(cls, v: int) -> int:
        if not AUTOTERMINATION_MIN <= v <= AUTOTERMINATION_MAX:
            raise ValueError(
                f"autoterminationMinutes must be between {AUTOTERMINATION_MIN} and {AUTOTERMINATION_MAX}, got {v}: "
                "idle GPU clusters are stopped automatically (default "
                f"{DEFAULT_AUTOTERMINATION_MINUTES}); Databricks does not allow less than 10, and 0 (never) is "
                "refused here because an idle GPU cluster keeps billing"
            )
        return v

    # -- derived values (what the component renders) ----------------------------------------------------------

    @property
    def worker_size(self) -> GpuSize:
        return default_catalog()[self.nodeTypeId]

    @property
    def driver_node_type(self) -> str:
        return self.driverNodeTypeId or self.nodeTypeId

    @property
    def for_group(self) -> bool:
        """Dedicated to a group: the ``kind: CLASSIC_PREVIEW`` request shape."""
        return self.dedicatedGroup is not None

    @property
    def principal(self) -> str:
        """``single_user_name``: the user's e-mail or the group's name."""
        principal = self.dedicatedGroup if self.dedicatedGroup is not None else self.singleUserName
        if principal is None:  # pragma: no cover - the validator requires one
            raise ValueError(f"singleUserName is required: {PRINCIPAL_HELP}")
        return principal

    @property
    def data_security_mode(self) -> str:
        return DEDICATED if self.for_group else SINGLE_USER

    @property
    def kind(self) -> str | None:
        return CLASSIC_PREVIEW if self.for_group else None

    @property
    def api_spark_version(self) -> str:
        """What goes in ``spark_version``: the GPU ML key, or the DBR release with ``kind`` (``use_ml_runtime``)."""
        return plain_runtime(self.sparkVersion) if self.for_group else self.sparkVersion

    @property
    def use_ml_runtime(self) -> bool | None:
        """``True`` with ``kind`` (Databricks then picks the GPU ML runtime from the node type), else unset."""
        return True if self.for_group else None

    def gpu_spark_conf(self) -> dict[str, str]:
        """The GPU-scheduling / profile part of ``sparkConf`` for this workload.

        Single node: the profile keys for the classic shape; nothing with ``kind``, where ``is_single_node: true``
        makes Databricks set the profile, tags and workers itself.
        """
        if self.workload == "training":
            count = self.worker_size.gpu_count
            return {"spark.task.resource.gpu.amount": str(int(count))}
        if self.workload == "inference":
            if self.tasksPerGpu is None:  # pragma: no cover - the validator requires it
                raise ValueError("tasksPerGpu is required for workload 'inference'")
            return {"spark.task.resource.gpu.amount": task_gpu_amount(self.tasksPerGpu)}
        if self.for_group:
            return {}
        return {"spark.databricks.cluster.profile": "singleNode", "spark.master": "local[*, 4]"}


class DatabricksConfig(StrictModel):
    """The ``databricks`` key of a stack file: a workspace and the GPU clusters in it."""

    workspace: DatabricksWorkspaceConfig
    clusters: list[DatabricksClusterConfig] = Field(default_factory=list)

    @field_validator("clusters")
    @classmethod
    def _unique(cls, v: list[DatabricksClusterConfig]) -> list[DatabricksClusterConfig]:
        seen: dict[str, str] = {}
        for c in v:
            slug = cluster_slug(c.name)
            if slug in seen:
                raise ValueError(
                    f"cluster names {seen[slug]!r} and {c.name!r} collide (resource name {slug!r}); cluster names "
                    "must be unique ignoring case and punctuation"
                )
            seen[slug] = c.name
        return v


def databricks_stack_problems(databricks: DatabricksConfig | None, *, floor: str) -> list[tuple[str, str]]:
    """Cross-section problems of ``databricks`` as ``(key path, message)``: node types against a raised GPU floor."""
    problems: list[tuple[str, str]] = []
    if databricks is None or floor == DEFAULT_FLOOR or floor not in default_catalog():
        return problems
    for i, cluster in enumerate(databricks.clusters):
        keys = [("nodeTypeId", cluster.nodeTypeId)]
        if cluster.driverNodeTypeId is not None:
            keys.append(("driverNodeTypeId", cluster.driverNodeTypeId))
        for key, value in keys:
            try:
                check_node_type(value, key, floor=floor)
            except ValueError as exc:
                problems.append((f"databricks.clusters[{i}].{key}", str(exc)))
    return problems
