"""Issue 20, defects 3 and 4: the deployer's principal type, and the auto-upgrade channel against the version pins.

Today is pinned to 2026-11-30 (tests/conftest.py): AKS's latest supported minor is 1.37 (GA Oct 2026), so ``rapid``
moves a 1.36 cluster to 1.37 and ``stable`` to 1.36; GPU operator v26.7.0 and the KAITO add-on table (0.6.0) are
validated up to 1.36. Values are asserted as the engine receives them (camelCase, ``ignoreChanges`` included).
"""

from __future__ import annotations

import copy
import json
from datetime import date
from typing import Any

import pytest

from components.aks_cluster import CHANNEL_OWNED_CLUSTER_PROPERTIES, AksGpuClusterArgs, ClusterAccess
from components.gpu_node_pool import GpuPoolSpec
from components.pool_scheduling import PoolGpuOperator
from components.validation import InvalidArgsError
from rules.access import DEPLOYER_PRINCIPAL_TYPES, deployer_principal_type
from rules.upgrade import (
    AUTO_UPGRADE_CHANNELS,
    channel_owns_version,
    channel_target_minor,
    upgrade_channel_range,
    validated_minors,
    version_pin_fits_channel,
)
from stack_config import StackConfigError, validate_stack_config
from tests.components.harness import (
    AGENT_POOL,
    MANAGED_CLUSTER,
    REPO_ROOT,
    ROLE_ASSIGNMENT,
    run_main,
    run_stack,
    stack_config,
)

