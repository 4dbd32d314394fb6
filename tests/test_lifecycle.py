"""Lifecycle facts as data, checked against an injected date (gpu_catalog/lifecycle.py, gpu_catalog/clock.py)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from gpu_catalog import clock
from gpu_catalog.lifecycle import (
    KUBERNETES_FACTS,
    LifecycleFactsError,
    default_gpu_operator_version,
    load_kubernetes_facts,
    load_operator_facts,
    minor_of,
    supported_minors,
)
from rules.lifecycle import check_kubernetes_expiry, check_kubernetes_version, check_operator_platform

TODAY = date(2026, 11, 30)


def test_calendar_dates_follow_the_aks_rule() -> None:
    facts = load_kubernetes_facts()
    v133 = facts.get("1.33")
    assert v133 is not None
    assert (v133.aks_ga, v133.end_of_life, v133.lts_end_of_life) == (
        date(2025, 6, 1),
        date(2026, 7, 31),  # "Jul 2026" = the last day of the month
        date(2027, 7, 31),
    )
    v130 = facts.get("1.30")
    assert v130 is not None and v130.end_of_life == date(2025, 8, 22)  # an explicit date stays exact


def test_supported_minors_today() -> None:
    assert supported_minors(TODAY) == ["1.34", "1.35", "1.36", "1.37"]
    assert supported_minors(date(2026, 12, 1)) == ["1.35", "1.36", "1.37"]
    assert supported_minors(TODAY, lts=True) == ["1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37"]


def test_removed_version_is_refused_with_its_dates() -> None:
    finding = check_kubernetes_version("1.33", today=TODAY, tier="Standard", support_plan="KubernetesOfficial")
    assert finding is not None
    assert finding.message == (
        "Kubernetes 1.33 can no longer be created on AKS: its end of life was 2026-07-31 (today is 2026-11-30); "
        "after that AKS creates no new clusters or node pools on it (platform support, until 1.37 GA, only keeps "
        "existing clusters running). Long-term support keeps 1.33 creatable until 2027-07-31, but only with sku.tier "
        "Premium and supportPlan AKSLongTermSupport (this cluster has tier Standard, supportPlan KubernetesOfficial). "
        "Move to a supported version: 1.34 (until 2026-11-30), 1.35 (until 2027-03-31), 1.36 (until 2027-06-30), "
        "1.37 (until 2027-10-31)."
    )


def test_lts_only_with_premium_and_the_plan() -> None:
    assert check_kubernetes_version("1.33.2", today=TODAY, tier="Premium", support_plan="AKSLongTermSupport") is None
    assert check_kubernetes_version("1.33", today=TODAY, tier="premium", support_plan="akslongtermsupport") is None
    assert check_kubernetes_version("1.33", today=TODAY, tier="Standard", support_plan="AKSLongTermSupport")
    assert check_kubernetes_version("1.33", today=TODAY, tier="Premium", support_plan="KubernetesOfficial")
    gone = check_kubernetes_version("1.30", today=TODAY, tier="Premium", support_plan="AKSLongTermSupport")
    assert gone is not None and "Its long-term support ended on 2026-07-31 too." in gone.message


def test_the_same_version_expires_tomorrow() -> None:
    assert check_kubernetes_version("1.34", today=TODAY) is None
    assert check_kubernetes_version("1.34", today=date(2026, 12, 1)) is not None


def test_unknown_and_future_versions() -> None:
    newer = check_kubernetes_version("1.38", today=TODAY)
    assert newer is not None and "newer than every version in AKS's release calendar as of 2026-08-21" in newer.message
    older = check_kubernetes_version("1.25", today=TODAY)
    assert older is not None and "older than every version this project tracks" in older.message
    junk = check_kubernetes_version("latest", today=TODAY)
    assert junk is not None and junk.message.startswith("'latest' is not a Kubernetes version")
    not_ga = check_kubernetes_version("1.37", today=date(2026, 9, 15))
    assert not_ga is not None and "not generally available on AKS yet (GA planned Oct 2026)" in not_ga.message


def test_expiry_warning_window() -> None:
    soon = check_kubernetes_expiry("1.34", today=TODAY)
    assert soon is not None and soon.version == "1.34"
    assert soon.message.startswith("Kubernetes 1.34 reaches its AKS end of life on 2026-11-30, in 0 days")
    assert "Upgrade one minor at a time to 1.35, 1.36, 1.37" in soon.message
    assert check_kubernetes_expiry("1.35", today=TODAY) is None  # 121 days left
    at_60 = check_kubernetes_expiry("1.35", today=date(2027, 1, 30))
    assert at_60 is not None and "in 60 days" in at_60.message
    assert check_kubernetes_expiry("1.35", today=date(2027, 1, 29)) is None
    assert check_kubernetes_expiry("1.35", today=TODAY, warn_days=200) is not None
    lts = check_kubernetes_expiry("1.31", today=TODAY, tier="Premium", support_plan="AKSLongTermSupport")
    assert lts is not None and "reaches its AKS LTS end of life on 2026-11-30" in lts.message
    assert check_kubernetes_expiry("1.33", today=TODAY) is None  # already refused outright, not "expiring"


def test_minor_of() -> None:
    assert [minor_of(v) for v in ("1.36", "1.36.2", "v1.36", "1.3", "x")] == ["1.36", "1.36", "1.36", "1.3", None]


def test_operator_platform_matrix() -> None:
    assert default_gpu_operator_version() == "v26.7.0"
    assert check_operator_platform("v26.7.0", "1.36", "Ubuntu") is None
    old = check_operator_platform("v25.3.4", "1.36", "Ubuntu")
    assert old == (
        "GPU operator v25.3.4 is not validated on Kubernetes 1.36 with Ubuntu 22.04, Ubuntu 24.04 (NVIDIA's matrix "
        "for v25.3.4: Ubuntu 22.04 1.29–1.33; Ubuntu 24.04 1.29–1.33). Releases validated for it: v26.3.3, v26.7.0."
    )
    azure_linux = check_operator_platform("v26.7.0", "1.36", "AzureLinux")
    assert azure_linux is not None and azure_linux.startswith("osSku AzureLinux is not an OS NVIDIA validates")
    unknown = check_operator_platform("v99.1.0", "1.36", "Ubuntu")
    assert unknown is not None and "known: v25.3.4, v25.10.1, v26.3.3, v26.7.0; default v26.7.0" in unknown


def test_malformed_facts_name_the_row(tmp_path: Path) -> None:
    doc = json.loads(KUBERNETES_FACTS.read_text())
    del doc["versions"][2]["endOfLife"]
    path = tmp_path / "aks_kubernetes.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(LifecycleFactsError, match=r"aks_kubernetes.json: versions\[2\]: missing field 'endOfLife'"):
        load_kubernetes_facts(path)


def test_clock_is_pinned_for_tests_and_refuses_garbage(monkeypatch: pytest.MonkeyPatch) -> None:
    assert clock.today() == TODAY  # tests/conftest.py pins AGP_TODAY
    monkeypatch.setenv(clock.TODAY_ENV, "2027-01-02")
    assert clock.today() == date(2027, 1, 2)
    monkeypatch.setenv(clock.TODAY_ENV, "tomorrow")
    with pytest.raises(clock.ClockError, match="AGP_TODAY='tomorrow' is not a date"):
        clock.today()
    monkeypatch.delenv(clock.TODAY_ENV)
    assert clock.today() == date.today()


def test_kubernetes_1_34_is_past_end_of_life_and_creatable_only_under_lts() -> None:
    # supported-kubernetes-versions.md (fb060abe): 1.34 end of life Nov 2026, LTS end of life Nov 2027
    day = date(2026, 12, 1)
    refused = check_kubernetes_version("1.34", today=day)
    assert refused is not None and refused.message.startswith(
        "Kubernetes 1.34 can no longer be created on AKS: its end of life was 2026-11-30 (today is 2026-12-01)"
    )
    assert "Long-term support keeps 1.34 creatable until 2027-11-30" in refused.message
    assert check_kubernetes_version("1.34", today=day, tier="Premium", support_plan="AKSLongTermSupport") is None
    assert check_kubernetes_version("1.34", today=date(2026, 11, 30)) is None  # its last day


def test_kubernetes_1_37_is_creatable_but_has_no_operator_addon_or_karpenter_facts() -> None:
    from gpu_catalog.kaito_presets import kaito_addon_version

    day = date(2026, 12, 1)
    assert check_kubernetes_version("1.37", today=day) is None  # AKS GA Oct 2026
    minor = load_kubernetes_facts().get("1.37")
    assert minor is not None and minor.karpenter is None
    assert check_operator_platform("v26.7.0", "1.37", "Ubuntu") == (
        "GPU operator v26.7.0 is not validated on Kubernetes 1.37 with Ubuntu 22.04, Ubuntu 24.04 (NVIDIA's matrix "
        "for v26.7.0: Ubuntu 22.04 1.33–1.36; Ubuntu 24.04 1.32–1.36; Ubuntu 26.04 1.33–1.36). Releases validated "
        "for it: none known yet."
    )
    assert kaito_addon_version("1.37") is None


def test_karpenter_version_per_kubernetes_minor() -> None:
    facts = load_kubernetes_facts()
    assert {m: facts.get(m).karpenter for m in ("1.33", "1.34", "1.35", "1.36")} == {  # type: ignore[union-attr]
        "1.33": "0.7.3-aks",
        "1.34": "1.6.5-aks",
        "1.35": "1.7.0-aks",
        "1.36": "1.12.2-aks",
    }


def test_gpu_operator_past_end_of_support_is_refused_with_nvidias_words() -> None:
    # life-cycle-policy.rst (187a4a5b): "25.10.x and lower" End of Support; 26.3.x Deprecated; the newest Supported
    assert [r.support for r in load_operator_facts().releases] == [
        "end-of-support",
        "end-of-support",
        "deprecated",
        "supported",
    ]
    assert check_operator_platform("v25.10.1", "1.35", "Ubuntu") == (
        "GPU operator v25.10.1 is past NVIDIA's end of support: the GPU operator life-cycle page lists its major "
        'release as "End of Support" (no longer supported, no patch releases, not even for CVEs). Pin a "Supported" '
        "release: v26.7.0."
    )
    assert check_operator_platform("v26.3.3", "1.35", "Ubuntu") is None  # Deprecated: still patched
    assert check_operator_platform("v26.7.0", "1.36", "Ubuntu") is None
