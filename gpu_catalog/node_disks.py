"""Per-size disk facts for node hardening: ephemeral OS disk support, temp disk size, encryption at host.

GPU sizes: the ``nodeDisks`` field of ``catalog.json`` (a variant row reads its documented sibling's). System-pool
sizes: ``facts/system_pool_sizes.json``. A size with no sourced fact reads as ``None`` (unknown): the platform's
default stays off for it (:mod:`rules.hardening`). Standard library only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class NodeDisks:
    """What a VM size's Microsoft Learn page says about its disks (``None``: not sourced)."""

    encryption_at_host: bool | None = None
    """Encryption at host supported. Microsoft Learn publishes no per-size list ("The complete list of supported VM
    sizes can be pulled programmatically": azure-compute-docs ``articles/virtual-machines/disk-encryption.md``):
    ``None`` unless a page states it."""
    ephemeral_os_disk: bool | None = None
    """The size page's 'Feature support': Ephemeral OS Disk Supported / Not Supported."""
    temp_disk_gib: int | None = None
    """Temp (resource) disk size in GiB from the size page's 'Local storage' table (what an ephemeral OS disk is placed
    on when the size has no dedicated cache: ``articles/aks/concepts-storage.md``)."""


def _disks(row: Any) -> NodeDisks:
    if not isinstance(row, dict):
        return NodeDisks()
    temp = row.get("tempDiskGib")
    return NodeDisks(
        encryption_at_host=row.get("encryptionAtHost"),
        ephemeral_os_disk=row.get("ephemeralOsDisk"),
        temp_disk_gib=int(temp) if isinstance(temp, int | float) and not isinstance(temp, bool) else None,
    )


@cache
def _table() -> dict[str, NodeDisks]:
    out: dict[str, NodeDisks] = {}
    catalog = json.loads((_HERE / "catalog.json").read_text(encoding="utf-8"))
    rows = {r["name"].lower(): r for r in catalog["sizes"]}
    for key, row in rows.items():
        documented = rows.get(str(row.get("variantOf", "")).lower(), row)
        out[key] = _disks(documented.get("nodeDisks"))
    system = json.loads((_HERE / "facts" / "system_pool_sizes.json").read_text(encoding="utf-8"))
    for name, row in system["sizes"].items():
        out[name.lower()] = _disks(row)
    return out


def node_disks(vm_size: str) -> NodeDisks:
    """The size's disk facts; all ``None`` for a size nobody sourced."""
    return _table().get(vm_size.lower(), NodeDisks())