T4 = {"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "minCount": 1, "maxCount": 2}
STACK = "stacks/Pulumi.dev.yaml"
TODAY = date(2026, 11, 30)
OPERATOR = "GPU operator v26.7.0 (NVIDIA's platform-support matrix)"


def stack(**top: Any) -> dict[str, Any]:
    """A stack file's keys as a team writes them (no test helper fills in the deployer)."""
    out: dict[str, Any] = {"environment": "dev", "location": "westeurope", "gpuPools": [T4]}
    out.update(copy.deepcopy(top))
    return out


def problems(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(data, stack_file=STACK)
    return {p.path: p.message for p in err.value.problems}


# ------------------------------------------------------------------------------------ defect 3: principal type

UNSET = (
    "required while the identity running pulumi up is granted Cluster Admin (grantDeployer, default true): left "
    "unset, pulumi-azure-native 3.29.0 sends principalType 'User' (the REST spec's default), and ARM refuses the role "
    "assignment with UnmatchedPrincipalType when a service principal or managed identity deploys. Allowed: User (a "
    "person signed in with az login) or ServicePrincipal (a service principal or managed identity, e.g. CI with "
    "OIDC); or grantDeployer: false when access is granted elsewhere."
)


def test_the_deployers_principal_type_is_required_naming_the_stack_file_key_and_the_allowed_values() -> None:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(stack(gpuOperator={"enabled": True}), stack_file=STACK)
    assert [(p.path, p.message) for p in err.value.problems] == [("cluster.access.deployerPrincipalType", UNSET)]
    assert f"  {STACK}: cluster.access.deployerPrincipalType: required while" in str(err.value)
    assert DEPLOYER_PRINCIPAL_TYPES == ("User", "ServicePrincipal")


def test_a_principal_type_that_cannot_deploy_is_refused_by_the_schema() -> None:
    found = problems(stack(cluster={"access": {"deployerPrincipalType": "Group"}}))
    assert list(found) == ["cluster.access.deployerPrincipalType"]
    assert "'User'" in found["cluster.access.deployerPrincipalType"]
    assert "'ServicePrincipal'" in found["cluster.access.deployerPrincipalType"]


def test_no_principal_type_is_needed_when_access_is_granted_elsewhere() -> None:
    cfg = validate_stack_config(stack(cluster={"access": {"grantDeployer": False}}), stack_file=STACK)
    assert cfg.cluster.access.deployerPrincipalType is None


@pytest.mark.parametrize("principal_type", ["ServicePrincipal", "User"])
def test_the_principal_type_on_the_wire_is_the_stack_files(principal_type: str) -> None:
    run = run_main(stack(cluster={"access": {"deployerPrincipalType": principal_type}}))
    assert run.error is None, run.error
    deployer = run.by_name("aks-access-deployer", ROLE_ASSIGNMENT)
    assert deployer.inputs["principalType"] == principal_type


@pytest.mark.parametrize(("name", "principal_type"), [("dev", "User"), ("staging", "ServicePrincipal")])
def test_the_shipped_stacks_send_their_deployers_principal_type(name: str, principal_type: str) -> None:
    """staging and prod are deployed by CI (a service principal); today's code sent 'User' for every stack."""
    run = run_stack(name)
    assert run.error is None, run.error
    assert run.by_name("aks-access-deployer", ROLE_ASSIGNMENT).inputs["principalType"] == principal_type
    assert stack_config(name)["azure-gpu-platform:cluster"]["access"]["deployerPrincipalType"] == principal_type


def test_prod_is_deployed_by_a_service_principal() -> None:
    assert stack_config("prod")["azure-gpu-platform:cluster"]["access"] == {"deployerPrincipalType": "ServicePrincipal"}


def test_the_component_args_refuse_the_same_with_the_same_words() -> None:
    with pytest.raises(InvalidArgsError) as err:
        AksGpuClusterArgs("aks", "rg", "westeurope", "1.36")
    assert [(f.field, f.message) for f in err.value.findings] == [("access.deployer_principal_type", UNSET)]
    with pytest.raises(InvalidArgsError) as err:
        AksGpuClusterArgs("aks", "rg", "westeurope", "1.36", access=ClusterAccess(deployer_principal_type="Group"))
    [finding] = err.value.findings
    assert finding.message.startswith("'Group' cannot run pulumi up")
    # granted elsewhere: nothing to say
    AksGpuClusterArgs("aks", "rg", "westeurope", "1.36", access=ClusterAccess(grant_deployer=False))


def test_the_rule_is_one_function() -> None:
    assert deployer_principal_type(False, None) == []
    assert deployer_principal_type(True, "ServicePrincipal") == []
    assert [f.message for f in deployer_principal_type(True, None)] == [UNSET]


# ------------------------------------------------------------------------------------ defect 4: channel vs pins


def test_the_minor_each_channel_moves_a_136_cluster_to_today() -> None:
    assert {c: channel_target_minor(c, "1.36", TODAY) for c in AUTO_UPGRADE_CHANNELS} == {
        "rapid": "1.37",
        "stable": "1.36",
        "patch": "1.36",
        "node-image": "1.36",
        "none": "1.36",
    }
    # stable is N-1 of the latest supported minor, never a downgrade; a cluster on 1.35 moves to 1.36
    assert channel_target_minor("stable", "1.35", TODAY) == "1.36"
    assert channel_target_minor("stable", "1.37", TODAY) == "1.37"
    assert [c for c in AUTO_UPGRADE_CHANNELS if channel_owns_version(c)] == ["rapid", "stable"]


def test_validated_minors_name_the_pinned_software() -> None:
    assert validated_minors(gpu_operator_version="v26.7.0", kaito_addon=True) == {
        OPERATOR: "1.36",
        "the KAITO add-on 0.6.0 (AKS add-on table, gpu_catalog/facts/kaito_addon.json)": "1.36",
    }
    assert validated_minors() == {}


RAPID = (
    "'rapid' moves this cluster to Kubernetes 1.37 today (2026-11-30): it follows the latest minor AKS supports "
    "(N = 1.37), and AKS upgrades the control plane and then every node pool. But GPU operator v26.7.0 (NVIDIA's "
    "platform-support matrix) is validated up to 1.36: the cluster would run it unvalidated on 1.37, and a program "
    "still pinning 1.36 would ask AKS for a downgrade. Allowed today: none, patch, stable, node-image; or pin "
    "software validated on 1.37."
)


def test_the_old_dev_stack_rapid_with_136_pins_and_the_operator_is_refused_with_the_reason() -> None:
    old_dev = stack_config("dev")
    old_dev["azure-gpu-platform:cluster"]["autoUpgradeChannel"] = "rapid"  # what dev said before issue 20
    config = {key.split(":", 1)[1]: value for key, value in old_dev.items() if key.startswith("azure-gpu-platform:")}
    config["gpuPools"][0]["orchestratorVersion"] = "1.36"
    config["gpuOperator"] = {"enabled": True}  # dev ran the GPU operator before issue 20 too
    found = problems(config)
    assert found == {"cluster.autoUpgradeChannel": RAPID}


def test_rapid_without_pinned_gpu_software_is_accepted() -> None:
    cfg = validate_stack_config(
        stack(cluster={"autoUpgradeChannel": "rapid", "access": {"deployerPrincipalType": "User"}}), stack_file=STACK
    )
    assert cfg.cluster.autoUpgradeChannel == "rapid"


def test_the_kaito_add_on_table_bounds_the_channel_too() -> None:
    found = problems(
        stack(
            gpuPools=[],
            cluster={"autoUpgradeChannel": "rapid", "kaitoAddon": True, "access": {"deployerPrincipalType": "User"}},
        )
    )
    assert list(found) == ["cluster.autoUpgradeChannel"]
    assert (
        "the KAITO add-on 0.6.0 (AKS add-on table, gpu_catalog/facts/kaito_addon.json) is validated up to 1.36"
        in (found["cluster.autoUpgradeChannel"])
    )


PATCH_PIN = (
    "'1.36.2' pins a patch, but autoUpgradeChannel 'patch' moves the cluster to newer patches: once AKS has, the "
    "next pulumi up sends 1.36.2 again, a downgrade AKS refuses. Pin the minor ('1.36': AKS runs its latest patch and "
    "reports it in currentKubernetesVersion), or use autoUpgradeChannel none or node-image."
)


def test_a_patch_pin_with_a_channel_that_moves_patches_is_refused() -> None:
    access = {"deployerPrincipalType": "User"}
    found = problems(
        stack(
            cluster={"kubernetesVersion": "1.36.2", "autoUpgradeChannel": "patch", "access": access},
            gpuPools=[{**T4, "orchestratorVersion": "1.36.2"}],
        )
    )
    assert found == {"cluster.kubernetesVersion": PATCH_PIN, "gpuPools[0].orchestratorVersion": PATCH_PIN}
    for channel in ("none", "node-image"):
        cluster = {"kubernetesVersion": "1.36.2", "autoUpgradeChannel": channel, "access": access}
        assert validate_stack_config(stack(cluster=cluster), stack_file=STACK).cluster.kubernetesVersion == "1.36.2"
    assert version_pin_fits_channel("1.36", "patch") == []


def test_the_rule_takes_any_software_mapping() -> None:
    """Another engineer adds the device-plugin chart's range: one more entry in the mapping."""
    [finding] = upgrade_channel_range("rapid", "1.36", {"nvidia-device-plugin v0.17.1": "1.36"}, today=TODAY)
    assert "nvidia-device-plugin v0.17.1 is validated up to 1.36" in finding.message
    assert upgrade_channel_range("rapid", "1.36", {"nvidia-device-plugin v0.17.1": "1.37"}, today=TODAY) == []


def test_the_component_args_refuse_rapid_with_the_same_words() -> None:
    pool = GpuPoolSpec(
        name="t4",
        vm_size="Standard_NC4as_T4_v3",
        driver_skipped=True,
        gpu_operator=PoolGpuOperator(version="v26.7.0", installs_driver=True),
    )
    with pytest.raises(InvalidArgsError) as err:
        AksGpuClusterArgs(
            "aks",
            "rg",
            "westeurope",
            "1.36",
            auto_upgrade_channel="rapid",
            access=ClusterAccess(deployer_principal_type="ServicePrincipal"),
            gpu_pools=[pool],
        )
    assert [(f.field, f.message) for f in err.value.findings] == [("auto_upgrade_channel", RAPID)]


# ------------------------------------------------------------------------------------ the channel owns the version


def test_stable_owns_the_version_ignore_changes_on_the_wire() -> None:
    """staging (stable): drift AKS makes on the versions is ignored, so pulumi up never asks for a downgrade."""
    run = run_stack("staging")
    assert run.error is None, run.error
    cluster = run.one(MANAGED_CLUSTER)
    assert cluster.inputs["autoUpgradeProfile"]["upgradeChannel"] == "stable"
    assert cluster.ignore_changes == ["kubernetesVersion", "agentPoolProfiles[0].orchestratorVersion"]
    assert list(CHANNEL_OWNED_CLUSTER_PROPERTIES) == cluster.ignore_changes
    assert cluster.inputs["kubernetesVersion"] == cluster.inputs["agentPoolProfiles"][0]["orchestratorVersion"]
    [pool] = run.of_type(AGENT_POOL)
    assert pool.ignore_changes == ["orchestratorVersion"]  # a fixed pool: no "count"


def test_patch_leaves_the_versions_to_the_program() -> None:
    run = run_stack("dev")
    assert run.error is None, run.error
    cluster = run.one(MANAGED_CLUSTER)
    assert cluster.inputs["autoUpgradeProfile"]["upgradeChannel"] == "patch"
    assert cluster.ignore_changes == []
    [pool] = run.of_type(AGENT_POOL)
    assert pool.ignore_changes == ["count"]  # the autoscaler owns the count; the version stays pinned


def test_the_constants_agree_with_the_facts_files() -> None:
    access = json.loads((REPO_ROOT / "gpu_catalog" / "facts" / "aks_access.json").read_text(encoding="utf-8"))
    assert tuple(access["deployerPrincipalTypes"]["allowed"]) == DEPLOYER_PRINCIPAL_TYPES
    upgrade = json.loads((REPO_ROOT / "gpu_catalog" / "facts" / "aks_upgrade.json").read_text(encoding="utf-8"))
    assert set(upgrade["channels"]) == set(AUTO_UPGRADE_CHANNELS)
    assert {s["repository"] for s in upgrade["sources"]} >= {"MicrosoftDocs/azure-aks-docs"}
