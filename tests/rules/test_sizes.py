"""The size rules over the catalog that issue 21 changed: MIG split into hardware and AKS support, MIG fit."""

from __future__ import annotations

import json
from pathlib import Path

from gpu_catalog.catalog import CATALOG_PATH, load_catalog
from rules.sizes import check_mig_profile
from tests.conftest import TODAY


def test_mig_on_ncv6_is_refused_although_the_gpu_supports_mig() -> None:
    found = check_mig_profile("Standard_NC144ds_xl_RTXPRO6000BSE_v6", "MIG1g", today=TODAY)
    assert found is not None
    assert found.message.startswith(
        "gpuInstanceProfile MIG1g needs a size AKS partitions with MIG: Standard_NC144ds_xl_RTXPRO6000BSE_v6 (NVIDIA "
        "RTX PRO 6000 Blackwell Server Edition 96 GB (SR-IOV)) has a MIG-capable GPU, but AKS supports MIG on A100, "
        "H100 and H200 sizes only; NCv6 exposes its GPUs through SR-IOV."
    )


def test_mig_on_an_h200_variant_is_accepted() -> None:
    assert check_mig_profile("Standard_ND96is_H200_v5", "MIG7g", today=TODAY) is None


def test_a_mig_profile_wider_than_the_gpu_is_refused(tmp_path: Path) -> None:
    # AKS validates the profile's slice width against the VM's GPU capacity (Azure/AKS release notes 2026-08-07).
    # Every AKS MIG size has 7 slices today, so the refusal is shown on the catalog with one mutation.
    doc = json.loads(CATALOG_PATH.read_text())
    next(r for r in doc["sizes"] if r["name"] == "Standard_NC24ads_A100_v4")["gpu"]["migSlices"] = 4
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc))
    cat = load_catalog(path)
    assert check_mig_profile("Standard_NC24ads_A100_v4", "MIG4g", cat, today=TODAY) is None
    found = check_mig_profile("Standard_NC24ads_A100_v4", "mig7g", cat, today=TODAY)
    assert found is not None and found.message == (
        "gpuInstanceProfile MIG7g does not fit Standard_NC24ads_A100_v4 (NVIDIA A100 PCIe 80 GiB): one MIG7g instance "
        "takes 7 compute slices and the GPU has 4, and AKS refuses a MIG profile wider than the VM's GPU capacity. "
        "Use one of: MIG1g, MIG2g, MIG3g, MIG4g."
    )
