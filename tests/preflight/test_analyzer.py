"""The analyzer client against a tiny fixture pack (tests/fixtures/policy_pack_small), started once for the module.

The fixture pack echoes the config each policy received in its messages, so these tests prove what reached the pack.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from preflight.analyzer.client import PolicyPackProcess, run_policy_pack
from preflight.analyzer.policy_config import reconcile_policy_config
from preflight.analyzer.protocol import (
    AnalyzerInfo,
    LogMessage,
    NotApplicable,
    PolicyConfigError,
    PolicyInfo,
    PolicyPackError,
    PolicyPackStartError,
    Violation,
    engine_urn,
    to_struct,
)
from preflight.model import RecordedResource
from preflight.wire import UNKNOWN

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SMALL = FIXTURES / "policy_pack_small"
CRASH = FIXTURES / "policy_pack_crash"
POOL = "azure-native:containerservice:AgentPool"
PREFIX = "urn:pulumi:dev::azure-gpu-platform::"
SIZE_DESC = "AgentPool sizes must be on the allow list."
TAG_DESC = "Resources carry an owner tag."


def pool(name: str, vm_size: Any = "Standard_NC24ads_A100_v4", **inputs: Any) -> RecordedResource:
    props: dict[str, Any] = {"vmSize": vm_size, "count": 1, "tags": {"owner": "ml"}}
    props.update(inputs)
    return RecordedResource(urn=f"{PREFIX}{POOL}::{name}", type=POOL, name=name, inputs=props)


def by_policy(violations: list[Violation], name: str) -> list[Violation]:
    return [v for v in violations if v.policy_name == name]


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture(scope="module")
def pack() -> Iterator[PolicyPackProcess]:
    stack_config = {"azure-gpu-platform:policy": {"fixture-owner-tag": "mandatory"}}  # sent as a JSON string
    with PolicyPackProcess(SMALL, project="azure-gpu-platform", stack="dev", stack_config=stack_config) as p:
        yield p


# -- pure helpers -----------------------------------------------------------------------------------------------------


def test_engine_urn_drops_the_mock_monitors_stack_qualifier() -> None:
    mock = (
        "urn:pulumi:dev::proj::pulumi:pulumi:Stack$agp:index:AksGpuCluster$azure-native:containerservice:AgentPool::p"
    )
    assert (
        engine_urn(mock) == "urn:pulumi:dev::proj::agp:index:AksGpuCluster$azure-native:containerservice:AgentPool::p"
    )
    assert engine_urn(f"{PREFIX}{POOL}::p") == f"{PREFIX}{POOL}::p"
    assert (
        engine_urn("urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev")
        == "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev"
    )


def test_to_struct_sends_numbers_as_doubles_and_strips_internal_keys() -> None:
    s = to_struct({"count": 3, "nested": {"n": [1, True, None]}, "__defaults": ["x"]}, skip_internal_keys=True)
    assert dict(s.items()).keys() == {"count", "nested"}
    assert s.fields["count"].WhichOneof("kind") == "number_value"
    assert s.fields["count"].number_value == 3.0
    values = s.fields["nested"].struct_value.fields["n"].list_value.values
    assert [v.WhichOneof("kind") for v in values] == ["number_value", "bool_value", "null_value"]
    # Remediate keeps internal keys, as the engine does.
    assert "__defaults" in to_struct({"__defaults": []}).fields


def test_to_struct_names_the_key_path_of_an_unsendable_value() -> None:
    with pytest.raises(TypeError, match=r"tags\.when: datetime value"):
        import datetime

        to_struct({"tags": {"when": datetime.datetime(2026, 1, 1)}})


def test_reconcile_applies_defaults_then_initial_config_then_user_config() -> None:
    info = AnalyzerInfo(
        name="p",
        version="1",
        policies=[
            PolicyInfo("a", "A", "mandatory", "resource", config_schema={"n": {"type": "number", "default": 1.0}}),
            PolicyInfo("b", "B", "advisory", "resource", config_schema={"s": {"type": "string"}}, required=("s",)),
        ],
        initial_config={"all": {"enforcementLevel": "disabled"}, "b": {"enforcementLevel": "advisory", "s": "x"}},
        supports_config=True,
    )
    assert reconcile_policy_config(info, None) == {
        "a": {"enforcementLevel": "disabled", "n": 1.0},
        "b": {"enforcementLevel": "advisory", "s": "x"},
    }
    assert reconcile_policy_config(info, {"a": {"n": 2.0}, "b": "mandatory"}) == {
        "a": {"enforcementLevel": "disabled", "n": 2.0},
        "b": {"enforcementLevel": "mandatory", "s": "x"},
    }
    no_initial = AnalyzerInfo("p", "1", info.policies, {}, True)
    with pytest.raises(PolicyConfigError, match=r"b: 's' is a required property"):
        reconcile_policy_config(no_initial, None)


# -- GetAnalyzerInfo and Configure ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_analyzer_info_lists_policies_levels_and_schemas(pack: PolicyPackProcess) -> None:
    info = pack.analyzer_info()
    assert info.name == "fixture-pack"
    assert info.version == "0.3.0"  # from PulumiPolicy.yaml, as the engine does
    assert [p.name for p in info.policies] == [
        "fixture-add-owner",
        "fixture-allowed-size",
        "fixture-echo",
        "fixture-max-pools",
        "fixture-owner-tag",
    ]
    size = info.policy("fixture-allowed-size")
    assert (size.enforcement_level, size.policy_type) == ("mandatory", "resource")
    assert size.config_schema["allowedSizes"]["default"] == ["Standard_NC24ads_A100_v4"]
    assert info.policy("fixture-max-pools").policy_type == "stack"
    assert info.policy("fixture-owner-tag").enforcement_level == "advisory"  # the pack's default level


@pytest.mark.slow
def test_the_pack_can_log_to_the_engine(pack: PolicyPackProcess) -> None:
    assert LogMessage("info", "fixture-pack loaded", "") in pack.logs


@pytest.mark.slow
def test_configure_sends_schema_defaults_and_a_level_for_every_policy(pack: PolicyPackProcess) -> None:
    config = pack.configure()
    assert config == {
        "fixture-add-owner": {"enforcementLevel": "advisory"},
        "fixture-allowed-size": {"enforcementLevel": "mandatory", "allowedSizes": ["Standard_NC24ads_A100_v4"]},
        "fixture-echo": {"enforcementLevel": "advisory"},
        "fixture-max-pools": {"enforcementLevel": "mandatory", "maxPools": 2.0},
        "fixture-owner-tag": {"enforcementLevel": "advisory", "tag": "owner"},
    }
    result = pack.analyze(pool("p1", "Standard_NC6", tags={}))
    [size] = by_policy(result.violations, "fixture-allowed-size")
    assert size == Violation(
        policy_name="fixture-allowed-size",
        policy_pack_name="fixture-pack",
        enforcement_level="mandatory",
        urn=f"{PREFIX}{POOL}::p1",
        message=f"{SIZE_DESC}\nvmSize Standard_NC6 is not allowed; allowed: ['Standard_NC24ads_A100_v4']",
        description=SIZE_DESC,
        policy_pack_version="0.3.0",
    )
    [tag] = by_policy(result.violations, "fixture-owner-tag")
    assert tag.enforcement_level == "advisory"
    # numbers arrive as doubles, top-level keys are the camelCase inputs
    assert tag.message == f"{TAG_DESC}\nmissing tag 'owner'; count=1.0; keys=['count', 'tags', 'vmSize']"


@pytest.mark.slow
def test_user_config_and_levels_reach_the_pack(pack: PolicyPackProcess) -> None:
    pack.configure(
        {
            "fixture-allowed-size": {"allowedSizes": ["Standard_NC6"]},
            "fixture-owner-tag": {"enforcementLevel": "mandatory", "tag": "team"},
        }
    )
    result = pack.analyze(pool("p1", "Standard_NC6"))
    assert by_policy(result.violations, "fixture-allowed-size") == []
    [tag] = by_policy(result.violations, "fixture-owner-tag")
    assert tag.enforcement_level == "mandatory"
    assert "missing tag 'team'" in tag.message


@pytest.mark.slow
def test_all_sets_every_level_and_a_named_policy_overrides_it(pack: PolicyPackProcess) -> None:
    config = pack.configure({"all": "advisory"})
    assert {c["enforcementLevel"] for c in config.values()} == {"advisory"}
    result = pack.analyze(pool("p1", "Standard_NC6", tags={}))
    assert {(v.policy_name, v.enforcement_level) for v in result.violations} == {
        ("fixture-allowed-size", "advisory"),
        ("fixture-owner-tag", "advisory"),
    }

    pack.configure({"all": "disabled", "fixture-owner-tag": "mandatory"})
    result = pack.analyze(pool("p1", "Standard_NC6", tags={}))
    assert [(v.policy_name, v.enforcement_level) for v in result.violations] == [("fixture-owner-tag", "mandatory")]


@pytest.mark.slow
def test_bad_config_is_rejected_with_every_problem_named(pack: PolicyPackProcess) -> None:
    pack.configure({"fixture-owner-tag": {"tag": "team"}})
    with pytest.raises(PolicyConfigError) as err:
        pack.configure(
            {
                "fixture-max-pools": {"maxPools": 0},
                "fixture-owner-tag": {"tag": "boss", "enforcementLevel": "strict"},
                "fixture-allowed-size": {"allowedSize": ["Standard_NC6"]},
                "gpu-size-minimum": "mandatory",
            }
        )
    assert err.value.errors == [
        "fixture-owner-tag.enforcementLevel: 'strict' is not a valid enforcement level; "
        "use one of ['advisory', 'mandatory', 'remediate', 'disabled']",
        "gpu-size-minimum: no such policy in policy pack 'fixture-pack'; its policies are "
        "['fixture-add-owner', 'fixture-allowed-size', 'fixture-echo', 'fixture-max-pools', 'fixture-owner-tag']",
        "fixture-allowed-size.allowedSize: policy 'fixture-allowed-size' has no config property 'allowedSize'; "
        "allowed: ['allowedSizes']",
        "fixture-max-pools.maxPools: 0 is less than the minimum of 1.0",
        "fixture-owner-tag.tag: 'boss' is not allowed. Allowed: owner, team.",
    ]
    assert str(err.value).startswith(
        "invalid policy config for policy pack 'fixture-pack':\n  - fixture-owner-tag.enforcementLevel"
    )
    # nothing was sent: the pack still runs with the previous config
    assert pack.config is not None and pack.config["fixture-owner-tag"]["tag"] == "team"
    result = pack.analyze(pool("p1", tags={}))
    assert "missing tag 'team'" in by_policy(result.violations, "fixture-owner-tag")[0].message


@pytest.mark.slow
def test_config_value_shapes_are_checked(pack: PolicyPackProcess) -> None:
    info = pack.analyzer_info()
    with pytest.raises(PolicyConfigError, match=r"fixture-max-pools: 3 is not a valid policy config"):
        reconcile_policy_config(info, {"fixture-max-pools": 3})
    with pytest.raises(PolicyConfigError, match=r"all: only 'enforcementLevel' may be set here"):
        reconcile_policy_config(info, {"all": {"maxPools": 3}})
    with pytest.raises(PolicyConfigError, match=r"fixture-allowed-size.allowedSizes: \[\] should be non-empty"):
        reconcile_policy_config(info, {"fixture-allowed-size": {"allowedSizes": []}})


# -- Remediate, Analyze, AnalyzeStack -------------------------------------------------------------------------------


@pytest.mark.slow
def test_unknown_preview_value_is_reported_not_passed(pack: PolicyPackProcess) -> None:
    pack.configure()
    result = pack.analyze(pool("p1", UNKNOWN))
    [v] = by_policy(result.violations, "fixture-allowed-size")
    assert v.urn == f"{PREFIX}{POOL}::p1"
    assert v.enforcement_level == "advisory"  # pulumi_policy reports an unknown value as advisory
    assert v.message == (
        "can't run policy 'fixture-allowed-size' from policy pack 'fixture-pack@v0.0.1' during preview: "
        "string value at .vmSize can't be known during preview"
    )


@pytest.mark.slow
def test_not_applicable_and_engine_urns(pack: PolicyPackProcess) -> None:
    pack.configure()
    rg = RecordedResource(
        urn="urn:pulumi:dev::azure-gpu-platform::pulumi:pulumi:Stack$azure-native:resources:ResourceGroup::rg",
        type="azure-native:resources:ResourceGroup",
        name="rg",
        inputs={"tags": {}},
    )
    result = pack.analyze(rg)
    engine = "urn:pulumi:dev::azure-gpu-platform::azure-native:resources:ResourceGroup::rg"
    assert NotApplicable("fixture-allowed-size", engine, "not an AgentPool") in result.not_applicable
    assert [v.urn for v in by_policy(result.violations, "fixture-owner-tag")] == [engine]


@pytest.mark.slow
def test_provider_options_and_stack_config_reach_the_pack(pack: PolicyPackProcess) -> None:
    pack.configure()
    provider = RecordedResource(
        urn=f"{PREFIX}pulumi:providers:azure-native::default_3_29_0",
        type="pulumi:providers:azure-native",
        name="default_3_29_0",
        inputs={"location": "westeurope", "version": "3.29.0"},
    )
    parent = f"{PREFIX}agp:index:AksGpuCluster::c"
    echo = RecordedResource(
        urn=f"{PREFIX}agp:index:AksGpuCluster$test:index:Echo::e",
        type="test:index:Echo",
        name="e",
        inputs={},
        parent=parent,
        provider=f"{provider.urn}::{UNKNOWN}",  # a provider reference: <urn>::<id>
        protect=True,
    )
    pack.know_providers([provider, echo])
    [v] = by_policy(pack.analyze(echo).violations, "fixture-echo")
    seen = ("pulumi:providers:azure-native", provider.urn, "default_3_29_0", provider.inputs)
    assert v.message.splitlines()[1] == (
        f"provider={seen}; parent={parent}; protect=True; config={{'fixture-owner-tag': 'mandatory'}}"
    )


@pytest.mark.slow
def test_remediate_runs_before_analyze_and_analyze_sees_the_result(pack: PolicyPackProcess) -> None:
    pack.configure({"fixture-add-owner": "remediate", "fixture-owner-tag": "mandatory"})
    result = pack.analyze(pool("p1", tags={"team": "ml"}))
    [rem] = result.remediations
    assert rem.policy_name == "fixture-add-owner"
    assert rem.properties is not None and rem.properties["tags"] == {"team": "ml", "owner": "platform"}
    assert by_policy(result.violations, "fixture-owner-tag") == []


@pytest.mark.slow
def test_skipping_remediate_without_a_remediate_level_changes_nothing(pack: PolicyPackProcess) -> None:
    pack.configure()
    resources = [pool("a", "Standard_NC6", tags={}), pool("b")]
    skipped = pack.analyze_many(resources)
    pack.always_remediate = True
    try:
        assert pack.analyze_many(resources) == skipped
    finally:
        pack.always_remediate = False
    assert len(skipped.violations) == 2


@pytest.mark.slow
def test_many_resources_keep_their_order_through_one_process(pack: PolicyPackProcess) -> None:
    pack.configure()
    pid = pack.pid
    resources = [pool(f"p{i}", "Standard_NC6" if i % 3 == 0 else "Standard_NC24ads_A100_v4") for i in range(60)]
    result = pack.analyze_many(resources, in_flight=8)
    assert [v.urn for v in result.violations] == [r.urn for i, r in enumerate(resources) if i % 3 == 0]
    assert pack.pid == pid


@pytest.mark.slow
def test_analyze_stack_sees_parents_and_reports_with_the_policys_urn(pack: PolicyPackProcess) -> None:
    pack.configure({"fixture-max-pools": {"maxPools": 1}})
    cluster = RecordedResource(
        urn=f"{PREFIX}agp:index:AksGpuCluster::c", type="agp:index:AksGpuCluster", name="c", inputs={}, custom=False
    )
    pools = [pool("a"), pool("b")]
    for p in pools:
        p.parent = cluster.urn
        p.dependencies = [cluster.urn]
    result = pack.analyze_stack([cluster, *pools])
    [v] = result.violations
    assert v.policy_name == "fixture-max-pools"
    assert v.urn == pools[-1].urn
    assert v.message.endswith(f"2 pools > maxPools=1.0; parents={[cluster.urn, cluster.urn]}")


@pytest.mark.slow
def test_a_failing_policy_gives_a_readable_error(pack: PolicyPackProcess) -> None:
    pack.configure()
    boom = RecordedResource(urn=f"{PREFIX}test:index:Boom::b", type="test:index:Boom", name="b", inputs={})
    with pytest.raises(PolicyPackError, match=r"failed in Analyze for urn:pulumi:.*test:index:Boom::b") as err:
        pack.analyze(boom)
    assert "fixture policy exploded on purpose" in str(err.value)
    # the process survives a failing call
    assert pack.analyze(pool("p1")).violations == []


# -- lifecycle ------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_run_policy_pack_end_to_end() -> None:
    resources = [pool("a", "Standard_NC6"), pool("b"), pool("c")]
    result = run_policy_pack(SMALL, resources, policy_config={"fixture-owner-tag": "mandatory"})
    assert (result.pack_name, result.version) == ("fixture-pack", "0.3.0")
    assert [p.name for p in result.policies][1] == "fixture-allowed-size"
    assert [(v.policy_name, v.urn) for v in result.violations] == [
        ("fixture-allowed-size", resources[0].urn),
        ("fixture-max-pools", resources[2].urn),
    ]
    assert result.config["fixture-owner-tag"]["enforcementLevel"] == "mandatory"
    assert [v.policy_name for v in result.mandatory] == ["fixture-allowed-size", "fixture-max-pools"]


@pytest.mark.slow
def test_process_is_stopped_when_the_context_exits_even_on_error() -> None:
    pids: list[int] = []
    with pytest.raises(RuntimeError, match="caller failed"), PolicyPackProcess(SMALL) as p:
        assert p.pid is not None and not process_gone(p.pid)
        pids.append(p.pid)
        raise RuntimeError("caller failed")
    assert process_gone(pids[0])
    with pytest.raises(PolicyPackError, match="not running"):
        p.analyzer_info()


@pytest.mark.slow
def test_a_pack_dying_mid_run_gives_a_readable_error_and_is_reaped() -> None:
    exits = RecordedResource(urn=f"{PREFIX}test:index:Exit::x", type="test:index:Exit", name="x", inputs={})
    with PolicyPackProcess(SMALL) as p:
        with pytest.raises(PolicyPackError) as err:
            p.analyze(exits)
        assert p.pid is not None
        pid = p.pid
    message = str(err.value)
    assert (
        "policy pack 'fixture-pack' failed in Analyze for urn:pulumi:dev::azure-gpu-platform::test:index:Exit::x"
        in message
    )
    assert "fixture pack exits abruptly" in message  # its stderr
    assert process_gone(pid)


@pytest.mark.slow
def test_a_crashing_pack_gives_a_readable_start_error() -> None:
    with pytest.raises(PolicyPackStartError) as err:
        run_policy_pack(CRASH, [])
    message = str(err.value)
    assert "policy pack exited with code 1 before serving gRPC" in message
    assert "RuntimeError: fixture pack cannot load its catalog" in message  # the pack's stderr


def test_a_directory_without_pulumipolicy_yaml_is_not_a_pack(tmp_path: Path) -> None:
    with pytest.raises(PolicyPackStartError, match=r"has no PulumiPolicy\.yaml"):
        run_policy_pack(tmp_path, [])


@pytest.mark.slow
def test_a_pack_that_prints_no_port_is_reported(tmp_path: Path) -> None:
    (tmp_path / "PulumiPolicy.yaml").write_text("runtime: python\n")
    (tmp_path / "__main__.py").write_text("print('hello from the pack')\n")
    with pytest.raises(PolicyPackStartError, match=r"printed 'hello from the pack' instead of its gRPC port"):
        run_policy_pack(tmp_path, [], python=sys.executable)


@pytest.mark.slow
def test_a_pack_that_hangs_before_printing_its_port_times_out_and_is_killed(tmp_path: Path) -> None:
    (tmp_path / "PulumiPolicy.yaml").write_text("runtime: python\n")
    # The stand-in for the pack's interpreter is a shell script: it writes to stderr within milliseconds, however
    # loaded the machine, so the 5 s wait always ends with its output captured (a Python stand-in importing
    # pulumi.policy could take longer than that on a loaded machine, and the message would then lack it).
    stand_in = tmp_path / "python"
    stand_in.write_text("#!/bin/sh\necho loading >&2\nexec sleep 60\n")
    stand_in.chmod(0o755)
    p = PolicyPackProcess(tmp_path, startup_timeout=5, python=str(stand_in))
    with pytest.raises(PolicyPackStartError, match=r"did not print its port within 5 s(.|\n)*stderr:\nloading"):
        p.start()
    assert p.pid is not None and process_gone(p.pid)
