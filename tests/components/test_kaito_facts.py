"""The KAITO facts files (gpu_catalog/facts/kaito.json, kaito_addon.json): the add-on version per Kubernetes minor,
every fact traced to a source, and the component's Workspace carrying every field the CRD requires."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from components.kaito import API_VERSION, KIND, KaitoWorkspaceArgs, workspace_manifest
from gpu_catalog import kaito_presets
from gpu_catalog.kaito_presets import (
    KAITO_ADDON_FACTS_PATH,
    KAITO_ADDON_VERSION,
    KAITO_FACTS_PATH,
    KAITO_VERSION,
    KaitoFactsError,
    kaito_addon_version,
    kaito_table_minors,
    kubernetes_minor,
)

KAITO = json.loads(KAITO_FACTS_PATH.read_text(encoding="utf-8"))
ADDON = json.loads(KAITO_ADDON_FACTS_PATH.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("1.34", "0.6.0"),
        ("1.35", "0.6.0"),
        ("1.36", "0.6.0"),
        ("1.36.2", "0.6.0"),
        ("v1.36.2", "0.6.0"),
        ("1.33", "0.4.5"),
        ("1.37", None),  # AKS GA Oct 2026, but no add-on version recorded for it
        ("1.32", None),  # the table's 1.32 row does not name the add-on
        ("1.3", None),  # what an unquoted 1.30 becomes in YAML
        ("latest", None),
        ("", None),
    ],
)
def test_addon_version_per_kubernetes_version(version: str, expected: str | None) -> None:
    assert kaito_addon_version(version) == expected


def test_the_preset_table_is_the_addon_0_6_0_on_1_34_to_1_36() -> None:
    assert (KAITO_VERSION, KAITO_ADDON_VERSION) == ("v0.6.0", "0.6.0")
    assert kaito_table_minors() == ["1.34", "1.35", "1.36"]
    assert kubernetes_minor("1.36.10") == "1.36"


def test_every_addon_row_names_declared_sources() -> None:
    ids = {s["id"] for s in ADDON["sources"]}
    for source in ADDON["sources"]:
        assert source["repository"] and source["path"] and (source.get("commit") or source.get("tag")), source
    for row in ADDON["versions"]:
        assert row["sources"] and set(row["sources"]) <= ids, row
        assert row["kaitoTag"] == f"v{row['addonVersion']}"


@pytest.fixture
def addon_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "kaito_addon.json"
    monkeypatch.setattr(kaito_presets, "KAITO_ADDON_FACTS_PATH", path)
    kaito_presets._addon_table.cache_clear()
    yield path
    kaito_presets._addon_table.cache_clear()


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([{"kubernetesMinor": "1.36", "addonVersion": "0.6.0"}], "versions[0] (1.36) names no source"),
        (
            [{"kubernetesMinor": 1.36, "addonVersion": "0.6.0", "sources": ["x"]}],
            "versions[0] needs 'kubernetesMinor' like '1.34' and 'addonVersion'",
        ),
        (
            [{"kubernetesMinor": "1.36", "addonVersion": "0.6.0", "sources": ["x"]}] * 2,
            "versions[1]: Kubernetes 1.36 appears twice",
        ),
        ([], "expected a non-empty 'versions' list"),
    ],
)
def test_a_malformed_addon_file_is_refused_naming_the_entry(
    addon_file: Path, rows: list[dict[str, Any]], expected: str
) -> None:
    addon_file.write_text(json.dumps({"versions": rows}), encoding="utf-8")
    with pytest.raises(KaitoFactsError) as info:
        kaito_addon_version("1.36")
    assert str(info.value) == f"{addon_file}: {expected}"


def _fact_sources(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("source"), str):
            yield node["source"]
        for key, value in node.items():
            if key != "sources":
                yield from _fact_sources(value)
    elif isinstance(node, list):
        for item in node:
            yield from _fact_sources(item)


def test_every_kaito_fact_names_a_source_with_repository_path_and_tag() -> None:
    sources = KAITO["sources"]
    for source in sources.values():
        assert source["repository"] == "kaito-project/kaito" and source["tag"] == "v0.6.0" and source["path"]
    used = list(_fact_sources(KAITO))
    assert used and set(used) <= set(sources), set(used) - set(sources)
    for path, fact in KAITO["workspace"]["fields"].items():
        assert fact.get("source") in sources, path
    for name, rule in KAITO["workspace"]["rules"].items():
        assert rule.get("source") in sources, name


def test_the_component_registers_the_recorded_api_version_and_every_required_field() -> None:
    workspace = KAITO["workspace"]
    assert (workspace["apiVersion"], workspace["kind"]) == (API_VERSION, KIND) == ("kaito.sh/v1beta1", "Workspace")
    args = KaitoWorkspaceArgs(
        workspace_name="phi-4",
        preset="phi-4",
        instance_type="Standard_NC24ads_A100_v4",
        match_labels={"apps": "phi-4"},
        kubernetes_version="1.36",
        addon_enabled=True,
    )
    manifest = workspace_manifest(args)
    assert "spec" not in manifest and workspace["topLevelFields"] is True
    required = sorted(path for path, fact in workspace["fields"].items() if fact.get("required"))
    assert required == ["inference.preset.name", "metadata.name", "resource.labelSelector"]
    for path in required:
        node: Any = manifest
        for part in path.split("."):
            assert isinstance(node, dict) and part in node, f"{path} missing from the Workspace"
            node = node[part]
        assert node, path
