"""rules.upgrade.upgrade_channel_next_move: where a moving channel takes the cluster next, and when (AKS's release
calendar, gpu_catalog/facts/aks_kubernetes.json), against the pinned components' validated ranges."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from gpu_catalog.lifecycle import KUBERNETES_FACTS, KubernetesFacts, load_kubernetes_facts
from rules.upgrade import (
    NextMove,
    channel_next_move,
    upgrade_channel_next_move,
    upgrade_channel_range,
    validated_minors,
)
from stack_config import validate_stack_config
from stack_config.channel_moves import channel_move_warnings
from tests.components.harness import stack_config

PINS = validated_minors(gpu_operator_version="v26.7.0", kaito_addon=True)  # both validated up to 1.36
DEC_3 = date(2026, 12, 3)


def _with_1_38(tmp_path: Path) -> KubernetesFacts:
    """The calendar with a 1.38 row (AKS GA Mar 2027), as a refresh would bring it."""
    doc = json.loads(KUBERNETES_FACTS.read_text())
    doc["versions"].append({"minor": "1.38", "aksGa": "2027-03", "endOfLife": "2028-03", "ltsEndOfLife": "2029-03"})
    path = tmp_path / "aks_kubernetes.json"
    path.write_text(json.dumps(doc))
    return load_kubernetes_facts(path)


def test_stable_moves_to_1_37_when_1_38_goes_ga_estimated_while_the_calendar_has_no_row() -> None:
    """Staging: stable on 1.36 (N-1 of N = 1.37 on 2026-12-03). 1.38 is not on the calendar; the calendar's recent
    GA gaps (1.33 Jun 2025 -> 1.34 Nov 2025 -> 1.35 Mar 2026 -> 1.36 Jun 2026 -> 1.37 Oct 2026: 5, 4, 3, 4 months,
    median 4) put it around Feb 2027."""
    assert channel_next_move("stable", "1.36", DEC_3) == NextMove("1.37", "1.38", date(2027, 2, 1), True)
    assert upgrade_channel_range("stable", "1.36", PINS, today=DEC_3) == []  # today's target, 1.36, is validated
    [finding] = upgrade_channel_next_move("stable", "1.36", PINS, today=DEC_3)
    assert finding.field == "autoUpgradeChannel"
    assert finding.message == (
        "'stable' will move this cluster from 1.36 to Kubernetes 1.37 when AKS makes 1.38 generally available "
        "(expected around Feb 2027, estimated from the calendar's GA cadence: 1.38 is not on AKS's release calendar "
        "yet; gpu_catalog/facts/aks_kubernetes.json), with no pulumi up: the control plane, then every node pool. But "
        "GPU operator v26.7.0 (NVIDIA's platform-support matrix) is validated up to 1.36; the KAITO add-on 0.6.0 (AKS "
        "add-on table, gpu_catalog/facts/kaito_addon.json) is validated up to 1.36. Before then, pin software "
        "validated on 1.37, or use autoUpgradeChannel none or patch or node-image and move the minor yourself."
    )


def test_the_calendar_date_when_the_calendar_has_the_next_minor(tmp_path: Path) -> None:
    facts = _with_1_38(tmp_path)
    assert channel_next_move("stable", "1.36", DEC_3, facts) == NextMove("1.37", "1.38", date(2027, 3, 1), False)
    [finding] = upgrade_channel_next_move("stable", "1.36", PINS, today=DEC_3, facts=facts)
    assert "when AKS makes 1.38 generally available (AKS GA Mar 2027 on AKS's release calendar;" in finding.message
    # once 1.38 is GA the move is today's: refused by upgrade_channel_range, no second (warning) finding
    march = date(2027, 3, 15)
    assert [f.field for f in upgrade_channel_range("stable", "1.36", PINS, today=march, facts=facts)] == [
        "autoUpgradeChannel"
    ]
    assert upgrade_channel_next_move("stable", "1.36", PINS, today=march, facts=facts) == []


@pytest.mark.parametrize(
    ("channel", "pinned", "expected"),
    [
        ("rapid", "1.37", NextMove("1.38", "1.38", date(2027, 2, 1), True)),
        ("stable", "1.37", None),  # already at N: 1.38's GA moves stable to 1.37, no move
        ("patch", "1.36", None),
        ("none", "1.36", None),
        ("node-image", "1.36", None),
    ],
)
def test_only_moving_channels_move(channel: str, pinned: str, expected: NextMove | None) -> None:
    assert channel_next_move(channel, pinned, DEC_3) == expected


def test_no_warning_for_pins_validated_on_the_next_minor() -> None:
    assert upgrade_channel_next_move("stable", "1.36", {"x": "1.37"}, today=DEC_3) == []
    assert upgrade_channel_next_move("patch", "1.36", PINS, today=DEC_3) == []


def test_the_staging_stack_warns_and_dev_and_prod_do_not() -> None:
    from stack_config import config_from_stack_yaml

    def warnings(stack: str) -> list[str]:
        cfg = validate_stack_config(
            config_from_stack_yaml(stack_config(stack)), stack_file=f"stacks/Pulumi.{stack}.yaml"
        )
        return channel_move_warnings(cfg)

    [staging] = warnings("staging")
    assert staging.startswith(
        "cluster.autoUpgradeChannel: 'stable' will move this cluster from 1.36 to Kubernetes 1.37 when AKS makes 1.38 "
        "generally available (expected around "
    )
    assert warnings("dev") == [] and warnings("prod") == []  # patch channels: they do not move the minor
