"""The package schema is pinned: ``tests/package/snapshots/schema.json``.

Any change to the schema fails here until the snapshot is regenerated; a *breaking* change (a component, input,
output, type or enum value removed or retyped, an input made required) is named in the failure, so that it is
never committed by accident: it needs a new major version of the package (``VERSION`` in
``component_package/provider.py``). After an intended change, regenerate and commit the snapshot:

    AGP_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/package/test_schema_snapshot.py

The schema is the provider's own (``GetSchema`` returns exactly this string; ``test_provider.py`` reads it over
gRPC).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from component_package.provider import provider
from tests.components.test_databricks_lazy_import import probe

SNAPSHOT = Path(__file__).with_name("snapshots") / "schema.json"
REPO_ROOT = Path(__file__).resolve().parents[2]
REGENERATE = (
    "AGP_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/package/test_schema_snapshot.py"
)


def _kind(prop: dict[str, Any]) -> Any:
    return (prop.get("type"), prop.get("$ref"), json.dumps(prop.get("items"), sort_keys=True),
            json.dumps(prop.get("additionalProperties"), sort_keys=True))  # fmt: skip


def _objects(old: dict[str, Any], new: dict[str, Any], where: str, props: str, required: str) -> list[str]:
    out: list[str] = []
    for key, prop in old.get(props, {}).items():
        if key not in new.get(props, {}):
            out.append(f"{where}: {key} removed")
        elif _kind(prop) != _kind(new[props][key]):
            out.append(f"{where}: {key} changed type")
    out += [f"{where}: {key} is now required" for key in set(new.get(required) or []) - set(old.get(required) or [])]
    return out


def breaking_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What a consumer's program written against ``old`` could break on in ``new``."""
    out: list[str] = []
    if old["name"] != new["name"]:
        out.append(f"package renamed {old['name']} → {new['name']}")
    for token, res in old["resources"].items():
        if token not in new["resources"]:
            out.append(f"{token} removed")
            continue
        now = new["resources"][token]
        out += _objects(res, now, f"{token} input", "inputProperties", "requiredInputs")
        out += [f"{token} output: {k} removed" for k in res.get("properties", {}) if k not in now.get("properties", {})]
    for token, typ in old["types"].items():
        if token not in new["types"]:
            out.append(f"type {token} removed")
            continue
        now = new["types"][token]
        if typ.get("enum") is not None:
            values = {v["value"] for v in now.get("enum") or []}
            out += [f"enum {token}: {v['value']} removed" for v in typ["enum"] if v["value"] not in values]
        else:
            out += _objects(typ, now, f"type {token}", "properties", "required")
    return out


def current_schema() -> dict[str, Any]:
    schema = provider().schema
    assert schema is not None
    return json.loads(schema)


def test_the_schema_matches_the_snapshot() -> None:
    schema = current_schema()
    if os.environ.get("AGP_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n")
    pinned = json.loads(SNAPSHOT.read_text())
    breaking = breaking_changes(pinned, schema)
    assert not breaking, (
        "breaking schema changes (a consumer's program can break; raise the major VERSION if intended, then "
        f"regenerate the snapshot: {REGENERATE}):\n  " + "\n  ".join(breaking)
    )
    assert schema == pinned, f"the schema changed; if intended, regenerate the snapshot: {REGENERATE}"


def test_breaking_changes_are_found() -> None:
    """The check fails on each kind of breaking change (a mutation of the pinned schema each), not on additions."""
    pinned = json.loads(SNAPSHOT.read_text())
    pool = "azure-gpu-platform:index:GpuNodePool"
    mig = "azure-gpu-platform:index:MigProfile"
    spec = "azure-gpu-platform:index:GpuPool"

    def mutated(change: Any) -> dict[str, Any]:
        schema = copy.deepcopy(pinned)
        change(schema)
        return schema

    cases = {
        f"{pool} removed": lambda s: s["resources"].pop(pool),
        f"{pool} input: clusterName removed": lambda s: s["resources"][pool]["inputProperties"].pop("clusterName"),
        f"{pool} output: scheduling removed": lambda s: s["resources"][pool]["properties"].pop("scheduling"),
        f"enum {mig}: MIG7g removed": lambda s: s["types"][mig].update(
            enum=[v for v in s["types"][mig]["enum"] if v["value"] != "MIG7g"]
        ),
        f"type {spec}: count changed type": lambda s: s["types"][spec]["properties"]["count"].update(type="string"),
        f"type {spec}: spot is now required": lambda s: s["types"][spec]["required"].append("spot"),
    }
    for expected, change in cases.items():
        assert breaking_changes(pinned, mutated(change)) == [expected]
    added = mutated(lambda s: s["types"][spec]["properties"].update(newInput={"type": "string"}))
    assert breaking_changes(pinned, added) == []


@pytest.mark.slow
def test_the_schema_does_not_import_pulumi_databricks() -> None:
    """Inferring the schema (what ``pulumi package add`` asks for) stays off the Databricks provider's import: checked
    in the dev stack's fresh interpreter (tests/components/test_databricks_lazy_import.py), before its control."""
    assert probe("dev")["after the schema"] == [], "pulumi_databricks was imported"
