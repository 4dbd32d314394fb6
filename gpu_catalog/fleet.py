"""Azure Kubernetes Fleet Manager facts (``facts/fleet.json``, with its sources): the API version the platform sends
for every Fleet resource, the REST spec's names and enums, and how each fleet auto-upgrade channel moves a member.
Read by :mod:`stack_config.fleet`, :mod:`rules.fleet`, the Fleet components and their conformance tests. No Pulumi
imports."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

FLEET_FACTS = Path(__file__).with_name("facts") / "fleet.json"
FLEET_FACTS_NAME = "gpu_catalog/facts/fleet.json"


class FleetFactsError(ValueError):
    """``facts/fleet.json`` is malformed; the message names the field."""


@dataclass(frozen=True, slots=True)
class FleetChannel:
    """A fleet auto-upgrade channel: what it moves and to which minor (``pinned``, ``N``, ``N-1`` or ``target``)."""

    name: str
    akin_to: str | None
    """The AKS cluster channel with the same rule (``stable``), if any (``rules.upgrade`` computes its target)."""
    moves: str
    target_minor: str

    @property
    def moves_minor(self) -> bool:
        return self.moves == "minor"


@dataclass(frozen=True, slots=True)
class FleetFacts:
    api_version: str
    """The Fleet API version every Fleet resource is sent with (through the generic Resource)."""
    typed_sdk_default: str
    resource_types: dict[str, str]
    upgrade_channels: tuple[str, ...]
    node_image_selection_types: tuple[str, ...]
    channels: dict[str, FleetChannel]
    member_channels: str
    """What the Fleet docs say about a member's own auto-upgrade channel (``autoUpgrade.memberChannels``)."""
    node_auto_provisioning: str
    names: dict[str, Any]


def _get(doc: dict[str, Any], *keys: str) -> Any:
    value: Any = doc
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            raise FleetFactsError(f"{FLEET_FACTS_NAME}: missing {'.'.join(keys)}")
        value = value[key]
    return value


@lru_cache(maxsize=2)
def load_fleet_facts(path: Path = FLEET_FACTS) -> FleetFacts:
    doc = json.loads(path.read_text(encoding="utf-8"))
    channels = {
        str(name): FleetChannel(str(name), row.get("akinTo"), str(row["moves"]), str(row["targetMinor"]))
        for name, row in _get(doc, "autoUpgrade", "channels").items()
    }
    enum = tuple(_get(doc, "enums", "upgradeChannel"))
    if set(channels) != set(enum):
        raise FleetFactsError(f"{FLEET_FACTS_NAME}: autoUpgrade.channels must describe exactly enums.upgradeChannel")
    return FleetFacts(
        api_version=str(_get(doc, "apiVersion", "sent")),
        typed_sdk_default=str(_get(doc, "apiVersion", "typedSdkDefault")),
        resource_types=dict(_get(doc, "apiVersion", "resourceTypes")),
        upgrade_channels=enum,
        node_image_selection_types=tuple(_get(doc, "enums", "autoUpgradeNodeImageSelectionType")),
        channels=channels,
        member_channels=str(_get(doc, "autoUpgrade", "memberChannels")),
        node_auto_provisioning=str(_get(doc, "autoUpgrade", "nodeAutoProvisioning")),
        names=dict(_get(doc, "names")),
    )


__all__ = ["FLEET_FACTS", "FLEET_FACTS_NAME", "FleetChannel", "FleetFacts", "FleetFactsError", "load_fleet_facts"]
