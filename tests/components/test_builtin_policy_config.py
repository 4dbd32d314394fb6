"""The stack-file keys behind Microsoft's built-in AKS definitions (issue 40): defaults, refusals, the Args they
become, and the component's advisory warnings (the same rules the policy pack runs on raw resources)."""

from __future__ import annotations

from typing import Any

import pytest

from components.aks_cluster import AksGpuClusterArgs, ClusterAccess, SystemPoolSpec, advisory_findings
from components.validation import InvalidArgsError
from composition.wiring import aks_cluster_args
from stack_config import StackConfigError, validate_stack_config
from tests.components.harness import with_ci_deployer

CI = ClusterAccess(deployer_principal_type="ServicePrincipal")


def config(cluster: dict[str, Any]) -> dict[str, Any]:
    return with_ci_deployer({"environment": "dev", "location": "westeurope", "cluster": cluster})


def problems(cluster: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(config(cluster), stack_file="stacks/Pulumi.dev.yaml")
    return {p.path: p.message for p in err.value.problems}


def test_defaults_leave_aks_defaults() -> None:
    cfg = validate_stack_config(config({}), stack_file="stacks/Pulumi.dev.yaml")
    c = cfg.cluster
    assert (c.apiServer.disableRunCommand, c.sshAccess, c.imageCleaner.enabled, c.imageCleaner.intervalHours) == (
        False,
        None,
        False,
        168,
    )
    assert c.monitoring.controlPlaneLogs is False


def test_the_keys_become_the_args() -> None:
    cluster = {
        "apiServer": {"authorizedIpRanges": ["203.0.113.0/24"], "disableRunCommand": True},
        "sshAccess": "Disabled",
        "imageCleaner": {"enabled": True, "intervalHours": 48},
        "monitoring": {"controlPlaneLogs": True},
    }
    cfg = validate_stack_config(config(cluster), stack_file="stacks/Pulumi.dev.yaml")
    args = aks_cluster_args(cfg, {})
    assert (args.disable_run_command, args.image_cleaner, args.image_cleaner_interval_hours) == (True, True, 48)
    assert (args.system_pool.ssh_access, args.control_plane_logs) == ("Disabled", True)
    assert [f.field for f in advisory_findings(args)] == ["network", "monitoring", "encryptionAtHost"]


@pytest.mark.parametrize("hours", [23, 2161])
def test_an_image_cleaner_interval_aks_refuses(hours: int) -> None:
    found = problems({"imageCleaner": {"enabled": True, "intervalHours": hours}})
    assert list(found) == ["cluster.imageCleaner.intervalHours"]


def test_ssh_access_takes_the_rest_enum() -> None:
    found = problems({"sshAccess": "EntraID"})
    assert list(found) == ["cluster.sshAccess"]
    assert "'LocalUser'" in found["cluster.sshAccess"] and "'Disabled'" in found["cluster.sshAccess"]


def test_the_component_refuses_an_interval_and_warns_with_the_definitions() -> None:
    with pytest.raises(InvalidArgsError) as err:
        AksGpuClusterArgs(
            "aks", "rg", "westeurope", "1.36", access=CI, image_cleaner=True, image_cleaner_interval_hours=12
        )
    assert [f.field for f in err.value.findings] == ["image_cleaner_interval_hours"]
    args = AksGpuClusterArgs(
        "aks", "rg", "westeurope", "1.36", access=CI, system_pool=SystemPoolSpec(ssh_access="LocalUser")
    )
    fields = [f.field for f in advisory_findings(args)]
    assert fields[:5] == ["apiServer", "disableRunCommand", "sshAccess", "imageCleaner", "diagnosticSetting"]
