"""Same input, same resources: every shipped GPU pool, NAP NodePool, KAITO workspace and Databricks cluster built
three ways sends the same inputs.

Each ``gpuPools`` entry of ``stacks/Pulumi.{dev,staging,prod}.yaml`` is built

1. from the stack file (the real program, ``__main__.py``, under mocks),
2. from Python (``GpuPoolSpec`` with the keys the stack file writes, as keyword arguments, and ``GpuNodePool``),
3. from the component package's inputs (the ``GpuPool`` object the schema takes, through ``pool_spec``),

and the ``AgentPool`` inputs the engine records (camelCase, numbers as floats) must be identical: OS disk, encryption
at host, max pods, taints, labels, driver, counts, OS SKU. Only the keys the stack file writes are translated; every
default comes from the pool's spec (:mod:`rules.specs`). What the cluster gives its pools (the GPU operator or device
plugin it runs, the KAITO add-on, its Kubernetes version, tags, the Azure name) is passed the way each door takes it
(the doors' helpers: ``tests/components/three_ways.py``). The three stack runs are shared; the Python and package
pools of all stacks register in one program. The shipped examples: ``test_three_ways_examples.py`` and
``test_landing_zone_three_ways.py``.

The same for ``gpuNodePools`` (NodePool and AKSNodeClass inputs), ``kaito.workspaces`` (the Workspace) and
``databricks.clusters`` (the cluster request; a stack file's ``workload``/``tasksPerGpu`` are written as the request
fields they stand for, and the cluster policy's id, which the package's cluster does not take, is left out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from components.gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from components.nap_pool import NapGpuPool, NapGpuPoolArgs
from components.pool_scheduling import GpuSharing
from composition.wiring import platform_tags
from rules.specs.keys import snake
from stack_config import GpuPoolConfig, StackConfig
from stack_config.databricks import DatabricksClusterConfig
from stack_config.kaito import KaitoWorkspaceConfig
from stack_config.nap import GpuNodePoolConfig
from stack_config.specs import pool_device_plugin, pool_gpu_operator
from tests.components.harness import (
    AGENT_POOL,
    DATABRICKS_CLUSTER,
    KAITO_WORKSPACE,
    MANAGED_CLUSTER,
    Run,
    run_program,
    run_stack,
    stack_config,
)
from tests.components.three_ways import ShippedPool, package_cluster, python_cluster, stack_cfg, wire

STACKS = ("dev", "staging", "prod")


def _shipped() -> list[ShippedPool]:
    out: list[ShippedPool] = []
    for stack in STACKS:
        cfg = stack_cfg(stack_config(stack), f"stacks/Pulumi.{stack}.yaml")
        out += [ShippedPool(stack, cfg, pool) for pool in cfg.gpuPools]
    return out


SHIPPED = _shipped()


@pytest.fixture(scope="module")
def stack_runs() -> dict[str, Run]:
    runs = {stack: run_stack(stack) for stack in STACKS}
    for run in runs.values():
        assert run.error is None, run.error
    return runs


@pytest.fixture(scope="module")
def api_runs() -> Run:
    """Every shipped pool twice in one program: from Python (``py-<stack>-<pool>``) and from the package's inputs
    (``pkg-<stack>-<pool>``)."""

    def program() -> None:
        for shipped in SHIPPED:
            for door, spec in (("py", shipped.python()), ("pkg", shipped.package())):
                args = GpuNodePoolArgs(pool=spec, resource_group_name="rg", cluster_name="aks")
                GpuNodePool(f"{door}-{shipped.id}", args)

    run = run_program(program, config={})
    assert run.error is None, run.error
    return run


def test_every_stack_ships_gpu_pools() -> None:
    assert [p.id for p in SHIPPED] == ["dev-t4", "staging-a100", "prod-a100mig", "prod-h100", "prod-t4"]


@pytest.mark.parametrize("shipped", SHIPPED, ids=[p.id for p in SHIPPED])
def test_a_shipped_pool_sends_the_same_inputs_whichever_door_it_comes_in_by(
    shipped: ShippedPool, stack_runs: dict[str, Run], api_runs: Run
) -> None:
    from_stack = wire(stack_runs[shipped.stack].by_name(f"aks-{shipped.pool.name}", AGENT_POOL).inputs)
    from_python = wire(api_runs.by_name(f"py-{shipped.id}", AGENT_POOL).inputs)
    from_package = wire(api_runs.by_name(f"pkg-{shipped.id}", AGENT_POOL).inputs)
    assert from_python == from_stack
    assert from_package == from_stack
    # the defaults the three doors used to disagree on, as the engine receives them
    for key in ("osDiskType", "enableEncryptionAtHost", "maxPods", "nodeTaints", "nodeLabels", "gpuProfile", "osSKU"):
        assert key in from_stack, key
    assert isinstance(from_stack["maxPods"], float)


def test_the_default_that_drifted_is_the_catalogs_on_every_door(stack_runs: dict[str, Run], api_runs: Run) -> None:
    """dev's T4 pool writes no ``osDiskType``: the catalog's ``Ephemeral`` on all three doors (the Python API sent
    ``Managed``)."""
    [dev_t4] = [p for p in SHIPPED if p.id == "dev-t4"]
    assert "osDiskType" not in dev_t4.pool.model_fields_set
    assert stack_runs["dev"].by_name("aks-t4", AGENT_POOL).inputs["osDiskType"] == "Ephemeral"
    assert api_runs.by_name("py-dev-t4", AGENT_POOL).inputs["osDiskType"] == "Ephemeral"
    assert api_runs.by_name("pkg-dev-t4", AGENT_POOL).inputs["osDiskType"] == "Ephemeral"


def test_every_pool_key_of_a_stack_file_is_a_spec_field() -> None:
    """``gpuPools[i]``'s keys are the spec's fields in camelCase (``driver`` is ``driver_skipped`` as a mode): the
    stack config maps them by name (:func:`stack_config.specs.gpu_pool`), so a key with no field fails here."""
    from rules.specs import AKS_GPU_POOL_FIELDS
    from stack_config.specs import snake

    assert {snake(k) for k in GpuPoolConfig.model_fields} - AKS_GPU_POOL_FIELDS == {"driver"}


# ------------------------------------------------------------------------------------------- NAP GPU NodePools

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass"


@dataclass(frozen=True)
class ShippedNapPool:
    stack: str
    cfg: StackConfig
    pool: GpuNodePoolConfig

    @property
    def id(self) -> str:
        return f"{self.stack}-{self.pool.name}"

    def cluster_given(self) -> dict[str, Any]:
        """What the cluster gives the NodePool: its region, Kubernetes version, the platform's tags."""
        return {
            "location": self.cfg.location,
            "kubernetes_version": self.cfg.cluster.kubernetesVersion,
            "tags": {**platform_tags(self.cfg), "gpu-node-pool": self.pool.name},
            "kaito_addon": self.cfg.kaito_addon,
            "gpu_floor": self.cfg.gpu_floor,
        }

    def python(self) -> NapGpuPoolArgs:
        p = self.pool
        written = p.model_fields_set
        kwargs: dict[str, Any] = {
            "name": p.name,
            "sizes": tuple(p.sizes),
            "gpu_limit": p.limits.gpus,
            **self.cluster_given(),
        }
        for key in ("series", "gpuModels", "capacityTypes", "zones", "taints"):
            if key in written:
                kwargs[snake(key)] = tuple(getattr(p, key))
        for key in ("labels", "imageFamily", "osDiskSizeGB", "expireAfter", "weight"):
            if key in written:
                kwargs[snake(key)] = getattr(p, key)
        if p.driver is not None:
            kwargs["driver_skipped"] = p.driver == "operator"
        if p.sharing is not None and p.sharing.mode != "none":
            kwargs["sharing"] = GpuSharing(p.sharing.mode, p.sharing.replicas, p.sharing.rename_by_default)
        d = p.disruption
        kwargs |= {"consolidation_policy": d.consolidationPolicy, "consolidate_after": d.consolidateAfter}
        return NapGpuPoolArgs(
            **kwargs, gpu_operator=pool_gpu_operator(self.cfg), device_plugin=pool_device_plugin(self.cfg)
        )

    def package(self) -> dict[str, Any]:
        p = self.pool
        written = p.model_fields_set
        args: dict[str, Any] = {"kubeconfig": "k", "pool_name": p.name, "gpu_limit": p.limits.gpus}
        args |= self.cluster_given()
        del args["kubernetes_version"]  # a standalone NodePool: the package takes no cluster version
        for key in ("sizes", "series", "gpuModels", "capacityTypes", "zones", "taints", "labels", "imageFamily"):
            if key in written:
                args[snake(key)] = getattr(p, key)
        if p.driver is not None:
            args["driver"] = p.driver
        if p.sharing is not None and p.sharing.mode != "none":
            args["sharing"] = {"mode": p.sharing.mode, "replicas": p.sharing.replicas}
        d = p.disruption
        args["disruption"] = {"consolidation_policy": d.consolidationPolicy, "consolidate_after": d.consolidateAfter}
        operator = pool_gpu_operator(self.cfg)
        if operator is not None:
            args["gpu_operator"] = {"installs_driver": operator.installs_driver, "version": operator.version}
        return args


