"""Issue 15 acceptance: every resource type that takes a VM size, through the real pack over the analyzer protocol.

For each entry of the size table (gpu_catalog/facts/vm_size_fields.json) and each of its size fields, the resource is
sent as the engine sends it (camelCase inputs, only the size field and the fields its ``when`` needs), once with a
good H100 size and once with one refused size per size rule. AKS-only rules fire on the ``aks`` family alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from preflight.analyzer.client import PolicyPackProcess
from preflight.analyzer.protocol import Analysis, PolicyConfigError, Violation
from preflight.model import RecordedResource
from rules.size_fields import SizePath, SizeResource, size_table

pytestmark = pytest.mark.slow

PREFIX = "urn:pulumi:dev::raw::"
GOOD = "Standard_NC40ads_H100_v5"
REFUSED = {
    "gpu-size-no-nvv4": "Standard_NV16as_v4",
    "gpu-size-not-retired": "Standard_NC6s_v3",
    "gpu-size-known": "Standard_NC99zz_v9",
    "gpu-size-minimum": "Standard_NV6ads_A10_v5",
    "gpu-size-aks-supported": "Standard_NG32ads_V620_v1",  # AMD V620: fine on a VM, not in AKS's GPU registry
}
OWN_RULES = {"aks", "databricks", "kaito"}
"""Families with rules of their own (AKS pool, Databricks, KAITO policies), which these bare fixtures do not satisfy;
their own tests cover them."""
CASES = [(r, s) for r in size_table().resources for s in r.sizes]


def put(props: dict[str, Any], path: str, value: Any) -> None:
    """Set ``path`` (``a.b[].c``: a one-entry list) in ``props``."""
    target: Any = props
    steps = path.split(".")
    for step in steps[:-1]:
        if step.endswith("[]"):
            lst = target.setdefault(step[:-2], [{}])
            target = lst[0]
        else:
            target = target.setdefault(step, {})
    target[steps[-1]] = value


def resource(entry: SizeResource, spec: SizePath, size: str, tag: str) -> RecordedResource:
    props: dict[str, Any] = {}
    for cond, allowed in spec.when:
        put(props, cond, allowed[0])
    put(props, spec.path, size)
    name = f"{tag}-{abs(hash((entry.type, spec.path))) % 10**8}"
    return RecordedResource(urn=f"{PREFIX}{entry.type}::{name}", type=entry.type, name=name, inputs=props)


def of(analysis: Analysis, r: RecordedResource, level: str | None = None) -> list[Violation]:
    return [v for v in analysis.violations if v.urn == r.urn and (level is None or v.enforcement_level == level)]


@pytest.fixture(scope="module")
def pack(preview_pack: PolicyPackProcess) -> PolicyPackProcess:
    """The session's pack (``tests/policies/conftest.py``), with the default policy config."""
    preview_pack.configure(None)
    return preview_pack


def test_every_type_and_field_good_size_passes_refused_sizes_name_the_field(pack: PolicyPackProcess) -> None:
    sent: dict[tuple[str, str, str], RecordedResource] = {}
    for entry, spec in CASES:
        sent[(entry.type, spec.path, "good")] = resource(entry, spec, GOOD, "good")
        for rule, size in REFUSED.items():
            sent[(entry.type, spec.path, rule)] = resource(entry, spec, size, rule)
    result = pack.analyze_many(sent.values())
    field_of = {(e.type, s.path): s.path.replace("[]", "[0]") for e, s in CASES}
    family = {e.type: e.family for e, _ in CASES}
    for (typ, path, case), r in sent.items():
        mandatory = of(result, r, "mandatory")
        rules = {v.policy_name for v in mandatory}
        size_rules = rules & set(REFUSED)
        if case == "good":
            assert size_rules == set(), (typ, path)
            if family[typ] not in OWN_RULES:  # nothing but the size rules looks at these types
                assert of(result, r) == [], (typ, path)
        elif case == "gpu-size-aks-supported":
            assert size_rules == ({case} if family[typ] == "aks" else set()), (typ, path, rules)
        else:
            assert case in size_rules, (typ, path, case, rules)
        for v in mandatory:
            if v.policy_name in REFUSED:
                assert v.message.startswith(f"{v.description}\n{field_of[(typ, path)]}: "), v.message


