"""examples/fleet (issue 38): the wire inputs of the multi-region example as the engine receives them (the Fleet, one
FleetMember per member, the update strategy, the auto-upgrade profile, the placement on the hub), their order, their
conformance to the Fleet REST spec and the placement CRD, the members' platforms under their names, the URN snapshot,
and the preflight passing the example."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
import yaml

from components.fleet import (
    FleetMemberArgs,
    GpuFleetArgs,
    PlacementArgs,
)
from components.validation import InvalidArgsError
from conformance import check_resources, failures
from rules.specs.fleet import UpdateStage
from tests.components.harness import REPO_ROOT, Record, Run, run_main
from tests.components.test_snapshots import SNAPSHOT_DIR, UPDATE_ENV, differences, snapshot_of

EXAMPLE = REPO_ROOT / "examples" / "fleet" / "Pulumi.fleet.yaml"
SNAPSHOT = SNAPSHOT_DIR / "fleet.json"
ARM = "azure-native:resources:Resource"
CRP = "kubernetes:placement.kubernetes-fleet.io/v1:ClusterResourcePlacement"
NAMESPACE = "kubernetes:core/v1:Namespace"
CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
URN = "urn:pulumi:fleet::azure-gpu-platform::azure-gpu-platform:components:"
MEMBERS = {"weu": ("westeurope", "canary"), "sec": ("swedencentral", "rest"), "scus": ("southcentralus", "rest")}
A100 = "gpu-size.azure-gpu-platform/Standard_NC24ads_A100_v4"


def example_config() -> dict[str, Any]:
    return dict(yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))["config"])


@pytest.fixture(scope="module")
def run() -> Run:
    result = run_main(example_config(), stack="fleet")
    assert result.error is None, result.error
    return result


def arm(run: Run, resource_type: str) -> list[Record]:
    return [r for r in run.of_type(ARM) if r.inputs["resourceType"] == resource_type]


def test_the_fleet_with_its_hub(run: Run) -> None:
    (fleet,) = arm(run, "fleets")
    assert fleet.name == "fleet-fleet"
    assert fleet.inputs == {
        "apiVersion": "2026-06-01",
        "resourceProviderNamespace": "Microsoft.ContainerService",
        "resourceType": "fleets",
        "parentResourcePath": "",
        "resourceGroupName": "rg-gpu-fleet",
        "resourceName": "gpu-fleet",
        "location": "westeurope",
        "tags": {"environment": "fleet", "managed-by": "pulumi:azure-gpu-platform"},
        "properties": {"hubProfile": {"dnsPrefix": "gpu-fleet"}},
    }
    assert fleet.dependencies == [f"{URN}GpuFleet$azure-native:resources:ResourceGroup::fleet-rg"]


def test_one_fleet_member_per_member_after_its_cluster_and_pools(run: Run) -> None:
    members = {r.inputs["resourceName"]: r for r in arm(run, "members")}
    assert sorted(members) == sorted(MEMBERS)
    for name, (region, group) in MEMBERS.items():
        member = members[name]
        assert member.inputs["parentResourcePath"] == "fleets/gpu-fleet"
        assert member.inputs["apiVersion"] == "2026-06-01"
        props = member.inputs["properties"]
        assert props["clusterResourceId"] == f"/mock/{CLUSTER}/{name}-aks-cluster"
        assert props["group"] == group
        assert props["labels"]["azure-gpu-platform/region"] == region
        assert props["labels"]["gpu-resource.azure-gpu-platform/nvidia.com_gpu"] == "true"
        assert sorted(member.dependencies) == sorted(
            [
                f"{URN}AksGpuCluster$azure-native:containerservice:ManagedCluster::{name}-aks-cluster",
                f"{URN}AksGpuCluster$azure-gpu-platform:components:GpuNodePool${POOL}::{name}-aks-a100",
                f"{URN}GpuFleet$azure-native:resources:Resource::fleet-fleet",
            ]
        )
    assert A100 in members["weu"].inputs["properties"]["labels"]
    assert A100 in members["scus"].inputs["properties"]["labels"]
    assert A100 not in members["sec"].inputs["properties"]["labels"]  # its override: NC48ads_A100_v4
    assert (
        members["sec"].inputs["properties"]["labels"]["gpu-size.azure-gpu-platform/Standard_NC48ads_A100_v4"] == "true"
    )


def test_update_strategy_canary_then_the_rest(run: Run) -> None:
    (strategy,) = arm(run, "updateStrategies")
    assert strategy.inputs["resourceName"] == "gpu-staged"
    assert strategy.inputs["properties"] == {
        "strategy": {
            "stages": [
                {"name": "canary", "groups": [{"name": "canary"}], "afterStageWaitInSeconds": 3600.0},
                {"name": "rest", "groups": [{"name": "rest"}]},
            ]
        }
    }
    assert sorted(strategy.dependencies) == sorted(
        [
            *(f"{URN}GpuFleet$azure-native:resources:Resource::fleet-member-{m}" for m in MEMBERS),
            f"{URN}GpuFleet$azure-native:resources:Resource::fleet-fleet",  # its resource group comes through it
        ]
    )


def test_auto_upgrade_profile_follows_the_strategy(run: Run) -> None:
    (profile,) = arm(run, "autoUpgradeProfiles")
    assert profile.inputs["resourceName"] == "gpu-auto-upgrade"
    assert profile.inputs["properties"] == {
        "channel": "Stable",
        "nodeImageSelection": {"type": "Consistent"},
        "updateStrategyId": f"/mock/{ARM}/fleet-update-strategy",
    }


def test_placement_on_the_hub_selects_a100_members(run: Run) -> None:
    placement = run.one(CRP)
    assert placement.inputs == {
        "apiVersion": "placement.kubernetes-fleet.io/v1",
        "kind": "ClusterResourcePlacement",
        "metadata": {"name": "team-a-llm"},
        "spec": {
            "resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": "team-a-llm"}],
            "policy": {
                "placementType": "PickAll",
                "affinity": {
                    "clusterAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "clusterSelectorTerms": [{"labelSelector": {"matchLabels": {A100: "true"}}}]
                        }
                    }
                },
            },
        },
    }
    hub = f"{URN}GpuFleet$pulumi:providers:kubernetes::fleet-hub-k8s"
    assert placement.provider.startswith(hub)
    assert sorted(placement.dependencies) == sorted(
        [
            *(f"{URN}GpuFleet$azure-native:resources:Resource::fleet-member-{m}" for m in MEMBERS),
            f"{URN}GpuFleet${NAMESPACE}::fleet-ns-team-a-llm",
        ]
    )
    namespace = run.one(NAMESPACE)
    assert namespace.inputs["metadata"]["name"] == "team-a-llm"
    assert namespace.provider.startswith(hub)


def test_the_hub_provider_reads_the_fleet_credentials_after_the_access_role(run: Run) -> None:
    assert (
        "azure-native:containerservice:listFleetCredentials",
        {"resourceGroupName": "rg-gpu-fleet", "fleetName": "gpu-fleet"},
    ) in run.invokes
    role = run.by_name("fleet-hub-access-deployer")
    assert role.inputs["roleDefinitionId"].endswith("/18ab4d3d-a1bf-4477-8ad9-8359bc988f69")
    assert role.inputs["principalType"] == "ServicePrincipal"
    assert role.inputs["scope"] == f"/mock/{ARM}/fleet-fleet"
    provider = run.by_name("fleet-hub-k8s")
    assert f"{URN}GpuFleet$time:index/sleep:Sleep::fleet-hub-access-wait" in provider.dependencies


def test_each_member_is_a_full_platform_under_its_name(run: Run) -> None:
    for name, (region, _) in MEMBERS.items():
        cluster = run.by_name(f"{name}-aks-cluster", CLUSTER)
        assert cluster.inputs["resourceName"] == f"aks-gpu-fleet-{name}"
        assert cluster.inputs["resourceGroupName"] == f"rg-gpu-fleet-{name}"
        assert cluster.inputs["location"] == region
        assert cluster.inputs["tags"]["fleet-member"] == name
        assert cluster.inputs["addonProfiles"]["omsagent"]["enabled"] is True
        # the fleet's Stable profile moves the members' Kubernetes version: the program ignores the drift
        assert cluster.ignore_changes == ["kubernetesVersion", "agentPoolProfiles[0].orchestratorVersion"]
        assert run.by_name(f"{name}-aks-a100", POOL).ignore_changes == ["count", "orchestratorVersion"]
        for component in ("gpu-operator", "monitoring"):
            assert run.by_name(f"{name}-{component}").custom is False
    urns = [r.urn for r in run.records]
    assert len(urns) == len(set(urns))
    tagged = [r for r in run.records if r.type.startswith("azure-native:") and "tags" in r.inputs]
    for record in tagged:
        member = record.name.split("-", 1)[0]
        expected = member if member in MEMBERS else None
        assert record.inputs["tags"].get("fleet-member") == expected, record.name


def test_every_fleet_resource_conforms(run: Run) -> None:
    fleet_records = [r for r in run.records if r.type in (ARM, CRP, NAMESPACE)]
    assert len(fleet_records) == 8  # fleet, 3 members, strategy, auto-upgrade, namespace, placement
    assert failures(check_resources(fleet_records)) == []
    assert [f for f in check_resources(fleet_records) if f.rule == "not-covered"] == []
    assert check_resources(run.records) == []  # the members' platforms too: nothing failed, skipped or unknown


def test_outputs_name_every_member(run: Run) -> None:
    assert sorted(run.outputs["members"]) == sorted(MEMBERS)
    view = run.outputs["fleet"]["members"]
    assert {m: (v["region"], v["group"]) for m, v in view.items()} == MEMBERS
    assert run.outputs["contractVersion"] == "1" and "kubeconfig" not in run.outputs["members"]["weu"]
    assert run.outputs["fleet"]["requestable"] == {
        "nvidia.com/gpu": {"weu": ["Standard_NC24ads_A100_v4"], "sec": ["Standard_NC48ads_A100_v4"],
                           "scus": ["Standard_NC24ads_A100_v4"]}
    }  # fmt: skip
    assert run.outputs["members"]["weu"]["clusterName"] == "aks-gpu-fleet-weu"


def test_urns_match_the_fleet_snapshot(run: Run) -> None:
    actual = snapshot_of(run)
    if os.environ.get(UPDATE_ENV) == "1":
        SNAPSHOT.write_text(json.dumps(actual, indent=2) + "\n", encoding="utf-8")
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    diff = differences(expected, actual)
    assert not diff, "URNs of the fleet example changed:\n  " + "\n  ".join(diff)


def test_the_preflight_passes_the_example(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from gpu_catalog.clock import TODAY_ENV
    from preflight.cli import main
    from tests.conftest import TEST_TODAY

    monkeypatch.setenv(TODAY_ENV, TEST_TODAY)  # the run sets the day for its program: restored after the test
    code = main(["--config-file", str(EXAMPLE), "--format", "json", "--today", TEST_TODAY])
    out = capsys.readouterr().out
    assert code == 0, out
    report = json.loads(out)
    types = {r["type"] for r in report["resources"]}
    assert {ARM, CRP, NAMESPACE} <= types
    # the report per member (preflight/fleet_report.py): each member's A100 pool in its own region
    fleet = report["fleet"]
    members = [(m["name"], m["regions"], m["group"], m["cost"]["monthlyMax"]) for m in fleet["members"]]
    assert members == [("scus", ["southcentralus"], "rest", 5362.58), ("sec", ["swedencentral"], "rest", 5362.58),
                       ("weu", ["westeurope"], "canary", 5362.58)]  # fmt: skip
    quota = {(r["region"], r["quota"]): r["vcpusMax"] for m in fleet["members"] for r in m["quota"]}
    assert quota[("swedencentral", "StandardNCADSA100v4Family")] == 96  # one NC48ads node + one upgrade-surge node
    assert quota[("southcentralus", "StandardNCADSA100v4Family")] == 72  # two NC24ads nodes + one upgrade-surge node
    assert fleet["totals"]["cost"]["monthlyMax"] == 16087.74 and fleet["totals"]["idle"]["monthly"] == 10725.16
    # the example's hub is on and not in the totals: the report says so (preflight/fleet_report.py HUB_NOTES)
    assert (fleet["hub"]["enabled"], fleet["hub"]["priced"]) == (True, False)
    assert fleet["hub"]["note"].startswith("not priced: Fleet Manager runs and bills the hub, a single-node ")
    assert fleet["hub"]["note"].endswith('(docs/fleet.md, "Hub or no hub")')
    # the fleet policies on the example's generic Fleet resources: Stable stays in range; its next move is a warning
    fleet_policies = [
        (v["policyName"], v["enforcementLevel"]) for v in report["violations"] if "fleet-" in v["policyName"]
    ]
    assert fleet_policies == [("fleet-auto-upgrade-next-move", "advisory")] * 3
    # each member's pools, releases and Workspaces judged as one cluster's (policies/_fleet.py member_groups): the
    # device-plugin and KAITO-version policies leave nothing unchecked in the fleet
    assert report["notApplicable"] == []
    # the fleet's own advisories reach the program's log, so the preflight lists them (composition/stack_file.py)
    fleet_warnings = sorted(w.split(": ", 2)[1] for w in report["warnings"] if ": fleet." in w)
    assert fleet_warnings == ["fleet.autoUpgrade.channel"] * 3 + ["fleet.members[0].region", "fleet.members[1].region"]


def _args(**kw: Any) -> GpuFleetArgs:
    base: dict[str, Any] = {
        "fleet_name": "gpu-fleet",
        "resource_group_name": "rg",
        "location": "westeurope",
        "members": (FleetMemberArgs("weu", "canary"), FleetMemberArgs("sec", "rest")),
        "stages": (UpdateStage("canary", ("canary",)), UpdateStage("rest", ("rest",))),
    }
    return GpuFleetArgs(**{**base, **kw})


def test_args_refuse_placements_without_a_hub_and_unknown_groups() -> None:
    with pytest.raises(InvalidArgsError) as refused:
        _args(
            hub=False,
            placements=(PlacementArgs("p", "team-a"),),
            stages=(UpdateStage("canary", ("canary", "blue")),),
            members=(FleetMemberArgs("weu", "canary", region="westeurope"), FleetMemberArgs("weu", "canary")),
        )
    lines = str(refused.value).splitlines()[1:]  # the fleet rules' own messages (rules/fleet.py)
    assert lines[0] == "  placements: a ClusterResourcePlacement needs the fleet's hub (hub=True)"
    assert lines[1].startswith("  members: 'weu' is already the name of members[0] (westeurope): a fleet has one ")
    assert lines[2].startswith("  stages: no member is in group 'blue': the members' groups are canary")
    assert len(lines) == 3


def test_placement_terms_name_the_members_when_labels_alone_select_more() -> None:
    from datetime import date

    from composition.fleet import placement_args
    from rules.specs.fleet import FleetMember, FleetPool, FleetSpec, Placement

    a100 = (FleetPool("a100", "Standard_NC24ads_A100_v4", ("nvidia.com/gpu",), 2),)
    spec = FleetSpec(
        name="gpu-fleet",
        location="westeurope",
        members=(
            FleetMember("weu", "westeurope", kaito_addon=True, pools=a100),
            FleetMember("neu", "northeurope", kaito_addon=False, pools=a100),  # same size, no KAITO add-on
        ),
        placements=(
            Placement("llm", "team-a", ("Standard_NC24ads_A100_v4",), kaito_preset="phi-4"),
            Placement("any", "team-b", ("Standard_NC24ads_A100_v4",), number_of_clusters=1),
        ),
    )
    llm = placement_args(spec, 0, today=date(2026, 12, 3))
    assert llm.cluster_selector_terms == (
        {
            "labelSelector": {
                "matchLabels": {A100: "true"},
                "matchExpressions": [{"key": "fleet.azure.com/member-name", "operator": "In", "values": ["weu"]}],
            }
        },
    )
    any_member = placement_args(spec, 1, today=date(2026, 12, 3))
    assert any_member.cluster_selector_terms == ({"labelSelector": {"matchLabels": {A100: "true"}}},)
    assert any_member.number_of_clusters == 1


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_a_members_platform_prefixes_every_name(stack: str) -> None:
    """Every resource of a shipped stack's platform, built twice in one program under two member names: every name
    starts with its member's, no URN repeats, and the names once per subscription or workspace end with it."""
    from composition.platform import build_platform
    from composition.stack_file import load_stack_config
    from tests.components.harness import run_program, stack_config

    def program() -> None:
        cfg = load_stack_config()
        build_platform(cfg, "m1")
        build_platform(cfg, "m2")

    single = [row["urn"].rsplit("::", 1)[1] for row in json.loads((SNAPSHOT_DIR / f"{stack}.json").read_text())]
    run = run_program(program, config=stack_config(stack), stack=stack)
    assert run.error is None, run.error
    assert len(run.records) == 2 * len(single)
    assert len({r.urn for r in run.records}) == len(run.records)
    assert sorted(r.name for r in run.records if r.name.startswith("m1-")) == sorted(f"m1-{n}" for n in single)
    assert sorted(r.name for r in run.records if r.name.startswith("m2-")) == sorted(f"m2-{n}" for n in single)
    policies = run.of_type("azure-native:authorization:PolicyDefinition")
    assert [p.inputs["policyDefinitionName"].rsplit("-", 1)[1] for p in policies] == [p.name[:2] for p in policies]