SHIPPED_NAP = [
    ShippedNapPool(p.stack, p.cfg, nap) for p in {s.stack: s for s in SHIPPED}.values() for nap in p.cfg.gpuNodePools
]


@pytest.fixture(scope="module")
def nap_api_runs() -> Run:
    """Every shipped NodePool from Python (``py-<stack>-<pool>``) and from the package's inputs (``pkg-...``)."""
    import pulumi_kubernetes as k8s

    from component_package.nap_gpu_pool import NapGpuPool as PackageNapGpuPool

    def program() -> None:
        for shipped in SHIPPED_NAP:
            provider = k8s.Provider(f"k8s-{shipped.id}", kubeconfig="k")
            NapGpuPool(f"py-{shipped.id}", shipped.python(), provider=provider)
            PackageNapGpuPool(f"pkg-{shipped.id}", shipped.package())  # type: ignore[arg-type]

    run = run_program(program, config={})
    assert run.error is None, run.error
    return run


def test_the_shipped_nap_pools() -> None:
    assert [p.id for p in SHIPPED_NAP] == ["staging-infer"]


@pytest.mark.parametrize("shipped", SHIPPED_NAP, ids=[p.id for p in SHIPPED_NAP])
@pytest.mark.parametrize("kind", [NODE_POOL, NODE_CLASS])
def test_a_shipped_nap_pool_sends_the_same_inputs_whichever_door_it_comes_in_by(
    shipped: ShippedNapPool, kind: str, stack_runs: dict[str, Run], nap_api_runs: Run
) -> None:
    def inputs(run: Run, prefix: str) -> dict[str, Any]:
        [record] = [r for r in run.of_type(kind) if r.name.startswith(f"{prefix}-")]
        return record.inputs

    from_stack = inputs(stack_runs[shipped.stack], f"nap-{shipped.pool.name}")
    assert inputs(nap_api_runs, f"py-{shipped.id}") == from_stack
    assert inputs(nap_api_runs, f"pkg-{shipped.id}") == from_stack


