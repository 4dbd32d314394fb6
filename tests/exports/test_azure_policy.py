"""The generated Azure Policy, evaluated on ARM request bodies (an agent pool; a managed cluster with several inline
profiles) with tests/exports/azure_policy_eval.py: every size the rules refuse is denied in both shapes and any
casing, every size the policy pack accepts is allowed, and a catalog or calendar change changes the policy."""

from __future__ import annotations

import copy
import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from pulumi_policy import ResourceValidationPolicy

from exports import azure_policy
from exports.azure_policy import (
    AGENT_POOL_TYPE,
    AGENT_POOL_VM_SIZE,
    MANAGED_CLUSTER_TYPE,
    PROFILE_VM_SIZE,
    PROFILES,
    allowed_sizes,
    policy_definition,
    refused_sizes,
)
from gpu_catalog.catalog import CATALOG_PATH, default_catalog, is_nvv4, load_catalog
from policies.pack import ALL_POLICIES
from tests.exports.azure_policy_eval import UnsupportedPolicy, evaluate
from tests.policies._helpers import AGENT_POOL, GPU_POOL, run_policy, with_

DEFINITION = policy_definition(effect="Deny")
SYSTEM = "Standard_D8ds_v5"
UNKNOWN = ["Standard_NC999ads_Z100_v9", "standard_nd1_vx", "Standard_N"]


def agent_pool(size: str) -> dict[str, Any]:
    return {"type": AGENT_POOL_TYPE, "name": "aks/gpu", "properties": {"vmSize": size, "count": 1, "mode": "User"}}


def managed_cluster(*sizes: str) -> dict[str, Any]:
    profiles = [{"name": "system", "vmSize": SYSTEM, "mode": "System", "count": 3}]
    profiles += [{"name": f"gpu{i}", "vmSize": s, "mode": "User", "count": 1} for i, s in enumerate(sizes)]
    return {"type": MANAGED_CLUSTER_TYPE, "name": "aks", "properties": {"agentPoolProfiles": profiles}}


def casings(size: str) -> list[str]:
    return [size, size.lower(), size.upper()]


def pack_accepts(size: str) -> bool:
    """No violation from the pack's size policies (gpu-size-*) on a GPU AgentPool of this size."""
    size_policies = [
        p for p in ALL_POLICIES if isinstance(p, ResourceValidationPolicy) and p.name.startswith("gpu-size-")
    ]
    assert len(size_policies) == 5
    return not any(run_policy(p, AGENT_POOL, with_(GPU_POOL, vmSize=size)).violations for p in size_policies)


REFUSED = sorted(refused_sizes())
ALLOWED = allowed_sizes()
ALLOWED_GPU = next(s for s in ALLOWED if s.startswith("Standard_NC"))


def test_every_catalog_size_is_either_allowed_or_refused() -> None:
    assert sorted([*ALLOWED, *REFUSED]) == sorted(default_catalog())
    assert ALLOWED and REFUSED


def test_the_allowed_list_is_what_the_policy_pack_accepts() -> None:
    accepted = sorted(s for s in default_catalog() if pack_accepts(s))
    assert accepted == ALLOWED
    assert DEFINITION["properties"]["parameters"]["allowedGpuSizes"]["defaultValue"] == ALLOWED


def test_refused_kinds_are_all_covered() -> None:
    cat = default_catalog()
    today = date(2026, 11, 30)
    assert any(is_nvv4(s) for s in REFUSED)
    assert any(cat[s].is_retired(today) for s in REFUSED)
    assert any(not cat[s].aks_supported for s in REFUSED)
    assert "Standard_NC4as_T4_v3" in ALLOWED  # T4: 16 GiB, compute capability 7.5, at the default floor
    assert "Standard_NV6ads_A10_v5" in REFUSED  # 1/6 of an A10: below the floor


@pytest.mark.parametrize("size", REFUSED)
def test_refused_catalog_sizes_are_denied_in_both_shapes_and_any_casing(size: str) -> None:
    for written in casings(size):
        assert evaluate(DEFINITION, agent_pool(written)) == "Deny", written
        assert evaluate(DEFINITION, managed_cluster(ALLOWED_GPU, written)) == "Deny", written
        assert evaluate(DEFINITION, managed_cluster(written, ALLOWED_GPU)) == "Deny", written


@pytest.mark.parametrize("size", UNKNOWN)
def test_unknown_n_family_names_are_denied(size: str) -> None:
    assert evaluate(DEFINITION, agent_pool(size)) == "Deny"
    assert evaluate(DEFINITION, managed_cluster(size)) == "Deny"


