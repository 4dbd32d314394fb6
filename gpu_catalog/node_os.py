"""Dated facts about AKS node OS versions (``facts/aks_node_os.json``, each with its source): the last Kubernetes
minor an OS version supports and the day AKS stops creating node pools with it. No Pulumi imports."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

NODE_OS_FACTS = Path(__file__).with_name("facts") / "aks_node_os.json"


@dataclass(frozen=True, slots=True)
class NodeOsFacts:
    os: str
    """The OS version as AKS names it (``Windows Server 2022``)."""
    os_skus: tuple[str, ...]
    """The AgentPool ``osSKU`` values (and NAP image families) that mean this OS version."""
    last_kubernetes_minor: tuple[int, int] | None
    """The newest Kubernetes minor it supports; ``None``: no ceiling."""
    no_new_pools_from: date | None
    """From this day AKS creates no node pools with it."""
    source: str
    """``repository path (date)`` of the announcement."""
    instead: str
    """What to use instead, in words."""


@lru_cache(maxsize=1)
def load_node_os_facts(path: Path = NODE_OS_FACTS) -> tuple[NodeOsFacts, ...]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    sources = {s["id"]: f"{s['repository']} {s['path']}, release notes {s['date']}" for s in doc["sources"]}
    out: list[NodeOsFacts] = []
    for row in doc["osVersions"]:
        minor = row.get("lastKubernetesMinor")
        major_s, _, minor_s = str(minor).partition(".") if minor else ("", "", "")
        until = row.get("noNewPoolsFrom")
        out.append(
            NodeOsFacts(
                os=row["os"],
                os_skus=tuple(row["osSkus"]),
                last_kubernetes_minor=(int(major_s), int(minor_s)) if minor else None,
                no_new_pools_from=date.fromisoformat(until) if until else None,
                source=sources[row["source"]],
                instead=row["instead"],
            )
        )
    return tuple(out)