def test_every_nap_key_of_a_stack_file_and_the_package_is_a_spec_field() -> None:
    """``gpuNodePools[i]``'s keys and the package's ``NapGpuPool`` inputs are the NodePool spec's fields
    (:class:`rules.specs.NapGpuNodePool`), but for the keys each door translates: a key with no field fails here."""
    from component_package.nap_gpu_pool import NapGpuPoolArgs as PackageArgs
    from rules.specs import NAP_GPU_NODE_POOL_FIELDS
    from stack_config.specs import snake

    stack_keys = {snake(k) for k in GpuNodePoolConfig.model_fields}
    assert stack_keys - NAP_GPU_NODE_POOL_FIELDS == {"limits", "driver", "disruption"}
    package_keys = set(PackageArgs.__annotations__)
    assert package_keys - NAP_GPU_NODE_POOL_FIELDS == {"kubeconfig", "pool_name", "driver", "disruption"}


# ------------------------------------------------------------------------------------------- KAITO workspaces


@dataclass(frozen=True)
class ShippedWorkspace:
    stack: str
    cfg: StackConfig
    ws: KaitoWorkspaceConfig

    @property
    def id(self) -> str:
        return f"{self.stack}-{self.ws.name}"

    def python(self) -> dict[str, Any]:
        """The spec's fields: the workspace's keys as written (``labelSelector`` is ``match_labels``; left out, the
        spec's default) and what the cluster gives it (its version and add-on)."""
        ws = self.ws
        out: dict[str, Any] = {
            "workspace_name": ws.name,
            "preset": ws.preset,
            "instance_type": ws.instanceType,
            "kubernetes_version": self.cfg.cluster.kubernetesVersion,
            "addon_enabled": self.cfg.kaito_addon,
            "gpu_floor": self.cfg.gpu_floor,
        }
        if ws.labelSelector is not None:
            out["match_labels"] = ws.labelSelector
        for key in ("count", "namespace", "modelAccessSecret", "modelAccessTokenConfig"):
            if key in ws.model_fields_set:
                out[snake(key)] = getattr(ws, key)
        return out


