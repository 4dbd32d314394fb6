"""Every stack in ``stacks/`` passes the policy pack over the wire: the resources the real program registers under
mocks are sent to the pack process through the analyzer gRPC protocol (``preflight.analyzer``), as
``pulumi preview --policy-pack policies`` would send them, with the stack's own ``policy`` config."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest

from preflight.analyzer.protocol import PackResult
from preflight.model import RecordedResource
from stack_config import config_from_stack_yaml, validate_stack_config
from tests.components.harness import AGENT_POOL, REPO_ROOT, Run, engine_urns, run_stack, stack_config
from tests.shared_runs import run_session_pack

PACK_DIR: Path = REPO_ROOT / "policies"
STACKS = sorted(p.name.split(".")[1] for p in (REPO_ROOT / "stacks").glob("Pulumi.*.yaml"))


def recorded(run: Run) -> list[RecordedResource]:
    assert run.error is None, run.error
    urns = engine_urns(run)

    def provider_ref(ref: str) -> str | None:
        if not ref:
            return None
        urn, _, ident = ref.rpartition("::")
        return f"{urns.get(urn, urn)}::{ident}"

    return [
        RecordedResource(
            urn=urns[r.urn],
            type=r.type,
            name=r.name,
            inputs=r.inputs,
            parent=urns.get(r.parent),
            custom=r.custom,
            provider=provider_ref(r.provider),
            dependencies=[urns.get(d, d) for d in r.dependencies],
            protect=r.protect,
        )
        for r in run.records
    ]


def check(stack: str, resources: list[RecordedResource]) -> PackResult:
    cfg = validate_stack_config(config_from_stack_yaml(stack_config(stack)), stack_file=f"stacks/Pulumi.{stack}.yaml")
    return run_session_pack(resources, policy_config=dict(cfg.policy))  # the pack reads no stack name


def test_all_three_stacks_exist() -> None:
    assert STACKS == ["dev", "prod", "staging"]


@pytest.mark.slow
@pytest.mark.parametrize("stack", STACKS)
def test_stack_passes_the_policy_pack(stack: str) -> None:
    resources = recorded(run_stack(stack))
    result = check(stack, resources)
    assert result.pack_name == "azure-gpu-guardrails"
    assert len(result.policies) >= 10
    assert result.mandatory == [], "\n".join(f"{v.policy_name}: {v.message}" for v in result.mandatory)
    advisory = [(v.policy_name, v.urn.rsplit("::", 1)[-1]) for v in result.violations]
    # the pack reports in its policies' order (by name since they register themselves): the set is the contract
    assert sorted(advisory) == sorted(EXPECTED_ADVISORY.get(stack, [])), [v.message for v in result.violations]


EXPECTED_ADVISORY: dict[str, list[tuple[str, str]]] = {
    # dev leaves Microsoft's built-in AKS definitions at AKS's defaults (Run Command on, SSH on, no Image Cleaner, no
    # control-plane logs: docs/security-checks.md; staging and prod satisfy them), and keeps one warm spot T4 node on
    # purpose (stacks/Pulumi.dev.yaml): the idle-cost advisory says what it costs
    "dev": [
        ("aks-run-command-disabled", "aks-cluster"),
        ("aks-node-ssh-disabled", "aks-cluster"),
        ("aks-image-cleaner-enabled", "aks-cluster"),
        ("aks-node-ssh-disabled", "aks-t4"),
        ("aks-control-plane-logs", "aks-cluster"),
        ("gpu-pool-idle-minimum", "aks-t4"),
    ],
}


@pytest.mark.slow
def test_the_pack_would_catch_a_bad_pool_in_the_same_stack() -> None:
    """Negative control: the dev stack's resources with one AgentPool mutated to an NVv4 size fail the pack."""
    resources = recorded(run_stack("dev"))
    mutated = [
        dataclasses.replace(res, inputs={**copy.deepcopy(res.inputs), "vmSize": "Standard_NV32as_v4"})
        if res.type == AGENT_POOL
        else res
        for res in resources
    ]
    result = check("dev", mutated)
    rules = {v.policy_name for v in result.mandatory}
    assert "gpu-size-no-nvv4" in rules
    assert any("NV32as_v4 is an NVv4 size" in v.message for v in result.mandatory)
