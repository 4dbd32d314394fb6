"""What the preflight records about a resource, in the shape the Pulumi engine would hand it to an analyzer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RecordedResource:
    """One registered resource (or component) as the engine sees it.

    ``inputs`` uses the wire names (camelCase) and JSON-like values (numbers are floats), as the engine sends them
    to a policy pack. The URN is the engine's form (no ``pulumi:pulumi:Stack$`` qualifier from the mock monitor).
    """

    urn: str
    type: str
    name: str
    inputs: dict[str, Any]
    parent: str | None = None
    custom: bool = True
    provider: str | None = None
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    protect: bool = False
    ignore_changes: list[str] = field(default_factory=list)
    """The ``ignoreChanges`` resource option: input property paths whose drift the engine ignores."""
    replace_on_changes: list[str] = field(default_factory=list)
    """The ``replaceOnChanges`` resource option: input property paths whose change replaces the resource."""
    delete_before_replace: bool = False
    """The ``deleteBeforeReplace`` resource option."""
