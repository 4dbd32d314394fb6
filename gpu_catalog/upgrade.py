"""AKS cluster auto-upgrade channels (``facts/aks_upgrade.json``, with its sources): what each channel changes and the
minor it moves a cluster to (``pinned``, ``N`` or ``N-1`` of the latest supported minor). Read by
:mod:`rules.upgrade`. No Pulumi imports."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

UPGRADE_FACTS = Path(__file__).with_name("facts") / "aks_upgrade.json"

Moves = Literal["nothing", "patch", "minor", "node image"]
TargetMinor = Literal["pinned", "N", "N-1"]


class UpgradeFactsError(ValueError):
    """``facts/aks_upgrade.json`` is malformed; the message names the channel and the field."""


@dataclass(frozen=True, slots=True)
class UpgradeChannel:
    name: str
    moves: Moves
    """What the channel changes: nothing, the patch, the minor (and the patch), or only the node image."""
    target_minor: TargetMinor
    """The minor it moves the cluster to: the pinned one, the latest supported (``N``) or the one before (``N-1``)."""

    @property
    def moves_patch(self) -> bool:
        return self.moves in ("patch", "minor")

    @property
    def moves_minor(self) -> bool:
        return self.moves == "minor"


@lru_cache(maxsize=2)
def load_upgrade_channels(path: Path = UPGRADE_FACTS) -> dict[str, UpgradeChannel]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    channels: dict[str, UpgradeChannel] = {}
    for name, row in (doc.get("channels") or {}).items():
        moves, target = row.get("moves"), row.get("targetMinor")
        if moves not in ("nothing", "patch", "minor", "node image") or target not in ("pinned", "N", "N-1"):
            raise UpgradeFactsError(f"{path.name}: channels.{name}: 'moves' or 'targetMinor' is not a known value")
        if (moves == "minor") != (target != "pinned"):
            raise UpgradeFactsError(f"{path.name}: channels.{name}: only a channel that moves the minor has a target")
        channels[str(name)] = UpgradeChannel(str(name), moves, target)
    if not channels:
        raise UpgradeFactsError(f"{path.name}: no channels")
    return channels


__all__ = ["UPGRADE_FACTS", "UpgradeChannel", "UpgradeFactsError", "load_upgrade_channels"]
