"""rules/fleet.py's update-run rule: a Full or ControlPlaneOnly run past a covered member's pinned GPU software's
validated Kubernetes range is refused with the member, the versions, the source and the date (issue 38)."""

from __future__ import annotations

import json
from dataclasses import replace

from gpu_catalog.fleet import FLEET_FACTS
from rules.fleet import (
    UPGRADE_TYPES_MOVING_VERSION,
    UpdateRunTarget,
    fleet_channel_findings,
    update_run_findings,
    update_run_members,
)
from rules.specs.fleet import AutoUpgrade, FleetMember, FleetSpec, UpdateStage
from tests.conftest import TODAY

OPERATOR = "v26.7.0"  # validated up to Kubernetes 1.36 (gpu_operator.json)
WEU = FleetMember(
    name="weu", region="westeurope", group="canary", kubernetes_version="1.36", gpu_operator_version=OPERATOR
)
SEC = replace(WEU, name="sec", region="swedencentral", group="rest", gpu_operator_version=None)
KAITO = replace(SEC, name="eus", region="eastus", group="rest", kaito_addon=True)
CANARY, REST = UpdateStage("canary", ("canary",), 3600), UpdateStage("rest", ("rest",))
OPERATOR_SOURCE = f"GPU operator {OPERATOR} (NVIDIA's platform-support matrix) is validated up to 1.36"


def findings(run: UpdateRunTarget, *members: FleetMember) -> list[str]:
    return [f.message for f in update_run_findings(members or (WEU, SEC), run, today=TODAY)]


def test_a_full_run_past_the_operators_range_is_refused_naming_member_versions_source_and_date() -> None:
    found = update_run_findings((WEU, SEC), UpdateRunTarget("k8s-137", "Full", "1.37.1"), today=TODAY)
    assert [(f.field, f.advisory) for f in found] == [("managedClusterUpdate.upgrade.kubernetesVersion", False)]
    assert found[0].message == (
        f"update run 'k8s-137' (Full: control plane and node pools) moves member 'weu' (westeurope) from Kubernetes "
        f"1.36 to 1.37.1 as of {TODAY.isoformat()}. But {OPERATOR_SOURCE}. Target Kubernetes 1.36 or lower, leave "
        "this member's group out of the run's stages, or pin software validated on 1.37 first."
    )


def test_control_plane_only_is_judged_and_the_kaito_add_on_counts() -> None:
    assert findings(UpdateRunTarget("cp", "ControlPlaneOnly", "1.37"), KAITO) == [
        f"update run 'cp' (ControlPlaneOnly: control plane only) moves member 'eus' (eastus) from Kubernetes 1.36 to "
        f"1.37 as of {TODAY.isoformat()}. But the KAITO add-on 0.6.0 (AKS add-on table, "
        "gpu_catalog/facts/kaito_addon.json) is validated up to 1.36. Target Kubernetes 1.36 or lower, leave this "
        "member's group out of the run's stages, or pin software validated on 1.37 first."
    ]


def test_inside_the_range_node_image_only_or_no_pinned_software_passes() -> None:
    assert findings(UpdateRunTarget("patch", "Full", "1.36.4")) == []
    assert findings(UpdateRunTarget("images", "NodeImageOnly", None)) == []
    assert findings(UpdateRunTarget("images", "NodeImageOnly", "1.38")) == []  # Fleet refuses the version
    assert findings(UpdateRunTarget("k8s-137", "Full", "1.37"), SEC) == []  # no GPU operator, no KAITO add-on
    assert findings(UpdateRunTarget("odd", "Full", "latest")) == []  # not a version: Fleet refuses it


def test_a_run_that_does_not_raise_the_members_minor_is_not_its_refusal() -> None:
    ahead = replace(WEU, kubernetes_version="1.37")  # already past: gpu-operator-platform-supported refuses it
    assert findings(UpdateRunTarget("k8s-137", "Full", "1.37.2"), ahead) == []
    unknown_version = replace(WEU, kubernetes_version="")
    assert len(findings(UpdateRunTarget("k8s-137", "Full", "1.37"), unknown_version)) == 1
    assert (
        "from Kubernetes its current version to 1.37"
        in findings(UpdateRunTarget("k8s-137", "Full", "1.37"), unknown_version)[0]
    )


def test_the_runs_stages_decide_which_members_it_covers() -> None:
    assert update_run_members((WEU, SEC), None) == [WEU, SEC]  # Fleet's default strategy: every member
    assert update_run_members((WEU, SEC), (REST,)) == [SEC]
    assert update_run_members((WEU, replace(SEC, group=None)), (CANARY, REST)) == [WEU]  # no group: in no stage
    assert findings(UpdateRunTarget("rest-only", "Full", "1.37", (REST,))) == []
    assert len(findings(UpdateRunTarget("both", "Full", "1.37", (CANARY, REST)))) == 1


def test_the_run_and_the_channel_share_one_range_check() -> None:
    """A TargetKubernetesVersion profile and a Full run to the same minor refuse the same members."""
    spec = FleetSpec("gpu-fleet", "westeurope", members=(WEU, SEC, KAITO),
                     auto_upgrade=AutoUpgrade("TargetKubernetesVersion", target_kubernetes_version="1.37"))  # fmt: skip
    channel = [f.message.split("'")[3] for f in fleet_channel_findings(spec, today=TODAY) if not f.advisory]
    run = [m.split("'")[3] for m in findings(UpdateRunTarget("k8s-137", "Full", "1.37"), WEU, SEC, KAITO)]
    assert channel == run == ["weu", "eus"]


def test_the_version_moving_types_are_the_rest_specs_less_node_image_only() -> None:
    facts = json.loads(FLEET_FACTS.read_text(encoding="utf-8"))
    recorded = facts["enums"]["managedClusterUpgradeType"]
    assert set(UPGRADE_TYPES_MOVING_VERSION) == set(recorded) - {"NodeImageOnly"} == {"Full", "ControlPlaneOnly"}
