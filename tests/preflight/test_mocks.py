"""The preflight's internals: Pulumi.yaml and stack files → config, wire values, mock answers, the recording monitor,
programs → resources in the engine's form, errors, isolation."""

from __future__ import annotations

import base64
import json
import textwrap
from pathlib import Path

import pytest
import yaml

from preflight.mock_answers import MockValues, call_answer, resource_answer
from preflight.model import RecordedResource
from preflight.project import PreflightInputError, program_python, read_project
from preflight.runner import ProgramError, run_program
from preflight.stackfile import StackFileError, StackSettings, load_stack_settings
from preflight.wire import (
    ARCHIVE_SIG,
    ASSET_SIG,
    RESOURCE_SIG,
    SECRET_SIG,
    SIG_KEY,
    UNKNOWN,
    engine_value,
    mask_secrets,
    unwrap_secrets,
)
from tests.shared_runs import program_run_in_process


def write_program(root: Path, project: str, main: str, files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "Pulumi.yaml").write_text(f"name: {project}\nruntime: python\n", encoding="utf-8")
    (root / "__main__.py").write_text(textwrap.dedent(main), encoding="utf-8")
    for name, text in (files or {}).items():
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def by_name(resources: list[RecordedResource]) -> dict[str, RecordedResource]:
    return {r.name: r for r in resources}


# ---------------------------------------------------------------------------------------------------------------------
# project and stack files


def test_stack_file_values_reach_the_program_as_pulumi_cli_strings(tmp_path: Path) -> None:
    program = write_program(tmp_path / "p", "proj", "")
    stack_file = tmp_path / "Pulumi.qa.yaml"
    stack_file.write_text(
        yaml.safe_dump(
            {
                "config": {
                    "proj:count": 3,
                    "proj:flag": True,
                    "plain": "bare keys get the project namespace",
                    "proj:pools": [{"name": "t4", "maxCount": 2}],
                    "proj:password": {"secure": "AAABAKxyz"},
                    "azure-native:location": "westeurope",
                }
            },
            sort_keys=False,
        ),
        encoding="utf-8",
    )
    s = load_stack_settings(program, stack_file)
    assert (s.project, s.stack) == ("proj", "qa")
    assert s.config == {
        "proj:count": "3",
        "proj:flag": "true",
        "proj:plain": "bare keys get the project namespace",
        "proj:pools": '[{"name":"t4","maxCount":2}]',
        "proj:password": "[secret: encrypted in the stack file, not available offline]",
        "azure-native:location": "westeurope",
    }
    assert s.secret_keys == ["proj:password"]
    assert s.values["proj:pools"] == [{"name": "t4", "maxCount": 2}]
    assert s.stack_file == stack_file.resolve()


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("config: [1, 2]\n", "config: must be a mapping of 'namespace:key' to values; got [1, 2]."),
        (
            "config:\n  ':x': 1\n",
            ":x: a config key looks like 'namespace:key' (or 'key' for this project's namespace).",
        ),
        (
            "config: {a: [\n",
            "line 2, column 1: not valid YAML: while parsing a flow node expected the node content, but found "
            "'<stream end>'.",
        ),
    ],
)
def test_bad_stack_files_name_the_file_and_the_key(tmp_path: Path, content: str, line: str) -> None:
    program = write_program(tmp_path / "p", "proj", "")
    stack_file = tmp_path / "Pulumi.x.yaml"
    stack_file.write_text(content, encoding="utf-8")
    with pytest.raises(StackFileError) as err:
        load_stack_settings(program, stack_file)
    assert str(err.value).splitlines() == [
        f"invalid stack configuration in {stack_file} (1 problem; keys are under 'proj:'; nothing was deployed):",
        f"  {stack_file}: {line}",
    ]


def test_read_project_rejects_non_programs(tmp_path: Path) -> None:
    with pytest.raises(PreflightInputError, match="program directory not found"):
        read_project(tmp_path / "missing")
    (tmp_path / "Pulumi.yaml").write_text("name: x\nruntime: nodejs\n", encoding="utf-8")
    with pytest.raises(PreflightInputError, match=r"Pulumi.yaml: key 'runtime' is 'nodejs'"):
        read_project(tmp_path)
    (tmp_path / "Pulumi.yaml").write_text("runtime: python\n", encoding="utf-8")
    with pytest.raises(PreflightInputError, match=r"Pulumi.yaml: key 'name' must be the project name"):
        read_project(tmp_path)