SHIPPED_WORKSPACES = [
    ShippedWorkspace(p.stack, p.cfg, ws)
    for p in {s.stack: s for s in SHIPPED}.values()
    for ws in p.cfg.kaito.workspaces
]


@pytest.fixture(scope="module")
def kaito_api_runs() -> Run:
    import pulumi_kubernetes as k8s

    from component_package.kaito_workspace import KaitoWorkspace as PackageKaitoWorkspace
    from components.kaito import KaitoWorkspace, KaitoWorkspaceArgs

    def program() -> None:
        for shipped in SHIPPED_WORKSPACES:
            provider = k8s.Provider(f"k8s-{shipped.id}", kubeconfig="k")
            KaitoWorkspace(f"py-{shipped.id}", KaitoWorkspaceArgs(**shipped.python()), provider=provider)
            PackageKaitoWorkspace(f"pkg-{shipped.id}", {"kubeconfig": "k", **shipped.python()})  # type: ignore[typeddict-item]

    run = run_program(program, config={})
    assert run.error is None, run.error
    return run


def test_the_shipped_kaito_workspaces() -> None:
    assert [w.id for w in SHIPPED_WORKSPACES] == ["staging-phi-4-mini", "prod-phi-4", "prod-mistral-7b"]


@pytest.mark.parametrize("shipped", SHIPPED_WORKSPACES, ids=[w.id for w in SHIPPED_WORKSPACES])
def test_a_shipped_workspace_sends_the_same_inputs_whichever_door_it_comes_in_by(
    shipped: ShippedWorkspace, stack_runs: dict[str, Run], kaito_api_runs: Run
) -> None:
    def inputs(run: Run, name: str) -> dict[str, Any]:
        return run.by_name(name, KAITO_WORKSPACE).inputs

    from_stack = inputs(stack_runs[shipped.stack], f"kaito-{shipped.ws.name}")
    assert inputs(kaito_api_runs, f"py-{shipped.id}") == from_stack
    assert inputs(kaito_api_runs, f"pkg-{shipped.id}") == from_stack


def test_every_workspace_key_of_a_stack_file_and_the_package_is_a_spec_field() -> None:
    """``kaito.workspaces[i]``'s keys and the package's ``KaitoWorkspace`` inputs are the workspace spec's fields
    (:class:`rules.specs.KaitoGpuWorkspace`), but for the keys each door names its own way."""
    from component_package.kaito_workspace import KaitoWorkspaceArgs as PackageArgs
    from rules.specs import KAITO_WORKSPACE_FIELDS
    from stack_config.specs import snake

    stack_keys = {snake(k) for k in KaitoWorkspaceConfig.model_fields}
    assert stack_keys - KAITO_WORKSPACE_FIELDS == {"name", "label_selector"}  # workspace_name, match_labels
    assert set(PackageArgs.__annotations__) - KAITO_WORKSPACE_FIELDS == {"kubeconfig"}


# ------------------------------------------------------------------------------------------- Databricks clusters

POLICY_ID = "policyId"
"""The cluster policy a stack's clusters reference (``databricks.clusterPolicy``); the package's cluster takes none."""


@dataclass(frozen=True)
class ShippedDatabricksCluster:
    stack: str
    cfg: StackConfig
    cluster: DatabricksClusterConfig

    @property
    def id(self) -> str:
        return f"{self.stack}-{self.cluster.name}"

    def request(self) -> dict[str, Any]:
        """The request a stack file's keys describe (``workload``, ``tasksPerGpu`` and the runtime key become the
        request's own fields), with the platform's tags: what a Python or package caller writes."""
        c = self.cluster
        out: dict[str, Any] = {
            "cluster_name": c.name,
            "node_type_id": c.nodeTypeId,
            "single_user_name": c.principal,
            "spark_version": c.api_spark_version,
            "data_security_mode": c.data_security_mode,
            "spark_conf": c.gpu_spark_conf(),
            "tags": {**platform_tags(self.cfg), **c.tags},
            "gpu_floor": self.cfg.gpu_floor,
        }
        for key, value in (
            ("driver_node_type_id", c.driverNodeTypeId),
            ("kind", c.kind),
            ("use_ml_runtime", c.use_ml_runtime),
            ("num_workers", c.numWorkers),
            ("custom_image", c.customImage),
        ):
            if value is not None:
                out[key] = value
        if c.workload == "singleNode":
            out["single_node"] = True
        if "autoterminationMinutes" in c.model_fields_set:
            out["autotermination_minutes"] = c.autoterminationMinutes
        return out


