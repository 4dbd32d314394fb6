"""The package's ``DatabricksGpuCluster`` component over :mod:`components.databricks`
(``pulumi_databricks`` is imported only when one is constructed).

No ``from __future__ import annotations``: the schema is inferred from the annotation objects.
"""

from typing import NotRequired, TypedDict

import pulumi

from component_package.args import checked, present
from component_package.enums import ComputeKind, DataSecurityMode
from component_package.inputs import DatabricksAutoscale
from component_package.package import PACKAGE_NAME
from components import databricks
from rules.specs import DATABRICKS_CLUSTER_FIELDS
from rules.specs import DatabricksAutoscale as SpecAutoscale


class DatabricksGpuClusterArgs(TypedDict):
    """One Databricks GPU cluster in an existing Azure Databricks workspace."""

    workspace_url: pulumi.Input[str]
    """The workspace, `https://adb-<workspace-id>.<n>.azuredatabricks.net`; the Databricks provider authenticates
    as the Databricks SDK does (Azure CLI, managed identity, `ARM_*`/`DATABRICKS_*` variables)."""
    cluster_name: str
    """The cluster's name."""
    node_type_id: str
    """A GPU node type Azure Databricks offers (e.g. `Standard_NC24ads_A100_v4`)."""
    single_user_name: str
    """The principal of the dedicated-access cluster: a user's e-mail, or a group's name with `kind`."""
    spark_version: NotRequired[str]
    """A GPU ML runtime key (default `17.3.x-gpu-ml-scala2.13`); with `kind`, the DBR release."""
    driver_node_type_id: NotRequired[str]
    """Default: the workers' node type."""
    kind: NotRequired[ComputeKind]
    """`CLASSIC_PREVIEW`: the request shape of group-dedicated compute."""
    use_ml_runtime: NotRequired[bool]
    """With `kind`: Databricks picks the GPU ML runtime."""
    data_security_mode: NotRequired[DataSecurityMode]
    """Default `SINGLE_USER`."""
    single_node: NotRequired[bool]
    """Driver-only compute (no workers, no GPU scheduling)."""
    num_workers: NotRequired[int]
    """Fixed worker count."""
    autoscale: NotRequired[DatabricksAutoscale]
    """Autoscaling bounds."""
    autotermination_minutes: NotRequired[int]
    """Minutes of inactivity before the cluster terminates."""
    spark_conf: NotRequired[dict[str, str]]
    """GPU scheduling (`spark.task.resource.gpu.amount`) or the single-node profile."""
    custom_image: NotRequired[str]
    """A Databricks Container Services image (needs a standard runtime)."""
    tags: NotRequired[dict[str, str]]
    """Custom tags."""
    gpu_floor: NotRequired[str]
    """The smallest GPU size allowed; default `Standard_NC6s_v3`."""


def cluster_args_of(args: DatabricksGpuClusterArgs) -> databricks.DatabricksGpuClusterArgs:
    """The package's Args as the component's :class:`~components.databricks.DatabricksGpuClusterArgs` (raises
    :class:`~components.validation.InvalidArgsError` with the Databricks checklist's messages)."""
    kwargs = present(args, *(k for k in args if k in DATABRICKS_CLUSTER_FIELDS and k != "autoscale"))
    autoscale = args.get("autoscale")
    if autoscale is not None:
        kwargs["autoscale"] = SpecAutoscale(**present(autoscale, "min_workers", "max_workers"))
    return databricks.DatabricksGpuClusterArgs(**kwargs)


class DatabricksGpuCluster(pulumi.ComponentResource):
    """A Databricks GPU cluster: GPU ML runtime, GPU node types from the project's catalog, dedicated access with its
    principal, Photon off, autotermination."""

    cluster_id: pulumi.Output[str]
    """The cluster's ID."""
    url: pulumi.Output[str]
    """The cluster's URL."""

    def __init__(self, name: str, args: DatabricksGpuClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        cluster_args = checked(lambda: cluster_args_of(args))
        super().__init__(f"{PACKAGE_NAME}:index:DatabricksGpuCluster", name, None, opts)
        import pulumi_databricks  # only a Databricks cluster pays for the package's import

        provider = pulumi_databricks.Provider(
            f"{name}-provider", host=args["workspace_url"], opts=pulumi.ResourceOptions(parent=self)
        )
        cluster = databricks.DatabricksGpuCluster(
            name, cluster_args, opts=pulumi.ResourceOptions(parent=self), provider=provider
        )
        self.cluster_id = cluster.cluster_id
        self.url = cluster.url
        self.register_outputs({"clusterId": self.cluster_id})