def test_project_file_is_read_once_into_a_project(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / "src" / "__main__.py").write_text("", encoding="utf-8")
    (root / "Pulumi.yml").write_text(
        "name: proj\nruntime: {name: python, options: {virtualenv: venv}}\nmain: src/\nstackConfigDir: envs\n"
        "config:\n  region: {default: westeurope}\n  size: {value: 3}\n  plain: x\n  typed: {type: string}\n",
        encoding="utf-8",
    )
    project = read_project(root)
    assert (project.name, project.runtime, project.main, project.virtualenv) == ("proj", "python", "src/", "venv")
    assert project.file == root / "Pulumi.yml"
    assert project.entry_point == root / "src" / "__main__.py"  # `main` of a Pulumi.yml too
    assert project.stack_file("qa") == root / "envs" / "Pulumi.qa.yaml"
    assert project.config == {"region": "westeurope", "size": 3, "plain": "x"}
    s = load_stack_settings(root, None)
    assert s.config == {"proj:region": "westeurope", "proj:size": "3", "proj:plain": "x"}
    assert (s.project, s.stack) == ("proj", "dev")


def test_stack_file_follows_stack_config_dir(tmp_path: Path) -> None:
    program = write_program(tmp_path, "p", "")
    (program / "Pulumi.yaml").write_text("name: p\nruntime: python\nstackConfigDir: envs\n", encoding="utf-8")
    assert read_project(program).stack_file("qa") == program / "envs" / "Pulumi.qa.yaml"
    (program / "Pulumi.yaml").write_text("name: p\nruntime: python\n", encoding="utf-8")
    assert read_project(program).stack_file("qa") == program / "Pulumi.qa.yaml"
    repo = Path(__file__).resolve().parents[2]
    assert read_project(repo).stack_file("dev") == repo / "stacks" / "Pulumi.dev.yaml"


def test_bad_config_key_in_pulumi_yaml(tmp_path: Path) -> None:
    program = write_program(tmp_path / "p", "proj", "")
    (program / "Pulumi.yaml").write_text("name: proj\nruntime: python\nconfig:\n  ':x': 1\n", encoding="utf-8")
    with pytest.raises(PreflightInputError, match=r"config key ':x': a config key looks like 'namespace:key'"):
        load_stack_settings(program, None)


# ---------------------------------------------------------------------------------------------------------------------
# wire values


def test_engine_value_downgrades_resource_references_and_keeps_secrets_wrapped() -> None:
    ref_custom = {SIG_KEY: RESOURCE_SIG, "urn": "urn:pulumi:dev::p::t:m:R::r", "id": "rid"}
    ref_component = {SIG_KEY: RESOURCE_SIG, "urn": "urn:pulumi:dev::p::t:m:C::c"}
    secret = {SIG_KEY: SECRET_SIG, "value": {"nested": ref_custom}}
    value = engine_value({"a": ref_custom, "b": [ref_component], "c": secret, "d": {SIG_KEY: RESOURCE_SIG, "id": ""}})
    assert value == {
        "a": "rid",
        "b": ["urn:pulumi:dev::p::t:m:C::c"],
        "c": {SIG_KEY: SECRET_SIG, "value": {"nested": "rid"}},
        "d": UNKNOWN,
    }
    assert unwrap_secrets(value)["c"] == {"nested": "rid"}
    assert mask_secrets(value)["c"] == "[secret]"


def test_cluster_credentials_invoke_returns_a_base64_kubeconfig() -> None:
    result = call_answer("azure-native:containerservice:listManagedClusterUserCredentials", {"resourceName": "gpuaks"})
    assert result is not None
    [entry] = result["kubeconfigs"]
    kubeconfig = yaml.safe_load(base64.b64decode(entry["value"]))
    assert kubeconfig["current-context"] == "gpuaks"
    assert kubeconfig["users"][0]["user"]["exec"]["command"] == "kubelogin"
    client = call_answer("azure-native:authorization:getClientConfig", {})
    assert client is not None and set(client) == {"clientId", "objectId", "subscriptionId", "tenantId"}
    assert call_answer("nobody:knows:this", {}) is None