SHIPPED_DATABRICKS = [
    ShippedDatabricksCluster(p.stack, p.cfg, c)
    for p in {s.stack: s for s in SHIPPED}.values()
    if p.cfg.databricks is not None
    for c in p.cfg.databricks.clusters
]


@pytest.fixture(scope="module")
def databricks_api_runs() -> Run:
    import pulumi_databricks

    from component_package.databricks_gpu_cluster import DatabricksGpuCluster as PackageCluster
    from components.databricks import DatabricksGpuCluster, DatabricksGpuClusterArgs
    from rules.specs import DatabricksAutoscale

    def program() -> None:
        for shipped in SHIPPED_DATABRICKS:
            request = shipped.request()
            autoscale = shipped.cluster.autoscale
            provider = pulumi_databricks.Provider(f"dbx-{shipped.id}", host="https://adb-1.2.azuredatabricks.net")
            bounds = DatabricksAutoscale(autoscale.minWorkers, autoscale.maxWorkers) if autoscale is not None else None
            args = DatabricksGpuClusterArgs(**request, autoscale=bounds)
            DatabricksGpuCluster(f"py-{shipped.id}", args, provider=provider)
            package: dict[str, Any] = {"workspace_url": "https://adb-1.2.azuredatabricks.net", **request}
            if autoscale is not None:
                package["autoscale"] = {"min_workers": autoscale.minWorkers, "max_workers": autoscale.maxWorkers}
            PackageCluster(f"pkg-{shipped.id}", package)  # type: ignore[arg-type]

    run = run_program(program, config={})
    assert run.error is None, run.error
    return run


def test_the_shipped_databricks_clusters() -> None:
    assert [c.id for c in SHIPPED_DATABRICKS] == ["prod-ml-training", "prod-batch-inference"]


@pytest.mark.parametrize("shipped", SHIPPED_DATABRICKS, ids=[c.id for c in SHIPPED_DATABRICKS])
def test_a_shipped_databricks_cluster_sends_the_same_inputs_whichever_door_it_comes_in_by(
    shipped: ShippedDatabricksCluster, stack_runs: dict[str, Run], databricks_api_runs: Run
) -> None:
    def inputs(run: Run, prefix: str) -> dict[str, Any]:
        [record] = [r for r in run.of_type(DATABRICKS_CLUSTER) if r.name.startswith(prefix)]
        return {k: v for k, v in record.inputs.items() if k != POLICY_ID}

    stack_run = stack_runs[shipped.stack]
    [from_stack] = [
        {k: v for k, v in r.inputs.items() if k != POLICY_ID}
        for r in stack_run.of_type(DATABRICKS_CLUSTER)
        if r.inputs.get("clusterName") == shipped.cluster.name
    ]
    assert inputs(databricks_api_runs, f"py-{shipped.id}") == from_stack
    assert inputs(databricks_api_runs, f"pkg-{shipped.id}") == from_stack


def test_every_databricks_input_of_the_package_is_a_spec_field() -> None:
    """The package's ``DatabricksGpuCluster`` inputs are the cluster spec's fields
    (:class:`rules.specs.DatabricksGpuCompute`, the request): a key with no field fails here. A stack file describes
    the request in its own words (``workload``, ``tasksPerGpu``, ``dedicatedGroup``), which
    :meth:`stack_config.databricks.DatabricksClusterConfig.spec` turns into those fields."""
    from component_package.databricks_gpu_cluster import DatabricksGpuClusterArgs as PackageArgs
    from rules.specs import DATABRICKS_CLUSTER_FIELDS

    assert set(PackageArgs.__annotations__) - DATABRICKS_CLUSTER_FIELDS == {"workspace_url"}


