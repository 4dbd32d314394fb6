"""Azure Databricks: a workspace (created or existing), a Databricks provider bound to it, and GPU clusters.

``pulumi_databricks`` is imported lazily, inside the code that creates Databricks resources: importing the package
loads ~385 modules (measured: ~2.7-3.6 s and ~110 MB on the build machine), and an AKS-only stack must not pay for
it. This module itself can be imported by anything; only constructing :class:`DatabricksWorkspace` or
:class:`DatabricksGpuCluster` pulls the package in.

Authentication: the Databricks provider is given the workspace URL (``host``) and, for a workspace created here,
its Azure resource id, and otherwise authenticates the way the Databricks SDK does (Azure CLI login, managed
identity or ``ARM_*`` / ``DATABRICKS_*`` environment variables of whoever runs ``pulumi up``).

:class:`DatabricksGpuClusterArgs` is the cluster's spec (:class:`rules.specs.DatabricksGpuCompute`), the request as
the provider takes it (a stack file's cluster parsed into it by the stack config: runtime, access mode, principal and
GPU scheduling settings); it checks itself when built
with the Databricks checklist the stack config calls (:func:`rules.checklists.databricks_cluster`, over the rules the
policy pack applies, :mod:`rules.databricks`: GPU node types Azure Databricks offers, within the catalog's size rules
and the GPU floor; a GPU ML runtime; no Photon; dedicated access with its principal; the task GPU amount; workers for
single-node or multi-node compute). A wrong value raises :class:`~components.validation.InvalidArgsError` before
anything is registered. What the request does not carry (the stack file's runtime key format, ``dedicatedGroup``,
``tasksPerGpu``) only a stack file can get wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import date
from functools import cached_property

import pulumi

from gpu_catalog import clock
from rules import Finding, databricks_policy_document
from rules.databricks import (
    STANDARD_ENGINE,
    TASK_GPU_AMOUNT,
    cluster_slug,
)
from rules.databricks_facts import accepted_node_types
from rules.databricks_policy import (
    DEFAULT_COST_TAGS,
    cost_tags_problem,
    floor_problem,
    missing_cost_tags,
)
from rules.databricks_shapes import check_shape, policy_shape, shape_refusals
from rules.sizes import DEFAULT_FLOOR
from rules.specs import DatabricksGpuCompute

from .validation import InvalidArgsError, refuse_findings

WORKSPACE_TYPE = "azure-gpu-platform:components:DatabricksWorkspace"
CLUSTER_TYPE = "azure-gpu-platform:components:DatabricksGpuCluster"
POLICY_TYPE = "azure-gpu-platform:components:DatabricksGpuClusterPolicy"
WORKSPACE_COMPONENT = "DatabricksWorkspace"
CLUSTER_COMPONENT = "DatabricksGpuCluster"
POLICY_COMPONENT = "DatabricksGpuClusterPolicy"

WORKSPACE_SKU = "premium"
"""Premium: dedicated (single-user) access mode and Unity Catalog need it."""
COMPUTE_MODE = "Hybrid"
"""Classic clusters in a managed resource group (``Serverless`` workspaces cannot run classic GPU clusters)."""
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


@dataclass(frozen=True)
class DatabricksWorkspaceArgs:
    """Create a workspace (``workspace_name``, in a resource group) or use an existing one (``url``)."""

    workspace_name: str | None = None
    url: str | None = None
    """An existing workspace, ``https://adb-<workspace-id>.<n>.azuredatabricks.net``."""
    managed_resource_group_name: str | None = None
    """The resource group Azure Databricks manages for the cluster VMs (created workspaces)."""
    resource_group_name: pulumi.Input[str] | None = None
    resource_group_id: pulumi.Input[str] | None = None
    """Any Azure resource id in the subscription (the managed resource group's id is derived from it)."""
    location: pulumi.Input[str] | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    protect: bool = False

    def __post_init__(self) -> None:
        problems: list[Finding] = []
        if (self.workspace_name is None) == (self.url is None):
            problems.append(
                Finding("workspace_name", "set exactly one of workspace_name (create a workspace) and url (use one)")
            )
        elif self.workspace_name is not None:
            if self.resource_group_name is None or self.resource_group_id is None:
                problems.append(
                    Finding(
                        "resource_group_name",
                        "creating a workspace needs the resource group it goes in (resource_group_name and "
                        "resource_group_id)",
                    )
                )
            if self.managed_resource_group_name is None:
                problems.append(
                    Finding(
                        "managed_resource_group_name",
                        "creating a workspace needs the name of the resource group Azure Databricks manages for the "
                        "cluster VMs",
                    )
                )
        if problems:
            raise InvalidArgsError(WORKSPACE_COMPONENT, self.workspace_name or self.url or "", problems)


