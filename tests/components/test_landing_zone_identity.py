"""Issue 37, the identity and outbound gaps: a system-assigned control plane in your own subnets (advised, and its
Network Contributor granted after the cluster), Network Contributor on the spoke VNet with a custom private DNS zone,
and the outbound type's rules at the component door. Each refusing (or warning) and passing with concrete values."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.aks_cluster import AksGpuClusterArgs, ClusterAccess, SystemPoolSpec, advisory_findings
from components.landing_zone import ClusterLandingZone, landing_zone_findings
from components.validation import InvalidArgsError
from rules import Finding
from rules.identity import Identities, required_roles, system_assigned_network, vnet_of
from rules.network import pod_subnets_need_flat
from stack_config import config_from_stack_yaml, validate_stack_config
from stack_config.landing_zone import landing_zone_warnings
from tests.components.harness import DEPLOYER_OBJECT_ID, run_main
from tests.components.test_landing_zone import (
    CLUSTER,
    EXAMPLE,
    GPU_SUBNET,
    ROLE,
    SYSTEM_SUBNET,
    VNET,
    ZONE,
    example_config,
)
from tests.conftest import TEST_TODAY

ROUTE_TABLE = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-spoke-gpu/providers/Microsoft.Network/"
    "routeTables/rt-spoke-to-hub-fw"
)
UAMI = "/subscriptions/0000/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-cp"
ADVICE = (
    "a system-assigned control-plane identity with your own network (2 subnet(s) and 1 route table(s)): it exists "
    "only once the cluster does, so its Network Contributor there cannot be granted before it (the platform grants "
    "it right after the cluster is created). AKS supports this with Azure CNI but highly recommends a user-assigned "
    "control-plane identity (identity.controlPlane), granted before the cluster"
)


def _system_assigned_example() -> dict[str, Any]:
    """The landing-zone example with AKS's system-assigned identities (no ``identity``; a custom private DNS zone
    needs a user-assigned one, so ``privateDnsZone`` goes too)."""
    config = copy.deepcopy(example_config())
    cluster = config["azure-gpu-platform:cluster"]
    del cluster["identity"]
    del cluster["apiServer"]["privateDnsZone"]
    return config


def _validate(config: dict[str, Any]) -> Any:
    return validate_stack_config(config_from_stack_yaml(config), stack_file="Pulumi.landing-zone.yaml")


# ------------------------------------------------------------------------ 1. system-assigned in your own subnets


def test_vnet_of_a_subnet_id() -> None:
    assert vnet_of(GPU_SUBNET) == VNET
    assert vnet_of(GPU_SUBNET.upper()) == VNET.upper()  # ARM ids compare case-insensitively
    assert vnet_of(ROUTE_TABLE) is None
    assert vnet_of(VNET) is None


def test_system_assigned_in_own_subnets_is_advised_not_refused() -> None:
    scopes = [SYSTEM_SUBNET, GPU_SUBNET, ROUTE_TABLE]
    assert system_assigned_network(Identities(), scopes, assign_roles=True) == [
        Finding("identity.controlPlane", ADVICE)
    ]
    [manual] = system_assigned_network(Identities(), [GPU_SUBNET], assign_roles=False)
    assert "(1 subnet(s))" in manual.message
    assert "grant it yourself once the cluster exists (its identity.principalId)" in manual.message
    # passing: a user-assigned control plane, or AKS's own VNet
    assert system_assigned_network(Identities(UAMI), scopes, assign_roles=True) == []
    assert system_assigned_network(Identities(), [], assign_roles=True) == []


def test_the_stack_door_warns_and_the_example_stays_quiet() -> None:
    cfg = _validate(_system_assigned_example())  # not refused: AKS supports it with Azure CNI
    assert landing_zone_warnings(cfg) == [f"cluster.identity.controlPlane: {ADVICE}"]
    assert landing_zone_warnings(_validate(example_config())) == []  # user-assigned: nothing to advise


def test_the_preflight_reports_the_advice(tmp_path: Path) -> None:
    from tests.shared_runs import preflight_in_process

    path = tmp_path / EXAMPLE.name
    path.write_text(yaml.safe_dump({"config": _system_assigned_example()}), encoding="utf-8")
    run = preflight_in_process("--config-file", str(path), "--format", "json", "--today", TEST_TODAY)
    assert run.code == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["violations"] == []
    assert f"{path}: cluster.identity.controlPlane: {ADVICE}" in doc["warnings"]


def test_a_system_assigned_control_plane_is_granted_after_the_cluster() -> None:
    run = run_main(_system_assigned_example(), stack="landing-zone")
    assert run.error is None, run.error
    cluster = run.one(CLUSTER)
    assert cluster.inputs["identity"] == {"type": "SystemAssigned"}
    network = {r.name: r for r in run.of_type(ROLE) if r.name.startswith("aks-role-networkcontributor-")}
    assert sorted(network) == [
        "aks-role-networkcontributor-rt-spoke-to-hub-fw",
        "aks-role-networkcontributor-snet-aks-gpu",
        "aks-role-networkcontributor-snet-aks-system",
    ]  # no VNet: no custom private DNS zone
    for role in network.values():
        assert role.dependencies == [cluster.urn]  # its principal exists only with the cluster
        assert role.inputs["principalId"] == DEPLOYER_OBJECT_ID  # the cluster's identity.principalId (mocked)
        assert role.inputs["roleDefinitionId"].endswith("4d97b98b-1d4f-4787-a291-c67834d212e7")
    assert network["aks-role-networkcontributor-snet-aks-gpu"].inputs["scope"] == GPU_SUBNET
    assert not [r for r in run.records if r.urn in cluster.dependencies and r.type == ROLE]


def test_assign_roles_off_grants_nothing_and_says_so() -> None:
    config = _system_assigned_example()
    config["azure-gpu-platform:cluster"]["identity"] = {"assignRoles": False}
    [warning] = landing_zone_warnings(_validate(config))
    assert "grant it yourself once the cluster exists" in warning
    run = run_main(config, stack="landing-zone")
    assert run.error is None, run.error
    assert [r.name for r in run.of_type(ROLE) if r.name.startswith("aks-role-")] == []


# ------------------------------------------------------------------------ 2. the spoke VNet with a custom zone


def test_a_custom_zone_needs_network_contributor_on_the_spoke_vnet() -> None:
    ids = Identities(UAMI)
    scopes = [SYSTEM_SUBNET, GPU_SUBNET, ROUTE_TABLE]
    with_zone = required_roles(ids, subnet_ids=scopes, private_dns_zone_id=ZONE, registries=[])
    assert [(n.role, n.scope) for n in with_zone] == [
        ("NetworkContributor", SYSTEM_SUBNET),
        ("NetworkContributor", GPU_SUBNET),
        ("NetworkContributor", ROUTE_TABLE),
        ("NetworkContributor", VNET),  # one VNet for both subnets
        ("PrivateDnsZoneContributor", ZONE),
    ]
    # AKS's own zone (system) or none: no VNet scope
    without = required_roles(ids, subnet_ids=scopes, private_dns_zone_id=None, registries=[])
    assert [n.scope for n in without] == scopes


# ------------------------------------------------------------------------ 3. the outbound type at the component door


def _args(lz: ClusterLandingZone) -> AksGpuClusterArgs:
    access = ClusterAccess(grant_deployer=False)
    return AksGpuClusterArgs("aks", "rg", "westeurope", "1.36", access=access, landing_zone=lz)


def _landing_advice(lz: ClusterLandingZone) -> list[tuple[str, str]]:
    """The component's advisories about its landing zone (the others are the cluster spec's)."""
    return [(f.field, f.message) for f in advisory_findings(_args(lz)) if f.field.startswith("landing_zone.")]


@pytest.mark.parametrize(
    ("outbound", "subnets", "message"),
    [
        ("managedNATGateway", (SYSTEM_SUBNET,), "managedNATGateway works only in an AKS-managed virtual network"),
        ("userDefinedRouting", (), "userDefinedRouting needs the cluster in your own subnets"),
        ("userAssignedNATGateway", (), "userAssignedNATGateway needs the cluster in your own subnets"),
    ],
)
def test_the_component_refuses_an_outbound_type_against_its_network(
    outbound: Any, subnets: tuple[str, ...], message: str
) -> None:
    lz = ClusterLandingZone(outbound_type=outbound, subnet_ids=subnets)
    with pytest.raises(InvalidArgsError) as err:
        _args(lz)
    [finding] = err.value.findings
    assert finding.field == "landing_zone.outboundType"
    assert finding.message.startswith(message)


@pytest.mark.parametrize(
    ("outbound", "subnets"),
    [
        ("managedNATGateway", ()),
        ("userDefinedRouting", (SYSTEM_SUBNET, ROUTE_TABLE)),
        ("userAssignedNATGateway", (SYSTEM_SUBNET,)),
        ("loadBalancer", (SYSTEM_SUBNET,)),
        (None, ()),
    ],
)
def test_the_component_passes_an_outbound_type_that_fits(outbound: Any, subnets: tuple[str, ...]) -> None:
    lz = ClusterLandingZone(outbound_type=outbound, subnet_ids=subnets, identities=Identities(UAMI))
    assert landing_zone_findings(lz, "westeurope", private_cluster=False) == []
    assert _landing_advice(lz) == []


def test_the_component_advises_a_system_assigned_control_plane_in_own_subnets() -> None:
    lz = ClusterLandingZone(outbound_type="userDefinedRouting", subnet_ids=(SYSTEM_SUBNET, GPU_SUBNET, ROUTE_TABLE))
    assert _landing_advice(lz) == [("landing_zone.identity.controlPlane", ADVICE)]


POD_SUBNET = f"{VNET}/subnets/snet-aks-pods"


def test_the_pod_subnet_rule_is_one_function() -> None:
    refs = [("systemPool", None), ("gpuPools[0]", POD_SUBNET)]
    assert pod_subnets_need_flat("overlay", refs, fix="go flat") == [
        Finding("gpuPools[0]", "a pod subnet is Azure CNI's flat mode: go flat")
    ]
    assert pod_subnets_need_flat("flat", refs, fix="go flat") == []
    assert pod_subnets_need_flat(None, refs, fix="go flat") == []  # as sent: no networkPluginMode is not overlay


def test_the_component_refuses_a_pod_subnet_with_overlay() -> None:
    system = SystemPoolSpec(vnet_subnet_id=SYSTEM_SUBNET, pod_subnet_id=POD_SUBNET)
    access = ClusterAccess(grant_deployer=False)
    with pytest.raises(InvalidArgsError) as err:
        AksGpuClusterArgs("aks", "rg", "westeurope", "1.36", access=access, system_pool=system)
    assert [(f.field, f.message) for f in err.value.findings] == [
        ("system_pool.pod_subnet_id", "a pod subnet is Azure CNI's flat mode: set landing_zone network_mode 'flat'")
    ]
    flat = ClusterLandingZone(network_mode="flat", subnet_ids=(SYSTEM_SUBNET, POD_SUBNET), identities=Identities(UAMI))
    args = AksGpuClusterArgs("aks", "rg", "westeurope", "1.36", access=access, system_pool=system, landing_zone=flat)
    assert args.system_pool.pod_subnet_id == POD_SUBNET


def test_a_vnet_named_like_its_subnet_gets_its_own_assignment() -> None:
    """A VNet and a subnet may share a name: the VNet's assignment adds its resource type, the URNs stay apart."""
    config = copy.deepcopy(example_config())
    text = yaml.safe_dump(config).replace("virtualNetworks/vnet-spoke-gpu/", "virtualNetworks/snet-aks-gpu/")
    run = run_main(yaml.safe_load(text), stack="landing-zone")
    assert run.error is None, run.error
    network = {r.name: r.inputs["scope"] for r in run.of_type(ROLE) if "networkcontributor" in r.name}
    assert network == {
        "aks-role-networkcontributor-snet-aks-system": SYSTEM_SUBNET.replace("vnet-spoke-gpu", "snet-aks-gpu"),
        "aks-role-networkcontributor-snet-aks-gpu": GPU_SUBNET.replace("vnet-spoke-gpu", "snet-aks-gpu"),
        "aks-role-networkcontributor-rt-spoke-to-hub-fw": ROUTE_TABLE,
        "aks-role-networkcontributor-snet-aks-gpu-virtualnetworks": VNET.replace("vnet-spoke-gpu", "snet-aks-gpu"),
    }
