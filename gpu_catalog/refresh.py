"""Refresh the facts from upstream machine-readable files: ``python -m gpu_catalog.refresh``.

Reads only local files the user names (a checkout or a downloaded copy; this module never downloads), compares them
with the facts, and prints per facts file what upstream has that the facts lack (``added``), what the facts hold
that upstream dropped (``removed``) and values that differ (``changed``), as text or JSON. ``--write`` applies the
changes it can make safely, editing each file's text in place (only the values that changed; indentation, line
breaks and key order kept; an unchanged file is not written): every recorded source is kept (the one read is updated
with ``--commit`` — required for every source with differences — ``--ref`` and today's date, and a recorded tag that
named another commit is dropped, so ``tag``/``ref`` and ``commit`` never disagree), hand-written notes are never
touched, and a size upstream adds without hardware facts is reported for a hand-written catalog row instead of being
invented. Standard library plus PyYAML. No Pulumi imports.

Inputs (each optional; at least one):

- ``--aks-gpu-registry``: Azure/karpenter-provider-azure ``pkg/utils/supported-gpus.yaml`` → ``catalog.json``
  (``support.aksGpuRegistry`` per size)
- ``--kaito-models``: kaito-project/kaito ``presets/workspace/models/supported_models.yaml`` at the add-on's tag →
  ``facts/kaito.json`` (preset names, runtime-download presets)
- ``--aks-versions``: MicrosoftDocs/azure-aks-docs ``articles/aks/supported-kubernetes-versions.md`` →
  ``facts/aks_kubernetes.json`` (release calendar, LTS end of life, Karpenter version per minor)
- ``--gpu-operator-platform`` with ``--gpu-operator-release``: NVIDIA/cloud-native-docs
  ``gpu-operator/platform-support.rst`` (the docs of that release) → ``facts/gpu_operator.json`` (validated Kubernetes
  range per Ubuntu release)
- ``--gpu-operator-lifecycle``: NVIDIA/cloud-native-docs ``gpu-operator/life-cycle-policy.rst`` →
  ``facts/gpu_operator.json`` (support status per release)
- what decides other pins, report only (:mod:`gpu_catalog.refresh_pins`): the KAITO add-on version per Kubernetes
  minor (from ``--aks-versions``) against ``facts/kaito_addon.json``; ``--gpu-operator-tags``,
  ``--device-plugin-tags``, ``--dcgm-exporter-tags``: releases newer than the pinned GPU operator, device-plugin chart
  and dcgm-exporter chart

Exit codes: 0 no difference, 1 differences found (written with ``--write``), 2 usage or unreadable input.
"""

from __future__ import annotations

import argparse
import calendar
import json
import re
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from . import clock
from .catalog import CATALOG_PATH
from .json_edit import patch
from .refresh_model import Change, FileDiff, RefreshError
from .refresh_model import read_text as _read
from .refresh_model import read_yaml as _yaml
from .refresh_pins import TAG_WATCHES, diff_kaito_addon, diff_tags, read_addon_versions, read_tags

FACTS_DIR = Path(__file__).with_name("facts")
COMMAND = "python -m gpu_catalog.refresh"

REGISTRY = ("Azure/karpenter-provider-azure", "pkg/utils/supported-gpus.yaml")
KAITO_MODELS = ("kaito-project/kaito", "presets/workspace/models/supported_models.yaml")
AKS_VERSIONS = ("MicrosoftDocs/azure-aks-docs", "articles/aks/supported-kubernetes-versions.md")
OPERATOR_PLATFORM = ("NVIDIA/cloud-native-docs", "gpu-operator/platform-support.rst")
OPERATOR_LIFECYCLE = ("NVIDIA/cloud-native-docs", "gpu-operator/life-cycle-policy.rst")


# ----------------------------------------------------------------------------------------------- AKS GPU registry


def read_gpu_registry(path: Path) -> dict[str, dict[str, Any]]:
    """``supported-gpus.yaml``: size (lower case) → ``{"gpu": vendor, "os": [...]}``."""
    doc = _yaml(path)
    if not isinstance(doc, dict) or not all(isinstance(v, dict) and "gpu" in v for v in doc.values()):
        raise RefreshError(f"{path}: expected a map of size name to {{gpu, os}} (supported-gpus.yaml)")
    return {str(k).lower(): {"gpu": str(v["gpu"]), "os": [str(o) for o in v.get("os") or []]} for k, v in doc.items()}