@pytest.mark.parametrize("size", ALLOWED)
def test_accepted_sizes_are_allowed_in_both_shapes_and_any_casing(size: str) -> None:
    for written in casings(size):
        assert evaluate(DEFINITION, agent_pool(written)) is None, written
        assert evaluate(DEFINITION, managed_cluster(written, ALLOWED_GPU)) is None, written


def test_non_gpu_sizes_and_other_resources_are_not_evaluated() -> None:
    assert evaluate(DEFINITION, agent_pool(SYSTEM)) is None
    assert evaluate(DEFINITION, managed_cluster()) is None  # only the system pool
    assert evaluate(DEFINITION, {"type": MANAGED_CLUSTER_TYPE, "properties": {}}) is None  # no profiles: count false
    other = {"type": "Microsoft.Compute/virtualMachines", "properties": {"hardwareProfile": {"vmSize": "Standard_NC6"}}}
    assert evaluate(DEFINITION, other) is None


def test_property_names_in_any_casing() -> None:
    pool = {"type": AGENT_POOL_TYPE, "properties": {"VMSize": "standard_nc6"}}
    cluster = {"type": MANAGED_CLUSTER_TYPE, "properties": {"AgentPoolProfiles": [{"VMSIZE": "Standard_NC6"}]}}
    assert evaluate(DEFINITION, pool) == "Deny"
    assert evaluate(DEFINITION, cluster) == "Deny"


def test_effect_and_allowed_list_are_assignment_parameters() -> None:
    audit = policy_definition(effect="Audit")
    assert evaluate(audit, agent_pool("Standard_NC6")) == "Audit"
    assert evaluate(DEFINITION, agent_pool("Standard_NC6"), {"effect": "Audit"}) == "Audit"
    assert evaluate(DEFINITION, agent_pool("Standard_NC6"), {"allowedGpuSizes": ["Standard_NC6"]}) is None
    assert evaluate(DEFINITION, agent_pool(ALLOWED_GPU), {"allowedGpuSizes": ["Standard_NC6"]}) == "Deny"


def test_the_rule_shape() -> None:
    """The aliases verified against the alias list, mode All, a count over the inline profiles (a plain [*] field
    condition would need *every* profile to be refused), parameters for the effect and the list."""
    props = DEFINITION["properties"]
    assert props["mode"] == "All"
    assert props["policyType"] == "Custom"
    assert props["parameters"]["effect"] == {
        "type": "String",
        "metadata": {
            "displayName": "Effect",
            "description": "Deny refuses the request; Audit reports it (roll out with Audit first).",
        },
        "allowedValues": ["Deny", "Audit", "Disabled"],
        "defaultValue": "Deny",
    }
    refused = {
        "allOf": [
            {"field": PROFILE_VM_SIZE, "like": "Standard_N*"},
            {"field": PROFILE_VM_SIZE, "notIn": "[parameters('allowedGpuSizes')]"},
        ]
    }
    assert props["policyRule"]["if"]["anyOf"][1] == {
        "allOf": [
            {"field": "type", "equals": MANAGED_CLUSTER_TYPE},
            {"count": {"field": PROFILES, "where": refused}, "greater": 0},
        ]
    }
    assert props["policyRule"]["if"]["anyOf"][0]["allOf"][1]["allOf"][0] == {
        "field": AGENT_POOL_VM_SIZE,
        "like": "Standard_N*",
    }
    assert props["policyRule"]["then"] == {"effect": "[parameters('effect')]"}
    assert "gpu-size-not-retired" in props["description"] and props["metadata"]["gpuFloor"] == "Standard_NC6s_v3"


def test_aliases_are_the_recorded_facts() -> None:
    facts = json.loads((Path(__file__).parents[2] / "conformance/facts/azure_policy.json").read_text())
    recorded = (
        facts["sources"]["policy-aliases-managedclusters"]["facts"]
        + facts["sources"]["policy-aliases-agentpools"]["facts"]
    )
    for alias in (AGENT_POOL_VM_SIZE, PROFILES, PROFILE_VM_SIZE):
        assert alias in recorded


def test_a_plain_star_field_condition_means_all_members() -> None:
    """The evaluator's [*] semantics (the reason the rule uses count): true only when every profile matches."""
    rule = copy.deepcopy(DEFINITION)
    rule["properties"]["policyRule"]["if"] = {"field": PROFILE_VM_SIZE, "like": "Standard_N*"}
    assert evaluate(rule, managed_cluster("Standard_NC6")) is None  # the system pool does not match
    rule["properties"]["policyRule"]["if"] = {"field": PROFILE_VM_SIZE, "notLike": "Standard_E*"}
    assert evaluate(rule, managed_cluster("Standard_NC6")) == "Deny"


