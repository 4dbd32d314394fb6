"""python -m gpu_catalog.refresh on vendored upstream snapshots (tests/refresh_snapshots/README.md)."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from gpu_catalog import refresh, refresh_pins
from gpu_catalog.catalog import CATALOG_PATH, load_catalog

SNAPSHOTS = Path(__file__).parent / "refresh_snapshots"
TODAY = SNAPSHOTS / "today"
PLANTED = SNAPSHOTS / "planted"


def every_input(folder: Path) -> list[str]:
    return [
        "--aks-gpu-registry",
        str(folder / "supported-gpus.yaml"),
        "--kaito-models",
        str(TODAY / "supported_models.yaml"),
        "--aks-versions",
        str(folder / "supported-kubernetes-versions.md"),
        "--gpu-operator-platform",
        str(TODAY / "platform-support.rst"),
        "--gpu-operator-release",
        "v26.7.0",
        "--gpu-operator-lifecycle",
        str(TODAY / "life-cycle-policy.rst"),
        "--gpu-operator-tags",
        str(folder / "gpu-operator-tags.txt"),
        "--device-plugin-tags",
        str(folder / "device-plugin-tags.txt"),
        "--dcgm-exporter-tags",
        str(folder / "dcgm-exporter-tags.txt"),
    ]


@pytest.fixture
def facts_copy(tmp_path: Path) -> Path:
    """A copy of catalog.json and facts/ to write into."""
    shutil.copy(CATALOG_PATH, tmp_path / "catalog.json")
    shutil.copytree(CATALOG_PATH.parent / "facts", tmp_path / "facts")
    return tmp_path


def test_snapshots_equal_to_todays_facts_report_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert refresh.main([*every_input(TODAY), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["differences"] == 0
    assert [f["factsFile"] for f in out["files"]] == [
        "gpu_catalog/catalog.json",
        "gpu_catalog/facts/kaito.json",
        "gpu_catalog/facts/aks_kubernetes.json",
        "gpu_catalog/facts/kaito_addon.json",
        "gpu_catalog/facts/gpu_operator.json",
        "gpu_catalog/facts/gpu_operator.json",
        "gpu_catalog/facts/gpu_operator.json",
        "gpu_catalog/facts/device_plugins.json",
        "gpu_catalog/facts/gpu_monitoring.json",
    ]


def test_planted_differences_and_nothing_else(capsys: pytest.CaptureFixture[str]) -> None:
    assert refresh.main([*every_input(PLANTED), "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    changes = {
        (f["factsFile"], kind, c["key"], json.dumps(c["facts"]), json.dumps(c["upstream"]))
        for f in out["files"]
        for kind in ("added", "removed", "changed")
        for c in f[kind]
    }
    assert changes == {
        (
            "gpu_catalog/catalog.json",
            "added",
            "standard_nc40ads_h200_v5",
            "null",
            '{"gpu": "nvidia", "os": ["ubuntu"]}',
        ),
        (
            "gpu_catalog/catalog.json",
            "removed",
            "Standard_ND40s_v3",
            '{"gpu": "nvidia", "os": ["ubuntu", "windows", "azurelinux", "azurelinux3"]}',
            "null",
        ),
        ("gpu_catalog/facts/aks_kubernetes.json", "changed", "versions[1.37].endOfLife", '"2027-10"', '"2027-11"'),
        # what decides other pins: reported, never written
        ("gpu_catalog/facts/kaito_addon.json", "added", "versions[1.37].addonVersion", "null", '"0.8.0"'),
        ("gpu_catalog/facts/gpu_operator.json", "added", "default[v26.10.0]", "null", '"v26.10.0"'),
        ("gpu_catalog/facts/device_plugins.json", "added", "chart.version[v0.21.0]", "null", '"v0.21.0"'),
    }


def test_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert refresh.main(["--aks-gpu-registry", str(PLANTED / "supported-gpus.yaml")]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "gpu_catalog/catalog.json <- Azure/karpenter-provider-azure pkg/utils/supported-gpus.yaml: 1 added, 1 removed, "
        "0 changed",
        '  + standard_nc40ads_h200_v5: {"gpu": "nvidia", "os": ["ubuntu"]}  (not in the catalog: add a hand-written '
        "row (or a variantOf row))",
        '  - Standard_ND40s_v3: {"gpu": "nvidia", "os": ["ubuntu", "windows", "azurelinux", "azurelinux3"]}',
    ]


def test_write_updates_facts_keeps_sources_and_notes(facts_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before_k8s = json.loads((facts_copy / "facts/aks_kubernetes.json").read_text())
    args = [*every_input(PLANTED), "--write", "--facts-root", str(facts_copy)]
    args += ["--commit", "MicrosoftDocs/azure-aks-docs=0123abcd", "--commit", "Azure/karpenter-provider-azure=4567cdef"]
    args += ["--ref", "Azure/karpenter-provider-azure=v1.15.0"]
    assert refresh.main(args) == 1
    capsys.readouterr()
    k8s = json.loads((facts_copy / "facts/aks_kubernetes.json").read_text())
    assert next(v for v in k8s["versions"] if v["minor"] == "1.37")["endOfLife"] == "2027-11"
    assert len(k8s["sources"]) == len(before_k8s["sources"])  # every recorded source kept
    page = k8s["sources"][0]
    assert (page["commit"], page["read"], page["facts"]) == (
        "0123abcd",
        "2026-11-30",
        before_k8s["sources"][0]["facts"],
    )
    assert k8s["sourcesRead"] == "2026-11-30" and k8s["dateRule"] == before_k8s["dateRule"]
    registry = json.loads((facts_copy / "catalog.json").read_text())["sources"][0]
    assert (registry["commit"], registry["ref"], "fileCommit" in registry) == ("4567cdef", "v1.15.0", False)
    catalog = load_catalog(facts_copy / "catalog.json")
    assert catalog["Standard_ND40s_v3"].aks_registry_os is None  # dropped upstream: the entry goes, the row stays
    assert "standard_nc40ads_h200_v5" not in catalog  # no hardware facts upstream: reported, never invented
    assert catalog["Standard_ND40s_v3"].aks_note == load_catalog()["Standard_ND40s_v3"].aks_note
    # written facts equal to the planted snapshots: a second run reports only the size that needs a row and the
    # report-only pin watches (never written)
    assert refresh.main([*every_input(PLANTED), "--facts-root", str(facts_copy), "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["differences"] == 4 and out["files"][0]["added"][0]["key"] == "standard_nc40ads_h200_v5"
    assert [f["factsFile"] for f in out["files"] if f["added"] or f["changed"] or f["removed"]] == [
        "gpu_catalog/catalog.json",
        "gpu_catalog/facts/kaito_addon.json",
        "gpu_catalog/facts/gpu_operator.json",
        "gpu_catalog/facts/device_plugins.json",
    ]


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert refresh.main([]) == 2
    assert refresh.main(["--gpu-operator-platform", str(TODAY / "platform-support.rst")]) == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just a list\n")
    assert refresh.main(["--aks-gpu-registry", str(bad)]) == 2
    assert "expected a map of size name to {gpu, os}" in capsys.readouterr().err


def test_lifecycle_status_reading() -> None:
    rows = refresh.read_operator_lifecycle(TODAY / "life-cycle-policy.rst")
    assert rows == [("26.6", "supported", False), ("26.3", "deprecated", False), ("25.10", "end-of-support", True)]
    assert [refresh.lifecycle_status(rows, v) for v in ("v26.7.0", "v26.3.3", "v25.10.1", "v25.3.4")] == [
        "supported",
        "deprecated",
        "end-of-support",
        "end-of-support",
    ]


def _texts(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.json"))}


def test_a_refresh_without_differences_writes_nothing(facts_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _texts(facts_copy)
    assert refresh.main([*every_input(TODAY), "--write", "--facts-root", str(facts_copy)]) == 0
    capsys.readouterr()
    assert _texts(facts_copy) == before  # byte for byte: no re-indenting, no re-ordering


def test_write_changes_only_the_lines_that_changed(facts_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The planted 1.37 end of life and the page's commit: three lines of aks_kubernetes.json change (the 1.37 row,
    the source's commit and read day, sourcesRead), nothing else in any file."""
    before = _texts(facts_copy)
    args = ["--aks-versions", str(PLANTED / "supported-kubernetes-versions.md"), "--write", "--facts-root"]
    args += [str(facts_copy), "--commit", "MicrosoftDocs/azure-aks-docs=0123abcd"]
    assert refresh.main(args) == 1
    capsys.readouterr()
    after = _texts(facts_copy)
    assert [name for name in before if before[name] != after[name]] == ["facts/aks_kubernetes.json"]
    old, new = before["facts/aks_kubernetes.json"].splitlines(), after["facts/aks_kubernetes.json"].splitlines()
    assert len(old) == len(new)
    changed = [(a.strip(), b.strip()) for a, b in zip(old, new, strict=True) if a != b]
    assert changed == [
        ('"sourcesRead": "2026-12-01",', '"sourcesRead": "2026-11-30",'),
        ('"commit": "fb060abe6a8fef960d4c487b543bf7b1e97808fe",', '"commit": "0123abcd",'),
        ('"read": "2026-12-01",', '"read": "2026-11-30",'),
        (
            '{"minor": "1.37", "aksGa": "2026-10", "endOfLife": "2027-10", "ltsEndOfLife": "2028-10", '
            '"platformSupport": "Until 1.41 GA"}',
            '{"minor": "1.37", "aksGa": "2026-10", "endOfLife": "2027-11", "ltsEndOfLife": "2028-10", '
            '"platformSupport": "Until 1.41 GA"}',
        ),
    ]


