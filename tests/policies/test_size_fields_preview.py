"""Values unknown during a preview, in the new size fields: named in the advisory diagnostic, never passed."""

from __future__ import annotations

from policies.gpu_size_minimum import POLICY as MINIMUM
from policies.gpu_size_no_nvv4 import POLICY as NVV4
from tests.policies._helpers import UNKNOWN, run_policy

VM = "azure-native:compute:VirtualMachine"
AML = "azure-native:machinelearningservices:Compute"
POOL = "azure-native:containerservice:AgentPool"


def test_unknown_size_and_unknown_container_are_named() -> None:
    outcome = run_policy(MINIMUM, VM, {"hardwareProfile": {"vmSize": UNKNOWN}})
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("hardwareProfile.vmSize can't be known during preview")
    outcome = run_policy(MINIMUM, VM, {"hardwareProfile": UNKNOWN})
    assert outcome.preview_unknown is not None and outcome.preview_unknown.startswith("hardwareProfile can't be known")


def test_unknown_condition_is_named_and_a_known_bad_size_elsewhere_still_refused() -> None:
    outcome = run_policy(
        MINIMUM, AML, {"properties": {"computeType": UNKNOWN, "properties": {"vmSize": "Standard_NC6"}}}
    )
    assert outcome.violations == []
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("properties.computeType can't be known")
    manual = {"scale": {"manual": [{"size": "Standard_NV32as_v4"}, {"size": UNKNOWN}]}}
    outcome = run_policy(NVV4, POOL, {"virtualMachinesProfile": manual})
    assert outcome.violations[0].startswith(
        "virtualMachinesProfile.scale.manual[0].size: Standard_NV32as_v4 is an NVv4"
    )
    assert outcome.preview_unknown is not None
    assert outcome.preview_unknown.startswith("virtualMachinesProfile.scale.manual[1].size can't be known")


def test_attached_aml_compute_is_not_a_size_subject() -> None:
    attached = {"properties": {"computeType": "VirtualMachine", "properties": {"virtualMachineSize": "Standard_NC6"}}}
    outcome = run_policy(MINIMUM, AML, attached)
    assert (outcome.violations, outcome.preview_unknown) == ([], None)
    # the computeType is compared as ARM compares enum strings
    lower = {"properties": {"computeType": "amlcompute", "properties": {"vmSize": "Standard_NC6"}}}
    assert len(run_policy(MINIMUM, AML, lower).violations) == 1
