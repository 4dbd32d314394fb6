"""The landing zone's wire rules on a ManagedCluster's inputs as sent (issue 37): the outbound type against the
pools' ``vnetSubnetID`` and a pod subnet against overlay, passing with concrete values (their refusing cases are in
``test_checker.RULE_CASES``) and with the same words as the stack file's rule."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import check_resource, failures
from tests.conformance.test_checker import MANAGED_CLUSTER, SUBNET_ID, base, only

POD_SUBNET = SUBNET_ID.replace("snet-aks", "snet-pods")


def _cluster(outbound: str | None, *, subnet: bool, pod_subnet: bool = False, mode: str | None = "overlay") -> Any:
    inputs = base(MANAGED_CLUSTER)
    network = inputs["networkProfile"]
    if outbound is not None:
        network["outboundType"] = outbound
    if mode is None:
        del network["networkPluginMode"]
    if subnet:
        inputs["agentPoolProfiles"][0]["vnetSubnetID"] = SUBNET_ID
    if pod_subnet:
        inputs["agentPoolProfiles"][0]["podSubnetID"] = POD_SUBNET
    return inputs


@pytest.mark.parametrize(
    ("outbound", "subnet"),
    [
        ("managedNATGateway", False),
        ("userDefinedRouting", True),
        ("userAssignedNATGateway", True),
        ("loadBalancer", True),
        ("loadBalancer", False),
        (None, True),
    ],
)
def test_an_outbound_type_in_its_network_passes(outbound: str | None, subnet: bool) -> None:
    assert failures(check_resource(MANAGED_CLUSTER, _cluster(outbound, subnet=subnet))) == []


def test_the_wire_says_what_the_stack_file_says() -> None:
    finding = only(check_resource(MANAGED_CLUSTER, _cluster("managedNATGateway", subnet=True)))
    assert finding.message.startswith(
        "managedNATGateway works only in an AKS-managed virtual network; with your own subnets use "
        "userAssignedNATGateway (a NAT gateway on the subnets) or userDefinedRouting (source: MicrosoftDocs/"
        "azure-aks-docs articles/aks/nat-gateway.md"
    )
    finding = only(check_resource(MANAGED_CLUSTER, _cluster("userDefinedRouting", subnet=False)))
    assert finding.message.startswith("userDefinedRouting needs the cluster in your own subnets: a route table")


def test_a_pod_subnet_passes_in_flat_mode_only() -> None:
    flat = _cluster(None, subnet=True, pod_subnet=True, mode=None)  # Azure CNI without overlay: Pod Subnet
    assert failures(check_resource(MANAGED_CLUSTER, flat)) == []
    finding = only(check_resource(MANAGED_CLUSTER, _cluster(None, subnet=True, pod_subnet=True)))
    assert finding.path == "agentPoolProfiles[0].podSubnetID"
    assert finding.message.startswith(
        "a pod subnet is Azure CNI's flat mode: with networkPluginMode overlay pods take their IPs from podCidr "
        "(drop podSubnetID, or leave overlay) (source: "
    )