def _refusals(mutate: Any) -> list[str]:
    """The problems the stack config names for a copy of the example changed by ``mutate(fleet section)``."""
    import copy
    from datetime import date

    from stack_config import StackConfigError, validate_stack_config
    from stack_config.loading import config_from_stack_yaml

    config = copy.deepcopy(example_config())
    mutate(config["azure-gpu-platform:fleet"])
    with pytest.raises(StackConfigError) as refused:
        validate_stack_config(config_from_stack_yaml(config), stack_file="Pulumi.fleet.yaml", today=date(2026, 12, 3))
    return [f"{p.path}: {p.message}" for p in refused.value.problems]


def test_the_example_refuses_two_members_with_one_name() -> None:
    problems = _refusals(lambda fleet: fleet["members"][2].update(name="weu"))
    assert problems == [
        "fleet.members[2].name: 'weu' is already the name of members[0] (westeurope): a fleet has one FleetMember "
        "per name, and the name suffixes the member's cluster and resource group names. Give each member its own "
        "name."
    ]


def test_the_example_refuses_a_channel_past_the_gpu_stack() -> None:
    problems = _refusals(lambda fleet: fleet.update(autoUpgrade={"channel": "Rapid"}))
    assert len(problems) == 3  # one per member
    assert problems[0].startswith(
        "fleet.autoUpgrade.channel: fleet auto-upgrade channel 'Rapid' moves member 'weu' (westeurope) from "
        "Kubernetes 1.36 to 1.37"
    )
    assert "GPU operator v26.7.0" in problems[0]


