"""What the Databricks GPU policies share: the engine properties of a ``databricks:index/cluster:Cluster`` as
:class:`rules.databricks.DatabricksCluster` facts, and the rule's findings as violations.

The rules and the facts behind them live in ``rules/databricks.py`` (shared with the stack config). A policy here is
its identity plus an adapter: it states every value that is unknown during a preview (:class:`Review`), builds the
facts from the known ones and reports the findings that do not depend on an unknown value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pulumi_policy import ResourceValidationArgs

from rules import Finding, NotApplicable
from rules.databricks import CLASSIC_PREVIEW, PROFILE_KEY, DatabricksCluster, is_single_node_profile
from rules.resource_types import is_databricks_cluster

from ._resources import UNKNOWN, Review, derived, get


def text(value: Any) -> str | None:
    """A string property as the facts take it: ``None`` when absent, unknown or not a string."""
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class DbxCluster:
    """The engine properties of a cluster with a GPU node type (worker or driver)."""

    props: dict[str, Any]

    def get(self, *path: str) -> Any:
        return get(self.props, *path)

    def facts(self, **values: Any) -> DatabricksCluster:
        """The node types plus ``values`` as facts."""
        return node_type_facts(self.props, **values)

    def has_kind(self) -> bool | Any:
        """Whether the request uses ``kind: CLASSIC_PREVIEW``; UNKNOWN when ``kind`` is."""
        kind = self.get("kind")
        if kind is UNKNOWN:
            return UNKNOWN
        return isinstance(kind, str) and kind.upper() == CLASSIC_PREVIEW

    def spark_conf(self) -> dict[str, Any] | Any:
        conf = self.get("sparkConf")
        return conf if conf is UNKNOWN or isinstance(conf, dict) else {}

    def is_single_node(self) -> bool | Any:
        """Single-node (driver-only) compute; UNKNOWN when that depends on an unknown value."""
        single = self.get("isSingleNode")
        if single is UNKNOWN:
            return UNKNOWN
        if single is True:
            return True
        conf = self.spark_conf()
        if conf is UNKNOWN:
            return UNKNOWN
        if is_single_node_profile(conf.get(PROFILE_KEY)):
            return True
        workers = self.get("numWorkers")
        autoscale = self.get("autoscale")
        if workers is UNKNOWN or autoscale is UNKNOWN:
            return UNKNOWN
        return autoscale is None and (workers is None or workers == 0)


def node_type_facts(props: Any, **values: Any) -> DatabricksCluster:
    """Facts with the cluster's node types (an unknown one counts as not set) and ``values``."""
    return DatabricksCluster(
        node_type=text(get(props, "nodeTypeId")), driver_node_type=text(get(props, "driverNodeTypeId")), **values
    )


def gpu_cluster(args: ResourceValidationArgs, review: Review) -> DbxCluster | None:
    """The cluster when it has a GPU node type (worker or driver); ``None`` otherwise.

    Unknown node types are recorded on ``review`` (the cluster may turn out to be a GPU cluster).
    """
    if not is_databricks_cluster(args.resource_type):
        return None
    cluster, unknown = derived(args, _GPU_CLUSTER, _read_cluster)
    for path in unknown:
        review.unknown_field(path)
    return cluster


_GPU_CLUSTER = "databricks-gpu-cluster"


def _read_cluster(props: Any) -> tuple[DbxCluster | None, tuple[str, ...]]:
    """The cluster when it has a GPU node type, else ``None`` and the node-type fields that are unknown (read once
    per request: every Databricks policy asks)."""
    if node_type_facts(props).is_gpu_cluster:
        return DbxCluster(props), ()
    return None, tuple(key for key in ("nodeTypeId", "driverNodeTypeId") if get(props, key) is UNKNOWN)


def report_findings(review: Review, result: list[Finding] | NotApplicable, *, unknown: Iterable[str] = ()) -> None:
    """Each finding as a violation ``<field>: <message>``, except those about a field in ``unknown``.

    A rule that does not apply passes silently, as the policy always did.
    """
    if isinstance(result, NotApplicable):
        return
    skip = set(unknown)
    for finding in result:
        if finding.field not in skip:
            review.violation(f"{finding.field}: {finding.message}")
