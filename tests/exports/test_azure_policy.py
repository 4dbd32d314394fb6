"""The generated Azure Policy, evaluated on ARM request bodies (an agent pool; a VirtualMachines agent pool with
several manual-scale sizes; a managed cluster with several inline profiles) with tests/exports/azure_policy_eval.py:
every size the rules refuse is denied in every shape and any casing, every size the policy pack accepts is allowed,
and a catalog or calendar change changes the policy."""

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
    AGENT_POOL_MANUAL,
    AGENT_POOL_MANUAL_SIZE,
    AGENT_POOL_TYPE,
    AGENT_POOL_VM_SIZE,
    MANAGED_CLUSTER_TYPE,
    PROFILE_VM_SIZE,
    PROFILES,
    allowed_sizes,
    policy_definition,
)
from gpu_catalog.catalog import CATALOG_PATH, default_catalog, is_nvv4, load_catalog
from policies.pack import ALL_POLICIES
from rules.sizes import check_gpu_size
from tests.conftest import TODAY
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


def vm_agent_pool(*sizes: str) -> dict[str, Any]:
    """A ``VirtualMachines`` pool as REST API 2025-09-01 takes it (examples/AgentPoolsCreate_TypeVirtualMachines.json):
    no ``vmSize``, one ``{size, count}`` entry per size."""
    manual = [{"size": s, "count": 1} for s in sizes]
    return {
        "type": AGENT_POOL_TYPE,
        "name": "aks/gpuvm",
        "properties": {
            "type": "VirtualMachines",
            "mode": "User",
            "virtualMachinesProfile": {"scale": {"manual": manual}},
        },
    }


def casings(size: str) -> list[str]:
    return [size, size.lower(), size.upper()]


def pack_accepts(size: str) -> bool:
    """No violation from the pack's size policies (gpu-size-*) on a GPU AgentPool of this size."""
    size_policies = [
        p for p in ALL_POLICIES if isinstance(p, ResourceValidationPolicy) and p.name.startswith("gpu-size-")
    ]
    assert len(size_policies) == 5
    return not any(run_policy(p, AGENT_POOL, with_(GPU_POOL, vmSize=size)).violations for p in size_policies)


def pack_accepts_virtual_machines_pool(size: str) -> bool:
    """The same for a ``VirtualMachines`` AgentPool whose only size is a manual-scale entry."""
    vms = {"scale": {"manual": [{"size": size, "count": 1.0}]}}
    pool = with_(GPU_POOL, vmSize=None, type="VirtualMachines", virtualMachinesProfile=vms)
    size_policies = [
        p for p in ALL_POLICIES if isinstance(p, ResourceValidationPolicy) and p.name.startswith("gpu-size-")
    ]
    return not any(run_policy(p, AGENT_POOL, pool).violations for p in size_policies)


def refused_sizes() -> list[str]:
    """Catalog sizes the size rules refuse for an AKS pool (default floor, today), asked one by one."""
    return sorted(s for s in default_catalog() if check_gpu_size(s, require_aks=True, today=TODAY))


REFUSED = refused_sizes()
ALLOWED = allowed_sizes()
ALLOWED_GPU = next(s for s in ALLOWED if s.startswith("Standard_NC"))


def test_every_catalog_size_is_either_allowed_or_refused() -> None:
    assert sorted([*ALLOWED, *REFUSED]) == sorted(default_catalog())
    assert ALLOWED and REFUSED


def test_the_allowed_list_is_what_the_policy_pack_accepts() -> None:
    accepted = sorted(s for s in default_catalog() if pack_accepts(s))
    assert accepted == ALLOWED
    assert DEFINITION["properties"]["parameters"]["allowedGpuSizes"]["defaultValue"] == ALLOWED
    # the pack reads a VirtualMachines pool's manual-scale sizes with the same rules (rules/size_fields.py)
    assert sorted(s for s in default_catalog() if pack_accepts_virtual_machines_pool(s)) == ALLOWED


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


@pytest.mark.parametrize("size", REFUSED)
def test_refused_catalog_sizes_are_denied_in_a_virtual_machines_pool_in_any_casing(size: str) -> None:
    """Alone, or as one bad manual-scale entry next to a good one (either order): the count finds it."""
    for written in casings(size):
        assert evaluate(DEFINITION, vm_agent_pool(written)) == "Deny", written
        assert evaluate(DEFINITION, vm_agent_pool(ALLOWED_GPU, written)) == "Deny", written
        assert evaluate(DEFINITION, vm_agent_pool(written, SYSTEM)) == "Deny", written


