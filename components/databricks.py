"""Azure Databricks: a workspace (created or existing), a Databricks provider bound to it, and GPU clusters.

``pulumi_databricks`` is imported lazily, inside the code that creates Databricks resources: importing the package
loads ~385 modules (measured: ~2.7-3.6 s and ~110 MB on the build machine), and an AKS-only stack must not pay for
it. This module itself can be imported by anything; only constructing :class:`DatabricksWorkspace` or
:class:`DatabricksGpuCluster` pulls the package in.

Authentication: the Databricks provider is given the workspace URL (``host``) and, for a workspace created here,
its Azure resource id, and otherwise authenticates the way the Databricks SDK does (Azure CLI login, managed
identity or ``ARM_*`` / ``DATABRICKS_*`` environment variables of whoever runs ``pulumi up``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi

from .databricks_config import DatabricksClusterConfig, DatabricksConfig, DatabricksWorkspaceConfig, cluster_slug

WORKSPACE_TYPE = "azure-gpu-platform:components:DatabricksWorkspace"
CLUSTER_TYPE = "azure-gpu-platform:components:DatabricksGpuCluster"

WORKSPACE_SKU = "premium"
"""Premium: dedicated (single-user) access mode and Unity Catalog need it."""
COMPUTE_MODE = "Hybrid"
"""Classic clusters in a managed resource group (``Serverless`` workspaces cannot run classic GPU clusters)."""
RUNTIME_ENGINE = "STANDARD"
"""Photon does not run on GPU instance types."""


def managed_resource_group_id(resource_group_id: str, managed_name: str) -> str:
    """``/subscriptions/<sub>/resourceGroups/<managed_name>`` from any id inside the same subscription."""
    if not isinstance(resource_group_id, str):
        raise ValueError(f"expected an Azure resource id '/subscriptions/<id>/...', got {resource_group_id!r}")
    parts = resource_group_id.split("/")
    if len(parts) < 3 or parts[1].lower() != "subscriptions" or not parts[2]:
        raise ValueError(f"expected an Azure resource id '/subscriptions/<id>/...', got {resource_group_id!r}")
    return f"/subscriptions/{parts[2]}/resourceGroups/{managed_name}"


def _https(url: str) -> str:
    return url if url.startswith("https://") else f"https://{url}"


class DatabricksWorkspace(pulumi.ComponentResource):
    """An Azure Databricks workspace (created: Premium, Hybrid compute, no public IP) and a provider bound to it.

    Outputs: ``url`` (``https://adb-….azuredatabricks.net``), ``workspace_resource_id`` (Azure id; ``None`` for an
    existing workspace given by URL) and ``provider`` (pass it to :class:`DatabricksGpuCluster`).
    """

    url: pulumi.Output[str]
    workspace_resource_id: pulumi.Output[str] | None
    provider: pulumi.ProviderResource

    def __init__(
        self,
        name: str,
        config: DatabricksWorkspaceConfig,
        *,
        resource_group_name: pulumi.Input[str] | None = None,
        resource_group_id: pulumi.Input[str] | None = None,
        location: pulumi.Input[str] | None = None,
        tags: Mapping[str, str] | None = None,
        protect: bool = False,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if config.creates_workspace and (resource_group_name is None or resource_group_id is None):
            raise ValueError(
                "databricks.workspace.name: creating a workspace needs the stack's resource group "
                "(resource_group_name and resource_group_id)"
            )
        super().__init__(WORKSPACE_TYPE, name, None, opts)
        import pulumi_databricks as databricks

        all_tags = {**(tags or {}), **config.tags}
        if config.creates_workspace and resource_group_name is not None and resource_group_id is not None:
            from pulumi_azure_native import databricks as azure_databricks

            managed = config.managed_resource_group_name
            ws = azure_databricks.Workspace(
                f"{name}-workspace",
                workspace_name=config.name,
                resource_group_name=resource_group_name,
                location=location,
                sku=azure_databricks.SkuArgs(name=WORKSPACE_SKU),
                compute_mode=COMPUTE_MODE,
                managed_resource_group_id=pulumi.Output.from_input(resource_group_id).apply(
                    lambda rid: managed_resource_group_id(rid, managed)
                ),
                parameters=azure_databricks.WorkspaceCustomParametersArgs(
                    enable_no_public_ip=azure_databricks.WorkspaceNoPublicIPBooleanParameterArgs(value=True),
                ),
                tags=all_tags or None,
                opts=pulumi.ResourceOptions(parent=self, protect=protect),
            )
            self.url = ws.workspace_url.apply(_https)
            self.workspace_resource_id = ws.id
            self.provider = databricks.Provider(
                f"{name}-provider",
                host=self.url,
                azure_workspace_resource_id=ws.id,
                opts=pulumi.ResourceOptions(parent=self),
            )
        else:
            if config.url is None:  # pragma: no cover - the config model requires name or url
                raise ValueError("databricks.workspace: set name or url")
            self.url = pulumi.Output.from_input(config.url)
            self.workspace_resource_id = None
            self.provider = databricks.Provider(
                f"{name}-provider", host=config.url, opts=pulumi.ResourceOptions(parent=self)
            )
        self.register_outputs({"url": self.url})


class DatabricksGpuCluster(pulumi.ComponentResource):
    """A Databricks GPU cluster: GPU ML runtime, catalog node types, dedicated access, Photon off, autotermination.

    Dedicated access always carries its principal (``single_user_name``; the provider requires it for
    ``SINGLE_USER``): a user → ``data_security_mode: SINGLE_USER`` with the GPU ML runtime key in ``spark_version``;
    a group → ``kind: CLASSIC_PREVIEW``, ``data_security_mode: DATA_SECURITY_MODE_DEDICATED``, the DBR release in
    ``spark_version`` and ``use_ml_runtime: true`` (Databricks picks the GPU ML runtime from the GPU node type).

    ``sparkConf`` by workload: training → ``spark.task.resource.gpu.amount`` = GPUs per worker; inference →
    ``1/tasksPerGpu`` as a decimal (``"0.25"`` for 4); singleNode → the single-node profile (or, with ``kind``,
    ``is_single_node: true``), no GPU-scheduling key.
    Node types are the catalog's names, never looked up with ``get_node_type`` (which falls back to CPU sizes).
    """

    cluster_id: pulumi.Output[str]
    url: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        config: DatabricksClusterConfig,
        *,
        provider: pulumi.ProviderResource,
        tags: Mapping[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__(CLUSTER_TYPE, name, None, opts)
        import pulumi_databricks as databricks

        custom_tags = {**(tags or {}), **config.tags}
        single_node = config.workload == "singleNode"
        if single_node and not config.for_group:
            custom_tags["ResourceClass"] = "SingleNode"  # with kind, is_single_node makes Databricks set it
        autoscale = (
            databricks.ClusterAutoscaleArgs(
                min_workers=config.autoscale.minWorkers, max_workers=config.autoscale.maxWorkers
            )
            if config.autoscale is not None
            else None
        )
        num_workers = 0 if single_node else config.numWorkers
        cluster = databricks.Cluster(
            name,
            cluster_name=config.name,
            kind=config.kind,
            spark_version=config.api_spark_version,
            use_ml_runtime=config.use_ml_runtime,
            is_single_node=True if single_node and config.for_group else None,
            node_type_id=config.nodeTypeId,
            driver_node_type_id=config.driver_node_type,
            num_workers=num_workers if autoscale is None else None,
            autoscale=autoscale,
            autotermination_minutes=config.autoterminationMinutes,
            data_security_mode=config.data_security_mode,
            single_user_name=config.principal,
            runtime_engine=RUNTIME_ENGINE,
            spark_conf=config.gpu_spark_conf() or None,
            custom_tags=custom_tags or None,
            docker_image=databricks.ClusterDockerImageArgs(url=config.customImage) if config.customImage else None,
            opts=pulumi.ResourceOptions(parent=self, provider=provider),
        )
        self.cluster_id = cluster.id
        self.url = cluster.url
        self.register_outputs({"clusterId": self.cluster_id})


@dataclass
class DatabricksDeployment:
    """What :func:`build_databricks` created: the workspace component and the clusters by config name."""

    workspace: DatabricksWorkspace
    clusters: dict[str, DatabricksGpuCluster] = field(default_factory=dict)

    @property
    def url(self) -> pulumi.Output[str]:
        return self.workspace.url

    def cluster_ids(self) -> dict[str, pulumi.Output[str]]:
        return {n: c.cluster_id for n, c in self.clusters.items()}


def build_databricks(
    config: DatabricksConfig,
    *,
    prefix: str = "databricks",
    resource_group_name: pulumi.Input[str] | None = None,
    resource_group_id: pulumi.Input[str] | None = None,
    location: pulumi.Input[str] | None = None,
    tags: Mapping[str, str] | None = None,
    protect: bool = False,
    opts: pulumi.ResourceOptions | None = None,
) -> DatabricksDeployment:
    """The workspace, its provider and every configured cluster. Imports ``pulumi_databricks``."""
    workspace = DatabricksWorkspace(
        prefix,
        config.workspace,
        resource_group_name=resource_group_name,
        resource_group_id=resource_group_id,
        location=location,
        tags=tags,
        protect=protect,
        opts=opts,
    )
    deployment = DatabricksDeployment(workspace)
    for cluster in config.clusters:
        deployment.clusters[cluster.name] = DatabricksGpuCluster(
            f"{prefix}-{cluster_slug(cluster.name)}",
            cluster,
            provider=workspace.provider,
            tags=tags,
            opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[workspace])),
        )
    return deployment
