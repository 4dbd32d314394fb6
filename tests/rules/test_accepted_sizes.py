"""rules.sizes.accepted_sizes: the one list of catalog sizes the size rules accept, cached per catalog, floor, day and
AKS requirement."""

from __future__ import annotations

from datetime import date

import pytest

from gpu_catalog.catalog import CATALOG_PATH, default_catalog, load_catalog
from rules.sizes import SIZE_RULES, accepted_sizes, check_gpu_size

DAY = date(2026, 11, 30)


@pytest.mark.parametrize("require_aks", [True, False])
@pytest.mark.parametrize("floor", ["Standard_NC6s_v3", "Standard_NC40ads_H100_v5", "Standard_NV12s_v3"])
def test_accepted_sizes_are_what_check_gpu_size_accepts(floor: str, require_aks: bool) -> None:
    cat = default_catalog()
    expected = tuple(
        sorted(s for s in cat if not check_gpu_size(s, floor=floor, today=DAY, require_aks=require_aks, catalog=cat))
    )
    assert accepted_sizes(floor, today=DAY, require_aks=require_aks, catalog=cat) == expected
    assert expected


def test_aks_support_only_narrows_the_list() -> None:
    aks = set(accepted_sizes(today=DAY, require_aks=True))
    anywhere = set(accepted_sizes(today=DAY, require_aks=False))
    assert aks < anywhere
    assert all(not default_catalog()[s].aks_supported for s in anywhere - aks)


def test_cached_per_catalog_floor_day_and_aks() -> None:
    first = accepted_sizes("Standard_NC6s_v3", today=DAY, require_aks=True)
    assert accepted_sizes("Standard_NC6s_v3", today=DAY, require_aks=True) is first
    assert accepted_sizes("Standard_NC6s_v3", today=date(2020, 1, 1), require_aks=True) is not first
    other = load_catalog(CATALOG_PATH)  # an equal catalog, another object: its own entry
    again = accepted_sizes("Standard_NC6s_v3", today=DAY, require_aks=True, catalog=other)
    assert again == first and again is not first


def test_unknown_floor_is_refused() -> None:
    with pytest.raises(ValueError, match="not a catalog size"):
        accepted_sizes("Standard_NC1", today=DAY, require_aks=True)


def test_size_rules_name_the_checks() -> None:
    assert SIZE_RULES == (
        "gpu-size-no-nvv4",
        "gpu-size-known",
        "gpu-size-not-retired",
        "gpu-size-minimum",
        "gpu-size-aks-supported",
    )