def test_fleet_credentials_and_generic_resources_are_answered() -> None:
    answer = call_answer("azure-native:containerservice:listFleetCredentials", {"fleetName": "gpu-fleet"})
    assert answer is not None
    (kubeconfig,) = answer["kubeconfigs"]
    assert kubeconfig["name"] == "hub"
    assert (
        "server: https://gpu-fleet-hub-dns-00000000.hcp.westeurope.azmk8s.io:443"
        in base64.b64decode(kubeconfig["value"]).decode()
    )
    member = {
        "resourceProviderNamespace": "Microsoft.ContainerService",
        "parentResourcePath": "fleets/gpu-fleet",
        "resourceType": "members",
        "resourceName": "weu",
        "resourceGroupName": "rg-gpu-fleet",
    }
    rid, outputs = resource_answer("azure-native:resources:Resource", "fleet-member-weu", member)
    assert rid == (
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-gpu-fleet/providers/"
        "Microsoft.ContainerService/fleets/gpu-fleet/members/weu"
    )
    assert (outputs["type"], outputs["name"]) == ("Microsoft.ContainerService/fleets/members", "weu")
    fleet = {**member, "parentResourcePath": "", "resourceType": "fleets", "resourceName": "gpu-fleet"}
    rid, outputs = resource_answer("azure-native:resources:Resource", "fleet-fleet", fleet)
    assert rid.endswith("/resourceGroups/rg-gpu-fleet/providers/Microsoft.ContainerService/fleets/gpu-fleet")
    assert outputs["type"] == "Microsoft.ContainerService/fleets"


def test_wire_sentinels_are_the_sdks() -> None:
    from pulumi.runtime import rpc

    assert (
        rpc._special_sig_key,
        rpc._special_secret_sig,
        rpc._special_resource_sig,
        rpc._special_asset_sig,
        rpc._special_archive_sig,
        rpc.UNKNOWN,
    ) == (SIG_KEY, SECRET_SIG, RESOURCE_SIG, ASSET_SIG, ARCHIVE_SIG, UNKNOWN)


def test_mock_values_replace_the_preflights_answers() -> None:
    fixed = MockValues(
        subscription_id="sub",
        tenant_id="tenant",
        client_id="client",
        object_id="object",
        resource_id="/mock/{type}/{name}",
        kubeconfig="fixed",
        issuer_url="https://issuer",
        stack_outputs={"a": 1},
        secret_stack_outputs=("a",),
    )
    cluster = "azure-native:containerservice:ManagedCluster"
    rid, outputs = resource_answer(cluster, "aks", {"resourceName": "gpuaks", "resourceGroupName": "rg"}, fixed)
    assert rid == outputs["id"] == f"/mock/{cluster}/aks"
    assert outputs["oidcIssuerProfile"] == {"issuerURL": "https://issuer"}
    assert resource_answer(cluster, "aks", {"resourceName": "gpuaks", "resourceGroupName": "rg"})[0] == (
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/"
        "Microsoft.Containerservice/managedClusters/gpuaks"
    )
    rg = "azure-native:resources:ResourceGroup"
    assert (
        resource_answer(rg, "rg", {"resourceGroupName": "rg-x"}, fixed)[0] == "/subscriptions/sub/resourceGroups/rg-x"
    )
    assert resource_answer("time:index/sleep:Sleep", "wait", {}, fixed)[0] == "/mock/time:index/sleep:Sleep/wait"
    assert resource_answer("time:index/sleep:Sleep", "wait", {})[0] == "wait-id"
    assert resource_answer("pulumi:providers:kubernetes", "k8s", {})[0] == ""
    assert resource_answer("pulumi:pulumi:StackReference", "org/p/prod", {}, fixed) == (
        "org/p/prod",
        {"name": "org/p/prod", "outputs": {"a": 1}, "secretOutputNames": ["a"]},
    )
    creds = call_answer("azure-native:containerservice:listManagedClusterUserCredentials", {}, fixed)
    assert creds is not None and base64.b64decode(creds["kubeconfigs"][0]["value"]) == b"fixed"
    client = call_answer("azure-native:authorization:getClientConfig", {}, fixed)
    assert client == {"clientId": "client", "objectId": "object", "subscriptionId": "sub", "tenantId": "tenant"}


# ---------------------------------------------------------------------------------------------------------------------
# running programs (each run is a child process: slow-ish)

PROGRAM = """
import pulumi

class Comp(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("test:index:Comp", name, None, opts)
        inner = pulumi.ComponentResource("test:index:Inner", f"{name}-inner", None, pulumi.ResourceOptions(parent=self))
        pulumi.CustomResource(
            "test:index:Leaf", f"{name}-leaf", {"size": 3, "nested": {"fooBar": 1.5}},
            pulumi.ResourceOptions(parent=inner, protect=True),
        )
        self.register_outputs({})

cfg = pulumi.Config()
a = pulumi.CustomResource("test:index:A", "a", {"given": cfg.require("given"), "computed": None})
prov = pulumi.ProviderResource("azure-native", "explicit", {"location": "northeurope"})
pulumi.CustomResource(
    "azure-native:test:B", "b",
    {"fromA": a.computed, "secretVal": pulumi.Output.secret("s3cr3t"), "obj": cfg.require_object("obj")},
    pulumi.ResourceOptions(depends_on=[a], provider=prov),
)
Comp("comp")
print("program output goes to stderr, never to the report")
"""