class DatabricksWorkspace(pulumi.ComponentResource):
    """An Azure Databricks workspace (created: Premium, Hybrid compute, no public IP) and a provider bound to it.

    Outputs: ``url`` (``https://adb-….azuredatabricks.net``), ``workspace_resource_id`` (Azure id; ``None`` for an
    existing workspace given by URL) and ``provider`` (pass it to :class:`DatabricksGpuCluster`).
    """

    url: pulumi.Output[str]
    workspace_resource_id: pulumi.Output[str] | None
    provider: pulumi.ProviderResource

    def __init__(self, name: str, args: DatabricksWorkspaceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(WORKSPACE_TYPE, name, None, opts)
        import pulumi_databricks as databricks

        managed = args.managed_resource_group_name
        rg_name, rg_id = args.resource_group_name, args.resource_group_id
        if args.workspace_name is not None and rg_name is not None and rg_id is not None and managed is not None:
            from pulumi_azure_native import databricks as azure_databricks

            ws = azure_databricks.Workspace(
                f"{name}-workspace",
                workspace_name=args.workspace_name,
                resource_group_name=rg_name,
                location=args.location,
                sku=azure_databricks.SkuArgs(name=WORKSPACE_SKU),
                compute_mode=COMPUTE_MODE,
                managed_resource_group_id=pulumi.Output.from_input(rg_id).apply(
                    lambda rid: managed_resource_group_id(rid, managed)
                ),
                parameters=azure_databricks.WorkspaceCustomParametersArgs(
                    enable_no_public_ip=azure_databricks.WorkspaceNoPublicIPBooleanParameterArgs(value=True),
                ),
                tags=dict(args.tags) or None,
                opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
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
            if args.url is None:  # pragma: no cover - the Args require a name (with its resource group) or a url
                raise ValueError("DatabricksWorkspaceArgs: set workspace_name or url")
            self.url = pulumi.Output.from_input(args.url)
            self.workspace_resource_id = None
            self.provider = databricks.Provider(
                f"{name}-provider", host=args.url, opts=pulumi.ResourceOptions(parent=self)
            )
        self.register_outputs({"url": self.url})


_CLUSTER_FIELDS = {
    "nodeTypeId": "node_type_id",
    "driverNodeTypeId": "driver_node_type_id",
    "sparkVersion": "spark_version",
    "useMlRuntime": "use_ml_runtime",
    "kind": "kind",
    "customImage": "custom_image",
    "dataSecurityMode": "data_security_mode",
    "singleUserName": "single_user_name",
    f"sparkConf.{TASK_GPU_AMOUNT}": "spark_conf",
    "numWorkers": "num_workers",
    "autoscale": "autoscale",
    "workload": "num_workers",
}
"""A rule's field (the resource's property) → the :class:`DatabricksGpuClusterArgs` field."""


@dataclass(frozen=True)
class DatabricksGpuClusterArgs(DatabricksGpuCompute):
    """One Databricks GPU cluster from Python: the cluster's spec (:class:`rules.specs.DatabricksGpuCompute`, the
    request the provider takes, its defaults resolved once), refusing its findings when built (module docstring)."""

    today: date | None = field(default=None, compare=False, repr=False)
    """The day the rules are checked on (the platform build passes the stack's); ``None``:
    :func:`gpu_catalog.clock.today`, read once when the Args are built."""

    def __post_init__(self) -> None:
        super().__post_init__()
        refuse_findings(CLUSTER_COMPONENT, self.cluster_name, cluster_findings(self), _CLUSTER_FIELDS)

    @classmethod
    def of(cls, spec: DatabricksGpuCompute, *, today: date | None = None) -> DatabricksGpuClusterArgs:
        """A spec built elsewhere (the stack config's), checked as the component's Args."""
        if isinstance(spec, DatabricksGpuClusterArgs):
            return spec
        return cls(**{f.name: getattr(spec, f.name) for f in fields(DatabricksGpuCompute)}, today=today)


def cluster_findings(args: DatabricksGpuClusterArgs) -> list[Finding]:
    """Every guard rail the cluster breaks: its spec's checklist (:meth:`rules.specs.DatabricksGpuCompute.findings`,
    the Databricks checklist the stack config calls)."""
    return args.findings(today=args.today or clock.today())


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
    ``provider``: the workspace's Databricks provider.
    """

    cluster_id: pulumi.Output[str]
    url: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        args: DatabricksGpuClusterArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        provider: pulumi.ProviderResource,
        policy_id: pulumi.Input[str] | None = None,
    ) -> None:
        super().__init__(CLUSTER_TYPE, name, None, opts)
        import pulumi_databricks as databricks

        custom_tags = dict(args.tags)
        kind_shape = args.kind is not None
        if args.single_node and not kind_shape:
            custom_tags["ResourceClass"] = "SingleNode"  # with kind, is_single_node makes Databricks set it
        autoscale = (
            databricks.ClusterAutoscaleArgs(
                min_workers=args.autoscale.min_workers, max_workers=args.autoscale.max_workers
            )
            if args.autoscale is not None
            else None
        )
        num_workers = 0 if args.single_node else args.num_workers
        cluster = databricks.Cluster(
            name,
            cluster_name=args.cluster_name,
            kind=args.kind,
            spark_version=args.spark_version,
            use_ml_runtime=args.use_ml_runtime,
            is_single_node=True if args.single_node and kind_shape else None,
            node_type_id=args.node_type_id,
            driver_node_type_id=args.driver_node_type_id,
            num_workers=num_workers if autoscale is None else None,
            autoscale=autoscale,
            autotermination_minutes=args.autotermination_minutes,
            data_security_mode=args.data_security_mode,
            single_user_name=args.single_user_name,
            runtime_engine=STANDARD_ENGINE,
            spark_conf=dict(args.spark_conf) or None,
            custom_tags=custom_tags or None,
            docker_image=databricks.ClusterDockerImageArgs(url=args.custom_image) if args.custom_image else None,
            policy_id=policy_id,
            opts=pulumi.ResourceOptions(parent=self, provider=provider),
        )
        self.cluster_id = cluster.id
        self.url = cluster.url
        self.register_outputs({"clusterId": self.cluster_id})


@dataclass(frozen=True)
class DatabricksClusterPolicyArgs:
    """A cluster policy generated from the Databricks rules (:mod:`rules.databricks_policy_document`)."""

    policy_name: str
    gpu_floor: str = DEFAULT_FLOOR
    cost_tags: tuple[str, ...] = DEFAULT_COST_TAGS
    shape: str | None = None
    """The request shape the policy is closed for (:mod:`rules.databricks_shapes`); ``None``: the one the clusters
    given to :func:`build_databricks` share (``gpu-ml`` without clusters, ``any`` when they mix shapes)."""

    today: date | None = field(default=None, compare=False, repr=False)
    """The day the rules are checked on (the platform build passes the stack's); ``None``:
    :func:`gpu_catalog.clock.today`, read once when the Args are built."""

    def __post_init__(self) -> None:
        problems: list[Finding] = []
        if not self.policy_name.strip():
            problems.append(Finding("policy_name", "the cluster policy needs a name"))
        if self.shape is not None:
            try:
                check_shape(self.shape)
            except ValueError as exc:
                problems.append(Finding("shape", str(exc)))
        if (problem := floor_problem(self.gpu_floor, today=self.today or clock.today())) is not None:
            problems.append(Finding("gpu_floor", problem))
        if (problem := cost_tags_problem(self.cost_tags)) is not None:
            problems.append(Finding("cost_tags", problem))
        if problems:
            raise InvalidArgsError(POLICY_COMPONENT, self.policy_name, problems)

    @cached_property
    def definition(self) -> str:
        """The policy definition as the API takes it: a JSON document (keys sorted, so it diffs only on change).
        Generated once, on first use."""
        doc = databricks_policy_document.cluster_policy_definition(
            floor=self.gpu_floor, cost_tags=self.cost_tags, today=self.today or clock.today(), shape=self.resolved_shape
        )
        return json.dumps(doc, sort_keys=True)

    @property
    def resolved_shape(self) -> str:
        return self.shape or policy_shape(())


class DatabricksGpuClusterPolicy(pulumi.ComponentResource):
    """A Databricks cluster policy for GPU clusters (module :mod:`rules.databricks_policy_document` says what it
    limits).

    Output: ``policy_id`` (clusters reference it with ``policy_id``; users need CAN_USE on it to pick it).
    """

    policy_id: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        args: DatabricksClusterPolicyArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        provider: pulumi.ProviderResource,
    ) -> None:
        super().__init__(POLICY_TYPE, name, None, opts)
        import pulumi_databricks as databricks

        policy = databricks.ClusterPolicy(
            name,
            name=args.policy_name,
            definition=args.definition,
            description=databricks_policy_document.description(args.gpu_floor, args.resolved_shape),
            opts=pulumi.ResourceOptions(parent=self, provider=provider),
        )
        self.policy_id = policy.id
        self.register_outputs({"policyId": self.policy_id})


@dataclass
class DatabricksDeployment:
    """What :func:`build_databricks` created: the workspace component, the clusters by name and the cluster policy."""

    workspace: DatabricksWorkspace
    clusters: dict[str, DatabricksGpuCluster] = field(default_factory=dict)
    cluster_policy: DatabricksGpuClusterPolicy | None = None

    @property
    def url(self) -> pulumi.Output[str]:
        return self.workspace.url

    def cluster_ids(self) -> dict[str, pulumi.Output[str]]:
        return {n: c.cluster_id for n, c in self.clusters.items()}


def build_databricks(
    workspace: DatabricksWorkspaceArgs,
    clusters: Sequence[DatabricksGpuClusterArgs] = (),
    *,
    prefix: str = "databricks",
    cluster_policy: DatabricksClusterPolicyArgs | None = None,
    opts: pulumi.ResourceOptions | None = None,
) -> DatabricksDeployment:
    """The workspace, its provider, the cluster policy (``<prefix>-gpu-policy``, when ``cluster_policy`` is given) and
    the clusters in it (``<prefix>-<cluster slug>``; with a policy, every cluster references it). Imports
    ``pulumi_databricks``.

    The policy is closed for the request shape the clusters share (:func:`rules.databricks_shapes.policy_shape`) unless
    ``cluster_policy.shape`` names one. With a policy, a cluster the policy would refuse
    (:func:`rules.databricks_shapes.shape_refusals`: a node type below the
    policy's floor, a runtime key its pattern does not match, …) or that misses a cost tag raises
    :class:`~components.validation.InvalidArgsError` before anything is registered: no cluster is left without the
    policy, and none fails only at ``pulumi up``."""
    if cluster_policy is not None:
        if cluster_policy.shape is None:
            cluster_policy = replace(cluster_policy, shape=policy_shape(c.facts for c in clusters))
        today = cluster_policy.today or clock.today()
        node_types = accepted_node_types(cluster_policy.gpu_floor, today=today)
        for cluster in clusters:
            problems = shape_refusals(cluster.facts, node_types, today=today, shape=cluster_policy.resolved_shape)
            missing = missing_cost_tags(cluster.facts, cluster_policy.cost_tags, cluster.tags)
            if missing:
                problems.append(
                    Finding(
                        "tags",
                        f"the cluster policy {cluster_policy.policy_name!r} requires the cost tag(s) "
                        f"{', '.join(missing)}: add them to the cluster's tags",
                    )
                )
            refuse_findings(CLUSTER_COMPONENT, cluster.cluster_name, problems, _CLUSTER_FIELDS)
    component = DatabricksWorkspace(prefix, workspace, opts=opts)
    deployment = DatabricksDeployment(component)
    after_workspace = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[component]))
    if cluster_policy is not None:
        deployment.cluster_policy = DatabricksGpuClusterPolicy(
            f"{prefix}-gpu-policy", cluster_policy, provider=component.provider, opts=after_workspace
        )
    policy = deployment.cluster_policy
    for cluster in clusters:
        deployment.clusters[cluster.cluster_name] = DatabricksGpuCluster(
            f"{prefix}-{cluster_slug(cluster.cluster_name)}",
            cluster,
            provider=component.provider,
            policy_id=policy.policy_id if policy is not None else None,
            opts=after_workspace,
        )
    return deployment
