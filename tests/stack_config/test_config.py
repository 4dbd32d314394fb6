"""Stack config validation: a compliant baseline, one mutation, one expected problem at one key path.

Every invalid config runs through the real program (``__main__.py``) under mocks: it must stop with
``StackConfigError`` naming the stack file and the key path, and register no resource at all.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from stack_config import (
    DEFAULT_GPU_TAINT,
    STACK_FILE_ENV,
    StackConfig,
    StackConfigError,
    config_from_stack_yaml,
    validate_stack_config,
)
from tests.components.harness import STACKS_DIR, run_main

BASE: dict[str, Any] = {
    "environment": "dev",
    "location": "westeurope",
    "gpuPools": [{"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "minCount": 1, "maxCount": 2}],
    "gpuOperator": {"enabled": True},
    "cluster": {"access": {"deployerPrincipalType": "ServicePrincipal"}},  # CI deploys as a service principal
}


def mutate(**changes: Any) -> dict[str, Any]:
    """BASE with dotted-path changes, e.g. ``mutate(**{"gpuPools.0.vmSize": "x"})``; value ``DELETE`` removes."""
    cfg = copy.deepcopy(BASE)
    for dotted, value in changes.items():
        parts = dotted.split(".")
        target: Any = cfg
        for part in parts[:-1]:
            target = target[int(part)] if isinstance(target, list) else target.setdefault(part, {})
        last = parts[-1]
        if value is DELETE:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return cfg


DELETE = object()

WIN = {"name": "win", "os": "Windows", "vmSize": "Standard_NC4as_T4_v3", "count": 1}

# (id, config, key path, words the message must contain)
INVALID: list[tuple[str, dict[str, Any], str, str]] = [
    ("unknown-top-level-key", mutate(gpuPool=[]), "gpuPool", "unknown key. Allowed keys here: environment"),
    ("unknown-pool-key", mutate(**{"gpuPools.0.vmsize": "x"}), "gpuPools[0].vmsize", "Allowed keys here: name, vmSize"),
    ("missing-environment", mutate(environment=DELETE), "environment", "required key is missing"),
    ("missing-vm-size", mutate(**{"gpuPools.0.vmSize": DELETE}), "gpuPools[0].vmSize", "required key is missing"),
    ("location-display-name", mutate(location="West Europe"), "location", "is a display name; write westeurope"),
    ("k8s-version", mutate(**{"cluster.kubernetesVersion": "latest"}), "cluster.kubernetesVersion", "'1.36'"),
    ("system-pool-one-node", mutate(**{"cluster.systemPool.count": 1}), "cluster.systemPool.count", "2"),
    (
        "system-pool-gpu-size",
        mutate(**{"cluster.systemPool.vmSize": "Standard_NC4as_T4_v3"}),
        "cluster.systemPool.vmSize",
        "is a GPU size",
    ),
    ("sku-tier", mutate(**{"cluster.skuTier": "Gold"}), "cluster.skuTier", "'Free', 'Standard' or 'Premium'"),
    (
        "cost-analysis-free-tier",
        mutate(**{"cluster.costAnalysis": True, "cluster.skuTier": "Free"}),
        "cluster.skuTier",
        "only on the Standard and Premium tiers",
    ),
    (
        "kaito-without-oidc",
        mutate(**{"cluster.kaitoAddon": True, "cluster.oidcIssuer": False}),
        "cluster.oidcIssuer",
        "the KAITO add-on is on but the OIDC issuer is off",
    ),
    ("nvv4", mutate(**{"gpuPools.0.vmSize": "Standard_NV32as_v4"}), "gpuPools[0].vmSize", "NVv4 size"),
    ("retired", mutate(**{"gpuPools.0.vmSize": "Standard_NC6s_v3"}), "gpuPools[0].vmSize", "was retired"),
    ("below-floor", mutate(**{"gpuPools.0.vmSize": "Standard_NV6ads_A10_v5"}), "gpuPools[0].vmSize", "below the GPU"),
    (
        "unknown-size",
        mutate(**{"gpuPools.0.vmSize": "Standard_NC4as_T5_v3"}),
        "gpuPools[0].vmSize",
        "not a GPU size in",
    ),
    ("cpu-size", mutate(**{"gpuPools.0.vmSize": "Standard_D4s_v5"}), "gpuPools[0].vmSize", "is not a GPU size"),
    (
        "aks-unsupported",
        mutate(**{"gpuPools.0.vmSize": "Standard_NG32ads_V620_v1"}),
        "gpuPools[0].vmSize",
        "not supported for AKS",
    ),
    ("mig-on-t4", mutate(**{"gpuPools.0.migProfile": "MIG1g"}), "gpuPools[0].migProfile", "needs a MIG-capable GPU"),
    (
        "mig-profile-name",
        mutate(**{"gpuPools.0.migProfile": "MIG5g"}),
        "gpuPools[0].migProfile",
        "Allowed: MIG1g, MIG2g, MIG3g, MIG4g, MIG7g",
    ),
    ("windows-name-7", mutate(gpuPools=[{**WIN, "name": "wingpu1"}]), "gpuPools[0].name", "Windows node pool names"),
    ("linux-name-13", mutate(**{"gpuPools.0.name": "inferencet4ab"}), "gpuPools[0].name", "Use at most 12"),
    ("name-uppercase", mutate(**{"gpuPools.0.name": "T4"}), "gpuPools[0].name", "lowercase letters and digits"),
    ("operator-min-count-0", mutate(**{"gpuPools.0.minCount": 0}), "gpuPools[0].minCount", "Azure/AKS #2832"),
    (
        "time-slicing-and-mps",
        mutate(**{"gpuPools.0.sharing": {"timeSlicing": {"replicas": 2}, "mps": {"replicas": 2}}}),
        "gpuPools[0].sharing",
        "mutually exclusive",
    ),
    (
        "mps-on-mig",
        mutate(
            **{
                "gpuPools.0.vmSize": "Standard_NC24ads_A100_v4",
                "gpuPools.0.migProfile": "MIG2g",
                "gpuPools.0.sharing": {"mps": {"replicas": 2}},
            }
        ),
        "gpuPools[0].sharing.mps",
        "MPS cannot be combined with MIG",
    ),
    (
        "windows-driver-skipped",
        mutate(gpuPools=[{**WIN, "driver": "operator"}]),
        "gpuPools[0].driver",
        "a Windows GPU pool must keep the AKS driver install",
    ),
    (
        "windows-old-k8s",
        mutate(gpuPools=[{**WIN, "orchestratorVersion": "1.28"}]),
        "gpuPools[0].orchestratorVersion",
        "Kubernetes 1.28 is older than every version this project tracks",
    ),
    (
        "windows-sharing",
        mutate(gpuPools=[{**WIN, "sharing": {"timeSlicing": {"replicas": 2}}}]),
        "gpuPools[0].sharing",
        "runs on Linux only: Windows GPU nodes use AKS's DirectX device plugin",
    ),
    ("min-above-max", mutate(**{"gpuPools.0.minCount": 3}), "gpuPools[0].minCount", "greater than maxCount 2"),
    ("count-and-autoscale", mutate(**{"gpuPools.0.count": 2}), "gpuPools[0].count", "not both"),
    ("bad-taint", mutate(**{"gpuPools.0.taints": ["sku=gpu"]}), "gpuPools[0].taints[0]", "key=value:Effect"),
    (
        "duplicate-pool-name",
        mutate(gpuPools=[BASE["gpuPools"][0], BASE["gpuPools"][0]]),
        "gpuPools[1].name",
        "already used by gpuPools[0]",
    ),
    (
        "driver-operator-without-operator",
        mutate(**{"gpuOperator.enabled": False, "gpuPools.0.driver": "operator"}),
        "gpuPools[0].driver",
        "no NVIDIA GPU operator runs on its cluster, so nothing installs a driver",
    ),
    (
        "mixed-driver-modes",
        mutate(
            gpuPools=[
                {"name": "a", "vmSize": "Standard_NC4as_T4_v3", "driver": "operator"},
                {"name": "b", "vmSize": "Standard_NC4as_T4_v3", "driver": "aks"},
            ]
        ),
        "gpuPools[1].driver",
        "the pool keeps the AKS driver while the GPU operator also installs one",
    ),
    (
        "budget-level",
        mutate(budget={"monthlyUsd": 100, "enforcementLevel": "strict"}),
        "budget.enforcementLevel",
        "must be one of advisory, mandatory, got 'strict'",
    ),
    ("budget-negative", mutate(budget={"monthlyUsd": -5}), "budget.monthlyUsd", "greater than 0"),
    ("policy-level", mutate(policy={"gpu-size-known": "fatal"}), "policy.gpu-size-known", "'advisory', 'mandatory'"),
    (
        "policy-floor-unknown",
        mutate(policy={"gpu-size-minimum": {"minimumSize": "Standard_X1"}}),
        "policy.gpu-size-minimum.minimumSize",
        "not a catalog size",
    ),
    ("operator-version", mutate(**{"gpuOperator.version": "25.3"}), "gpuOperator.version", "'v26.7.0'"),
    (
        "mps-replicas",
        mutate(**{"gpuPools.0.sharing": {"mps": {"replicas": 100}}}),
        "gpuPools[0].sharing.mps.replicas",
        "48",
    ),
    ("max-pods", mutate(**{"gpuPools.0.maxPods": 5}), "gpuPools[0].maxPods", "greater than or equal to 10"),
    (
        "windows-linux-os-sku",
        mutate(gpuPools=[{**WIN, "osSku": "Ubuntu"}]),
        "gpuPools[0].osSku",
        "allowed for Windows: Windows2022",
    ),
    (
        "azure-name-collision",
        # Windows names keep 3 characters + 3 hex: these two logical names hash to the same Azure name 'gpue27' (managed
        # OS disks: an ephemeral one, the NC4as_T4_v3 default, is part of the hash).
        mutate(gpuPools=[{**WIN, "name": n, "osDiskType": "Managed"} for n in ("gpucm", "gpueg")]),
        "gpuPools[1].name",
        "derived Azure pool name 'gpue27' collides with gpuPools[0]",
    ),
    ("existing-rg-unnamed", mutate(resourceGroup={"existing": True}), "resourceGroup.name", "must be named"),
]


def test_baseline_is_valid() -> None:
    cfg = validate_stack_config(BASE, stack_file="stacks/Pulumi.dev.yaml")
    assert cfg.pool_taints(cfg.gpuPools[0]) == [DEFAULT_GPU_TAINT]
    assert cfg.pool_driver(cfg.gpuPools[0]) == "operator"
    assert cfg.gpuPools[0].effective_min_count == 1


def test_at_least_twenty_distinct_invalid_configs() -> None:
    assert len({case[0] for case in INVALID}) == len(INVALID) >= 20
    assert len({yaml.safe_dump(case[1]) for case in INVALID}) == len(INVALID)


@pytest.mark.parametrize(("config", "path", "words"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_invalid_config_is_rejected_before_any_resource(config: dict[str, Any], path: str, words: str) -> None:
    run = run_main(config, stack="dev")
    assert isinstance(run.error, StackConfigError), run.error
    assert run.records == [], "nothing may be registered when the config is invalid"
    assert path in run.error.paths
    line = next(line for line in str(run.error).splitlines() if f"stacks/Pulumi.dev.yaml: {path}: " in line)
    assert words in line


def test_every_problem_is_reported_at_once() -> None:
    config = mutate(
        **{
            "gpuPools.0.vmSize": "Standard_NV32as_v4",
            "gpuPools.0.minCount": 0,
            "gpuPools.0.sharing": {"timeSlicing": {"replicas": 2}, "mps": {"replicas": 2}},
        }
    )
    with pytest.raises(StackConfigError) as info:
        validate_stack_config(config, stack_file="stacks/Pulumi.dev.yaml")
    assert {"gpuPools[0].vmSize", "gpuPools[0].minCount", "gpuPools[0].sharing"} <= set(info.value.paths)
    body = str(info.value).splitlines()[1:]
    assert len(body) == len(info.value.problems)
    assert all(line.strip().startswith("stacks/Pulumi.dev.yaml: gpuPools[0].") for line in body)


def test_stack_file_comes_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STACK_FILE_ENV, "/tmp/custom/Pulumi.qa.yaml")
    run = run_main(mutate(**{"gpuPools.0.minCount": 0}), stack="qa")
    assert isinstance(run.error, StackConfigError)
    assert "/tmp/custom/Pulumi.qa.yaml: gpuPools[0].minCount: must be ≥ 1" in str(run.error)


def test_stack_name_is_in_the_file_name() -> None:
    run = run_main(mutate(**{"gpuPools.0.minCount": 0}), stack="staging")
    assert isinstance(run.error, StackConfigError)
    assert run.error.stack_file == "stacks/Pulumi.staging.yaml"


MINIMAL_CLUSTER = {"access": {"deployerPrincipalType": "User"}}
"""A minimal stack names who deploys it (rules.access.deployer_principal_type: no silent 'User')."""


def test_minimal_stack_file_is_short_and_has_secure_defaults() -> None:
    cfg = validate_stack_config(
        {"environment": "qa", "location": "eastus2", "cluster": MINIMAL_CLUSTER}, stack_file="x"
    )
    assert cfg.cluster_name == "aks-gpu-qa"
    assert cfg.resource_group_name == "rg-gpu-qa"
    assert cfg.cluster.oidcIssuer and cfg.cluster.workloadIdentity
    assert cfg.cluster.systemPool.count == 2
    assert cfg.protect is False
    prod = {"environment": "prod", "location": "eastus2", "cluster": MINIMAL_CLUSTER}
    assert validate_stack_config(prod, stack_file="x").protect is True


def test_a_left_out_section_is_its_model_with_every_default_and_nothing_set() -> None:
    """``stack_config.base.empty_section``: a section the file leaves out is validated as ``{}`` by the enclosing
    model: an instance of the section's model, equal to validating ``{}`` on its own, with no key marked as set."""
    cfg = validate_stack_config(
        {"environment": "qa", "location": "eastus2", "cluster": MINIMAL_CLUSTER}, stack_file="x"
    )
    left_out = {
        "resourceGroup": cfg.resourceGroup,
        "gpuOperator": cfg.gpuOperator,
        "devicePlugin": cfg.devicePlugin,
        "kaito": cfg.kaito,
        "azurePolicy": cfg.azurePolicy,
        "monitoring": cfg.monitoring,
        "cluster.systemPool": cfg.cluster.systemPool,
        "cluster.apiServer": cfg.cluster.apiServer,
        "cluster.network": cfg.cluster.network,
        "cluster.monitoring": cfg.cluster.monitoring,
        "cluster.secretsStore": cfg.cluster.secretsStore,
        "monitoring.alerts": cfg.monitoring.alerts,
        "monitoring.actionGroup": cfg.monitoring.actionGroup,
    }
    for key, section in left_out.items():
        assert section.model_fields_set == set(), key
        assert section == type(section).model_validate({}), key
    assert cfg.model_fields_set == {"environment", "location", "cluster"}
    assert cfg.cluster.model_fields_set == {"access"}
    assert cfg.gpuOperator.enabled is False and cfg.kaito.workspaces == [] and cfg.azurePolicy.enabled is False


