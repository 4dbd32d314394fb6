"""What the Databricks GPU policies share: a ``databricks:index/cluster:Cluster`` with a GPU node type as its spec
(:class:`rules.specs.DatabricksGpuCompute`, built once per request from the wire props by
:func:`policies._specs.wire_databricks`), and the rule's findings as violations.

The rules and the facts behind them live in ``rules/databricks.py`` (shared with the stack config and the
components). A policy here is its identity plus what it cannot leave to the spec: it states every value it needs
that is unknown during a preview (:class:`Review`), then calls its rule on the spec's judged words
(:attr:`DbxCluster.facts`) and reports the findings that do not depend on an unknown value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pulumi_policy import ResourceValidationArgs

from rules import Finding, NotApplicable
from rules.databricks import DatabricksCluster
from rules.resource_types import is_databricks_cluster
from rules.specs import DatabricksGpuCompute

from ._resources import UNKNOWN, Review, derived, get
from ._specs import databricks_words, has_kind, is_single_node, spark_conf, text, wire_databricks

__all__ = ["DbxCluster", "databricks_words", "gpu_cluster", "report_findings"]


@dataclass(frozen=True, slots=True)
class DbxCluster:
    """A cluster with a GPU node type (worker or driver): its engine properties and its spec."""

    props: dict[str, Any]
    spec: DatabricksGpuCompute

    def get(self, *path: str) -> Any:
        return get(self.props, *path)

    @property
    def facts(self) -> DatabricksCluster:
        """The cluster as the Databricks rules judge it: the spec's words from the wire
        (:attr:`rules.specs.DatabricksGpuCompute.judged`)."""
        return self.spec.judged

    def has_kind(self) -> bool | Any:
        """Whether the request uses ``kind: CLASSIC_PREVIEW``; UNKNOWN when ``kind`` is."""
        return has_kind(self.props)

    def spark_conf(self) -> dict[str, Any] | Any:
        return spark_conf(self.props)

    def is_single_node(self) -> bool | Any:
        """Single-node (driver-only) compute; UNKNOWN when that depends on an unknown value."""
        return is_single_node(self.props)


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
    """The cluster with its spec when it has a GPU node type, else ``None`` and the node-type fields that are unknown
    (read once per request: every Databricks policy asks)."""
    node_types = DatabricksCluster(
        node_type=text(get(props, "nodeTypeId")), driver_node_type=text(get(props, "driverNodeTypeId"))
    )
    if node_types.is_gpu_cluster:
        return DbxCluster(props, wire_databricks(props)), ()
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
