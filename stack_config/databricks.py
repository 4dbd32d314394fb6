"""Stack-config models for Azure Databricks GPU clusters (the ``databricks`` key of a stack file).

Pure pydantic + the rules layer: no ``pulumi_databricks`` import here (it costs seconds and ~110 MB), so an
AKS-only stack can load and validate its config without it. Every check runs when the config is loaded, before any
resource is registered, and every message names the key and what is allowed.

The guard rails themselves (GPU node types, GPU ML runtime, no Photon, dedicated access and its principal, GPU
scheduling) and the facts behind them live in ``rules/databricks.py``, shared with the policy pack: each validator
here checks one key on its own; the rules that relate keys are the Databricks checklist's
(:func:`rules.checklists.databricks_cluster`, the one ``DatabricksGpuClusterArgs`` calls) and run on the whole
validated cluster (:func:`cluster_problems`, called by :func:`databricks_stack_problems`), so no validator depends on
field order, and each refusal is at the key the finding names. What is left here is the stack file's own shape (names,
URLs, autotermination).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from gpu_catalog import GpuSize, clock, default_catalog
from rules import Finding, NotApplicable, findings
from rules.databricks import (
    AUTOTERMINATION_MAX,
    AUTOTERMINATION_MIN,
    CLASSIC_PREVIEW,
    DEDICATED,
    DEFAULT_AUTOTERMINATION,
    EXAMPLE_GPU_ML_RUNTIME,
    EXAMPLE_USER,
    MAX_TASKS_PER_GPU,
    PHOTON,
    PRINCIPAL_HELP,
    PROFILE_KEY,
    SINGLE_NODE_PROFILE,
    SINGLE_USER,
    STANDARD_ENGINE,
    TASK_GPU_AMOUNT,
    DatabricksCluster,
    cluster_slug,
    gpu_node_types,
    plain_runtime,
    task_gpu_amount,
    tasks_per_gpu,
)
from rules.databricks_policy import (
    DEFAULT_COST_TAGS,
    blank_cost_tags,
    cost_tags_problem,
    floor_problem,
    missing_cost_tags,
)
from rules.sizes import DEFAULT_FLOOR
from rules.specs import DatabricksAutoscale, DatabricksGpuCompute

from .base import StrictModel, context_today, empty_section

WorkloadMode = Literal["training", "inference", "singleNode"]
WORKLOAD_MODES: tuple[str, ...] = ("training", "inference", "singleNode")

_WORKSPACE_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{1,62}[A-Za-z0-9]$")
_RG_NAME_RE = re.compile(r"^[-\w._()]{1,89}[-\w_()]$")
_WORKSPACE_URL_RE = re.compile(r"^https://adb-\d+\.\d+\.azuredatabricks\.net/?$")
_CLUSTER_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$")
_USER_NAME_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_GROUP_NAME_RE = re.compile(r"^\S(?:[^@\t\n\r]{0,254}\S)?$")

_KEYS = {"runtimeEngine": "photon"}
"""Finding fields (the resource's property names) that a stack file spells differently."""

__all__ = [
    "MAX_TASKS_PER_GPU",
    "DatabricksAutoscaleConfig",
    "DatabricksClusterConfig",
    "DatabricksClusterPolicyConfig",
    "DatabricksConfig",
    "DatabricksWorkspaceConfig",
    "cluster_facts",
    "databricks_stack_problems",
    "task_gpu_amount",
]


def cluster_facts(data: Mapping[str, Any]) -> DatabricksCluster:
    """The facts the rules see in a stack file's cluster (``data``: its keys, as far as they are valid).

    A stack file's cluster is a GPU cluster by declaration; dedicated to a group it takes the ``kind`` shape.
    """
    group = data.get("dedicatedGroup")
    return DatabricksCluster(
        node_type=data.get("nodeTypeId"),
        driver_node_type=data.get("driverNodeTypeId"),
        declared_gpu=True,
        spark_version=data.get("sparkVersion"),
        use_ml_runtime=group is not None,
        kind=CLASSIC_PREVIEW if group is not None else None,
        custom_image=data.get("customImage"),
        runtime_engine=PHOTON if data.get("photon") else STANDARD_ENGINE,
        data_security_mode=DEDICATED if group is not None else SINGLE_USER,
        single_user_name=group if group is not None else data.get("singleUserName"),
        group=group is not None,
        single_node=data.get("workload") == "singleNode",
        workload=data.get("workload"),
        tasks_per_gpu=data.get("tasksPerGpu"),
        num_workers=data.get("numWorkers"),
        autoscale=data.get("autoscale") is not None,
        written_user=data.get("singleUserName"),
    )


def _findings(result: list[Finding] | NotApplicable, key: str) -> list[str]:
    """The messages of ``result`` that are about the stack-file ``key``."""
    return [f.message for f in findings(result) if _KEYS.get(f.field, f.field) == key]


def _refuse(key: str, *results: list[Finding] | NotApplicable) -> None:
    """Raise the first finding about ``key`` (pydantic reports one error per key)."""
    for result in results:
        for message in _findings(result, key):
            raise ValueError(message)


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
    """One GPU cluster. Validators check single keys; the rules relating keys run in :func:`cluster_problems`."""

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
    autoterminationMinutes: int = DEFAULT_AUTOTERMINATION
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

    @field_validator("nodeTypeId")
    @classmethod
    def _node_type(cls, v: str, info: ValidationInfo) -> str:
        found = gpu_node_types(cluster_facts({"nodeTypeId": v}), size_rules=True, today=context_today(info))
        _refuse("nodeTypeId", found)
        return default_catalog()[v].name  # the catalog's spelling

    @field_validator("driverNodeTypeId")
    @classmethod
    def _driver_node_type(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is None:
            return v
        found = gpu_node_types(cluster_facts({"driverNodeTypeId": v}), size_rules=True, today=context_today(info))
        _refuse("driverNodeTypeId", found)
        return default_catalog()[v].name

    @field_validator("tasksPerGpu", mode="before")
    @classmethod
    def _tasks_per_gpu(cls, v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            v = int(v)  # YAML may write 4 as 4.0
        if v is not None:  # the number itself; whether the workload takes one is cluster_problems' business
            _refuse("tasksPerGpu", tasks_per_gpu(cluster_facts({"tasksPerGpu": v, "workload": "inference"})))
        return v

    @field_validator("dedicatedGroup")
    @classmethod
    def _dedicated_group(cls, v: str | None) -> str | None:
        if v is None:
            return v
        if "@" in v:
            raise ValueError(
                f"dedicatedGroup {v!r} looks like a user's e-mail: a user goes in singleUserName (dataSecurityMode "
                f"{SINGLE_USER}); dedicatedGroup takes a workspace group's name, e.g. 'ml-platform'"
            )
        if not _GROUP_NAME_RE.match(v):
            raise ValueError(
                f"dedicatedGroup {v!r} is not a workspace group name: 1-256 characters, no leading or trailing "
                "whitespace, no line breaks"
            )
        return v

    @field_validator("singleUserName")
    @classmethod
    def _single_user_name(cls, v: str | None) -> str | None:
        if v is not None and v.strip() and not _USER_NAME_RE.match(v):
            raise ValueError(
                f"singleUserName {v!r} is not a workspace user name: {SINGLE_USER} compute is assigned to one user, "
                f"named by their e-mail (user name), e.g. '{EXAMPLE_USER}'. To dedicate the cluster to a group, "
                "set dedicatedGroup instead"
            )
        return v

    @field_validator("autoterminationMinutes")
    @classmethod
    def _autotermination(cls, v: int) -> int:
        if not AUTOTERMINATION_MIN <= v <= AUTOTERMINATION_MAX:
            raise ValueError(
                f"autoterminationMinutes must be between {AUTOTERMINATION_MIN} and {AUTOTERMINATION_MAX}, got {v}: "
                "idle GPU clusters are stopped automatically (default "
                f"{DEFAULT_AUTOTERMINATION}); Databricks does not allow less than 10, and 0 (never) is "
                "refused here because an idle GPU cluster keeps billing"
            )
        return v

    # -- derived values (what the component renders) ----------------------------------------------------------

    @property
    def facts(self) -> DatabricksCluster:
        """What the Databricks rules (``rules/databricks.py``) see in this cluster."""
        return cluster_facts(dict(self))

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

    def spec(self, *, tags: Mapping[str, str] | None = None, gpu_floor: str = DEFAULT_FLOOR) -> DatabricksGpuCompute:
        """The cluster as its spec (:class:`rules.specs.DatabricksGpuCompute`): the request its keys describe (the
        workload's GPU scheduling, the principal and access mode, the runtime as the API takes it), the keys in the
        file's own words for the checklist (:attr:`facts`), with what the stack gives it (``tags``, which the
        cluster's own extend, and the GPU floor)."""
        bounds = self.autoscale
        autoscale = DatabricksAutoscale(bounds.minWorkers, bounds.maxWorkers) if bounds is not None else None
        scheduling = self.workload != "inference" or self.tasksPerGpu is not None  # else refused on tasksPerGpu
        return DatabricksGpuCompute(
            cluster_name=self.name,
            node_type_id=self.nodeTypeId,
            single_user_name=self.principal if self.singleUserName or self.dedicatedGroup else "",
            spark_version=self.api_spark_version,
            driver_node_type_id=self.driverNodeTypeId,
            kind=self.kind,
            use_ml_runtime=self.use_ml_runtime,
            data_security_mode=self.data_security_mode,
            single_node=self.workload == "singleNode",
            num_workers=self.numWorkers,
            autoscale=autoscale,
            autotermination_minutes=self.autoterminationMinutes,
            spark_conf=self.gpu_spark_conf() if scheduling else {},
            custom_image=self.customImage,
            tags={**(tags or {}), **self.tags},
            gpu_floor=gpu_floor if gpu_floor in default_catalog() else DEFAULT_FLOOR,
            written=self.facts,
        )

    def gpu_spark_conf(self) -> dict[str, str]:
        """The GPU-scheduling / profile part of ``sparkConf`` for this workload.

        Single node: the profile keys for the classic shape; nothing with ``kind``, where ``is_single_node: true``
        makes Databricks set the profile, tags and workers itself.
        """
        if self.workload == "training":
            count = self.worker_size.gpu_count
            return {TASK_GPU_AMOUNT: str(int(count))}
        if self.workload == "inference":
            if self.tasksPerGpu is None:  # pragma: no cover - the validator requires it
                raise ValueError("tasksPerGpu is required for workload 'inference'")
            return {TASK_GPU_AMOUNT: task_gpu_amount(self.tasksPerGpu)}
        if self.for_group:
            return {}
        return {PROFILE_KEY: SINGLE_NODE_PROFILE, "spark.master": "local[*, 4]"}


class DatabricksClusterPolicyConfig(StrictModel):
    """``databricks.clusterPolicy``: a cluster policy generated from the Databricks rules
    (``exports/databricks_policy.py``), referenced by the stack's GPU clusters and exported in the output contract for
    other teams' clusters. ``costTags``: tags every cluster under the policy must carry (the stack's clusters get
    ``cluster.tags``, ``environment`` and their own ``tags``)."""

    enabled: bool = False
    name: str | None = None
    """The policy's name in the workspace (unique there); default ``gpu-clusters-<environment>``."""
    costTags: list[str] = Field(default_factory=lambda: list(DEFAULT_COST_TAGS))

    @field_validator("costTags")
    @classmethod
    def _cost_tags(cls, v: list[str]) -> list[str]:
        if blank_cost_tags(v):
            raise ValueError("costTags must be tag names, not empty strings")
        if len(set(v)) != len(v):
            raise ValueError(f"costTags lists a tag twice: {v}")
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("name must not be empty (leave it out for gpu-clusters-<environment>)")
        return v


class DatabricksConfig(StrictModel):
    """The ``databricks`` key of a stack file: a workspace and the GPU clusters in it."""

    workspace: DatabricksWorkspaceConfig
    clusters: list[DatabricksClusterConfig] = Field(default_factory=list)
    clusterPolicy: DatabricksClusterPolicyConfig = empty_section()

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


_CLUSTER_KEYS = (
    "sparkVersion",
    "tasksPerGpu",
    "numWorkers",
    "autoscale",
    "workload",
    "dedicatedGroup",
    "singleUserName",
    "photon",
)
"""The stack-file keys the rules relating a cluster's keys refuse, in the order they are reported. The checklist's
findings on request properties a stack file derives (``useMlRuntime``, ``dataSecurityMode``, ``sparkConf``) follow
from one of these keys, refused there."""
_NODE_TYPE_KEYS = ("nodeTypeId", "driverNodeTypeId")


def _checklist(
    cluster: DatabricksClusterConfig, floor: str, today: date | None = None
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The cluster spec's checklist (:meth:`rules.specs.DatabricksGpuCompute.findings`,
    :func:`rules.checklists.databricks_cluster`, on the file's own words) of one cluster as ``(key, message)``:
    the first problem per key relating the cluster's keys, in :data:`_CLUSTER_KEYS` order, and every node-type
    problem (only the GPU floor can add one: the validators checked the size rules)."""
    first: dict[str, str] = {}
    node_types: list[tuple[str, str]] = []
    for finding in cluster.spec(gpu_floor=floor).findings(today=today or clock.today()):
        key = _KEYS.get(finding.field, finding.field)
        if key in _NODE_TYPE_KEYS:
            if key == "nodeTypeId" or cluster.driverNodeTypeId is not None:  # the driver's, when written
                node_types.append((key, finding.message))
        elif key in _CLUSTER_KEYS:
            first.setdefault(key, finding.message)
    ordered = [
        ("" if key == "workload" and "workload" not in cluster.model_fields_set else key, first[key])  # a key written
        for key in _CLUSTER_KEYS
        if key in first
    ]
    return ordered, node_types


def cluster_problems(
    cluster: DatabricksClusterConfig, *, floor: str = DEFAULT_FLOOR, today: date | None = None
) -> list[tuple[str, str]]:
    """The rules that relate a cluster's keys, as ``(key, message)``: the first problem per key, in key order, then
    the node types against ``floor`` (the stack's GPU floor)."""
    ordered, node_types = _checklist(cluster, floor, today)
    return [*ordered, *node_types]


def databricks_stack_problems(
    databricks: DatabricksConfig | None, *, floor: str, today: date | None = None
) -> list[tuple[str, str]]:
    """Problems of ``databricks`` as ``(key path, message)``: the rules relating each cluster's keys
    (:func:`cluster_problems`), then the node types against a raised GPU floor."""
    problems: list[tuple[str, str]] = []
    below_floor: list[tuple[str, str]] = []
    for i, cluster in enumerate(databricks.clusters if databricks is not None else []):
        at = f"databricks.clusters[{i}]"
        ordered, node_types = _checklist(cluster, floor, today)
        problems += [(f"{at}.{key}" if key else at, message) for key, message in ordered]
        below_floor += [(f"{at}.{key}", message) for key, message in node_types]
    return [*problems, *below_floor]


def cluster_policy_problems(
    databricks: DatabricksConfig | None, *, inherited_tags: set[str], floor: str, today: date | None = None
) -> list[tuple[str, str]]:
    """``databricks.clusterPolicy`` against the stack: the policy can be generated for the GPU floor, and every cluster
    (all reference the policy: user-, group-dedicated and custom-container clusters alike) carries each cost tag (its
    own ``tags`` or ``inherited_tags``, the tags every cluster gets)."""
    if databricks is None or not databricks.clusterPolicy.enabled:
        return []
    policy = databricks.clusterPolicy
    problems: list[tuple[str, str]] = []
    day = today if today is not None else clock.today()
    if (problem := floor_problem(floor, today=day) or cost_tags_problem(policy.costTags)) is not None:
        problems.append(("databricks.clusterPolicy", problem))
    for i, cluster in enumerate(databricks.clusters):
        missing = missing_cost_tags(cluster.facts, policy.costTags, inherited_tags, cluster.tags)
        if missing:
            problems.append(
                (
                    f"databricks.clusters[{i}].tags",
                    f"the cluster policy (databricks.clusterPolicy) requires the cost tag(s) {', '.join(missing)}, "
                    f"which cluster {cluster.name!r} does not carry: add them to its tags or to cluster.tags "
                    f"(every cluster gets those), or change databricks.clusterPolicy.costTags",
                )
            )
    return problems
