"""Issue 27, item 2: a refusal never names a key the user did not write.

Every problem of a stack-config refusal points at a key path. Over a corpus of bad stack files — every single key
deleted from each shipped stack (here) and the seeded fuzz of ``fuzz_cases.py``, read as the YAML values and as the
strings the language host hands the program (``test_fuzz.py`` applies the same check to every case it validates) —
that path must be in the user's file, or be a required key that is missing
under a mapping the user wrote (worded as required/missing), or be worded as a default ("the default ... collided
with" the key written). A snake_case field name or an index past the end of a list never passes: it is not in the
file. The cases the audit found are pinned below with their concrete refusal.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from gpu_catalog.problems import Problem
from stack_config import StackConfigError, config_from_stack_yaml, validate_stack_config
from tests.components.harness import stack_config
from tests.components.test_deployable import T4, config
from tests.preflight.refusal_keys import unwritten

LABEL = "stacks/Pulumi.test.yaml"


def refusal(data: Mapping[str, Any]) -> list[Problem]:
    try:
        validate_stack_config(data, stack_file=LABEL)
    except StackConfigError as exc:
        return exc.problems
    return []


def _paths(node: Any, at: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if at:
        yield at
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*at, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*at, i))


def deletions() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every shipped stack with one key (or list entry) deleted, anywhere in its tree."""
    for stack in ("dev", "staging", "prod"):
        base = config_from_stack_yaml(stack_config(stack))
        for path in _paths(base):
            data = copy.deepcopy(base)
            parent: Any = data
            for part in path[:-1]:
                parent = parent[part]
            del parent[path[-1]]
            yield f"{stack}-del:{'.'.join(map(str, path))}", data


DELETIONS = list(deletions())


def test_the_corpus_is_large_and_refusals_are_met() -> None:
    assert len(DELETIONS) >= 200
    refused = [cid for cid, data in DELETIONS if refusal(data)]
    assert len(refused) >= 30, refused  # the check below must see refusals, not only valid files


@pytest.mark.parametrize(("case_id", "data"), DELETIONS, ids=[c for c, _ in DELETIONS])
def test_a_deleted_key_is_never_named_unless_required_or_worded_as_a_default(case_id: str, data: dict) -> None:
    wrong = [w for p in refusal(data) if (w := unwritten(p, data, set())) is not None]
    assert not wrong, f"{case_id}: " + "; ".join(wrong)


def test_the_checker_catches_an_unwritten_key() -> None:
    data = {"gpuPools": [{"name": "t4"}]}
    assert unwritten(Problem("gpuPools[0].name", "bad."), data, set()) is None
    assert unwritten(Problem("gpuPools[0].vmSize", "required key is missing."), data, set()) is None
    assert unwritten(Problem("gpuPools[1].name", "bad."), data, set()) is not None  # an index not in the file
    assert unwritten(Problem("gpuPools[0].vm_size", "bad."), data, set()) is not None  # a snake_case name
    assert unwritten(Problem("cluster.network.policy", "bad."), data, set()) is not None
    assert unwritten(Problem("cluster.network.policy", "the default 'none' collided."), data, set()) is None
    assert unwritten(Problem("gpuPools[3].name", "required key is missing."), data, set()) is not None


# ------------------------------------------------------------------------- the cases the audit found, now fixed


def _one(data: dict[str, Any]) -> tuple[str, str]:
    [problem] = refusal(data)
    return problem.path, problem.message


def test_the_default_network_policy_is_named_at_the_dataplane_written() -> None:
    data = config(gpuPools=[T4])
    data.setdefault("cluster", {})["network"] = {"dataplane": "cilium"}
    assert _one(data) == (
        "cluster.network.dataplane",
        "the default network policy 'none' does not run on the 'cilium' dataplane (Azure CNI overlay). Allowed with "
        "dataplane 'cilium': cilium",
    )


def test_workspaces_without_the_add_on_are_named_at_the_workspaces_written() -> None:
    base = config_from_stack_yaml(stack_config("staging"))
    del base["kaito"]["enabled"]
    found = {p.path: p.message for p in refusal(base)}
    assert "kaito.enabled" not in found
    assert found["kaito.workspaces"].startswith("KAITO workspaces need the AI toolchain operator add-on on the cluster")


def test_a_nap_pool_without_sizes_is_named_at_the_pool() -> None:
    base = config_from_stack_yaml(stack_config("staging"))
    del base["gpuNodePools"][0]["gpuModels"]
    found = {p.path: p.message for p in refusal(base)}
    assert found["gpuNodePools[0]"] == "name the GPU sizes Karpenter may choose: sizes, series or gpuModels."
    assert "gpuNodePools[0].sizes" not in found


def test_a_databricks_cluster_without_workers_is_named_at_the_cluster() -> None:
    base = config_from_stack_yaml(stack_config("prod"))
    del base["databricks"]["clusters"][0]["autoscale"]
    found = {p.path: p.message for p in refusal(base)}
    assert found["databricks.clusters[0].workload"].startswith("workload 'training' needs workers: set numWorkers")
    assert "databricks.clusters[0].autoscale" not in found
    del base["databricks"]["clusters"][0]["workload"]  # the default workload (training): the cluster entry itself
    found = {p.path: p.message for p in refusal(base)}
    assert found["databricks.clusters[0]"].startswith("workload 'training' needs workers: set numWorkers")


def test_an_amd_pool_on_the_default_driver_is_named_at_its_size() -> None:
    mi300x = {"name": "mi300x", "vmSize": "Standard_ND96isr_MI300X_v5", "minCount": 1, "maxCount": 1}
    path, message = _one(config(gpuPools=[mi300x]))
    assert path == "gpuPools[0].vmSize"
    assert message.startswith("driver is not set, and the default driver here is aks: Standard_ND96isr_MI300X_v5 has")


def test_an_existing_resource_group_without_a_name_says_it_is_required() -> None:
    data = config(gpuPools=[T4])
    data["resourceGroup"] = {"existing": True}
    assert _one(data) == (
        "resourceGroup.name",
        "required with existing: true (an existing resource group must be named).",
    )