def diff_gpu_registry(registry: dict[str, dict[str, Any]], catalog: dict[str, Any]) -> FileDiff:
    rows = {str(r["name"]).lower(): r for r in catalog["sizes"]}
    diff = FileDiff("gpu_catalog/catalog.json", REGISTRY)
    for key, entry in sorted(registry.items()):
        row = rows.get(key)
        if row is None:
            diff.changes.append(
                Change("added", key, None, entry, "not in the catalog: add a hand-written row (or a variantOf row)")
            )
            continue
        known = (row.get("support") or {}).get("aksGpuRegistry")
        if known is None:
            diff.changes.append(Change("added", row["name"], None, entry))
        elif known != entry:
            diff.changes.append(Change("changed", row["name"], known, entry))
    for key, row in rows.items():
        if (row.get("support") or {}).get("aksGpuRegistry") is not None and key not in registry:
            diff.changes.append(Change("removed", row["name"], row["support"]["aksGpuRegistry"], None))

    def apply(doc: dict[str, Any]) -> None:
        for row in doc["sizes"]:
            entry = registry.get(str(row["name"]).lower())
            row.setdefault("support", {})["aksGpuRegistry"] = entry

    diff.apply = apply
    return diff


# ------------------------------------------------------------------------------------------------------- KAITO


def read_kaito_models(path: Path) -> tuple[list[str], list[str]]:
    """``supported_models.yaml``: (preset names, presets that download their weights at runtime); the weightless
    ``base`` image is not a preset."""
    doc = _yaml(path)
    models = doc.get("models") if isinstance(doc, dict) else None
    if not isinstance(models, list):
        raise RefreshError(f"{path}: expected a 'models' list (supported_models.yaml)")
    names = sorted(str(m["name"]) for m in models if isinstance(m, dict) and m.get("name") not in (None, "base"))
    runtime = sorted(str(m["name"]) for m in models if isinstance(m, dict) and m.get("downloadAtRuntime") is True)
    return names, runtime


def diff_kaito(models: tuple[list[str], list[str]], facts: dict[str, Any]) -> FileDiff:
    names, runtime = models
    presets = facts["presets"]
    diff = FileDiff("gpu_catalog/facts/kaito.json", KAITO_MODELS)
    for label, upstream, known in (
        ("presets.names", names, presets.get("names", [])),
        ("presets.downloadAtRuntime", runtime, presets.get("downloadAtRuntime", [])),
    ):
        for name in sorted(set(upstream) - set(known)):
            note = "also add its GPU needs to gpu_catalog/kaito_presets.py" if label == "presets.names" else None
            diff.changes.append(Change("added", f"{label}[{name}]", None, name, note))
        for name in sorted(set(known) - set(upstream)):
            diff.changes.append(Change("removed", f"{label}[{name}]", name, None))

    def apply(doc: dict[str, Any]) -> None:
        doc["presets"]["names"] = names
        doc["presets"]["downloadAtRuntime"] = runtime

    diff.apply = apply
    return diff


# ----------------------------------------------------------------------------------------- AKS Kubernetes calendar

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
_MINOR = re.compile(r"^1\.\d+$")


def _aks_date(cell: str) -> str:
    """``Mar 2026`` → ``2026-03``; ``Aug 22, 2025`` → ``2025-08-22`` (the facts' spelling of the page's dates)."""
    m = re.match(r"^([A-Za-z]{3})[a-z]*\.?\s+(?:(\d{1,2}),\s*)?(\d{4})$", cell.strip())
    if m is None or m.group(1).lower() not in _MONTHS:
        raise RefreshError(f"not an AKS calendar date: {cell!r}")
    month = _MONTHS[m.group(1).lower()]
    return f"{m.group(3)}-{month:02d}" + (f"-{int(m.group(2)):02d}" if m.group(2) else "")


