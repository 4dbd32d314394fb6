"""What a newcomer tripped on (issue 40, item 10), each shown on the program or the shipped files: NAP sharing without
the GPU operator, the dev stack without it, and the docs that say so."""

from __future__ import annotations

import json
from pathlib import Path

from tests.components.harness import HELM_RELEASE, run_main, stack_config
from tests.components.test_nap import NODE_CLASS, NODE_POOL, config

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_nap_sharing_works_without_the_gpu_operator() -> None:
    """A NAP pool with MPS ×4 and gpuOperator.enabled false: AKS installs the driver (gpu.mode Driver) and the
    nvidia-device-plugin chart renders the pool's sharing config on its nodes."""
    nap = {
        "name": "infer",
        "sizes": ["Standard_NC4as_T4_v3"],
        "limits": {"gpus": 4},
        "sharing": {"mps": {"replicas": 4}},
    }
    run = run_main(config(gpuOperator={"enabled": False}, gpuPools=[], gpuNodePools=[nap]))
    assert run.error is None, run.error
    chart = run.one(HELM_RELEASE)
    assert chart.name == "nvidia-device-plugin-release"
    values = chart.inputs["values"]
    assert values["config"]["map"]["infer"] == (
        "version: v1\nflags:\n  migStrategy: single\nsharing:\n  mps:\n    renameByDefault: false\n    resources:\n"
        "    - name: nvidia.com/gpu\n      replicas: 4\n"
    )
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "azure-gpu-platform/pool", "operator": "In", "values": ["infer"]}]}]
    labels = run.one(NODE_POOL).inputs["spec"]["template"]["metadata"]["labels"]
    assert labels == {"nvidia.com/device-plugin.config": "infer", "azure-gpu-platform/pool": "infer"}
    assert run.one(NODE_CLASS).inputs["spec"]["gpu"] == {"mode": "Driver"}
    assert "works **with or without the GPU operator**" in (DOCS / "nap.md").read_text()


def test_the_dev_stack_runs_without_the_operator_and_the_docs_say_so() -> None:
    assert stack_config("dev")["azure-gpu-platform:gpuOperator"] == {"enabled": False}
    assert (
        "**dev** (Free tier, one spot T4 pool time-sliced ×4, **no GPU operator**"
        in (DOCS / "stack-config.md").read_text()
    )
    assert json.dumps(stack_config("dev")).count("timeSlicing") == 1