def test_operator_unmanaged_pool_may_scale_from_zero() -> None:
    cfg = validate_stack_config(
        mutate(**{"gpuOperator.enabled": False, "gpuPools.0.minCount": 0}), stack_file="stacks/Pulumi.dev.yaml"
    )
    assert cfg.gpuPools[0].effective_min_count == 0
    assert cfg.pool_driver(cfg.gpuPools[0]) == "aks"


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_committed_stack_files_validate(stack: str) -> None:
    doc = yaml.safe_load((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))
    cfg = validate_stack_config(config_from_stack_yaml(doc["config"]), stack_file=f"stacks/Pulumi.{stack}.yaml")
    assert isinstance(cfg, StackConfig)
    assert cfg.environment == stack
    assert doc["config"]["azure-native:location"] == cfg.location


def test_stack_shapes() -> None:
    def load(stack: str) -> StackConfig:
        doc = yaml.safe_load((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))
        return validate_stack_config(config_from_stack_yaml(doc["config"]), stack_file=stack)

    dev, prod = load("dev"), load("prod")
    assert [(p.vmSize, p.sharing_mode) for p in dev.gpuPools] == [("Standard_NC4as_T4_v3", "timeSlicing")]
    sizes = {p.vmSize for p in prod.gpuPools}
    assert {"Standard_NC24ads_A100_v4", "Standard_ND96isr_H100_v5"} <= sizes
    assert any(p.migProfile for p in prod.gpuPools)
    assert prod.gpuOperator.enabled and prod.cluster.costAnalysis and prod.protect


