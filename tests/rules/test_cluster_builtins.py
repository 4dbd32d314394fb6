"""rules/hardening.py: ranges that admit everything count as open; Microsoft's built-in AKS definitions that fit a
GPU platform (Run Command, SSH, Image Cleaner, control-plane logs) as advisory findings."""

from __future__ import annotations

import pytest

from rules.hardening import (
    CONTROL_PLANE_LOG_CATEGORIES,
    ApiServer,
    api_server_access,
    api_server_open,
    control_plane_logs_missing,
    image_cleaner_interval,
    image_cleaner_off,
    node_ssh_enabled,
    ranges_admitting_all,
    run_command_enabled,
)

EMPTY_LIST_MESSAGE = api_server_open(ApiServer())[0].message


@pytest.mark.parametrize(
    ("ranges", "admitting"),
    [
        (("0.0.0.0/0",), ("0.0.0.0/0",)),
        (("203.0.113.0/24", "::/0"), ("::/0",)),
        (("10.1.2.3/0",), ("10.1.2.3/0",)),
        (("0.0.0.0/1", "128.0.0.0/1"), ("0.0.0.0/1", "128.0.0.0/1")),
        (("0.0.0.0/1", "128.0.0.0/2"), ()),
        (("203.0.113.0/24", "nope"), ()),
    ],
)
def test_ranges_admitting_every_address(ranges: tuple[str, ...], admitting: tuple[str, ...]) -> None:
    assert ranges_admitting_all(ranges) == admitting


@pytest.mark.parametrize("ranges", [("0.0.0.0/0",), ("::/0",), ("0.0.0.0/1", "128.0.0.0/1")])
def test_a_range_covering_everything_is_the_same_advisory_as_an_empty_list(ranges: tuple[str, ...]) -> None:
    (finding,) = api_server_open(ApiServer(ranges))
    assert finding.field == "apiServer"
    assert finding.message == f"authorizedIpRanges {', '.join(ranges)} admit every address, so " + EMPTY_LIST_MESSAGE
    assert api_server_open(ApiServer(ranges, private_cluster=True)) == []


def test_everything_is_still_a_valid_cidr_but_ipv6_stays_refused() -> None:
    assert api_server_access(ApiServer(("0.0.0.0/0",))) == []
    (finding,) = api_server_access(ApiServer(("::/0",)))
    assert finding.field == "authorizedIpRanges[0]" and "IPv6" in finding.message


def test_run_command() -> None:
    assert run_command_enabled(True) == []
    for value in (None, False):
        (finding,) = run_command_enabled(value)
        assert finding.field == "disableRunCommand"
        assert "past the authorized IP ranges" in finding.message
        assert "(89f2d532-c53c-4f8f-9afa-4927b1114a0d)" in finding.message


def test_ssh_names_every_pool_with_ssh_on() -> None:
    assert node_ssh_enabled({"system": "Disabled", "a100": "disabled"}) == []
    (finding,) = node_ssh_enabled({"system": "Disabled", "a100": None, "t4": "LocalUser"})
    assert finding.field == "sshAccess"
    assert finding.message.startswith("SSH is on for the nodes of a100, t4:")
    assert "securityProfile.sshAccess: Disabled" in finding.message
    assert "28257686-e9db-403e-b9e2-a5eecbe03da9" in finding.message
    assert "Microsoft.ContainerService/DisableSSHPreview" in finding.message


def test_image_cleaner() -> None:
    assert image_cleaner_off(True) == []
    (finding,) = image_cleaner_off(None)
    assert "intervalHours: 168" in finding.message and "af3c26b2-6fad-493e-9236-9c68928516ab" in finding.message
    assert image_cleaner_interval(24) == [] and image_cleaner_interval(2160) == []
    (low,) = image_cleaner_interval(23)
    assert low.field == "intervalHours" and low.message.startswith("23 is outside what AKS takes: ")
    assert len(image_cleaner_interval(2161)) == 1


def test_control_plane_logs() -> None:
    assert control_plane_logs_missing(CONTROL_PLANE_LOG_CATEGORIES) == []
    assert control_plane_logs_missing(["kube-audit"]) == []
    (none,) = control_plane_logs_missing(None)
    assert none.field == "diagnosticSetting"
    assert none.message.startswith("no diagnostic setting sends the cluster's control-plane logs anywhere")
    assert "245fc9df-fa96-4414-9a0b-3738c2f7341c" in none.message
    (partial,) = control_plane_logs_missing(["kube-apiserver"])
    assert "send kube-apiserver but no audit log" in partial.message
    assert CONTROL_PLANE_LOG_CATEGORIES[0] == "kube-audit-admin" and "kube-audit" not in CONTROL_PLANE_LOG_CATEGORIES
