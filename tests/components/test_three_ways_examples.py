"""Same input, same resources for the shipped examples: each GPU pool and AKS cluster of ``examples/`` built three
ways sends the same inputs (the shipped stacks: ``test_three_ways.py``; the landing-zone example:
``test_landing_zone_three_ways.py``).

- ``examples/fleet/Pulumi.fleet.yaml``: each member's cluster and pools, from the member's expanded stack config
  (:mod:`stack_config.fleet_members`). What makes a member's pool a member's is what its cluster gives it: the
  ``<member>-`` prefix of the Pulumi names (``weu-aks-a100``), the ``fleet-member`` tag and the member's cluster and
  group names; the wire inputs of the three doors are otherwise compared whole.
- ``examples/exemptions/Pulumi.legacy-t4.yaml``: pools ``a100`` and ``t4`` and the cluster. The T4 pool is below the
  stack's GPU floor and kept by an exemption of ``gpu-size-minimum``: the stack file's ``exemptions``, the Python
  API's ``exempt_rules``, the package pool's ``exemptions`` (checked by the same rules, ``rules/exemptions.py``).
- ``examples/gpu-pool-on-existing-cluster/Pulumi.yaml``: a component-package program. Its pool exactly as written is
  the same pool from Python; as a stack file's ``gpuPools`` entry it gets what a stack's cluster gives (version, tags,
  Azure name), and with those the three doors agree.

Each door as in ``tests/components/three_ways.py``; one program run per example and door set, in-process.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
import yaml

from component_package.gpu_node_pool import GpuNodePool as PackageGpuNodePool
from components.gpu_node_pool import GpuNodePool, GpuNodePoolArgs, GpuPoolSpec
from rules.specs.keys import snake
from stack_config import StackConfig
from stack_config.fleet_members import fleet_moves_versions, members_of
from tests.components.harness import AGENT_POOL, MANAGED_CLUSTER, REPO_ROOT, Run, run_main, run_program
from tests.components.three_ways import ShippedPool, package_cluster, python_cluster, stack_cfg, wire

EXAMPLES = REPO_ROOT / "examples"
FLEET = EXAMPLES / "fleet" / "Pulumi.fleet.yaml"
LEGACY = EXAMPLES / "exemptions" / "Pulumi.legacy-t4.yaml"
EXISTING = EXAMPLES / "gpu-pool-on-existing-cluster" / "Pulumi.yaml"
PACKAGE_CLUSTER = "index:AksGpuCluster"
"""In a URN: the resource is the package's (its ``AksGpuCluster`` component is an ancestor)."""


def _config(path: Path) -> dict[str, Any]:
    return dict(yaml.safe_load(path.read_text(encoding="utf-8"))["config"])


def _relative(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT))


def _run(program: typing.Callable[[], None], stack: str) -> Run:
    run = run_program(program, config={}, stack=stack)
    assert run.error is None, run.error
    return run


