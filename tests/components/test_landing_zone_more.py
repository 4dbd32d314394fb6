"""Issue 37's remaining rules, each refusing and passing with concrete values: created identities, Defender's
workspace, the protections explicit and off in the shipped stacks, and the maintenance advisories."""

from __future__ import annotations

import copy
from datetime import date
from typing import Any

import pytest

from composition.landing_zone_wiring import landing_zone_args
from conformance import check_resources, failures
from stack_config import StackConfigError, config_from_stack_yaml, validate_stack_config
from stack_config.landing_zone import landing_zone_warnings
from tests.components.harness import MANAGED_CLUSTER, run_main, stack_config
from tests.components.test_landing_zone import ROLE, example_config

IDENTITY = "azure-native:managedidentity:UserAssignedIdentity"
STACK_FILE = "Pulumi.landing-zone.yaml"


def _validate(config: dict[str, Any]) -> Any:
    return validate_stack_config(config_from_stack_yaml(config), stack_file=STACK_FILE)


def test_created_identities_are_registered_wired_and_granted() -> None:
    config = copy.deepcopy(example_config())
    config["azure-gpu-platform:cluster"]["identity"] |= {"controlPlane": "create", "kubelet": "create"}
    run = run_main(config, stack="landing-zone")
    assert run.error is None, run.error
    tags = {"managed-by": "pulumi:azure-gpu-platform", "environment": "lz"}
    assert {r.name: r.inputs for r in run.of_type(IDENTITY)} == {
        name: {"resourceGroupName": "rg-gpu-lz", "resourceName": f"id-{name}", "location": "westeurope", "tags": tags}
        for name in ("aks-control-plane", "aks-kubelet")
    }
    cluster = run.one(MANAGED_CLUSTER).inputs
    created = "/mock/azure-native:managedidentity:UserAssignedIdentity"  # the mock ids of the created identities
    assert cluster["identity"] == {"type": "UserAssigned", "userAssignedIdentities": [f"{created}/aks-control-plane"]}
    assert cluster["identityProfile"]["kubeletidentity"]["resourceId"] == f"{created}/aks-kubelet"
    roles = sorted(r.inputs["description"].split(" for ")[0] for r in run.of_type(ROLE))
    assert roles.count("Managed Identity Operator") == 1 and roles.count("AcrPull") == 1
    assert failures(check_resources([r for r in run.records if r.type == IDENTITY])) == []


def test_defender_needs_a_workspace() -> None:
    config = copy.deepcopy(example_config())
    cluster = config["azure-gpu-platform:cluster"]
    cluster["defender"] = {"enabled": True}
    cluster["monitoring"] = {"containerInsights": False}
    with pytest.raises(StackConfigError) as caught:
        _validate(config)
    assert [p.path for p in caught.value.problems] == ["cluster.defender.logAnalyticsWorkspaceId"]
    assert "Defender's security monitoring sends to a Log Analytics workspace" in caught.value.problems[0].message
    cluster["monitoring"] = {"containerInsights": True}  # Container Insights' workspace is used
    assert landing_zone_args(_validate(config)).defender is True


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_the_protections_are_explicit_and_off_in_the_shipped_stacks(stack: str) -> None:
    config = stack_config(stack)
    cluster = config["azure-gpu-platform:cluster"]
    assert (cluster["defender"], cluster["azurePolicyAddon"]) == ({"enabled": False}, False)
    lz = landing_zone_args(_validate(config))
    assert (lz.defender, lz.azure_policy_addon) == (False, False)


def test_maintenance_advisories() -> None:
    cfg = _validate(example_config())
    assert landing_zone_warnings(cfg, date(2026, 12, 3)) == []
    config = copy.deepcopy(example_config())
    config["azure-gpu-platform:cluster"]["autoUpgradeChannel"] = "none"
    warnings = landing_zone_warnings(_validate(config), date(2027, 2, 1))
    assert warnings == [
        "cluster.maintenance.autoUpgrade.autoUpgradeChannel: aksManagedAutoUpgradeSchedule schedules the "
        "autoUpgradeChannel upgrades, and autoUpgradeChannel is 'none': nothing to schedule",
        "cluster.maintenance.autoUpgrade.notAllowedDates[0]: 2026-12-19..2027-01-04 ended before 2027-02-01: it "
        "protects nothing any more",
    ]