def test_the_issue_s_virtual_machines_pool_names_the_entry(pack: PolicyPackProcess) -> None:
    # the shape of Microsoft's AgentPoolsCreate_TypeVirtualMachines example, with a GPU size as the second entry
    pool = RecordedResource(
        urn=f"{PREFIX}azure-native:containerservice:AgentPool::vms",
        type="azure-native:containerservice:AgentPool",
        name="vms",
        inputs={
            "resourceGroupName": "rg1",
            "resourceName": "clustername1",
            "agentPoolName": "agentpool1",
            "type": "VirtualMachines",
            "osType": "Linux",
            "nodeTaints": ["Key1=Value1:NoSchedule"],
            "virtualMachinesProfile": {
                "scale": {
                    "manual": [{"size": "Standard_D2_v3", "count": 3.0}, {"size": "Standard_NV32as_v4", "count": 2.0}]
                }
            },
        },
    )
    result = pack.analyze(pool)
    [nvv4] = [v for v in of(result, pool, "mandatory") if v.policy_name == "gpu-size-no-nvv4"]
    assert "\nvirtualMachinesProfile.scale.manual[1].size: Standard_NV32as_v4 is an NVv4 size" in nvv4.message


def test_policy_config_scopes_rules_to_families(pack: PolicyPackProcess) -> None:
    vm = RecordedResource(
        urn=f"{PREFIX}azure-native:compute:VirtualMachine::viz",
        type="azure-native:compute:VirtualMachine",
        name="viz",
        inputs={"hardwareProfile": {"vmSize": "Standard_NV12ads_A10_v5"}},
    )
    aks = RecordedResource(
        urn=f"{PREFIX}azure-native:containerservice:AgentPool::viz",
        type="azure-native:containerservice:AgentPool",
        name="viz",
        inputs={"vmSize": "Standard_NV12ads_A10_v5", "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"]},
    )
    old_vm = RecordedResource(
        urn=f"{PREFIX}azure-native:compute:VirtualMachine::v100",
        type="azure-native:compute:VirtualMachine",
        name="v100",
        inputs={"hardwareProfile": {"vmSize": "Standard_NC6s_v3"}},
    )
    try:
        # a lower floor for visualisation VMs (a third of an A10), the default floor elsewhere; retirement only on AKS
        pack.configure({"gpu-size-minimum": {"minimumSizeByFamily": {"vm": "Standard_NV12ads_A10_v5"}}})
        result = pack.analyze_many([vm, aks])
        assert of(result, vm) == []
        assert [v.policy_name for v in of(result, aks, "mandatory")] == ["gpu-size-minimum"]
        pack.configure({"gpu-size-not-retired": {"families": ["aks"]}})
        assert of(pack.analyze(old_vm), old_vm) == []  # V100 retirement is not checked on VMs with this config
        pack.configure(None)
        result = pack.analyze_many([vm, old_vm])
        assert [v.policy_name for v in of(result, vm, "mandatory")] == ["gpu-size-minimum"]
        assert [v.policy_name for v in of(result, old_vm, "mandatory")] == ["gpu-size-not-retired"]
        with pytest.raises(PolicyConfigError) as err:
            pack.configure({"gpu-size-known": {"families": ["vms"]}})
        assert err.value.errors == [
            "gpu-size-known.families.0: 'vms' is not allowed. Allowed: aks, vm, ml, batch, openshift, hdinsight, "
            "databricks, kaito."
        ]
    finally:
        pack.configure(None)
