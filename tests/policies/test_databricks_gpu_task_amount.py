"""databricks-gpu-task-amount: spark.task.resource.gpu.amount ≤ 0.5 or whole, ≤ worker GPUs; none on single node."""

from __future__ import annotations

import pytest

from policies.databricks_gpu_task_amount import POLICY
from tests.policies._helpers import DATABRICKS_CLUSTER, DATABRICKS_GPU, UNKNOWN, run_policy, with_

KEY = "spark.task.resource.gpu.amount"


def conf(value: str) -> dict[str, str]:
    return {KEY: value}


@pytest.mark.parametrize("value", ["1", "0.5", "0.25", "0.125"])
def test_valid_amounts_pass(value: str) -> None:
    assert run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkConf=conf(value))).violations == []


def test_whole_gpus_up_to_worker_count_pass() -> None:
    props = with_(DATABRICKS_GPU, nodeTypeId="Standard_NC64as_T4_v3", driverNodeTypeId=None, sparkConf=conf("4"))
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []


def test_fraction_above_half_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkConf=conf("0.75")))
    assert outcome.violations == [
        f"sparkConf.{KEY}: 0.75 is neither ≤ 0.5 nor a whole number, which Spark rejects (a task gets a fraction 1/N "
        "of a GPU, or whole GPUs). Use 0.5, 0.25, … for inference or a whole number for training."
    ]


def test_more_than_worker_gpus_rejected() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkConf=conf("2")))
    assert outcome.violations == [
        f"sparkConf.{KEY}: 2 GPUs per task but each worker (Standard_NC4as_T4_v3) has only 1 GPU(s), so no task "
        "could ever be scheduled. Use at most the worker's GPU count."
    ]


@pytest.mark.parametrize("value", ["0", "-1", "lots"])
def test_non_positive_or_garbage_rejected(value: str) -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkConf=conf(value)))
    assert len(outcome.violations) == 1
    assert outcome.violations[0].startswith(f"sparkConf.{KEY}: {value!r} is not a positive number.")


def test_single_node_must_not_set_gpu_scheduling() -> None:
    props = with_(
        DATABRICKS_GPU,
        numWorkers=0.0,
        sparkConf={"spark.databricks.cluster.profile": "singleNode", "spark.master": "local[*, 4]", KEY: "1"},
        customTags={"ResourceClass": "SingleNode"},
    )
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, props)
    assert outcome.violations == [
        f"sparkConf.{KEY}: GPU scheduling is off on single-node compute, so this setting has no effect (the driver "
        "runs every task with all its GPUs). Remove it, or use a multi-node cluster."
    ]


def test_single_node_without_gpu_settings_passes() -> None:
    props = with_(DATABRICKS_GPU, numWorkers=None, isSingleNode=True, sparkConf={})
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []


def test_autoscaling_cluster_is_multi_node() -> None:
    props = with_(DATABRICKS_GPU, numWorkers=None, autoscale={"minWorkers": 1.0, "maxWorkers": 4.0})
    assert run_policy(POLICY, DATABRICKS_CLUSTER, props).violations == []


def test_unknown_amount_named() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkConf={KEY: UNKNOWN}))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith(f"sparkConf.{KEY} can't be known during preview")


def test_unknown_worker_count_is_named_and_the_amount_checked_as_multi_node() -> None:
    props = with_(DATABRICKS_GPU, numWorkers=UNKNOWN, sparkConf=conf("0.75"))
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, props)
    assert [v.split(": ")[0] for v in outcome.violations] == [f"sparkConf.{KEY}"]
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("numWorkers/autoscale/isSingleNode can't be known during preview")


def test_unknown_spark_conf_is_named() -> None:
    outcome = run_policy(POLICY, DATABRICKS_CLUSTER, with_(DATABRICKS_GPU, sparkConf=UNKNOWN))
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("sparkConf can't be known during preview")
