"""Azure region names as data, and the location check (gpu_catalog/regions.py, gpu_catalog/facts/azure_regions.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpu_catalog.regions import (
    REGION_FACTS,
    RegionFactsError,
    azure_regions,
    check_region,
    closest_regions,
    load_region_facts,
)

POINTER = (
    "(region names are lowercase, no spaces: az account list-locations -o table lists them; "
    "gpu_catalog/facts/azure_regions.json)"
)


def _doc() -> dict:
    return json.loads(REGION_FACTS.read_text(encoding="utf-8"))


def test_known_region_passes() -> None:
    assert check_region("westeurope") is None
    assert check_region("eastus2") is None
    assert check_region("swedencentral") is None


def test_sovereign_region_is_known() -> None:
    assert check_region("usgovvirginia") is None
    assert check_region("chinanorth3") is None


def test_misspelling_suggests_the_region() -> None:
    assert closest_regions("westeurpoe") == ["westeurope"]
    assert check_region("westeurpoe") == f"not an Azure region; did you mean westeurope? {POINTER}"


def test_several_suggestions_read_as_a_list() -> None:
    message = check_region("westus4")
    assert message == f"not an Azure region; did you mean westus, westus3 or westus2? {POINTER}"


def test_country_prefix_suggests_its_regions() -> None:
    assert sorted(closest_regions("sweden")) == ["swedencentral", "swedensouth"]


def test_display_name_says_what_to_write() -> None:
    assert closest_regions("West Europe") == ["westeurope"]
    assert check_region("West Europe") == f"a display name; write westeurope {POINTER}"
    assert check_region("WestEurope") == f"not the region's programmatic name; write westeurope {POINTER}"
    assert check_region("west-europe") == f"not the region's programmatic name; write westeurope {POINTER}"


def test_nothing_close_gives_only_the_pointer() -> None:
    assert closest_regions("mars") == []
    message = check_region("mars")
    assert message == f"not an Azure region, and no region name is close to it {POINTER}"
    assert message is not None and "did you mean" not in message


def test_message_does_not_repeat_the_value() -> None:
    for value in ("westeurpoe", "West Europe", "mars", "eastus2euap"):
        message = check_region(value)
        assert message is not None
        assert value not in message


def test_empty_location() -> None:
    assert check_region("  ") == f"empty: name an Azure region such as westeurope {POINTER}"


def test_canary_and_closed_regions_say_what_they_are() -> None:
    assert check_region("eastus2euap") == (
        f"an early-access (EUAP) canary region, not a region to deploy to; did you mean eastus2 or eastus? {POINTER}"
    )
    message = check_region("germanycentral")
    assert message is not None and message.startswith(
        "a Microsoft Cloud Germany region (that cloud closed on 2021-10-29)"
    )


def test_list_is_sorted_lowercase_without_duplicates() -> None:
    doc = _doc()
    for field in ("regions", "sovereign", "restricted"):
        names = doc[field]
        assert names == sorted(names), field
        assert len(set(names)) == len(names), field
        assert all(name == name.lower() and name.isalnum() for name in names), field
    assert not set(doc["regions"]) & set(doc["sovereign"])
    assert set(doc["restricted"]) <= set(doc["regions"])
    assert not set(doc["notDeployable"]) & (set(doc["regions"]) | set(doc["sovereign"]))
    assert set(doc["notInRegionsList"]) <= set(doc["regions"])


def test_sources_name_repository_path_and_commit() -> None:
    doc = _doc()
    assert doc["asOf"] == "2026-11-30"
    assert "reported as not an Azure region" in doc["note"]
    sources = {source["id"]: source for source in doc["sources"]}
    for source_id in ("regions-list", "arm-locations", "sdk-net"):
        source = sources[source_id]
        assert source["repository"] and source["path"] and len(source["commit"]) == 40, source_id
    assert sources["regions-list"]["repository"] == "MicrosoftDocs/reliability-docs"
    assert all(source.get("repository") or source.get("url") for source in doc["sources"])


def test_includes_regions_old_and_new() -> None:
    regions = azure_regions()
    for region in (
        "westeurope", "eastus", "eastus2", "swedencentral", "italynorth", "polandcentral", "spaincentral",
        "mexicocentral", "newzealandnorth", "israelcentral", "qatarcentral", "indonesiacentral", "malaysiawest",
        "chilecentral", "austriaeast", "belgiumcentral", "denmarkeast", "indiasouthcentral", "usgovvirginia",
    ):  # fmt: skip
        assert region in regions, region
    for not_a_region in ("eastus2euap", "centraluseuap", "eastusstg", "global", "europe", "usgoviowa"):
        assert not_a_region not in regions, not_a_region
    assert len(load_region_facts().public) == 60


def test_malformed_facts_are_refused(tmp_path: Path) -> None:
    doc = _doc()
    doc["regions"] = ["westeurope", "eastus"]
    path = tmp_path / "azure_regions.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(RegionFactsError, match="'regions' must be sorted"):
        load_region_facts(path)
    doc["regions"] = ["West Europe"]
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(RegionFactsError, match=r"regions\[0\] 'West Europe' is not a lowercase region name"):
        load_region_facts(path)