def test_write_needs_the_commit_of_each_changed_source(facts_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _texts(facts_copy)
    args = ["--aks-versions", str(PLANTED / "supported-kubernetes-versions.md"), "--write", "--facts-root"]
    assert refresh.main([*args, str(facts_copy)]) == 2
    assert "for MicrosoftDocs/azure-aks-docs" in capsys.readouterr().err
    assert refresh.main([*args, str(facts_copy), "--ref", "MicrosoftDocs/azure-aks-docs=main"]) == 2
    assert "--ref without --commit for MicrosoftDocs/azure-aks-docs" in capsys.readouterr().err
    assert _texts(facts_copy) == before


def test_a_new_commit_without_a_ref_drops_the_stale_ref() -> None:
    doc = {"sources": [{"repository": "r", "path": "p", "tag": "v1", "commit": "aaa", "fileCommit": "bbb"}]}
    refresh.record_source(doc, ("r", "p"), "aaa", date(2026, 12, 3))  # the same commit: the tag still holds
    assert doc["sources"][0]["tag"] == "v1" and doc["sources"][0]["fileCommit"] == "bbb"
    refresh.record_source(doc, ("r", "p"), "ccc", date(2026, 12, 3))
    assert doc["sources"][0] == {"repository": "r", "path": "p", "commit": "ccc", "read": "2026-12-03"}
    refresh.record_source(doc, ("r", "p"), "ddd", date(2026, 12, 4), ref="v2")
    assert (doc["sources"][0]["ref"], doc["sources"][0]["commit"]) == ("v2", "ddd")


def test_pin_watches_are_reported_and_never_written(facts_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The KAITO add-on per minor and newer GPU operator / device-plugin / dcgm-exporter releases: reported with the
    pin they would replace; --write leaves those facts files as they were (no --commit needed for them)."""
    before = _texts(facts_copy)
    args = ["--gpu-operator-tags", str(PLANTED / "gpu-operator-tags.txt"), "--device-plugin-tags"]
    args += [str(PLANTED / "device-plugin-tags.txt"), "--aks-versions", str(TODAY / "supported-kubernetes-versions.md")]
    assert refresh.main([*args, "--write", "--facts-root", str(facts_copy)]) == 1
    assert capsys.readouterr().out.splitlines()[-4:] == [
        "gpu_catalog/facts/gpu_operator.json <- NVIDIA/gpu-operator git tags: 1 added, 0 removed, 0 changed",
        "  + default[v26.10.0]: v26.10.0  (newer than the pinned v26.7.0: read its release notes and pin it by hand "
        "(never written))",
        "gpu_catalog/facts/device_plugins.json <- NVIDIA/k8s-device-plugin git tags: 1 added, 0 removed, 0 changed",
        "  + chart.version[v0.21.0]: v0.21.0  (newer than the pinned 0.20.0: read its release notes and pin it by hand "
        "(never written))",
    ]
    assert _texts(facts_copy) == before
    changed = tmp_addon = facts_copy / "planted-addon.md"
    tmp_addon.write_text("### Kubernetes 1.34\n- ai-toolchain-operator 0.7.0\n\n### Kubernetes 1.36\n- karpenter x\n")
    diff = refresh.diff_kaito_addon(refresh.read_addon_versions(changed), json.loads(before["facts/kaito_addon.json"]))
    assert [(c.kind, c.key, c.facts, c.upstream) for c in diff.changes] == [
        ("changed", "versions[1.34].addonVersion", "0.6.0", "0.7.0")  # 1.36 names no add-on: no evidence, no change
    ]


@pytest.mark.parametrize(
    ("tag", "release"),
    [("v26.7.0", (26, 7, 0)), ("0.20.0", (0, 20, 0)), ("4.5.3-4.8.2", (4, 8, 2)), ("v26.10.1-rc.1", None)],
)
def test_release_of_a_tag(tag: str, release: tuple[int, int, int] | None) -> None:
    assert refresh_pins.release(tag) == release