def test_mig_profile_is_read_as_aks_reads_it() -> None:
    # AKS compares enum strings case-insensitively (Azure/azure-rest-api-specs#20955): mig2g is accepted, and the
    # stack config carries AKS's own spelling from then on (what the pool sends, the MIG labels, the contract).
    cfg = validate_stack_config(
        mutate(**{"gpuPools.0.vmSize": "Standard_NC24ads_A100_v4", "gpuPools.0.migProfile": "mig2g"}),
        stack_file="stacks/Pulumi.dev.yaml",
    )
    assert cfg.gpuPools[0].migProfile == "MIG2g"


# Issue 29: each hardening setting refused with its key and the allowed values.
HARDENING_INVALID: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "malformed-cidr",
        mutate(**{"cluster.apiServer": {"authorizedIpRanges": ["203.0.113.0/24", "10.0.0.300/8"]}}),
        "cluster.apiServer.authorizedIpRanges[1]",
        "is not a CIDR: write an IPv4 range like '203.0.113.0/24'",
    ),
    (
        "cidr-host-bits",
        mutate(**{"cluster.apiServer": {"authorizedIpRanges": ["203.0.113.9/24"]}}),
        "cluster.apiServer.authorizedIpRanges[0]",
        "AKS wants the network address, '203.0.113.0/24'",
    ),
    (
        "ranges-on-private-cluster",
        mutate(**{"cluster.apiServer": {"authorizedIpRanges": ["203.0.113.0/24"], "privateCluster": True}}),
        "cluster.apiServer.authorizedIpRanges",
        "cannot be used with a private cluster",
    ),
    (
        "policy-needs-cilium-dataplane",
        mutate(**{"cluster.network": {"dataplane": "azure", "policy": "cilium"}}),
        "cluster.network.policy",
        "Allowed with dataplane 'azure': none, azure, calico",
    ),
    (
        "cilium-dataplane-calico",
        mutate(**{"cluster.network": {"dataplane": "cilium", "policy": "calico"}}),
        "cluster.network.policy",
        "Allowed with dataplane 'cilium': cilium",
    ),
    (
        "policy-engine-unknown",
        mutate(**{"cluster.network": {"policy": "weave"}}),
        "cluster.network.policy",
        "'none', 'calico', 'azure' or 'cilium'",
    ),
    (
        "ephemeral-os-too-small",
        mutate(**{"gpuPools.0.vmSize": "Standard_NC24ads_A100_v4", "gpuPools.0.osDiskType": "Ephemeral"}),
        "gpuPools[0].osDiskType",
        "an ephemeral OS disk does not fit. Allowed: Managed",
    ),
    (
        "rotation-interval",
        mutate(**{"cluster.secretsStore": {"enabled": True, "rotationPollInterval": "soon"}}),
        "cluster.secretsStore.rotationPollInterval",
        "is not a duration",
    ),
    (
        "workspace-id",
        mutate(**{"cluster.monitoring": {"containerInsights": True, "logAnalyticsWorkspaceId": "my-ws"}}),
        "cluster.monitoring.logAnalyticsWorkspaceId",
        "must be a Log Analytics workspace resource id",
    ),
]


