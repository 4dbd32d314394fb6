"""The catalog loads, carries every size from the design catalog, and fails loudly on malformed rows."""

import json
from datetime import date
from fractions import Fraction
from pathlib import Path

import pytest

from gpu_catalog import CATALOG_PATH, CatalogError, default_catalog, load_catalog

EXPECTED_SIZE_COUNT = 66


def test_every_size_is_present_and_lookups_ignore_case():
    cat = default_catalog()
    assert len(cat) == EXPECTED_SIZE_COUNT
    assert cat["STANDARD_NC24ADS_A100_V4"].name == "Standard_NC24ads_A100_v4"
    assert "standard_nc4as_t4_v3" in cat
    assert cat.lookup("Standard_D4s_v5") is None


def test_size_facts_used_by_the_rules():
    cat = default_catalog()
    v100 = cat["Standard_NC6s_v3"]
    assert (v100.gpu_count, v100.gpu_memory_gib_per_gpu, v100.compute_capability) == (Fraction(1), 16.0, (7, 0))
    assert v100.retirement_date == date(2025, 9, 30)
    a10_slice = cat["Standard_NV6ads_A10_v5"]
    assert a10_slice.gpu_count == Fraction(1, 6)
    assert a10_slice.is_fractional and a10_slice.gpu_memory_gib_per_gpu == 4.0
    assert cat["Standard_NV24"].gpu_count == 4
    assert cat["Standard_ND96isr_H100_v5"].mig_capable is True
    assert cat["Standard_NC4as_T4_v3"].mig_capable is False
    assert cat["Standard_ND96isr_MI300X_v5"].compute_capability is None
    assert cat["Standard_NV32as_v4"].aks_supported is False
    assert cat["Standard_NC4as_T4_v3"].price_usd_per_hour == pytest.approx(0.526)


def test_retiring_sizes_count_as_retired_once_their_date_has_passed():
    nv12s = default_catalog()["Standard_NV12s_v3"]
    assert nv12s.status == "retiring"
    assert nv12s.is_retired(date(2026, 9, 29)) is False
    assert nv12s.is_retired(date(2026, 9, 30)) is True


def test_migration_targets_are_per_size_where_microsoft_maps_them():
    cat = default_catalog()
    assert cat["Standard_NC6s_v2"].migrate_to == ("Standard_NC24ads_A100_v4",)
    assert cat["Standard_ND6s"].migrate_to == ("Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3")


def test_suggestions_for_unknown_names():
    assert default_catalog().suggest("Standard_NC24ads_A100_v5")[0] == "Standard_NC24ads_A100_v4"
    assert len(default_catalog().suggest("zzz")) == 1


def _write(tmp_path: Path, mutate) -> Path:
    doc = json.loads(CATALOG_PATH.read_text())
    mutate(doc)
    target = tmp_path / "catalog.json"
    target.write_text(json.dumps(doc))
    return target


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d["sizes"][0]["gpu"].update(count="lots"), r"row 0 \(Standard_NC6\): gpu.count"),
        (lambda d: d["sizes"][0]["gpu"].update(vendor="Intel"), r"gpu.vendor must be one of"),
        (lambda d: d["sizes"][3].pop("vcpus"), r"row 3 \(Standard_NC24r\): missing field 'vcpus'"),
        (lambda d: d["sizes"][0]["lifecycle"].update(retirementDate=None), r"needs lifecycle.retirementDate"),
        (lambda d: d["sizes"][0]["price"].update(indicative=False), r"must be marked indicative"),
        (lambda d: d["sizes"][19]["gpu"].update(computeCapability="seven"), r"computeCapability must look like"),
        (lambda d: d["sizes"].append(d["sizes"][0]), r"appears twice"),
        (lambda d: d["sizes"][0]["lifecycle"].update(migrateTo=["Standard_NC5"]), r"migration target 'Standard_NC5'"),
    ],
)
def test_malformed_rows_fail_loudly(tmp_path, mutate, expected):
    with pytest.raises(CatalogError, match=expected):
        load_catalog(_write(tmp_path, mutate))