def test_the_evaluator_refuses_what_it_does_not_implement() -> None:
    rule = copy.deepcopy(DEFINITION)
    rule["properties"]["policyRule"]["if"] = {"field": PROFILE_VM_SIZE, "match": "Standard_N*"}
    with pytest.raises(UnsupportedPolicy, match="match"):
        evaluate(rule, managed_cluster("Standard_NC6"))
    rule["properties"]["policyRule"]["if"] = {"field": "Microsoft.Compute/virtualMachines/sku.name", "equals": "x"}
    with pytest.raises(UnsupportedPolicy, match="alias"):
        evaluate(rule, agent_pool("Standard_NC6"))


def _catalog_with(tmp_path: Path, change: dict[str, Any]) -> Any:
    doc = json.loads(CATALOG_PATH.read_text(encoding="utf-8"))
    for row in doc["sizes"]:
        if row["name"] == change["name"]:
            row["lifecycle"] = change["lifecycle"]
            break
    else:
        base = copy.deepcopy(next(r for r in doc["sizes"] if r["name"] == "Standard_NC24ads_A100_v4"))
        doc["sizes"].append({**base, **change})
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load_catalog(path)


def test_a_catalog_change_adding_a_retired_size_changes_the_policy(tmp_path: Path) -> None:
    today = date(2026, 11, 30)
    before = policy_definition(today=today)
    retired = {"status": "retired", "retirementDate": "2026-06-30", "migrateTo": ["Standard_NC24ads_A100_v4"]}
    cat = _catalog_with(tmp_path, {"name": "Standard_NC24ads_A100_v4", "lifecycle": retired})
    after = policy_definition(today=today, catalog=cat)
    allowed = after["properties"]["parameters"]["allowedGpuSizes"]["defaultValue"]
    assert "Standard_NC24ads_A100_v4" in before["properties"]["parameters"]["allowedGpuSizes"]["defaultValue"]
    assert "Standard_NC24ads_A100_v4" not in allowed
    assert evaluate(before, agent_pool("Standard_NC24ads_A100_v4")) is None
    assert evaluate(after, agent_pool("Standard_NC24ads_A100_v4")) == "Audit"
    assert evaluate(after, managed_cluster("standard_nc24ads_a100_v4")) == "Audit"


def test_a_new_current_size_is_allowed_once_in_the_catalog(tmp_path: Path) -> None:
    today = date(2026, 11, 30)
    assert evaluate(policy_definition(today=today), agent_pool("Standard_NC24ads_A100_v9")) == "Audit"
    cat = _catalog_with(tmp_path, {"name": "Standard_NC24ads_A100_v9"})
    assert evaluate(policy_definition(today=today, catalog=cat), agent_pool("Standard_NC24ads_A100_v9")) is None


def test_a_retirement_date_passing_changes_the_policy() -> None:
    """Retirements are dated: the same catalog generates another list the day a size retires (floor NV12s_v3 so that
    the NVv3 sizes are not refused for their size)."""
    floor = "Standard_NV12s_v3"
    before = allowed_sizes(floor, date(2026, 9, 29))
    after = allowed_sizes(floor, date(2026, 9, 30))
    assert "Standard_NV12s_v3" in before
    assert "Standard_NV12s_v3" not in after
    assert set(before) - set(after) == {"Standard_NV12s_v3", "Standard_NV24s_v3", "Standard_NV48s_v3"}


def test_a_raised_floor_shrinks_the_list() -> None:
    h100 = allowed_sizes("Standard_NC40ads_H100_v5")
    assert "Standard_NC4as_T4_v3" not in h100 and "Standard_ND96isr_H200_v5" in h100
    assert evaluate(policy_definition(floor="Standard_NC40ads_H100_v5"), agent_pool("Standard_NC4as_T4_v3")) == "Audit"


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="not a catalog size"):
        policy_definition(floor="Standard_NC1")
    with pytest.raises(ValueError, match="effect must be one of Deny, Audit, Disabled"):
        policy_definition(effect="deny")  # type: ignore[arg-type]


def test_non_compliance_message_names_rules_and_fix() -> None:
    message = azure_policy.non_compliance_message()
    assert message.startswith("azure-gpu-platform aks-gpu-vm-sizes: this GPU VM size is refused by the size rules")
    assert "allowedGpuSizes" in message and "gpu_catalog/catalog.json" in message