def test_the_example_refuses_a_placement_no_member_can_run() -> None:
    problems = _refusals(lambda fleet: fleet["placements"][0].update(vmSizes=["Standard_NC40ads_H100_v5"]))
    assert len(problems) == 1
    assert problems[0].startswith(
        "fleet.placements[0]: no member can run placement 'team-a-llm' (namespace team-a-llm): it needs a GPU pool "
        "of Standard_NC40ads_H100_v5"
    )


def test_a_misspelled_member_field_fails_conformance(run: Run) -> None:
    import copy

    member = copy.deepcopy(arm(run, "members")[0])
    member.inputs["properties"]["lables"] = member.inputs["properties"].pop("labels")
    (finding,) = failures(check_resources([member]))
    assert (finding.path, finding.rule) == ("properties.lables", "unknown-field")
    assert 'did you mean "labels"' in finding.message


def test_members_keep_their_version_without_a_version_moving_profile() -> None:
    config = example_config()
    fleet = dict(config["azure-gpu-platform:fleet"])
    fleet["autoUpgrade"] = {"channel": "NodeImage"}  # node images only: the program keeps owning the version
    config["azure-gpu-platform:fleet"] = fleet
    result = run_main(config, stack="fleet")
    assert result.error is None, result.error
    assert [r.ignore_changes for r in result.of_type(CLUSTER)] == [[], [], []]
    (profile,) = arm(result, "autoUpgradeProfiles")
    assert profile.inputs["properties"]["channel"] == "NodeImage"


