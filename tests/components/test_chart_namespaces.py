"""Namespaces the charts refuse are refused with the chart's reason (issue 40 item 5): NVIDIA's nvidia-device-plugin
chart 0.20.0 fails in 'default' (templates/validation.yml); the GPU operator chart v26.7.0 refuses no namespace."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from components.device_plugin import NvidiaDevicePluginArgs
from components.validation import InvalidArgsError
from rules.kube_names import chart_namespace_problem
from stack_config import StackConfigError, validate_stack_config
from tests.components.harness import HELM_RELEASE, run_main, with_ci_deployer

T4 = "Standard_NC4as_T4_v3"
REFUSED = (
    "'default': NVIDIA's nvidia-device-plugin chart fails the install in the 'default' namespace unless "
    "allowDefaultNamespace is set (templates/validation.yml, chart 0.20.0: \"Running in the 'default' namespace is "
    'not recommended"), so pulumi up would stop after the cluster exists. Use a namespace of its own, e.g. '
    "'nvidia-device-plugin'."
)


def config(**top: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"environment": "dev", "location": "westeurope", "gpuPools": [{"name": "t4", "vmSize": T4}]}
    out.update(copy.deepcopy(top))
    return with_ci_deployer(out)


def test_the_rule() -> None:
    assert chart_namespace_problem("nvidia-device-plugin", "default") == REFUSED
    assert chart_namespace_problem("nvidia-device-plugin", "gpu-resources") is None
    assert chart_namespace_problem("gpu-operator", "default") is None


def test_the_device_plugin_in_default_is_refused_by_the_stack_file() -> None:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(config(devicePlugin={"namespace": "default"}), stack_file="stacks/Pulumi.dev.yaml")
    assert {p.path: p.message for p in err.value.problems} == {"devicePlugin.namespace": REFUSED}


def test_the_operator_in_default_is_accepted_its_chart_refuses_no_namespace() -> None:
    cfg = validate_stack_config(
        config(gpuOperator={"enabled": True, "namespace": "default"}), stack_file="stacks/Pulumi.dev.yaml"
    )
    assert cfg.gpuOperator.namespace == "default"


def test_the_component_refuses_it_too() -> None:
    with pytest.raises(InvalidArgsError) as err:
        NvidiaDevicePluginArgs(pools=["t4"], namespace="default")
    assert [(f.field, f.message) for f in err.value.findings] == [("namespace", REFUSED)]


def test_the_release_goes_to_its_own_namespace_on_the_wire() -> None:
    run = run_main(config(devicePlugin={"namespace": "gpu-resources"}))
    assert run.error is None, run.error
    [values] = [r.inputs for r in run.of_type(HELM_RELEASE) if r.inputs["chart"] == "nvidia-device-plugin"]
    assert values["namespace"] == "gpu-resources"
    assert "allowDefaultNamespace" not in values["values"]