@pytest.mark.parametrize("size", UNKNOWN)
def test_unknown_n_family_names_are_denied(size: str) -> None:
    assert evaluate(DEFINITION, agent_pool(size)) == "Deny"
    assert evaluate(DEFINITION, managed_cluster(size)) == "Deny"
    assert evaluate(DEFINITION, vm_agent_pool(ALLOWED_GPU, size)) == "Deny"


@pytest.mark.parametrize("size", ALLOWED)
def test_accepted_sizes_are_allowed_in_both_shapes_and_any_casing(size: str) -> None:
    for written in casings(size):
        assert evaluate(DEFINITION, agent_pool(written)) is None, written
        assert evaluate(DEFINITION, managed_cluster(written, ALLOWED_GPU)) is None, written
        assert evaluate(DEFINITION, vm_agent_pool(written)) is None, written
        assert evaluate(DEFINITION, vm_agent_pool(SYSTEM, written, ALLOWED_GPU)) is None, written


def test_virtual_machines_pools_without_gpu_sizes_or_entries_are_not_refused() -> None:
    assert evaluate(DEFINITION, vm_agent_pool(SYSTEM, "Standard_D4ds_v5")) is None
    assert evaluate(DEFINITION, vm_agent_pool()) is None  # an empty manual list: no entry counts
    for profile in ({}, {"scale": {}}, {"scale": {"manual": None}}):  # no array: count is false
        pool = {"type": AGENT_POOL_TYPE, "properties": {"type": "VirtualMachines", "virtualMachinesProfile": profile}}
        assert evaluate(DEFINITION, pool) is None, profile
    # a manual entry without a size selects nothing for the size conditions (like on a missing value is false)
    pool = vm_agent_pool()
    pool["properties"]["virtualMachinesProfile"]["scale"]["manual"] = [{"count": 2}]
    assert evaluate(DEFINITION, pool) is None


def test_a_pool_with_both_size_fields_is_checked_on_each() -> None:
    both = vm_agent_pool(ALLOWED_GPU)
    both["properties"]["vmSize"] = "Standard_NC6"
    assert evaluate(DEFINITION, both) == "Deny"
    both["properties"]["vmSize"] = ALLOWED_GPU
    assert evaluate(DEFINITION, both) is None
    both["properties"]["virtualMachinesProfile"]["scale"]["manual"].append({"size": "Standard_NV32as_v4", "count": 1})
    assert evaluate(DEFINITION, both) == "Deny"


def test_non_gpu_sizes_and_other_resources_are_not_evaluated() -> None:
    assert evaluate(DEFINITION, agent_pool(SYSTEM)) is None
    assert evaluate(DEFINITION, managed_cluster()) is None  # only the system pool
    assert evaluate(DEFINITION, {"type": MANAGED_CLUSTER_TYPE, "properties": {}}) is None  # no profiles: count false
    other = {"type": "Microsoft.Compute/virtualMachines", "properties": {"hardwareProfile": {"vmSize": "Standard_NC6"}}}
    assert evaluate(DEFINITION, other) is None


def test_property_names_in_any_casing() -> None:
    pool = {"type": AGENT_POOL_TYPE, "properties": {"VMSize": "standard_nc6"}}
    cluster = {"type": MANAGED_CLUSTER_TYPE, "properties": {"AgentPoolProfiles": [{"VMSIZE": "Standard_NC6"}]}}
    vm_pool = {
        "type": "microsoft.containerservice/managedclusters/agentpools",
        "properties": {"VirtualMachinesProfile": {"Scale": {"MANUAL": [{"Size": "standard_NC6", "Count": 1}]}}},
    }
    assert evaluate(DEFINITION, pool) == "Deny"
    assert evaluate(DEFINITION, cluster) == "Deny"
    assert evaluate(DEFINITION, vm_pool) == "Deny"


def test_effect_and_allowed_list_are_assignment_parameters() -> None:
    audit = policy_definition(effect="Audit")
    assert evaluate(audit, agent_pool("Standard_NC6")) == "Audit"
    assert evaluate(DEFINITION, agent_pool("Standard_NC6"), {"effect": "Audit"}) == "Audit"
    assert evaluate(DEFINITION, agent_pool("Standard_NC6"), {"allowedGpuSizes": ["Standard_NC6"]}) is None
    assert evaluate(DEFINITION, agent_pool(ALLOWED_GPU), {"allowedGpuSizes": ["Standard_NC6"]}) == "Deny"
    assert evaluate(DEFINITION, vm_agent_pool("Standard_NC6"), {"effect": "Audit"}) == "Audit"
    assert evaluate(DEFINITION, vm_agent_pool("Standard_NC6"), {"allowedGpuSizes": ["standard_nc6"]}) is None


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
    assert props["policyRule"]["if"]["anyOf"][2] == {
        "allOf": [
            {"field": "type", "equals": AGENT_POOL_TYPE},
            {
                "count": {
                    "field": "Microsoft.ContainerService/managedClusters/agentPools/"
                    "virtualMachinesProfile.scale.manual[*]",
                    "where": {
                        "allOf": [
                            {"field": AGENT_POOL_MANUAL_SIZE, "like": "Standard_N*"},
                            {"field": AGENT_POOL_MANUAL_SIZE, "notIn": "[parameters('allowedGpuSizes')]"},
                        ]
                    },
                },
                "greater": 0,
            },
        ]
    }
    assert len(props["policyRule"]["if"]["anyOf"]) == 3
    assert props["policyRule"]["then"] == {"effect": "[parameters('effect')]"}
    assert props["metadata"]["version"] == "1.1.0"
    assert "gpu-size-not-retired" in props["description"] and props["metadata"]["gpuFloor"] == "Standard_NC6s_v3"


