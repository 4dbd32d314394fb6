"""Same input, same resources: every shipped GPU pool built three ways sends the same inputs.

Each ``gpuPools`` entry of ``stacks/Pulumi.{dev,staging,prod}.yaml`` is built

1. from the stack file (the real program, ``__main__.py``, under mocks),
2. from Python (``GpuPoolSpec`` with the keys the stack file writes, as keyword arguments, and ``GpuNodePool``),
3. from the component package's inputs (the ``GpuPool`` object the schema takes, through ``pool_spec``),

and the ``AgentPool`` inputs the engine records (camelCase, numbers as floats) must be identical: OS disk, encryption
at host, max pods, taints, labels, driver, counts, OS SKU. Only the keys the stack file writes are translated; every
default comes from the pool's spec (:mod:`rules.specs`). What the cluster gives its pools (the GPU operator or device
plugin it runs, the KAITO add-on, its Kubernetes version, tags, the Azure name) is passed the way each door takes it.
The three stack runs are shared; the Python and package pools of all stacks register in one program.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from component_package.args import pool_spec
from components.gpu_node_pool import GpuNodePool, GpuNodePoolArgs, GpuPoolSpec
from components.nap_pool import NapGpuPool, NapGpuPoolArgs
from components.pool_scheduling import GpuSharing
from composition.wiring import platform_tags
from rules.karpenter import resolve_sizes
from stack_config import GpuPoolConfig, StackConfig, validate_stack_config
from stack_config.nap import GpuNodePoolConfig
from stack_config.specs import gpu_pool, pool_device_plugin, pool_gpu_operator
from tests.components.harness import AGENT_POOL, NAMESPACE, Run, run_program, run_stack, stack_config
from tests.conftest import TODAY

STACKS = ("dev", "staging", "prod")
WIRED_BY_THE_CLUSTER = ("resourceGroupName", "resourceName")
"""Inputs the cluster's outputs fill in (the same names are passed; under mocks the stack's are outputs)."""


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


@dataclass(frozen=True)
class ShippedPool:
    stack: str
    cfg: StackConfig
    pool: GpuPoolConfig

    @property
    def id(self) -> str:
        return f"{self.stack}-{self.pool.name}"

    def written(self) -> dict[str, Any]:
        """The keys the stack file writes, as the spec's field names (``vmSize`` → ``vm_size``); ``sharing`` and
        ``driver`` are translated by each door."""
        return {
            _snake(k): getattr(self.pool, k)
            for k in self.pool.model_fields_set
            if k not in ("sharing", "driver", "tags")
        }

    def cluster_given(self) -> dict[str, Any]:
        """What the cluster gives the pool, from the stack: the same for every door."""
        spec = gpu_pool(self.cfg, self.pool)
        return {
            "azure_name": spec.azure_name,
            "orchestrator_version": spec.orchestrator_version,
            "tags": dict(spec.tags),
            "ssh_access": spec.ssh_access,  # the stack's cluster.sshAccess, for every pool
        }

    def python(self) -> GpuPoolSpec:
        kwargs = self.written() | self.cluster_given()
        sharing = self.pool.sharing
        if sharing is not None and sharing.mode != "none":
            kwargs["sharing"] = GpuSharing(sharing.mode, sharing.replicas, sharing.rename_by_default)
        if self.pool.driver is not None:
            kwargs["driver_skipped"] = self.pool.driver == "operator"
        for key in ("zones", "taints"):
            if key in kwargs:
                kwargs[key] = tuple(kwargs[key])
        return GpuPoolSpec(
            **kwargs,
            gpu_operator=pool_gpu_operator(self.cfg),
            device_plugin=pool_device_plugin(self.cfg),
            kaito_addon=self.cfg.kaito_addon,
            gpu_floor=self.cfg.gpu_floor,
        )

    def package(self) -> GpuPoolSpec:
        pool: dict[str, Any] = self.written() | self.cluster_given()
        sharing = self.pool.sharing
        if sharing is not None and sharing.mode != "none":
            pool["sharing"] = {"mode": sharing.mode, "replicas": sharing.replicas}
        if self.pool.driver is not None:
            pool["driver"] = self.pool.driver
        operator = pool_gpu_operator(self.cfg)
        if operator is not None:
            pool["gpu_operator"] = {
                "installs_driver": operator.installs_driver,
                "version": operator.version,
                "mig_strategy": operator.mig_strategy,
            }
        chart = pool_device_plugin(self.cfg)
        if chart is not None:
            pool["device_plugin"] = {"version": chart.version, "mig_strategy": chart.mig_strategy}
        pool["gpu_floor"] = self.cfg.gpu_floor
        return pool_spec(pool, kaito_addon=self.cfg.kaito_addon)  # type: ignore[arg-type]


def _shipped() -> list[ShippedPool]:
    out: list[ShippedPool] = []
    for stack in STACKS:
        config = {k.removeprefix(f"{NAMESPACE}:"): v for k, v in stack_config(stack).items() if k.startswith(NAMESPACE)}
        cfg = validate_stack_config(config, stack_file=f"stacks/Pulumi.{stack}.yaml")
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


def _wire(record_inputs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record_inputs.items() if k not in WIRED_BY_THE_CLUSTER}


def test_every_stack_ships_gpu_pools() -> None:
    assert [p.id for p in SHIPPED] == ["dev-t4", "staging-a100", "prod-a100mig", "prod-h100", "prod-t4"]


@pytest.mark.parametrize("shipped", SHIPPED, ids=[p.id for p in SHIPPED])
def test_a_shipped_pool_sends_the_same_inputs_whichever_door_it_comes_in_by(
    shipped: ShippedPool, stack_runs: dict[str, Run], api_runs: Run
) -> None:
    from_stack = _wire(stack_runs[shipped.stack].by_name(f"aks-{shipped.pool.name}", AGENT_POOL).inputs)
    from_python = _wire(api_runs.by_name(f"py-{shipped.id}", AGENT_POOL).inputs)
    from_package = _wire(api_runs.by_name(f"pkg-{shipped.id}", AGENT_POOL).inputs)
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
            "sizes": tuple(resolve_sizes(p.sizes, p.series, p.gpuModels, floor=self.cfg.gpu_floor, today=TODAY)[0]),
            "gpu_limit": p.limits.gpus,
            **self.cluster_given(),
        }
        for key in ("capacityTypes", "zones", "taints"):
            if key in written:
                kwargs[_snake(key)] = tuple(getattr(p, key))
        for key in ("labels", "imageFamily", "osDiskSizeGB", "expireAfter", "weight"):
            if key in written:
                kwargs[{"osDiskSizeGB": "os_disk_size_gb"}.get(key, _snake(key))] = getattr(p, key)
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
                args[_snake(key)] = getattr(p, key)
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