def test_a_stack_files_databricks_cluster_is_its_spec() -> None:
    """The stack door's spec is the request the Python door writes (the file's own words kept for the checklist)."""
    from rules.specs import DatabricksAutoscale, DatabricksGpuCompute

    for shipped in SHIPPED_DATABRICKS:
        autoscale = shipped.cluster.autoscale
        bounds = DatabricksAutoscale(autoscale.minWorkers, autoscale.maxWorkers) if autoscale is not None else None
        spec = shipped.cluster.spec(tags=platform_tags(shipped.cfg), gpu_floor=shipped.cfg.gpu_floor)
        assert spec == DatabricksGpuCompute(**shipped.request(), autoscale=bounds)
        assert spec.written is not None and spec.checklist.stack_runtime_key


# ------------------------------------------------------------------------------------------- AKS clusters


def _stack_cfg(stack: str) -> StackConfig:
    return next(p.cfg for p in SHIPPED if p.stack == stack)


def _python_cluster(stack: str) -> Any:
    return python_cluster(_stack_cfg(stack), [p.python() for p in SHIPPED if p.stack == stack])


def _package_cluster(stack: str) -> dict[str, Any]:
    return package_cluster(_stack_cfg(stack), [p.package_inputs() for p in SHIPPED if p.stack == stack])


@pytest.fixture(scope="module")
def cluster_api_runs() -> dict[str, Run]:
    from component_package.aks_gpu_cluster import AksGpuCluster as PackageCluster
    from components.aks_cluster import AksGpuCluster

    runs: dict[str, Run] = {}
    for stack in STACKS:  # one program per stack: each registers its resource group and role assignments

        def program(stack: str = stack) -> None:
            # Named as the platform names its cluster: the mock ids of its children (the log workspace) carry the name.
            AksGpuCluster("aks", _python_cluster(stack))
            PackageCluster("aks", _package_cluster(stack))  # type: ignore[arg-type]

        runs[stack] = run_program(program, config={}, stack=stack)
        assert runs[stack].error is None, runs[stack].error
    return runs


@pytest.mark.parametrize("stack", STACKS)
def test_a_shipped_cluster_sends_the_same_inputs_whichever_door_it_comes_in_by(
    stack: str, stack_runs: dict[str, Run], cluster_api_runs: dict[str, Run]
) -> None:
    from_stack = stack_runs[stack].by_name("aks-cluster", MANAGED_CLUSTER).inputs
    by_door = {"index:AksGpuCluster" in r.urn: r.inputs for r in cluster_api_runs[stack].of_type(MANAGED_CLUSTER)}
    assert by_door[False] == from_stack  # Python
    assert by_door[True] == from_stack  # the package


def test_every_cluster_input_of_the_package_is_a_spec_field() -> None:
    """The package's ``AksGpuCluster`` inputs are the cluster spec's fields (:class:`rules.specs.AksCluster`), but for
    ``ssh_access`` (the spec's is per pool: the system pool's and each GPU pool's); the spec's ``disable_run_command``
    arrives in the package's ``api_server`` and ``log_retention_days`` keeps its default there. The landing-zone
    inputs are the cluster's :class:`~components.landing_zone.ClusterLandingZone`, not spec fields
    (``component_package/landing_zone.py`` maps them as ``composition/landing_zone_wiring.py`` does for a stack)."""
    from component_package.aks_gpu_cluster import AksGpuClusterArgs as PackageArgs
    from rules.specs import AKS_CLUSTER_FIELDS

    package = set(PackageArgs.__annotations__)
    landing_zone = {"network", "identity", "container_registries", "maintenance", "defender", "azure_policy_addon"}
    assert package - AKS_CLUSTER_FIELDS == {"ssh_access", *landing_zone}
    assert AKS_CLUSTER_FIELDS - package == {"disable_run_command", "log_retention_days"}


@pytest.mark.parametrize("stack", STACKS)
def test_a_stack_files_cluster_is_the_python_doors_spec(stack: str) -> None:
    """The stack door's cluster spec (:func:`stack_config.specs.aks_cluster`) equals the one the Python door builds
    from the same keys (its pools included)."""
    from dataclasses import fields

    from rules.specs import AksCluster
    from stack_config.specs import aks_cluster

    cfg = _stack_cfg(stack)
    python = _python_cluster(stack)
    from_stack = aks_cluster(cfg, platform_tags(cfg))
    for f in fields(AksCluster):
        if f.name != "gpu_pools":
            assert getattr(from_stack, f.name) == getattr(python, f.name), f.name
    assert [p.name for p in from_stack.gpu_pools] == [p.name for p in python.gpu_pools]