@pytest.mark.slow
def test_program_resources_as_the_engine_sees_them(tmp_path: Path) -> None:
    program = write_program(tmp_path / "p", "proj", PROGRAM)
    settings = StackSettings(
        program_dir=program, project="proj", stack="dev", config={"proj:given": "g", "proj:obj": '{"k": [1, 2]}'}
    )
    run = run_program(settings)
    pre = "urn:pulumi:dev::proj::"
    stack_urn = f"{pre}pulumi:pulumi:Stack::proj-dev"
    assert run.resources[0].urn == stack_urn
    r = by_name(run.resources)
    assert set(r) == {"proj-dev", "a", "b", "comp", "comp-inner", "comp-leaf", "explicit", "default"}
    # URNs: engine form (no pulumi:pulumi:Stack$ qualifier, the full parent type chain)
    assert r["a"].urn == f"{pre}test:index:A::a"
    assert r["comp-inner"].urn == f"{pre}test:index:Comp$test:index:Inner::comp-inner"
    assert r["comp-leaf"].urn == f"{pre}test:index:Comp$test:index:Inner$test:index:Leaf::comp-leaf"
    assert r["comp-leaf"].parent == r["comp-inner"].urn
    assert r["comp"].parent == stack_urn and r["comp"].custom is False
    # inputs: camelCase wire names, floats, unknowns, secrets in wire form, config objects decoded by the program
    assert r["comp-leaf"].inputs == {"size": 3.0, "nested": {"fooBar": 1.5}}
    assert isinstance(r["comp-leaf"].inputs["size"], float)
    assert r["comp-leaf"].protect is True and r["a"].protect is False
    assert r["b"].inputs == {
        "fromA": UNKNOWN,
        "secretVal": {SIG_KEY: SECRET_SIG, "value": "s3cr3t"},
        "obj": {"k": [1.0, 2.0]},
    }
    assert r["b"].dependencies == [r["a"].urn]
    assert r["b"].property_dependencies["fromA"] == [r["a"].urn]
    # providers: explicit reference, and default providers recorded as the engine registers them
    assert r["b"].provider == f"{pre}pulumi:providers:azure-native::explicit::{UNKNOWN}"
    assert r["a"].provider == f"{pre}pulumi:providers:test::default::{UNKNOWN}"
    assert r["default"].type == "pulumi:providers:test"


@pytest.mark.slow
def test_program_errors_become_program_error(tmp_path: Path) -> None:
    run_error = write_program(
        tmp_path / "e1", "proj", 'import pulumi\nraise pulumi.RunError("stacks/Pulumi.x.yaml: proj:foo: unknown key")\n'
    )
    with pytest.raises(ProgramError) as err:  # in this process (the child's hand-over: the crash below)
        program_run_in_process(StackSettings(program_dir=run_error, project="proj", stack="x"))
    assert err.value.message == "stacks/Pulumi.x.yaml: proj:foo: unknown key"
    assert err.value.detail is None  # RunError: the message is the whole story, as in the Pulumi CLI

    crash = write_program(tmp_path / "e2", "proj", "import pulumi\n{}['missing']\n")
    with pytest.raises(ProgramError) as err2:
        run_program(StackSettings(program_dir=crash, project="proj", stack="x"))
    assert err2.value.message == "KeyError: 'missing'"
    assert err2.value.detail is not None and "__main__.py" in err2.value.detail


@pytest.mark.slow
def test_stack_file_env_is_set_for_the_program(tmp_path: Path) -> None:
    program = write_program(
        tmp_path / "p",
        "proj",
        'import os, pulumi\npulumi.CustomResource("t:m:R", "r", {"file": os.environ["AGP_STACK_FILE"]})\n',
    )
    stack_file = tmp_path / "Pulumi.dev.yaml"
    stack_file.write_text("config: {}\n", encoding="utf-8")
    run = program_run_in_process(load_stack_settings(program, stack_file))
    assert by_name(run.resources)["r"].inputs == {"file": str(stack_file.resolve())}  # outside the program: absolute
    inside = program / "stacks" / "Pulumi.dev.yaml"
    inside.parent.mkdir()
    inside.write_text("config: {}\n", encoding="utf-8")
    run = program_run_in_process(load_stack_settings(program, inside))
    assert by_name(run.resources)["r"].inputs == {"file": "stacks/Pulumi.dev.yaml"}  # as our program's errors name it


