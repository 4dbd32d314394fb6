"""The catalog loads, carries every size from the design catalog, and fails loudly on malformed rows."""

import json
from datetime import date
from fractions import Fraction
from pathlib import Path

import pytest

from gpu_catalog import CATALOG_PATH, CatalogError, default_catalog, load_catalog

EXPECTED_SIZE_COUNT = 112


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


def test_retiring_sizes_count_as_retired_once_their_date_has_passed(tmp_path: Path):
    nv12s = default_catalog()["Standard_NV12s_v3"]
    assert (nv12s.status, nv12s.retirement_date) == ("retired", date(2026, 9, 30))  # nvv3-series-retirement.md

    def retiring(doc):
        next(s for s in doc["sizes"] if s["name"] == "Standard_NV12s_v3")["lifecycle"]["status"] = "retiring"

    mutated = load_catalog(_write(tmp_path, retiring))["Standard_NV12s_v3"]
    assert mutated.is_retired(date(2026, 9, 29)) is False
    assert mutated.is_retired(date(2026, 9, 30)) is True


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


def test_variants_inherit_their_siblings_gpu_facts_and_are_not_copies():
    cat = default_catalog()
    noib, sibling = cat["Standard_ND96is_noib_H100_v5"], cat["Standard_ND96isr_H100_v5"]
    assert noib.variant_of == "Standard_ND96isr_H100_v5"
    assert (noib.gpu_model, noib.gpu_count, noib.compute_capability) == (
        sibling.gpu_model,
        sibling.gpu_count,
        sibling.compute_capability,
    )
    assert noib.kaito_supported is False and noib.databricks == "unconfirmed"  # support is the variant's own
    assert noib.aks_registry_os == ("ubuntu", "windows", "azurelinux3")
    raw = next(r for r in json.loads(CATALOG_PATH.read_text())["sizes"] if r["name"] == noib.name)
    assert "gpu" not in raw  # the row names its sibling and never restates the GPU
    assert cat["Standard_ND112asr_A100_v4"].vcpus == 112 and cat["Standard_ND112asr_A100_v4"].memory_gib is None


def test_a_variant_restating_the_gpu_is_refused(tmp_path: Path):
    def restate(doc):
        row = next(r for r in doc["sizes"] if r["name"] == "Standard_ND96is_H200_v5")
        row["gpu"] = next(r for r in doc["sizes"] if r["name"] == "Standard_ND96isr_H200_v5")["gpu"]

    with pytest.raises(CatalogError, match=r"inherits its sibling's gpu; do not restate it"):
        load_catalog(_write(tmp_path, restate))


def test_ncv6_ga_sizes_and_preview_names():
    cat = default_catalog()
    assert [
        str(cat[f"Standard_NC{k}_xl_RTXPRO6000BSE_v6"].gpu_count) for k in ("24lds", "36ds", "72lds", "144ds", "288lds")
    ] == [
        "1/4",
        "1/4",
        "1/2",
        "1",
        "2",
    ]
    ga = cat["Standard_NC144ds_xl_RTXPRO6000BSE_v6"]
    assert (ga.status, ga.aks_supported, ga.aks_mig, ga.mig_capable, ga.mig_slices) == ("current", True, False, True, 4)
    assert ga.aks_registry_os == ("ubuntu",)
    preview = cat["Standard_NC320ds_xl_RTXPRO6000BSE_v6"]
    assert (preview.status, preview.aks_supported, preview.migrate_to) == (
        "retired",
        False,
        ("Standard_NC288ds_xl_RTXPRO6000BSE_v6",),
    )


def test_retired_families_are_complete():
    cat = default_catalog()
    nvv3 = sorted(s.name for s in cat.sizes() if s.series == "NVv3 M60" or s.name.endswith(("hs_v3", "ms_v3")))
    assert nvv3 == [
        "Standard_NV12hs_v3",
        "Standard_NV12s_v3",
        "Standard_NV24ms_v3",
        "Standard_NV24s_v3",
        "Standard_NV32ms_v3",
        "Standard_NV48s_v3",
    ]
    nvv4 = sorted(
        s.name for s in cat.sizes() if s.name.endswith(("as_v4", "ahs_v4")) and s.name.startswith("Standard_NV")
    )
    assert len(nvv4) == 8 and "Standard_NV32ahs_v4" in nvv4
    assert {(cat[n].status, cat[n].retirement_date) for n in nvv3 + nvv4} == {("retired", date(2026, 9, 30))}


def test_mig_hardware_and_aks_support_are_separate_facts():
    cat = default_catalog()
    aks_mig = sorted({s.gpu_model for s in cat.sizes() if s.aks_mig})
    assert all(any(g in m for g in ("A100", "H100", "H200")) for m in aks_mig)
    assert {s.mig_slices for s in cat.sizes() if s.aks_mig} == {7}
    hardware_only = sorted({s.series for s in cat.sizes() if s.mig_capable and not s.aks_mig})
    assert hardware_only == ["NC_RTXPRO6000BSE_v6", "NC_RTXPRO6000BSE_v6 (preview names)"]


def test_gb200_gb300_driver_support_as_the_aks_registry_states_it():
    cat = default_catalog()
    assert cat["Standard_ND128isr_NDR_GB200_v6"].aks_registry_os == ("ubuntu",)
    assert cat["Standard_ND128isr_GB300_v6"].aks_registry_os == ("ubuntu",)
    assert cat["Standard_ND128isrG5_GB300_v6"].aks_registry_os is None  # not in the registry: no AKS driver
    assert "not in AKS's GPU registry" in (cat["Standard_ND128isrG5_GB300_v6"].aks_note or "")


def test_every_size_in_aks_gpu_registry_is_in_the_catalog():
    import yaml

    snapshot = Path(__file__).parent / "refresh_snapshots" / "today" / "supported-gpus.yaml"
    registry = yaml.safe_load(snapshot.read_text())
    cat = default_catalog()
    assert [n for n in registry if n not in cat] == []


def test_a_size_only_an_unplaced_copy_names_is_not_current():
    """Standard_ND128isrG5_GB300_v6: Microsoft's nd-gb300-v6-series.md (ab1d3891) lists Standard_ND128isr_GB300_v6
    only, AKS's GPU registry neither; the row stays (no source refuses it) as preview, with its evidence."""
    cat = default_catalog()
    g5, isr = cat["Standard_ND128isrG5_GB300_v6"], cat["Standard_ND128isr_GB300_v6"]
    assert (g5.status, isr.status) == ("preview", "current")
    row = next(r for r in json.loads(CATALOG_PATH.read_text())["sizes"] if r["name"] == g5.name)
    assert "commit ab1d3891afed5110ae83d1a5fbd0ca5b83acbbb9, ms.date 2026-02-20" in row["lifecycle"]["note"]