def _tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Markdown pipe tables: (header cells, rows of cells)."""
    out: list[tuple[list[str], list[list[str]]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|") and i + 1 < len(lines) and re.match(r"^\s*\|[\s:|-]+\|\s*$", lines[i + 1]):
            header = [c.strip() for c in lines[i].strip().strip("|").split("|")]
            rows: list[list[str]] = []
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            out.append((header, rows))
        else:
            i += 1
    return out


def read_aks_versions(path: Path) -> dict[str, dict[str, Any]]:
    """``supported-kubernetes-versions.md``: minor → {aksGa, endOfLife, platformSupport, ltsEndOfLife, karpenter}."""
    text = _read(path)
    versions: dict[str, dict[str, Any]] = {}
    for header, rows in _tables(text):
        names = [h.lower() for h in header]
        if "kubernetes version" not in names or "aks ga" not in names:
            continue
        col = {n: names.index(n) for n in names}
        for cells in rows:
            minor = cells[col["kubernetes version"]]
            if not _MINOR.match(minor):
                continue
            row = versions.setdefault(minor, {})
            row["aksGa"] = _aks_date(cells[col["aks ga"]])
            row["endOfLife"] = _aks_date(cells[col["end of life"]])
            if "platform support" in col:
                row["platformSupport"] = cells[col["platform support"]]
            if "lts end of life" in col:
                row["ltsEndOfLife"] = _aks_date(cells[col["lts end of life"]])
    if not versions:
        raise RefreshError(f"{path}: no release calendar table (Kubernetes version | ... | AKS GA | End of life)")
    for section in re.split(r"^### Kubernetes ", text, flags=re.MULTILINE)[1:]:
        minor = section.split()[0]
        found = re.search(r"karpenter (\d+\.\d+\.\d+-aks)", section)
        if minor in versions and found:
            versions[minor]["karpenter"] = found.group(1)
    return versions


_CALENDAR_FIELDS = ("aksGa", "endOfLife", "ltsEndOfLife", "platformSupport", "karpenter")


def diff_aks_versions(upstream: dict[str, dict[str, Any]], facts: dict[str, Any]) -> FileDiff:
    known = {str(v["minor"]): v for v in facts["versions"]}
    diff = FileDiff("gpu_catalog/facts/aks_kubernetes.json", AKS_VERSIONS)
    for minor, row in sorted(upstream.items(), key=lambda kv: tuple(int(p) for p in kv[0].split("."))):
        have = known.get(minor)
        if have is None:
            diff.changes.append(Change("added", f"versions[{minor}]", None, row))
            continue
        for key in _CALENDAR_FIELDS:
            if key in row and have.get(key) != row[key]:
                diff.changes.append(Change("changed", f"versions[{minor}].{key}", have.get(key), row[key]))
    for minor in sorted(set(known) - set(upstream)):
        diff.changes.append(
            Change("removed", f"versions[{minor}]", known[minor], None, "kept: the page drops minors past LTS")
        )

    def apply(doc: dict[str, Any]) -> None:
        rows = {str(v["minor"]): v for v in doc["versions"]}
        for minor, row in upstream.items():
            target = rows.get(minor)
            if target is None:
                target = {"minor": minor, "platformSupport": None, "ltsEndOfLife": None}
                doc["versions"].append(target)
                rows[minor] = target
            target.update(row)
        doc["versions"].sort(key=lambda v: tuple(int(p) for p in str(v["minor"]).split(".")))

    diff.apply = apply
    return diff


# ------------------------------------------------------------------------------------------------ NVIDIA operator


def read_operator_platform(path: Path) -> dict[str, list[str]]:
    """``platform-support.rst``: Ubuntu release → [lowest, highest] Kubernetes minor, from the first column of the
    'Bare Metal / Virtual Machines with GPU Passthrough and NVIDIA vGPU' table."""
    text = _read(path)
    start = text.find("Bare Metal / Virtual Machines with GPU Passthrough")
    if start < 0:
        raise RefreshError(f"{path}: no 'Bare Metal / Virtual Machines with GPU Passthrough' table")
    section = text[start:]
    end = section.find("\n.. _", 1)
    section = section[: end if end > 0 else None]
    out: dict[str, list[str]] = {}
    for row in re.split(r"\n\s*\* - ", section)[1:]:
        cells = re.split(r"\n\s*- ", row)
        name = re.sub(r"\s*\|fn\d+\|_", "", cells[0].strip().splitlines()[0]).strip()
        m = re.match(r"^Ubuntu (\d+\.\d+)", name)
        if m is None or len(cells) < 2:
            continue
        rng = re.match(r"^(1\.\d+)---(1\.\d+)", cells[1].strip())
        if rng:
            out[f"Ubuntu {m.group(1)}"] = [rng.group(1), rng.group(2)]
    if not out:
        raise RefreshError(f"{path}: no Ubuntu row with a Kubernetes range in the bare-metal table")
    return out


def diff_operator_platform(release: str, upstream: dict[str, list[str]], facts: dict[str, Any]) -> FileDiff:
    diff = FileDiff("gpu_catalog/facts/gpu_operator.json", OPERATOR_PLATFORM)
    row = next((r for r in facts["releases"] if r["version"] == release), None)
    if row is None:
        diff.changes.append(Change("added", f"releases[{release}]", None, {"kubernetes": upstream}))
    else:
        have = row["kubernetes"]
        for image in sorted(set(upstream) | set(have)):
            key = f"releases[{release}].kubernetes[{image}]"
            if image not in have:
                diff.changes.append(Change("added", key, None, upstream[image]))
            elif image not in upstream:
                diff.changes.append(Change("removed", key, have[image], None))
            elif list(have[image]) != upstream[image]:
                diff.changes.append(Change("changed", key, have[image], upstream[image]))

    def apply(doc: dict[str, Any]) -> None:
        target = next((r for r in doc["releases"] if r["version"] == release), None)
        if target is None:
            target = {"version": release, "released": clock.today().isoformat(), "kubernetes": {}}
            doc["releases"].append(target)
        target["kubernetes"] = dict(upstream)

    diff.apply = apply
    return diff


_STATUS = {"supported": "supported", "deprecated": "deprecated", "end of support": "end-of-support"}


def read_operator_lifecycle(path: Path) -> list[tuple[str, str, bool]]:
    """``life-cycle-policy.rst``: (major ``YY.MM``, status, ``and lower``) rows of 'Support Status for Releases'."""
    text = _read(path)
    start = text.find("Support Status for Releases")
    if start < 0:
        raise RefreshError(f"{path}: no 'Support Status for Releases' table")
    rows: list[tuple[str, str, bool]] = []
    for m in re.finditer(r"\* - (\d+\.\d+)\.x( and lower)?\s*\n\s*- ([A-Za-z ]+)", text[start:]):
        status = _STATUS.get(m.group(3).strip().lower())
        if status is not None:
            rows.append((m.group(1), status, bool(m.group(2))))
    if not rows:
        raise RefreshError(f"{path}: the support status table has no 'NN.N.x | status' rows")
    return rows


def _major(version: str) -> tuple[int, int]:
    parts = version.lstrip("v").split(".")
    return int(parts[0]), int(parts[1])


def lifecycle_status(rows: list[tuple[str, str, bool]], version: str) -> str | None:
    """A release's status under the table: its major's row, or an ``and lower`` row at or above it."""
    major = _major(version)
    for row_major, status, and_lower in rows:
        if _major(row_major) == major or (and_lower and major <= _major(row_major)):
            return status
    newest = max(rows, key=lambda r: _major(r[0]))
    if newest[1] == "supported" and major > _major(newest[0]):
        return "supported"  # a major newer than the table's newest is the current one (the page lags or mistypes it)
    return None


def diff_operator_lifecycle(rows: list[tuple[str, str, bool]], facts: dict[str, Any]) -> FileDiff:
    diff = FileDiff("gpu_catalog/facts/gpu_operator.json", OPERATOR_LIFECYCLE)
    for release in facts["releases"]:
        status = lifecycle_status(rows, release["version"])
        if status is None:
            note = "the table names no status for its major"
            diff.changes.append(
                Change("removed", f"releases[{release['version']}].support", release.get("support"), None, note)
            )
        elif status != release.get("support"):
            diff.changes.append(
                Change("changed", f"releases[{release['version']}].support", release.get("support"), status)
            )

    def apply(doc: dict[str, Any]) -> None:
        for release in doc["releases"]:
            status = lifecycle_status(rows, release["version"])
            if status is not None:
                release["support"] = status

    diff.apply = apply
    return diff


# ---------------------------------------------------------------------------------------------------- plumbing


def _facts_path(name: str, root: Path) -> Path:
    return root / ("catalog.json" if name.endswith("catalog.json") else f"facts/{Path(name).name}")


def record_source(
    doc: dict[str, Any], source: tuple[str, str], commit: str, today: date, ref: str | None = None
) -> None:
    """Record that ``source`` (repository, path) was read at ``commit`` today: the facts file's entry for it gets the
    commit and the day, or is added; ``ref`` (a tag or branch) replaces the entry's ``tag``/``ref``, and without one a
    recorded ``tag``/``ref`` that named another commit is dropped, so the entry never names a tag and a commit that
    disagree (nor a ``fileCommit`` of an older read). Every other recorded source stays as it is. The file's
    ``sourcesRead`` becomes ``today``."""
    repo, path = source
    sources = doc.get("sources")
    entries: list[dict[str, Any]]
    if isinstance(sources, dict):
        entries = [v for v in sources.values() if isinstance(v, dict)]
    elif isinstance(sources, list):
        entries = [v for v in sources if isinstance(v, dict)]
    else:
        doc["sources"] = sources = []
        entries = []
    entry = next((e for e in entries if e.get("repository") == repo and e.get("path") == path), None)
    if entry is None:
        entry = {"repository": repo, "path": path}
        if isinstance(sources, dict):
            sources[f"refresh-{path.rsplit('/', 1)[-1]}"] = entry
        else:
            sources.append(entry)
    ref_key = "tag" if "tag" in entry else "ref"
    if entry.get("commit") != commit:
        entry.pop("fileCommit", None)  # the commit that last changed the file, at the old read
        if ref is None:
            entry.pop(ref_key, None)
    if ref is not None:
        entry[ref_key] = ref
    entry["commit"] = commit
    entry["read"] = today.isoformat()
    doc["sourcesRead"] = today.isoformat()


def run(args: argparse.Namespace) -> tuple[list[FileDiff], dict[str, dict[str, Any]]]:
    root = Path(args.facts_root)
    docs: dict[str, dict[str, Any]] = {}

    def doc(name: str) -> dict[str, Any]:
        if name not in docs:
            docs[name] = json.loads(_read(_facts_path(name, root)))
        return docs[name]

    diffs: list[FileDiff] = []
    if args.aks_gpu_registry:
        diffs.append(diff_gpu_registry(read_gpu_registry(Path(args.aks_gpu_registry)), doc("catalog.json")))
    if args.kaito_models:
        diffs.append(diff_kaito(read_kaito_models(Path(args.kaito_models)), doc("kaito.json")))
    if args.aks_versions:
        diffs.append(diff_aks_versions(read_aks_versions(Path(args.aks_versions)), doc("aks_kubernetes.json")))
        diffs.append(diff_kaito_addon(read_addon_versions(Path(args.aks_versions)), doc("kaito_addon.json")))
    if args.gpu_operator_platform:
        platform = read_operator_platform(Path(args.gpu_operator_platform))
        diffs.append(diff_operator_platform(args.gpu_operator_release, platform, doc("gpu_operator.json")))
    if args.gpu_operator_lifecycle:
        rows = read_operator_lifecycle(Path(args.gpu_operator_lifecycle))
        diffs.append(diff_operator_lifecycle(rows, doc("gpu_operator.json")))
    for watch in TAG_WATCHES:
        if getattr(args, watch.option):
            diffs.append(diff_tags(watch, read_tags(Path(getattr(args, watch.option))), doc(watch.facts_file)))
    return diffs, docs


def report_text(diffs: Sequence[FileDiff]) -> str:
    lines: list[str] = []
    for d in diffs:
        head = f"{d.facts_file} <- {d.source[0]} {d.source[1]}"
        if not d.changes:
            lines.append(f"{head}: no differences")
            continue
        counts = {k: sum(c.kind == k for c in d.changes) for k in ("added", "removed", "changed")}
        lines.append(f"{head}: {counts['added']} added, {counts['removed']} removed, {counts['changed']} changed")
        lines.extend(f"  {c.text()}" for c in d.changes)
    return "\n".join(lines)


def report_json(diffs: Sequence[FileDiff]) -> dict[str, Any]:
    return {
        "files": [
            {
                "factsFile": d.facts_file,
                "repository": d.source[0],
                "path": d.source[1],
                "added": [c.as_json() for c in d.changes if c.kind == "added"],
                "removed": [c.as_json() for c in d.changes if c.kind == "removed"],
                "changed": [c.as_json() for c in d.changes if c.kind == "changed"],
            }
            for d in diffs
        ],
        "differences": sum(len(d.changes) for d in diffs),
    }


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--aks-gpu-registry", metavar="FILE", help=f"{REGISTRY[0]} {REGISTRY[1]}")
    p.add_argument("--kaito-models", metavar="FILE", help=f"{KAITO_MODELS[0]} {KAITO_MODELS[1]} at the add-on's tag")
    p.add_argument("--aks-versions", metavar="FILE", help=f"{AKS_VERSIONS[0]} {AKS_VERSIONS[1]}")
    p.add_argument("--gpu-operator-platform", metavar="FILE", help=f"{OPERATOR_PLATFORM[0]} {OPERATOR_PLATFORM[1]}")
    p.add_argument("--gpu-operator-release", metavar="VERSION", help="the release the platform file documents")
    p.add_argument("--gpu-operator-lifecycle", metavar="FILE", help=f"{OPERATOR_LIFECYCLE[0]} {OPERATOR_LIFECYCLE[1]}")
    for watch in TAG_WATCHES:
        flag = "--" + watch.option.replace("_", "-")
        p.add_argument(flag, metavar="FILE", help=f"{watch.repository} tag names (report only: newer than the pin)")
    p.add_argument(
        "--commit",
        action="append",
        default=[],
        metavar="REPOSITORY=SHA",
        help="the commit each input was read at, recorded with --write (e.g. Azure/karpenter-provider-azure=61b488c4); "
        "--write needs one for every source with differences",
    )
    p.add_argument(
        "--ref",
        action="append",
        default=[],
        metavar="REPOSITORY=REF",
        help="the tag or branch that commit is (recorded as the source's tag/ref; without it a recorded tag of "
        "another commit is dropped)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--write",
        action="store_true",
        help="update the facts files in place: only what changed, formatting kept (sources and notes kept)",
    )
    p.add_argument("--facts-root", default=str(CATALOG_PATH.parent), help=argparse.SUPPRESS)
    return p


def _write(
    diffs: Sequence[FileDiff],
    docs: dict[str, dict[str, Any]],
    commits: dict[str, str],
    refs: dict[str, str],
    root: Path,
) -> None:
    """Apply the changes and record each source read at a named commit; write a file only where its document changed,
    editing its text in place (:func:`gpu_catalog.json_edit.patch`: formatting, indentation and key order kept)."""
    today = clock.today()
    for d in diffs:
        document = docs[Path(d.facts_file).name]
        if d.apply is not None and d.changes:
            d.apply(document)
        if d.apply is not None and d.source[0] in commits:  # a report-only watch writes nothing
            record_source(document, d.source, commits[d.source[0]], today, refs.get(d.source[0]))
    for name, document in docs.items():
        path = _facts_path(name, root)
        text = _read(path)
        patched = patch(text, document)
        if patched != text:
            path.write_text(patched, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    inputs = [args.aks_gpu_registry, args.kaito_models, args.aks_versions, args.gpu_operator_platform]
    inputs += [args.gpu_operator_lifecycle, *(getattr(args, w.option) for w in TAG_WATCHES)]
    if not any(inputs):
        p.print_usage(sys.stderr)
        print(f"{COMMAND}: name at least one upstream file (see --help)", file=sys.stderr)
        return 2
    if args.gpu_operator_platform and not args.gpu_operator_release:
        print(f"{COMMAND}: --gpu-operator-platform needs --gpu-operator-release (e.g. v26.7.0)", file=sys.stderr)
        return 2
    pairs: dict[str, dict[str, str]] = {}
    for option, values in (("--commit", args.commit), ("--ref", args.ref)):
        pairs[option] = {}
        for item in values:
            repo, sep, value = item.partition("=")
            if not sep or not value:
                print(
                    f"{COMMAND}: {option} takes REPOSITORY={'SHA' if option == '--commit' else 'REF'}, got {item!r}",
                    file=sys.stderr,
                )
                return 2
            pairs[option][repo] = value
    commits, refs = pairs["--commit"], pairs["--ref"]
    if stray := sorted(set(refs) - set(commits)):
        print(
            f"{COMMAND}: --ref without --commit for {', '.join(stray)}: name the commit the ref points at",
            file=sys.stderr,
        )
        return 2
    try:
        diffs, docs = run(args)
    except RefreshError as exc:
        print(f"{COMMAND}: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(report_json(diffs), indent=2))
    else:
        print(report_text(diffs))
    if args.write:
        unnamed = sorted({d.source[0] for d in diffs if d.apply and d.changes and d.source[0] not in commits})
        if unnamed:
            print(
                f"{COMMAND}: nothing written: name the commit each changed source was read at "
                f"(--commit REPOSITORY=SHA) for {', '.join(unnamed)}",
                file=sys.stderr,
            )
            return 2
        _write(diffs, docs, commits, refs, Path(args.facts_root))
    return 1 if any(d.changes for d in diffs) else 0


if __name__ == "__main__":
    raise SystemExit(main())
