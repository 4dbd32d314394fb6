"""The Databricks GPU cluster, defined once: the request's fields, every default resolved here, and its whole checklist.

``DatabricksGpuCompute(cluster_name=..., node_type_id=..., single_user_name=..., ...)`` is the cluster every door
builds, as the request the Databricks provider takes: the stack config parses ``databricks.clusters[i]`` into it
(:meth:`stack_config.databricks.DatabricksClusterConfig.spec`: the stack file's ``workload``, ``tasksPerGpu``,
``dedicatedGroup`` and runtime key become the request's own fields), the Python API constructs it
(``components.databricks.DatabricksGpuClusterArgs`` is this spec refusing its findings at construction), the
component package maps its ``DatabricksGpuCluster`` inputs to it by name (``component_package/
databricks_gpu_cluster.py``), the policy pack builds it from a cluster resource's properties, partially, with the
resource's own words (``policies/_specs.py`` ``wire_databricks``). A field left out gets the same default whichever
door it came in by.

Resolved defaults: ``driver_node_type_id`` is the workers' node type (sent, as Databricks would default it).

The checklist (:meth:`DatabricksGpuCompute.findings`, ``today`` passed in) is
:func:`rules.checklists.databricks_cluster`: GPU node types Azure Databricks offers within the size rules and the GPU
floor, a GPU ML runtime, no Photon, dedicated access with its principal, the task GPU amount, workers for the
workload. A stack file says some of this in its own words; its door passes them (:attr:`DatabricksGpuCompute.written`)
and the checklist judges those, so a refusal names the key the file wrote (``tasksPerGpu``, ``dedicatedGroup``, the
runtime key's format).

Pure: no Pulumi import, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import date

from .. import Finding
from ..checklists_databricks import DatabricksClusterFacts, databricks_cluster
from ..databricks import (
    DEFAULT_AUTOTERMINATION,
    EXAMPLE_GPU_ML_RUNTIME,
    SINGLE_USER,
    STANDARD_ENGINE,
    TASK_GPU_AMOUNT,
    DatabricksCluster,
    gpu_settings,
)
from ..sizes import DEFAULT_FLOOR


@dataclass(frozen=True)
class DatabricksAutoscale:
    """``autoscale``: the workers' bounds."""

    min_workers: int
    max_workers: int


@dataclass(frozen=True)
class DatabricksGpuCompute:
    """One Databricks GPU cluster, as the request the provider takes: every default resolved once (module
    docstring)."""

    cluster_name: str
    node_type_id: str
    """A GPU node type Azure Databricks offers (the catalog's name; never looked up with ``get_node_type``)."""
    single_user_name: str
    """The principal of the dedicated-access cluster: a workspace user's e-mail, or a group's name with ``kind``."""
    spark_version: str = EXAMPLE_GPU_ML_RUNTIME
    """A GPU ML runtime key; with ``kind``, the DBR release (and ``use_ml_runtime``); with a custom image, a standard
    runtime."""
    driver_node_type_id: str | None = None
    """``None``: the workers' node type (resolved when built, and sent)."""
    kind: str | None = None
    """``CLASSIC_PREVIEW``: the request shape of group-dedicated compute."""
    use_ml_runtime: bool | None = None
    data_security_mode: str = SINGLE_USER
    single_node: bool = False
    """Driver-only compute (no workers, no GPU scheduling)."""
    num_workers: int | None = None
    autoscale: DatabricksAutoscale | None = None
    autotermination_minutes: int = DEFAULT_AUTOTERMINATION
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    """GPU scheduling (``spark.task.resource.gpu.amount``) or the single-node profile."""
    custom_image: str | None = None
    """A Databricks Container Services image (needs a standard runtime)."""
    tags: Mapping[str, str] = field(default_factory=dict)
    gpu_floor: str = DEFAULT_FLOOR
    """The smallest GPU size allowed (policy ``gpu-size-minimum``)."""
    written: DatabricksCluster | None = field(default=None, compare=False, repr=False)
    """The cluster in a door's own words: a stack file's (``workload``, ``tasksPerGpu``, ``dedicatedGroup``,
    ``photon``, the runtime key as written, ``stack_config.databricks.cluster_facts``), or a resource's as the engine
    sent it (the policy pack, ``policies/_specs.py`` ``wire_databricks``: ``runtimeEngine``, ``sparkConf`` values as
    written, values unknown during a preview left out). The rules judge those instead of the request derived from
    them (:attr:`judged`), so each refusal names a key the door wrote. ``None``: the request itself (Python, the
    component package)."""

    def __post_init__(self) -> None:
        if self.driver_node_type_id is None:  # the workers' node type, sent as a stack file's cluster sends it
            object.__setattr__(self, "driver_node_type_id", self.node_type_id)

    @property
    def facts(self) -> DatabricksCluster:
        """The request as the Databricks rules (and the policy pack) see it."""
        return DatabricksCluster(
            node_type=self.node_type_id,
            # the workers' own node type, checked once, on node_type_id
            driver_node_type=None if self.driver_node_type_id == self.node_type_id else self.driver_node_type_id,
            declared_gpu=True,
            spark_version=self.spark_version,
            use_ml_runtime=bool(self.use_ml_runtime),
            kind=self.kind,
            custom_image=self.custom_image,
            runtime_engine=STANDARD_ENGINE,
            data_security_mode=self.data_security_mode,
            single_user_name=self.single_user_name,
            single_node=self.single_node,
            gpu_settings=gpu_settings(self.spark_conf),
            gpu_amount=self.spark_conf.get(TASK_GPU_AMOUNT),
            workload="singleNode" if self.single_node else None,
            num_workers=self.num_workers,
            autoscale=self.autoscale is not None,
        )

    @property
    def judged(self) -> DatabricksCluster:
        """What the Databricks rules judge: the door's own words (:attr:`written`) when it has them, else the
        request (:attr:`facts`). The policy pack calls the rules one per policy on it."""
        return self.written if self.written is not None else self.facts

    @property
    def checklist(self) -> DatabricksClusterFacts:
        """The cluster as the Databricks checklist sees it: a stack file's words when it has them, else the
        request."""
        if self.written is not None:
            return DatabricksClusterFacts(self.written, gpu_floor=self.gpu_floor, stack_runtime_key=True)
        return DatabricksClusterFacts(self.facts, gpu_floor=self.gpu_floor)

    def findings(self, *, today: date) -> list[Finding]:
        """Every guard rail the cluster breaks on ``today``: :func:`rules.checklists.databricks_cluster`."""
        return databricks_cluster(self.checklist, today=today)


DATABRICKS_CLUSTER_FIELDS: frozenset[str] = frozenset(f.name for f in fields(DatabricksGpuCompute))
"""The spec's field names: a door maps its keys onto them."""
