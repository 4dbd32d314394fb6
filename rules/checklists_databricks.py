"""The Databricks GPU cluster checklist (re-exported by :mod:`rules.checklists`): every rule a Databricks GPU cluster
the platform deploys must pass, written once for the stack config (``stack_config/databricks.py``),
``DatabricksGpuClusterArgs`` (``components/databricks.py``) and the component package (through those Args)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from . import Finding, findings
from .databricks import (
    DatabricksCluster,
    dedicated_group,
    gpu_dedicated_access,
    gpu_no_photon,
    gpu_node_types,
    gpu_runtime,
    gpu_task_amount,
    one_principal,
    runtime_key,
    tasks_per_gpu,
    workers,
)
from .sizes import DEFAULT_FLOOR


@dataclass(frozen=True)
class DatabricksClusterFacts:
    """A Databricks GPU cluster the platform deploys, as its checklist sees it: the request
    (:class:`~rules.databricks.DatabricksCluster`, with a stack file's workload, workers and principal) and what
    judges it. Findings name the resource's properties (``nodeTypeId``, ``sparkVersion``, ``runtimeEngine``,
    ``singleUserName``, ``sparkConf.<key>``) and a stack file's own keys (``numWorkers``, ``autoscale``, ``workload``,
    ``tasksPerGpu``, ``dedicatedGroup``)."""

    cluster: DatabricksCluster
    gpu_floor: str = DEFAULT_FLOOR
    stack_runtime_key: bool = False
    """``sparkVersion`` is a stack file's runtime key (the GPU ML key even for a group, the request's DBR release is
    derived from it): its format and Scala are checked (:func:`rules.databricks.runtime_key`). The Args'
    ``spark_version`` may be any runtime Databricks offers, as on a raw cluster."""


def databricks_cluster(facts: DatabricksClusterFacts, *, today: date) -> list[Finding]:
    """Every guard rail a Databricks GPU cluster breaks: GPU node types Azure Databricks offers within the size rules
    and the GPU floor, a GPU ML runtime (not past its end of support), no Photon, the runtime key (stack files), GPU
    scheduling (``tasksPerGpu``, the task GPU amount), workers for the workload, dedicated access with exactly one
    principal, and group-dedicated compute's runtime and image.

    ``today``: the day the dated rules are judged on (retired sizes, the runtime's end of support)."""
    cluster = facts.cluster
    return [
        *findings(gpu_node_types(cluster, size_rules=True, floor=facts.gpu_floor, today=today)),
        *findings(gpu_runtime(cluster, today=today)),
        *findings(gpu_no_photon(cluster)),
        *(findings(runtime_key(cluster)) if facts.stack_runtime_key else []),
        *tasks_per_gpu(cluster),
        *workers(cluster),
        *findings(dedicated_group(cluster)),
        *findings(gpu_dedicated_access(cluster)),
        *one_principal(cluster),
        *findings(gpu_task_amount(cluster)),
    ]


__all__ = ["DatabricksClusterFacts", "databricks_cluster"]