def _pool_doors(pools: list[ShippedPool], extra: dict[str, tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """Register each pool from Python (``py-<id>``) and from the package's inputs (``pkg-<id>``); ``extra``: pool id →
    (Python's extra spec fields, the package's extra inputs)."""
    for shipped in pools:
        py_extra, pkg_extra = extra.get(shipped.id, ({}, {}))
        for door, spec in (("py", shipped.python(**py_extra)), ("pkg", shipped.package(**pkg_extra))):
            args = GpuNodePoolArgs(pool=spec, resource_group_name="rg", cluster_name="aks")
            GpuNodePool(f"{door}-{shipped.id}", args)


def _clusters_by_door(run: Run, name: str) -> dict[str, dict[str, Any]]:
    """The ManagedCluster ``name`` of the Python door and of the package's, by door."""
    found = [r for r in run.of_type(MANAGED_CLUSTER) if r.name == name]
    assert len(found) == 2, [r.urn for r in found]
    return {"package" if PACKAGE_CLUSTER in r.urn else "python": r.inputs for r in found}


# ------------------------------------------------------------------------------------------- the fleet example

FLEET_CFG = stack_cfg(_config(FLEET), _relative(FLEET))
MEMBERS = members_of(FLEET_CFG)
FLEET_POOLS = [ShippedPool(m.member.name, m.config, pool) for m in MEMBERS for pool in m.config.gpuPools]


def _member_cfg(member: str) -> StackConfig:
    return next(m.config for m in MEMBERS if m.member.name == member)


def _member_pools(member: str) -> list[ShippedPool]:
    return [p for p in FLEET_POOLS if p.stack == member]


@pytest.fixture(scope="module")
def fleet_stack_run() -> Run:
    run = run_main(_config(FLEET), stack="fleet")
    assert run.error is None, run.error
    return run


@pytest.fixture(scope="module")
def fleet_api_run() -> Run:
    """Each member's pools from Python and the package, and each member's cluster from both, named as the fleet names
    the member's (``<member>-aks``: the mock ids of its children carry the name)."""
    from component_package.aks_gpu_cluster import AksGpuCluster as PackageCluster
    from components.aks_cluster import AksGpuCluster

    owned = fleet_moves_versions(FLEET_CFG.fleet)

    def program() -> None:
        _pool_doors(FLEET_POOLS, {})
        for m in MEMBERS:
            name, pools = m.member.name, _member_pools(m.member.name)
            args = python_cluster(m.config, [p.python() for p in pools], version_owned_by_fleet=owned)
            AksGpuCluster(f"{name}-aks", args)
            PackageCluster(f"{name}-aks", package_cluster(m.config, [p.package_inputs() for p in pools]))  # type: ignore[arg-type]

    return _run(program, "fleet")


def test_the_fleet_members_pools() -> None:
    assert [p.id for p in FLEET_POOLS] == ["weu-a100", "sec-a100", "scus-a100"]
    assert [p.pool.vmSize for p in FLEET_POOLS] == [
        "Standard_NC24ads_A100_v4",
        "Standard_NC48ads_A100_v4",  # sec's override, merged by name over the template's a100
        "Standard_NC24ads_A100_v4",
    ]


@pytest.mark.parametrize("shipped", FLEET_POOLS, ids=[p.id for p in FLEET_POOLS])
def test_a_fleet_members_pool_sends_the_same_inputs_whichever_door_it_comes_in_by(
    shipped: ShippedPool, fleet_stack_run: Run, fleet_api_run: Run
) -> None:
    member = shipped.stack
    from_stack = wire(fleet_stack_run.by_name(f"{member}-aks-{shipped.pool.name}", AGENT_POOL).inputs)
    assert wire(fleet_api_run.by_name(f"py-{shipped.id}", AGENT_POOL).inputs) == from_stack
    assert wire(fleet_api_run.by_name(f"pkg-{shipped.id}", AGENT_POOL).inputs) == from_stack
    # the member's own: its tag (the cluster gives it to every pool); the rest is the template's pool or the override
    assert from_stack["tags"]["fleet-member"] == member
    assert from_stack["vmSize"] == shipped.pool.vmSize
    for key in ("osDiskType", "enableEncryptionAtHost", "maxPods", "nodeTaints", "nodeLabels", "gpuProfile", "osSKU"):
        assert key in from_stack, key


def test_a_fleet_members_pool_is_the_templates_but_for_its_tag_and_its_overrides() -> None:
    """The documented differences of a member's pool (``docs/fleet.md``): the ``fleet-member`` tag, and what the
    member's ``overrides`` set (sec: a larger A100 size, one node at most) with what follows from it (the Azure name
    hashes the size; the catalog's OS disk default for the size)."""
    from dataclasses import fields

    template = ShippedPool("template", FLEET_CFG, FLEET_CFG.gpuPools[0]).python()

    def differences(shipped: ShippedPool) -> dict[str, Any]:
        spec = shipped.python()
        return {
            f.name: getattr(spec, f.name) for f in fields(spec) if getattr(spec, f.name) != getattr(template, f.name)
        }

    tag = {"environment": "fleet"}
    assert {p.stack: differences(p) for p in FLEET_POOLS} == {
        "weu": {"tags": tag | {"fleet-member": "weu"}},
        "sec": {
            "tags": tag | {"fleet-member": "sec"},
            "vm_size": "Standard_NC48ads_A100_v4",
            "max_count": 1,
            "azure_name": "a10092c5",
            "os_disk_type": "Ephemeral",
        },
        "scus": {"tags": tag | {"fleet-member": "scus"}},
    }
    assert dict(template.tags) == tag


@pytest.mark.parametrize("member", [m.member.name for m in MEMBERS])
def test_a_fleet_members_cluster_sends_the_same_inputs_whichever_door_it_comes_in_by(
    member: str, fleet_stack_run: Run, fleet_api_run: Run
) -> None:
    from_stack = fleet_stack_run.by_name(f"{member}-aks-cluster", MANAGED_CLUSTER).inputs
    by_door = _clusters_by_door(fleet_api_run, f"{member}-aks-cluster")
    assert by_door["python"] == from_stack
    assert by_door["package"] == from_stack
    assert from_stack["resourceName"] == f"aks-gpu-fleet-{member}"
    assert from_stack["tags"]["fleet-member"] == member
    assert _member_cfg(member).resource_group_name == f"rg-gpu-fleet-{member}"


# ------------------------------------------------------------------------------------------- the exemptions example

LEGACY_CFG = stack_cfg(_config(LEGACY), _relative(LEGACY))
LEGACY_POOLS = [ShippedPool("legacy-t4", LEGACY_CFG, pool) for pool in LEGACY_CFG.gpuPools]
WAIVED = ("gpu-size-minimum",)


def _t4_exemptions() -> list[dict[str, Any]]:
    """The stack file's exemptions of the T4 pool's AgentPool, as the package pool's ``exemptions`` (the resource is
    the pool itself)."""
    entries = [e for e in LEGACY_CFG.exemptions if e["resource"] == "aks-t4"]
    assert len(entries) == 1
    return [{k: v for k, v in e.items() if k != "resource"} for e in entries]


LEGACY_EXTRA = {"legacy-t4-t4": ({"exempt_rules": WAIVED}, {"exemptions": _t4_exemptions()})}
"""What keeps the T4 pool: the Python API's waived rules, the package pool's exemptions."""


@pytest.fixture(scope="module")
def legacy_stack_run() -> Run:
    run = run_main(_config(LEGACY), stack="legacy-t4")
    assert run.error is None, run.error
    return run


@pytest.fixture(scope="module")
def legacy_api_run() -> Run:
    from component_package.aks_gpu_cluster import AksGpuCluster as PackageCluster
    from components.aks_cluster import AksGpuCluster

    def program() -> None:
        _pool_doors(LEGACY_POOLS, LEGACY_EXTRA)
        python_pools = [p.python(**LEGACY_EXTRA.get(p.id, ({}, {}))[0]) for p in LEGACY_POOLS]
        package_pools = [p.package_inputs() | LEGACY_EXTRA.get(p.id, ({}, {}))[1] for p in LEGACY_POOLS]
        AksGpuCluster("aks", python_cluster(LEGACY_CFG, python_pools))
        PackageCluster("aks", package_cluster(LEGACY_CFG, package_pools))  # type: ignore[arg-type]

    return _run(program, "legacy-t4")


def test_the_exemptions_examples_pools() -> None:
    assert [(p.id, p.pool.vmSize) for p in LEGACY_POOLS] == [
        ("legacy-t4-a100", "Standard_NC24ads_A100_v4"),
        ("legacy-t4-t4", "Standard_NC4as_T4_v3"),
    ]
    assert LEGACY_CFG.gpu_floor == "Standard_NC24ads_A100_v4"
    # the stack door waives the rule through the stack file's exemptions, as the other doors do through theirs
    from stack_config.specs import gpu_pool

    assert [gpu_pool(LEGACY_CFG, p.pool).exempt_rules for p in LEGACY_POOLS] == [(), WAIVED]


@pytest.mark.parametrize("shipped", LEGACY_POOLS, ids=[p.id for p in LEGACY_POOLS])
def test_an_exemption_examples_pool_sends_the_same_inputs_whichever_door_it_comes_in_by(
    shipped: ShippedPool, legacy_stack_run: Run, legacy_api_run: Run
) -> None:
    from_stack = wire(legacy_stack_run.by_name(f"aks-{shipped.pool.name}", AGENT_POOL).inputs)
    assert wire(legacy_api_run.by_name(f"py-{shipped.id}", AGENT_POOL).inputs) == from_stack
    assert wire(legacy_api_run.by_name(f"pkg-{shipped.id}", AGENT_POOL).inputs) == from_stack
    assert from_stack["vmSize"] == shipped.pool.vmSize


def test_the_exemption_examples_cluster_sends_the_same_inputs_whichever_door_it_comes_in_by(
    legacy_stack_run: Run, legacy_api_run: Run
) -> None:
    from_stack = legacy_stack_run.by_name("aks-cluster", MANAGED_CLUSTER).inputs
    by_door = _clusters_by_door(legacy_api_run, "aks-cluster")
    assert by_door["python"] == from_stack
    assert by_door["package"] == from_stack


T4_BELOW_THE_FLOOR = (
    "Standard_NC4as_T4_v3 (NVIDIA Tesla T4 16 GiB, 1 GPU) is below the GPU floor Standard_NC24ads_A100_v4 (NVIDIA A100 "
    "PCIe 80 GiB: 80 GiB, compute capability 8.0, whole GPU): 16 GiB GPU memory per GPU < 80 GiB; CUDA compute "
    "capability 7.5 < 8.0. Use a size at or above the floor, e.g. Standard_NC24ads_A100_v4, Standard_NC48ads_A100_v4, "
    "Standard_NC96ads_A100_v4."
)


def _package_t4_refusal(**pool: Any) -> list[Any]:
    """The property errors of the package's ``GpuNodePool`` for the example's T4 pool with ``pool`` changed."""
    from component_package.args import ArgsRefusedError

    [t4] = [p for p in LEGACY_POOLS if p.pool.name == "t4"]
    args = {"resource_group_name": "rg", "cluster_name": "aks", "pool": t4.package_inputs() | pool}
    run = run_program(lambda: PackageGpuNodePool("t4", args), config={})  # type: ignore[arg-type]
    assert isinstance(run.error, ArgsRefusedError), run.error
    assert not run.records
    return run.error.errors


def test_the_package_refuses_the_t4_pool_without_its_exemption() -> None:
    assert _package_t4_refusal() == [{"property_path": "pool.vmSize", "reason": T4_BELOW_THE_FLOOR}]


def test_the_package_checks_an_exemption_as_the_stack_file_does() -> None:
    """A reason that says nothing, an expiry past the default ``exemptionMaxDays`` and a rule that is no size rule are
    refused on their keys (the suite's day is 2026-11-30); an expired exemption waives nothing and is named."""
    entry = _t4_exemptions()[0]
    refused = _package_t4_refusal(
        exemptions=[entry | {"reason": "legacy", "expires": "2027-12-31"}, entry | {"policy": "gpu-node-taint"}]
    )
    assert [e["property_path"] for e in refused] == [
        "pool.exemptions[0].reason",
        "pool.exemptions[0].expires",
        "pool.exemptions[1].policy",
    ]
    assert refused[1]["reason"] == (
        "2027-12-31 is 396 days ahead; allowed: at most 180 days ahead (on or before 2027-05-29); renew it when it "
        "runs out"
    )
    assert refused[2]["reason"].startswith("'gpu-node-taint' is not a policy of the pack")
    expired = _package_t4_refusal(exemptions=[entry | {"expires": "2026-11-01"}])
    assert expired == [
        {"property_path": "pool.vmSize", "reason": T4_BELOW_THE_FLOOR},
        {
            "property_path": "pool.exemptions[0].expires",
            "reason": "the exemption of gpu-size-minimum (owner ml-platform@contoso.com) expired on 2026-11-01, so it "
            "no longer waives the pool; allowed: fix the pool, or renew the exemption with a new reason and an expiry "
            "date in the future",
        },
    ]


def test_the_package_exemption_is_the_stack_files_entry_for_the_pool() -> None:
    """The package pool's ``exemptions`` entry has the keys of a stack file's (:mod:`rules.exemptions`) but the
    resource, which is the pool; its schema names the day limit the rules resolve."""
    from component_package.inputs import PoolExemption
    from rules.exemptions import DEFAULT_MAX_DAYS, EXEMPTION_KEYS, REQUIRED_KEYS

    hints = typing.get_type_hints(PoolExemption)
    assert set(hints) == set(EXEMPTION_KEYS) - {"resource"}
    assert set(PoolExemption.__required_keys__) == set(REQUIRED_KEYS) - {"resource"}
    schema = json.loads((REPO_ROOT / "tests" / "package" / "snapshots" / "schema.json").read_text(encoding="utf-8"))
    expires = schema["types"]["azure-gpu-platform:index:PoolExemption"]["properties"]["expires"]["description"]
    assert f"at most {DEFAULT_MAX_DAYS} days ahead" in expires


# ------------------------------------------------------------------------------------------- on an existing cluster

EXISTING_POOL: dict[str, Any] = yaml.safe_load(EXISTING.read_text(encoding="utf-8"))["resources"]["a100Pool"][
    "properties"
]["pool"]
"""The example's ``GpuNodePool`` pool, as written (camelCase)."""
EXISTING_STACK = {
    "azure-native:location": "westeurope",
    "azure-gpu-platform:environment": "dev",
    "azure-gpu-platform:location": "westeurope",
    "azure-gpu-platform:cluster": {
        "kubernetesVersion": "1.36",
        "skuTier": "Free",
        "autoUpgradeChannel": "patch",
        "access": {"deployerPrincipalType": "User"},
    },
    "azure-gpu-platform:gpuPools": [EXISTING_POOL],  # a gpuPools entry takes the example's keys as they are
    "azure-gpu-platform:gpuOperator": {"enabled": False},
}
"""The example's pool in a stack file: a cluster of the platform's own, without the GPU operator (as the example's
cluster, whose device plugin the package takes on trust)."""
EXISTING_CFG = stack_cfg(EXISTING_STACK, "Pulumi.existing.yaml")
[EXISTING_SHIPPED] = [ShippedPool("existing", EXISTING_CFG, pool) for pool in EXISTING_CFG.gpuPools]
GIVEN_BY_A_STACKS_CLUSTER = ("agentPoolName", "orchestratorVersion", "tags", "nodeLabels")
"""The AgentPool inputs a stack's cluster fills in for its pools: the Azure name the stack derives (a hash of the
create-time keys), its Kubernetes version, the platform's tags, and the device plugin that serves the pool (the
stack's nvidia-device-plugin chart; the example's cluster's own plugin, taken on trust, is labelled ``external``)."""


def _existing_python() -> GpuPoolSpec:
    """The example's pool as a Python caller writes it (neither operator nor chart: the cluster's own plugin)."""
    return GpuPoolSpec(**{snake(k): v for k, v in EXISTING_POOL.items()}, external_device_plugin=True)


@pytest.fixture(scope="module")
def existing_runs() -> tuple[Run, Run]:
    """The stack-file form under the program; the example's pool as written from Python (``py-example``) and the
    package (``pkg-example``), and the stack form's pool from both (``py-existing-a100``, ``pkg-existing-a100``)."""
    from_stack = run_main(EXISTING_STACK, stack="existing")
    assert from_stack.error is None, from_stack.error

    def program() -> None:
        GpuNodePool(
            "py-example", GpuNodePoolArgs(pool=_existing_python(), resource_group_name="rg", cluster_name="aks")
        )
        package = {
            "resource_group_name": "rg",
            "cluster_name": "aks",
            "pool": {snake(k): v for k, v in EXISTING_POOL.items()},
        }
        PackageGpuNodePool("pkg-example", package)  # type: ignore[arg-type]
        _pool_doors([EXISTING_SHIPPED], {})

    return from_stack, _run(program, "existing")


def test_the_existing_cluster_examples_pool_is_the_same_from_python_and_the_package(
    existing_runs: tuple[Run, Run],
) -> None:
    _, api = existing_runs
    from_package = api.by_name("pkg-example", AGENT_POOL).inputs
    assert api.by_name("py-example", AGENT_POOL).inputs == from_package
    assert from_package["vmSize"] == "Standard_NC24ads_A100_v4"
    assert (from_package["minCount"], from_package["maxCount"], from_package["enableAutoScaling"]) == (1.0, 2.0, True)
    assert from_package["nodeLabels"]["team"] == "vision"


def test_the_existing_cluster_examples_pool_from_a_stack_file_differs_only_by_what_its_cluster_gives(
    existing_runs: tuple[Run, Run],
) -> None:
    from_stack, api = existing_runs
    stack_pool = wire(from_stack.by_name("aks-a100", AGENT_POOL).inputs)
    example = wire(api.by_name("pkg-example", AGENT_POOL).inputs)
    differing = {k for k in stack_pool.keys() | example.keys() if stack_pool.get(k) != example.get(k)}
    assert differing == set(GIVEN_BY_A_STACKS_CLUSTER)
    assert (example["agentPoolName"], stack_pool["agentPoolName"]) == ("a100", "a1001f96")
    assert (example.get("orchestratorVersion"), stack_pool["orchestratorVersion"]) == (None, "1.36")
    assert (example["tags"], stack_pool["tags"]) == ({"gpu-pool": "a100"}, {"environment": "dev", "gpu-pool": "a100"})
    assert example["nodeLabels"] == stack_pool["nodeLabels"] | {"azure-gpu-platform/device-plugin": "external"}
    # with what the stack's cluster gives, the three doors agree
    assert wire(api.by_name("py-existing-a100", AGENT_POOL).inputs) == stack_pool
    assert wire(api.by_name("pkg-existing-a100", AGENT_POOL).inputs) == stack_pool


# ------------------------------------------------------------------------------------------- every example covered


def test_every_shipped_example_is_built_three_ways() -> None:
    """A new example fails here until its deployables are compared: the stack-file examples' pools and clusters above
    and in ``test_landing_zone_three_ways.py``, the component-package program's pool above. None of them ships a NAP
    NodePool, a KAITO workspace or a Databricks cluster (the shipped stacks' are compared in ``test_three_ways.py``)."""
    landing_zone = EXAMPLES / "landing-zone" / "Pulumi.landing-zone.yaml"
    assert sorted(EXAMPLES.glob("*/Pulumi*.yaml")) == sorted([FLEET, LEGACY, EXISTING, landing_zone])
    stacks = [LEGACY_CFG, stack_cfg(_config(landing_zone), _relative(landing_zone)), *(m.config for m in MEMBERS)]
    for cfg in stacks:
        assert not cfg.gpuNodePools and not cfg.kaito.workspaces, cfg.cluster_name
        assert cfg.databricks is None or not cfg.databricks.clusters, cfg.cluster_name
    resources = yaml.safe_load(EXISTING.read_text(encoding="utf-8"))["resources"]
    assert [r["type"] for r in resources.values()] == ["azure-gpu-platform:index:GpuNodePool"]