def test_one_refused_size_condition_for_every_size_field() -> None:
    """The three size conditions are one helper's output with only the field changed (one source)."""
    rule = DEFINITION["properties"]["policyRule"]["if"]["anyOf"]
    conditions = {
        AGENT_POOL_VM_SIZE: rule[0]["allOf"][1],
        PROFILE_VM_SIZE: rule[1]["allOf"][1]["count"]["where"],
        AGENT_POOL_MANUAL_SIZE: rule[2]["allOf"][1]["count"]["where"],
    }
    texts = {json.dumps(c).replace(field, "<size>") for field, c in conditions.items()}
    assert len(texts) == 1 and "<size>" in texts.pop()


def test_inline_virtual_machines_profiles_and_preview_autoscale_are_the_documented_gap() -> None:
    """No alias exists for an inline profile's ``virtualMachinesProfile.scale.manual[*].size`` (only the preview-era
    ``…sizes[*]``), and ``scale.autoscale`` is preview-only: the policy does not see either (docs/guardrail-layers.md
    says so; the CrossGuard pack checks inline VirtualMachines sizes). This test fails when that changes."""
    inline = managed_cluster()
    vms = {"scale": {"manual": [{"size": "Standard_NC6", "count": 1}]}}
    inline["properties"]["agentPoolProfiles"].append(
        {"name": "gpuvm", "type": "VirtualMachines", "virtualMachinesProfile": vms}
    )
    assert evaluate(DEFINITION, inline) is None
    autoscale = vm_agent_pool()
    autoscale["properties"]["virtualMachinesProfile"]["scale"]["autoscale"] = [{"size": "Standard_NC6", "minCount": 0}]
    assert evaluate(DEFINITION, autoscale) is None
    docs = (Path(__file__).parents[2] / "docs/guardrail-layers.md").read_text(encoding="utf-8")
    assert "agentPoolProfiles[*].virtualMachinesProfile.scale.manual[*].size" in docs
    assert "scale.autoscale" in docs


def test_aliases_are_the_recorded_facts() -> None:
    facts = json.loads((Path(__file__).parents[2] / "conformance/facts/azure_policy.json").read_text())
    recorded = (
        facts["sources"]["policy-aliases-managedclusters"]["facts"]
        + facts["sources"]["policy-aliases-agentpools"]["facts"]
        + facts["sources"]["policy-aliases-agentpools-virtualmachines"]["facts"]
    )
    for alias in (AGENT_POOL_VM_SIZE, PROFILES, PROFILE_VM_SIZE, AGENT_POOL_MANUAL, AGENT_POOL_MANUAL_SIZE):
        assert alias in recorded
    assert "manual: [{size, count}]" in facts["sources"]["aks-rest-2025-09-01-scale-profile"]["facts"]


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


def test_the_evaluator_refuses_nested_counts_and_rules_over_the_count_limit() -> None:
    rule = copy.deepcopy(DEFINITION)
    nested = {"count": {"field": PROFILES, "where": {"count": {"field": PROFILES}, "greater": 0}}, "greater": 0}
    rule["properties"]["policyRule"]["if"] = nested
    with pytest.raises(UnsupportedPolicy, match="nested count"):
        evaluate(rule, managed_cluster("Standard_NC6"))
    six = {"anyOf": [{"count": {"field": AGENT_POOL_MANUAL}, "greater": i} for i in range(6)]}
    rule["properties"]["policyRule"]["if"] = six
    with pytest.raises(UnsupportedPolicy, match="Azure allows 5"):
        evaluate(rule, vm_agent_pool("Standard_NC6"))
    six["anyOf"].pop()
    assert evaluate(rule, vm_agent_pool("Standard_NC6")) == "Deny"  # five are allowed


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
    assert evaluate(after, vm_agent_pool(SYSTEM, "STANDARD_NC24ADS_A100_V4")) == "Audit"