@pytest.mark.parametrize(
    ("config", "path", "words"), [c[1:] for c in HARDENING_INVALID], ids=[c[0] for c in HARDENING_INVALID]
)
def test_hardening_settings_are_refused_with_key_and_allowed_values(
    config: dict[str, Any], path: str, words: str
) -> None:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(config, stack_file="stacks/Pulumi.dev.yaml")
    assert path in err.value.paths
    line = next(line for line in str(err.value).splitlines() if f"stacks/Pulumi.dev.yaml: {path}: " in line)
    assert words in line


def test_encryption_at_host_on_a_size_without_it_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """No catalog size has a sourced ``false`` today (Microsoft publishes no per-size list): a size whose facts say
    false is refused with the reason, in the stack config and in the pool's Args alike."""
    from gpu_catalog.node_disks import NodeDisks
    from rules import checklists

    monkeypatch.setattr(checklists, "node_disks", lambda size: NodeDisks(encryption_at_host=False))
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(mutate(**{"gpuPools.0.encryptionAtHost": True}), stack_file="stacks/Pulumi.dev.yaml")
    expected = (
        "stacks/Pulumi.dev.yaml: gpuPools[0].encryptionAtHost: Standard_NC4as_T4_v3 does not support encryption at "
        "host. Allowed: false"
    )
    assert expected in str(err.value)