def test_a_fleet_without_hub_has_no_hub_resources() -> None:
    from components.fleet import GpuFleet, MemberCluster
    from tests.components.harness import run_program

    def program() -> None:
        GpuFleet("fleet", _args(hub=False), {"weu": MemberCluster("/c/weu"), "sec": MemberCluster("/c/sec")})

    result = run_program(program, config={})
    assert result.error is None, result.error
    (fleet,) = arm(result, "fleets")
    assert fleet.inputs["properties"] == {}
    assert [r.type for r in result.records if r.type.startswith(("kubernetes", "pulumi:providers"))] == []
    assert result.of_type("azure-native:authorization:RoleAssignment") == []
    assert [i for i in result.invokes if i[0].endswith("listFleetCredentials")] == []
    assert sorted(r.inputs["resourceName"] for r in arm(result, "members")) == ["sec", "weu"]


def test_a_hub_change_replaces_the_fleet_and_its_children(run: Run) -> None:
    """``FleetHubProfile``'s fields are create-only and a hub cannot be removed (gpu_catalog/facts/fleet.json
    ``fields.fleet.hubChange``): the engine replaces the Fleet, deleting it first (one ARM name), and its children
    with it (their resource group comes through the fleet, so the engine's dependent replacement reaches them)."""
    (fleet,) = arm(run, "fleets")
    assert fleet.replace_on_changes == ["properties.hubProfile"]
    assert fleet.delete_before_replace is True
    fleet_urn = f"{URN}GpuFleet$azure-native:resources:Resource::fleet-fleet"
    children = [r for r in run.of_type(ARM) if r.inputs["resourceType"] != "fleets"]
    assert sorted(r.inputs["resourceType"] for r in children) == [
        "autoUpgradeProfiles", "members", "members", "members", "updateStrategies"
    ]  # fmt: skip
    for child in children:
        assert child.inputs["resourceGroupName"] == "rg-gpu-fleet"
        assert child.property_dependencies["resourceGroupName"] == [fleet_urn]
        assert (child.replace_on_changes, child.delete_before_replace) == ([], False)
    # the resource group and the members' clusters are not replaced with the fleet
    assert run.by_name("fleet-rg").replace_on_changes == []
    assert run.by_name("weu-aks-cluster", CLUSTER).delete_before_replace is False


