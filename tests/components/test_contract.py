"""The output contract's typed consumer: ``PlatformStackReference`` over ``pulumi.StackReference`` (under mocks)."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from components.contract import (
    CONTRACT_VERSION,
    ContractError,
    GpuPoolContract,
    PlatformContract,
    PlatformStackReference,
    Scheduling,
    Toleration,
    parse_contract,
)
from tests.components.harness import FAKE_KUBECONFIG, run_program, run_stack

STACK = "my-org/azure-gpu-platform/prod"


@pytest.fixture(scope="module")
def prod_outputs() -> dict[str, Any]:
    run = run_stack("prod")
    assert run.error is None, run.error
    return run.outputs


def test_contract_round_trips_through_the_consumer(prod_outputs: dict[str, Any]) -> None:
    seen: dict[str, Any] = {}

    def program() -> None:
        ref = PlatformStackReference(STACK)
        ref.contract.apply(lambda c: seen.setdefault("contract", c))
        ref.gpu_pool("a100mig").apply(lambda p: seen.setdefault("pool", p))
        pulumi.export("kubeconfig", ref.kubeconfig)

    run = run_program(program, config={}, stack="consumer", stack_outputs=prod_outputs)
    assert run.error is None, run.error
    contract = seen["contract"]
    assert isinstance(contract, PlatformContract)
    assert contract.contract_version == CONTRACT_VERSION
    assert contract.cluster_name == "aks-gpu-prod"
    assert contract.resource_group_name == "rg-gpu-prod"
    assert contract.gpu_operator_version == "v26.7.0"
    assert set(contract.gpu_pools) == {"a100mig", "h100", "t4"}
    pool = seen["pool"]
    assert isinstance(pool, GpuPoolContract)
    assert pool.vm_size == "Standard_NC24ads_A100_v4"
    assert pool.mig_profile == "MIG3g"
    assert pool.scheduling == Scheduling(
        node_selector={"azure-gpu-platform/pool": "a100mig"},
        # prod runs the KAITO add-on: its pools default to a taint the add-on's device plugin does not tolerate.
        tolerations=[Toleration(key="azure-gpu-platform/gpu", operator="Equal", value="present", effect="NoSchedule")],
        resource_name="nvidia.com/mig-3g.40gb",
        sharing="none",
        replicas=1,
        mps_active_thread_percentage=None,
        allocatable_per_node=2,
        device_plugin="gpu-operator",
    )
    assert run.outputs["kubeconfig"] == FAKE_KUBECONFIG
    assert run.secret_outputs == {"kubeconfig"}
    assert run.reads == [("pulumi:pulumi:StackReference", STACK, STACK)]


def test_unknown_pool_names_the_ones_that_exist(prod_outputs: dict[str, Any]) -> None:
    contract = parse_contract(prod_outputs)
    with pytest.raises(ContractError, match="no GPU pool 'v100'; it has: a100mig, h100, t4"):
        contract.pool("v100")


def test_foreign_contract_version_is_refused(prod_outputs: dict[str, Any]) -> None:
    with pytest.raises(ContractError, match="speaks output contract version 2; this helper understands version 1"):
        parse_contract({**prod_outputs, "contractVersion": "2"}, source="stack x")
    with pytest.raises(ContractError, match="exports no contractVersion"):
        parse_contract({k: v for k, v in prod_outputs.items() if k != "contractVersion"})
    with pytest.raises(ContractError, match="missing contract outputs: clusterId"):
        parse_contract({k: v for k, v in prod_outputs.items() if k != "clusterId"})


def test_consumer_reports_a_stack_without_the_contract() -> None:
    def program() -> None:
        PlatformStackReference("my-org/other/prod").contract.apply(lambda c: c)

    run = run_program(program, config={}, stack="consumer", stack_outputs={"url": "https://example"})
    assert isinstance(run.error, ContractError)
    assert "stack my-org/other/prod exports no contractVersion" in str(run.error)