def test_a_new_current_size_is_allowed_once_in_the_catalog(tmp_path: Path) -> None:
    today = date(2026, 11, 30)
    assert evaluate(policy_definition(today=today), agent_pool("Standard_NC24ads_A100_v9")) == "Audit"
    cat = _catalog_with(tmp_path, {"name": "Standard_NC24ads_A100_v9"})
    assert evaluate(policy_definition(today=today, catalog=cat), agent_pool("Standard_NC24ads_A100_v9")) is None


def test_a_retirement_date_passing_changes_the_policy(tmp_path: Path) -> None:
    """Retirements are dated: the same catalog generates another list the day a size retires (floor NV12s_v3 so that
    the NVv3 sizes are not refused for their size)."""
    floor = "Standard_NV12s_v3"
    doc = json.loads(CATALOG_PATH.read_text())
    for row in doc["sizes"]:
        if row.get("series") == "NVv3 M60":
            row["lifecycle"]["status"] = "retiring"  # as the catalog had it before 2026-09-30
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc))
    cat = load_catalog(path)
    before = allowed_sizes(floor, date(2026, 9, 29), cat)
    after = allowed_sizes(floor, date(2026, 9, 30), cat)
    assert "Standard_NV12s_v3" in before
    assert "Standard_NV12s_v3" not in after
    assert set(before) - set(after) == {
        "Standard_NV12s_v3",
        "Standard_NV24s_v3",
        "Standard_NV48s_v3",
        "Standard_NV12hs_v3",  # variants inherit their sibling's lifecycle
        "Standard_NV24ms_v3",
        "Standard_NV32ms_v3",
    }


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


def test_constants_are_defined_once() -> None:
    """The Literal types say what the tuples say, the components and the stack config use them, the like-pattern is
    the catalog's N-family notion, and the metadata's rules are the pack's size policies."""
    from typing import get_args, get_type_hints

    from components import azure_policy as component
    from gpu_catalog.catalog import is_gpu_size
    from rules import azure_policy as vocabulary
    from stack_config.azure_policy import AzurePolicyConfig

    assert get_args(vocabulary.Effect) == vocabulary.EFFECTS == ("Deny", "Audit", "Disabled")
    assert get_args(vocabulary.EnforcedEffect) == vocabulary.ENFORCED_EFFECTS == ("Deny", "Audit")
    assert get_args(vocabulary.Scope) == vocabulary.SCOPES == ("resourceGroup", "subscription")
    hints = get_type_hints(component.AksGpuSizePolicyArgs)
    assert get_args(hints["effect"]) == vocabulary.ENFORCED_EFFECTS and get_args(hints["scope"]) == vocabulary.SCOPES
    assert get_args(AzurePolicyConfig.model_fields["effect"].annotation) == vocabulary.ENFORCED_EFFECTS
    assert get_args(AzurePolicyConfig.model_fields["scope"].annotation) == vocabulary.SCOPES
    assert azure_policy.GPU_SIZE_PATTERN == "Standard_N*"
    prefix = azure_policy.GPU_SIZE_PATTERN.removesuffix("*")
    for name in ["Standard_NC6s_v3", "STANDARD_nd96isr_H100_v5", "Standard_N", "Standard_NX1"]:
        assert name.lower().startswith(prefix.lower()) and is_gpu_size(name)
    for name in ["Standard_D8ds_v5", "Standard_M", "NC6s_v3", "Basic_N1"]:
        assert not name.lower().startswith(prefix.lower()) and not is_gpu_size(name)
    size_policies = {p.name for p in ALL_POLICIES if p.name.startswith("gpu-size-")}
    assert set(azure_policy.SIZE_RULES) <= size_policies
    assert DEFINITION["properties"]["metadata"]["rules"] == list(azure_policy.SIZE_RULES)


def test_the_definition_sees_arm_pools_only_never_a_karpenter_node_pool() -> None:
    """Issue 28: a NodePool's GPU scope (explicit, excluded, unconstrained) is a property of a Kubernetes object that
    ARM never evaluates; the definition matches the two ARM types only, so no NodePool case can reach it."""

    def types(node: Any) -> set[str]:
        if isinstance(node, dict):
            own = {node["equals"]} if node.get("field") == "type" else set()
            return own.union(*(types(v) for v in node.values()))
        if isinstance(node, list):
            return set().union(*(types(v) for v in node))
        return set()

    assert types(azure_policy.policy_rule()) == {
        "Microsoft.ContainerService/managedClusters/agentPools",
        "Microsoft.ContainerService/managedClusters",
    }
