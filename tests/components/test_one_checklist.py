"""One checklist per pool: the stack config, the component Args and the component package refuse the same bad pool
with the same rule and the same message (``rules/checklists.py``), whichever door the pool comes in by."""

from __future__ import annotations

from typing import Any

import pytest

from component_package.args import pool_spec
from components.gpu_node_pool import GpuPoolSpec
from components.nap_pool import NapGpuPoolArgs
from components.pool_scheduling import GpuSharing, shared_scheduling
from components.validation import InvalidArgsError
from rules.aks import MPS_MAX_REPLICAS, TIME_SLICING_MAX_REPLICAS, sharing_replicas
from rules.checklists import AksGpuPoolFacts, NapGpuPoolFacts, aks_gpu_pool, nap_gpu_pool
from rules.node_stack import Sharing
from stack_config import StackConfigError, validate_stack_config
from tests.conftest import TODAY

STACK_FILE = "stacks/Pulumi.dev.yaml"
T4 = "Standard_NC4as_T4_v3"
A100 = "Standard_NC24ads_A100_v4"


def stack(pool: dict[str, Any], *, operator: bool = True) -> dict[str, Any]:
    return {
        "environment": "dev",
        "location": "westeurope",
        "gpuPools": [pool],
        "gpuOperator": {"enabled": operator},
        "cluster": {"access": {"deployerPrincipalType": "ServicePrincipal"}},
    }


def stack_refusal(pool: dict[str, Any], path: str) -> list[str]:
    """The messages the stack config gives at ``path``."""
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(stack(pool), stack_file=STACK_FILE)
    return [p.message for p in err.value.problems if p.path == path]


def args_refusal(build: Any) -> list[str]:
    """The messages a component's Args (or the package's translation to them) give."""
    with pytest.raises(InvalidArgsError) as err:
        build()
    return [f.message for f in err.value.findings]


# (id, stack-file pool, GpuPoolSpec kwargs, package GpuPool, key path, the rule's message)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], str, str]] = [
    (
        "mps-replicas-0",
        {"name": "t4", "vmSize": T4, "count": 1, "sharing": {"mps": {"replicas": 0}}},
        {"name": "t4", "vm_size": T4, "sharing": ("mps", 0)},
        {"name": "t4", "vm_size": T4, "sharing": {"mode": "mps", "replicas": 0}},
        "gpuPools[0].sharing.mps.replicas",
        sharing_replicas("mps", 0)[0].message,
    ),
    (
        "time-slicing-replicas-100",
        {"name": "t4", "vmSize": T4, "count": 1, "sharing": {"timeSlicing": {"replicas": 100}}},
        {"name": "t4", "vm_size": T4, "sharing": ("timeSlicing", 100)},
        {"name": "t4", "vm_size": T4, "sharing": {"mode": "timeSlicing", "replicas": 100}},
        "gpuPools[0].sharing.timeSlicing.replicas",
        sharing_replicas("timeSlicing", 100)[0].message,
    ),
    (
        "mig-profile-on-a-t4",
        {"name": "t4", "vmSize": T4, "count": 1, "migProfile": "MIG1g"},
        {"name": "t4", "vm_size": T4, "mig_profile": "MIG1g"},
        {"name": "t4", "vm_size": T4, "mig_profile": "MIG1g"},
        "gpuPools[0].migProfile",
        next(
            f.message
            for f in aks_gpu_pool(AksGpuPoolFacts(name="t4", vm_size=T4, mig_profile="MIG1g"), today=TODAY)
            if f.field == "migProfile"
        ),
    ),
    (
        "windows-mig-pool",
        {"name": "win", "os": "Windows", "vmSize": A100, "count": 1, "migProfile": "MIG3g"},
        {"name": "win", "os": "Windows", "vm_size": A100, "mig_profile": "MIG3g"},
        {"name": "win", "os": "Windows", "vm_size": A100, "mig_profile": "MIG3g"},
        "gpuPools[0].migProfile",
        "MIG profiles are not supported on Windows GPU pools.",
    ),
]


def _spec(kwargs: dict[str, Any]) -> GpuPoolSpec:
    kwargs = dict(kwargs)
    if "sharing" in kwargs:
        mode, replicas = kwargs.pop("sharing")
        kwargs["sharing"] = GpuSharing(mode=mode, replicas=replicas)
    return GpuPoolSpec(**kwargs)


@pytest.mark.parametrize(
    ("config", "args", "package", "path", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_three_entry_points_refuse_with_the_same_rule(
    config: dict[str, Any], args: dict[str, Any], package: dict[str, Any], path: str, message: str
) -> None:
    assert message in stack_refusal(config, path)
    assert message in args_refusal(lambda: _spec(args))
    assert message in args_refusal(lambda: pool_spec(package))  # type: ignore[arg-type]


def test_the_replica_bounds_are_the_rules() -> None:
    assert sharing_replicas("mps", 2) == [] and sharing_replicas("mps", MPS_MAX_REPLICAS) == []
    assert sharing_replicas("timeSlicing", TIME_SLICING_MAX_REPLICAS) == []
    assert sharing_replicas("mps", 49)[0].message == "49 workloads per GPU is outside what mps serves. Allowed: 2..48."
    assert sharing_replicas("timeSlicing", 1)[0].field == "sharing.timeSlicing.replicas"


def test_zero_replicas_are_refused_before_any_division() -> None:
    """``shared_scheduling`` divides by the replicas: a GpuSharing with 0 never gets that far."""
    with pytest.raises(InvalidArgsError) as err:
        shared_scheduling("nvidia.com/gpu", GpuSharing(mode="mps", replicas=0))
    assert (
        str(err.value).splitlines()[1] == "  replicas: 0 workloads per GPU is outside what mps serves. Allowed: 2..48."
    )


def test_a_nap_pool_gets_its_checklist_through_the_args_too() -> None:
    """The NodePool CRD's restricted label domains used to be refused by the stack config only."""
    expected = "the NodePool CRD restricts the label domain 'karpenter.sh'."
    facts = NapGpuPoolFacts(name="gpu", sizes=(T4,), labels={"karpenter.sh/foo": "x"}, manager="gpu-operator")
    assert any(f.message == expected for f in nap_gpu_pool(facts, today=TODAY))
    messages = args_refusal(
        lambda: NapGpuPoolArgs(
            name="gpu", sizes=(T4,), gpu_limit=4, location="westeurope", labels={"karpenter.sh/foo": "x"}
        )
    )
    assert expected in messages


def test_the_checklist_facts_carry_the_rule_sharing() -> None:
    spec = GpuPoolSpec(
        name="t4", vm_size=T4, sharing=GpuSharing(mode="timeSlicing", replicas=4), external_device_plugin=True
    )
    assert spec.checklist.sharing == Sharing("timeSlicing", 4, False)