def test_the_output_contract_doc_shows_the_fleet_view_the_stack_exports(run: Run) -> None:
    """docs/output-contract.md's fleet-view example has the keys, in order, of what the example stack exports."""
    import re

    doc = (REPO_ROOT / "docs" / "output-contract.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(fleet:\n.*?)```", doc, re.S)
    assert block is not None
    shown = yaml.safe_load(block.group(1))["fleet"]
    exported = run.outputs["fleet"]
    assert list(shown) == list(exported) == [
        "name", "fleetId", "location", "hub", "members", "groups", "regions", "requestable"
    ]  # fmt: skip
    assert exported["fleetId"] == f"/mock/{ARM}/fleet-fleet"
    assert list(shown["members"]["weu"]) == list(exported["members"]["weu"])
    assert list(shown["members"]["weu"]["pools"][0]) == list(exported["members"]["weu"]["pools"][0])


def test_the_example_refuses_a_member_in_a_region_without_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The regional facts (gpu_catalog/facts/gpu_regions.json, read by rules.fleet.region_findings) record, with a
    source, that swedencentral does not offer member sec's override size: the stack file is refused, naming it."""
    import copy
    from datetime import date

    import rules.fleet
    from gpu_catalog.gpu_regions import RegionalSizes
    from stack_config import StackConfigError, validate_stack_config
    from stack_config.loading import config_from_stack_yaml

    source = "test source: az vm list-skus --location swedencentral --size Standard_NC48ads_A100_v4, 2026-12-01"
    regional = RegionalSizes(not_offered={"swedencentral": {"Standard_NC48ads_A100_v4": source}})
    monkeypatch.setattr(rules.fleet, "load_regional_sizes", lambda: regional)
    config = config_from_stack_yaml(copy.deepcopy(example_config()))
    with pytest.raises(StackConfigError) as refused:
        validate_stack_config(config, stack_file="Pulumi.fleet.yaml", today=date(2026, 12, 3))
    expected = (
        "member 'sec': swedencentral does not offer Standard_NC48ads_A100_v4 (pool 'a100'; test source: az vm "
        "list-skus --location swedencentral --size Standard_NC48ads_A100_v4, 2026-12-01; "
        "gpu_catalog/facts/gpu_regions.json), so AKS cannot create the pool there. Override the pool's vmSize for "
        "this member (fleet.members[1].overrides.gpuPools: [{name: a100, vmSize: ...}]) or place the member in a "
        "region that offers it."
    )
    assert [(p.path, p.message) for p in refused.value.problems] == [("fleet.members[1].region", expected)]
    assert str(refused.value).splitlines() == [
        "invalid stack configuration in Pulumi.fleet.yaml (1 problem; keys are under 'azure-gpu-platform:'; nothing "
        "was deployed):",
        f"  Pulumi.fleet.yaml: fleet.members[1].region: {expected}",
    ]
