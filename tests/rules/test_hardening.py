"""rules/hardening.py: API server exposure, network policy, node hardening (stack config and Args call these)."""

from __future__ import annotations

import pytest

from gpu_catalog.node_disks import NodeDisks, node_disks
from rules.hardening import (
    ApiServer,
    api_server_access,
    api_server_open,
    cidr_problem,
    container_insights_off,
    default_encryption_at_host,
    default_os_disk_type,
    network_policy,
    network_policy_off,
    node_hardening,
    rotation_poll_interval,
)


@pytest.mark.parametrize(
    ("cidr", "words"),
    [
        ("203.0.113.0/24", None),
        ("203.0.113.7/32", None),
        ("203.0.113.7", "is not a CIDR"),
        ("203.0.113.0/33", "is not a CIDR"),
        ("300.1.1.0/24", "is not a CIDR"),
        ("203.0.113.5/24", "host bits set: AKS wants the network address, '203.0.113.0/24'"),
        ("2001:db8::/32", "IPv6"),
    ],
)
def test_cidr(cidr: str, words: str | None) -> None:
    problem = cidr_problem(cidr)
    assert (problem is None) if words is None else (problem is not None and words in problem)


def test_authorized_ranges_are_refused_on_a_private_cluster_and_beyond_200() -> None:
    assert api_server_access(ApiServer(("203.0.113.0/24",))) == []
    both = api_server_access(ApiServer(("203.0.113.0/24",), private_cluster=True))
    assert [f.field for f in both] == ["authorizedIpRanges"] and "private cluster" in both[0].message
    many = tuple(f"10.0.{i // 256}.{i % 256}/32" for i in range(201))
    assert [f.message for f in api_server_access(ApiServer(many))] == ["201 ranges: AKS accepts at most 200"]
    bad = api_server_access(ApiServer(("203.0.113.0/24", "nope")))
    assert [f.field for f in bad] == ["authorizedIpRanges[1]"]


def test_an_open_api_server_is_an_advisory_finding_naming_the_setting() -> None:
    (finding,) = api_server_open(ApiServer())
    assert "cluster.apiServer.authorizedIpRanges" in finding.message and "privateCluster" in finding.message
    assert api_server_open(ApiServer(private_cluster=True)) == []
    assert api_server_open(ApiServer(("203.0.113.0/24",))) == []


@pytest.mark.parametrize(
    ("dataplane", "policy", "field", "words"),
    [
        ("cilium", "cilium", None, None),
        ("azure", "calico", None, None),
        ("azure", "azure", None, None),
        ("azure", "none", None, None),
        ("azure", "cilium", "policy", "Allowed with dataplane 'azure': none, azure, calico"),
        ("cilium", "calico", "policy", "Allowed with dataplane 'cilium': cilium"),
        ("cilium", "none", "policy", "Allowed with dataplane 'cilium': cilium"),
        ("cilium", "weave", "policy", "Allowed: none, calico, azure, cilium"),
    ],
)
def test_network_policy_engine_must_suit_the_dataplane(
    dataplane: str, policy: str, field: str | None, words: str | None
) -> None:
    found = network_policy(dataplane, policy)
    if field is None:
        assert found == []
    else:
        assert [f.field for f in found] == [field] and words is not None and words in found[0].message


def test_calico_is_refused_with_node_auto_provisioning() -> None:
    (finding,) = network_policy("azure", "calico", node_auto_provisioning=True)
    assert finding.field == "policy" and "does not support Calico" in finding.message
    assert network_policy("cilium", "cilium", node_auto_provisioning=True) == []


def test_cilium_is_linux_only() -> None:
    (finding,) = network_policy("cilium", "cilium", windows_pools=["win"])
    assert finding.field == "dataplane" and "Linux only" in finding.message


def test_advisories() -> None:
    assert network_policy_off("cilium") == [] and len(network_policy_off("none")) == 1
    assert container_insights_off(True) == [] and "containerInsights" in container_insights_off(False)[0].message
    assert rotation_poll_interval("2m") == [] and rotation_poll_interval("2 minutes")[0].field == "rotationPollInterval"


def test_catalog_disk_facts_and_defaults() -> None:
    a100 = node_disks("Standard_NC24ads_A100_v4")
    assert a100 == NodeDisks(encryption_at_host=None, ephemeral_os_disk=True, temp_disk_gib=64)
    assert default_os_disk_type(a100) == "Managed"  # 64 GiB temp disk < the 128 GiB OS disk
    assert default_os_disk_type(node_disks("Standard_NC8as_T4_v3")) == "Ephemeral"  # 352 GiB
    assert default_os_disk_type(node_disks("Standard_ND96is_H100_v5")) == "Ephemeral"  # variant of ND96isr_H100_v5
    assert default_os_disk_type(node_disks("Standard_NC6s_v3")) == "Managed"  # not sourced: null, default off
    assert not default_encryption_at_host(node_disks("Standard_NC8as_T4_v3"))  # no per-size source: off
    assert node_disks("Standard_D8ds_v5").temp_disk_gib == 300


def test_a_pool_asking_for_what_its_size_cannot_do_is_refused() -> None:
    no_eah = NodeDisks(encryption_at_host=False, ephemeral_os_disk=False, temp_disk_gib=None)
    found = node_hardening("Standard_X", no_eah, encryption_at_host=True, os_disk_type="Ephemeral")
    assert [(f.field, f.message) for f in found] == [
        ("encryptionAtHost", "Standard_X does not support encryption at host. Allowed: false"),
        ("osDiskType", "Standard_X does not support ephemeral OS disks. Allowed: Managed"),
    ]
    (small,) = node_hardening(
        "Standard_NC24ads_A100_v4",
        node_disks("Standard_NC24ads_A100_v4"),
        encryption_at_host=None,
        os_disk_type="Ephemeral",
    )
    assert small.field == "osDiskType" and "64 GiB, less than the 128 GiB OS disk" in small.message
    (unknown,) = node_hardening(
        "Standard_NC6s_v3", node_disks("Standard_NC6s_v3"), encryption_at_host=True, os_disk_type="Ephemeral"
    )
    assert unknown.field == "osDiskType" and "no sourced ephemeral OS disk support" in unknown.message