@pytest.mark.slow
def test_runs_are_isolated_from_each_other(tmp_path: Path) -> None:
    # Two programs with a local module of the same name: run in one process, the second would import the first's
    # module from sys.modules. Each run is its own process, so each sees its own.
    one = write_program(
        tmp_path / "one",
        "one",
        'import pulumi, helper\npulumi.CustomResource("t:m:R", "r1", {"v": helper.V})\n',
        {"helper.py": "V = 'one'\n"},
    )
    two = write_program(
        tmp_path / "two",
        "two",
        'import pulumi, helper\npulumi.CustomResource("t:m:R", "r2", {"v": helper.V})\n',
        {"helper.py": "V = 'two'\n"},
    )
    first = run_program(StackSettings(program_dir=one, project="one", stack="dev"))
    second = run_program(StackSettings(program_dir=two, project="two", stack="dev"))
    assert by_name(first.resources)["r1"].inputs == {"v": "one"}
    assert by_name(second.resources)["r2"].inputs == {"v": "two"}
    assert "r1" not in by_name(second.resources)
    assert all(r.urn.startswith("urn:pulumi:dev::two::") for r in second.resources)


@pytest.mark.slow
def test_unanswered_invokes_are_reported_as_warnings(tmp_path: Path) -> None:
    program = write_program(tmp_path / "p", "proj", 'import pulumi\npulumi.runtime.invoke("acme:index:getThing", {})\n')
    run = program_run_in_process(StackSettings(program_dir=program, project="proj", stack="dev"))
    assert run.warnings == ["invoke acme:index:getThing has no preflight mock; it returned an empty result"]


def test_result_json_round_trip_keeps_records() -> None:
    r = RecordedResource(urn="u", type="t", name="n", inputs={"a": 1.0}, dependencies=["d"], protect=True)
    from dataclasses import asdict

    assert RecordedResource(**json.loads(json.dumps(asdict(r)))) == r


@pytest.mark.slow
def test_answered_invokes_reach_the_program(tmp_path: Path) -> None:
    main = """
    import base64, pulumi
    creds = pulumi.runtime.invoke(
        "azure-native:containerservice:listManagedClusterUserCredentials",
        {"resourceGroupName": "rg", "resourceName": "gpuaks"},
    ).value
    text = base64.b64decode(creds["kubeconfigs"][0]["value"]).decode()
    pulumi.CustomResource("t:m:R", "r", {"context": text.split("current-context: ")[1].split()[0]})
    """
    program = write_program(tmp_path / "p", "proj", main)
    run = program_run_in_process(StackSettings(program_dir=program, project="proj", stack="dev"))
    assert run.warnings == []
    assert by_name(run.resources)["r"].inputs == {"context": "gpuaks"}


@pytest.mark.slow
def test_pulumi_yaml_main_points_at_the_entry_point(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: proj\nruntime: python\nmain: src/\n", encoding="utf-8")
    (root / "src" / "lib.py").write_text("NAME = 'from-src'\n", encoding="utf-8")
    (root / "src" / "__main__.py").write_text(
        'import pulumi, lib\npulumi.CustomResource("t:m:R", "r", {"v": lib.NAME})\n', encoding="utf-8"
    )
    assert read_project(root).name == "proj"
    run = program_run_in_process(StackSettings(program_dir=root, project="proj", stack="dev"))
    assert by_name(run.resources)["r"].inputs == {"v": "from-src"}


@pytest.mark.slow
def test_the_programs_own_virtualenv_runs_it(tmp_path: Path) -> None:
    import sys

    root = write_program(tmp_path / "p", "proj", 'import pulumi\npulumi.CustomResource("t:m:R", "r", {})\n')
    (root / "Pulumi.yaml").write_text(
        "name: proj\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n", encoding="utf-8"
    )
    # A stand-in virtualenv interpreter that leaves a mark and runs this interpreter.
    python = root / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    marker = tmp_path / "used"
    python.write_text(f'#!/bin/sh\ntouch "{marker}"\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    assert program_python(root) == str(python)
    run = run_program(StackSettings(program_dir=root, project="proj", stack="dev"))
    assert marker.exists()
    assert "r" in by_name(run.resources)
    assert program_python(tmp_path) == sys.executable  # no Pulumi.yaml: this interpreter
