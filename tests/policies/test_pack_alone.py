"""The publishable pack (``make pack``, ``policies/_build_pack.py``) works alone, away from the repository.

``pulumi policy publish`` uploads only the pack's directory. The fast tests check what the builder vendors (the
policies, ``gpu_catalog`` with its JSON data, ``rules``), that the copies are the repository's files byte for byte,
and that the built ``requirements.txt`` needs nothing outside the directory. The slow test builds the pack, moves it to
an empty place, starts it exactly as the engine does (``python -u -m pulumi.policy <engine> <dir>``, working directory
= the built pack, ``PYTHONPATH`` unset) and drives it over the analyzer protocol on recorded resources: its verdicts
must equal the in-repository pack's, and the interpreter's import log must show that no module came from the
repository (only from the built directory, the standard library and the virtualenv's site-packages).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from policies._build_pack import (
    ENTRY_POINT,
    MANIFEST,
    PACK_DIR,
    PACK_YAML,
    REQUIREMENTS,
    PackBuildError,
    build_pack,
    plan_pack,
)

REPO = Path(__file__).resolve().parents[2]
RAW = REPO / "tests" / "fixtures" / "raw_program"
NOT_VENDORED = {"components", "preflight", "stacks", "tests", "bench", "conformance"}
TOP_LEVEL_FILES = {ENTRY_POINT, PACK_YAML, REQUIREMENTS, ".gitignore", MANIFEST}


def _repo_files(package: str, suffix: str) -> set[str]:
    return {
        p.relative_to(REPO).as_posix()
        for p in (REPO / package).rglob(f"*{suffix}")
        if "__pycache__" not in p.parts and not p.name.startswith(".")
    }


def _requirement_lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


def _root_pins() -> dict[str, str]:
    return {canonicalize_name(Requirement(line).name): line for line in _requirement_lines(REPO / REQUIREMENTS)}


# ---------------------------------------------------------------------------------------------------------------------
# What the builder vendors (no process started)


def test_the_builder_vendors_the_catalog_and_the_rules_the_policies_import() -> None:
    plan = plan_pack()
    names = plan.package_names
    assert names[0] == "policies"
    assert {"gpu_catalog", "rules"} <= set(names)
    assert not NOT_VENDORED & set(names), "the pack must not carry the program, the preflight or the tests"
    files = set(plan.files())
    # Whole packages: every module and every data file, also ones added later.
    assert _repo_files("gpu_catalog", ".py") | _repo_files("gpu_catalog", ".json") <= files
    assert {"gpu_catalog/catalog.json", "gpu_catalog/facts/kaito.json"} <= files
    assert _repo_files("rules", ".py") <= files
    assert _repo_files("policies", ".py") - {"policies/__main__.py", "policies/_build_pack.py"} <= files
    # The entry point goes to the top of the pack; the builder, docs and the pack's own venv stay behind.
    assert not {f for f in files if f.endswith((".md", ".pyc")) or "/venv/" in f or "__pycache__" in f}
    assert "policies/__main__.py" not in files and "policies/_build_pack.py" not in files
    by_name = {p.name: p for p in plan.packages}
    assert any(reason.startswith("policies/") for reason in by_name["gpu_catalog"].imported_by)
    assert plan.third_party["pulumi_policy"] == "pulumi-policy"


def test_the_built_requirements_carry_the_root_version_ranges() -> None:
    plan = plan_pack()
    lines = [line for line in plan.requirements if not line.startswith("#")]
    pins = _root_pins()
    names = [canonicalize_name(Requirement(line).name) for line in lines]
    assert names[:2] == ["pulumi", "pulumi-policy"]  # policies/requirements.txt, in its order
    assert {"grpcio", "protobuf"} <= set(names)  # what pulumi installs, constrained as `-c` did
    for name, line in zip(names, lines, strict=True):
        assert line == pins[name]
        assert Requirement(line).specifier, f"{line}: unpinned"
    assert len(names) == len(set(names))
    text = "\n".join(plan.requirements)
    assert ".." not in text and not re.search(r"^\s*-", text, re.MULTILINE)


def test_the_build_is_the_repository_files_and_nothing_that_points_back(tmp_path: Path) -> None:
    out = tmp_path / "pack"
    plan = build_pack(out)
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert written == TOP_LEVEL_FILES | set(plan.files())
    for rel in plan.files():
        assert (out / rel).read_bytes() == (REPO / rel).read_bytes(), rel
    assert (out / ENTRY_POINT).read_bytes() == (PACK_DIR / ENTRY_POINT).read_bytes()
    assert (out / PACK_YAML).read_bytes() == (PACK_DIR / PACK_YAML).read_bytes()
    assert (out / REQUIREMENTS).read_text(encoding="utf-8").splitlines() == plan.requirements
    assert "venv/" in (out / ".gitignore").read_text(encoding="utf-8").splitlines()
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert list(manifest["packages"]) == plan.package_names
    for path in out.rglob("*"):
        if path.is_file():
            assert str(REPO) not in path.read_text(encoding="utf-8"), f"{path} names the repository"


def test_a_rebuild_replaces_the_earlier_build_and_other_folders_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "pack"
    build_pack(out)
    (out / "stale.py").write_text("", encoding="utf-8")
    build_pack(out)
    assert not (out / "stale.py").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["pack"]  # no staging directory left behind

    other = tmp_path / "someone-elses"
    other.mkdir()
    (other / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(PackBuildError, match="not empty and was not built"):
        build_pack(other)
    assert (other / "notes.txt").read_text(encoding="utf-8") == "keep me"
    with pytest.raises(PackBuildError, match="inside the package"):
        build_pack(PACK_DIR / "dist")
    with pytest.raises(PackBuildError, match="cannot replace the repository"):
        build_pack(REPO)


def _fake_repo(root: Path, helper_source: str) -> Path:
    """A repository with a one-policy-module pack that imports ``helper`` lazily; returns its pack directory."""
    shutil.copy2(REPO / REQUIREMENTS, root / REQUIREMENTS)
    pack = root / "policies"
    pack.mkdir()
    (pack / "__init__.py").write_text("", encoding="utf-8")
    (pack / ENTRY_POINT).write_text("from policies import rule\n", encoding="utf-8")
    (pack / PACK_YAML).write_text("runtime: python\nversion: 0.0.1\n", encoding="utf-8")
    (pack / REQUIREMENTS).write_text("-c ../requirements.txt\npulumi\npulumi-policy\n", encoding="utf-8")
    (pack / "rule.py").write_text(
        "import pulumi_policy\n\n\ndef check():\n    from helper.sizes import SIZES\n\n    return SIZES\n",
        encoding="utf-8",
    )
    helper = root / "helper"
    (helper / "data").mkdir(parents=True)
    (helper / "__init__.py").write_text(helper_source, encoding="utf-8")
    (helper / "sizes.py").write_text("SIZES = ()\n", encoding="utf-8")
    (helper / "data" / "sizes.json").write_text("[]\n", encoding="utf-8")
    (helper / "README.md").write_text("# not vendored\n", encoding="utf-8")
    (root / "unrelated").mkdir()
    (root / "unrelated" / "__init__.py").write_text("", encoding="utf-8")
    return pack


def test_lazy_imports_of_repository_packages_are_followed_with_their_data(tmp_path: Path) -> None:
    plan = plan_pack(_fake_repo(tmp_path, "import json\nfrom . import sizes\n"))
    assert plan.package_names == ["policies", "helper"]
    assert {"helper/__init__.py", "helper/sizes.py", "helper/data/sizes.json"} <= set(plan.files())
    assert "helper/README.md" not in plan.files()
    assert plan.package_names.count("unrelated") == 0


def test_a_third_party_import_the_requirements_do_not_install_fails_the_build(tmp_path: Path) -> None:
    pack = _fake_repo(tmp_path, "import jsonschema\nimport no_such_module_anywhere\n")
    with pytest.raises(PackBuildError) as caught:
        plan_pack(pack)
    message = str(caught.value)
    assert "helper/__init__.py:1: imports 'jsonschema' (distribution jsonschema)" in message
    assert "helper/__init__.py:2: imports 'no_such_module_anywhere', which is neither" in message


def test_a_version_range_in_the_pack_requirements_is_refused(tmp_path: Path) -> None:
    pack = _fake_repo(tmp_path, "")
    (pack / REQUIREMENTS).write_text("-c ../requirements.txt\npulumi>=3\n", encoding="utf-8")
    with pytest.raises(PackBuildError, match=r"belongs in the root requirements\.txt"):
        plan_pack(pack)
    (pack / REQUIREMENTS).write_text("-c ../requirements.txt\npulumi\nleftpad\n", encoding="utf-8")
    with pytest.raises(PackBuildError, match="'leftpad' has no version range"):
        plan_pack(pack)


# ---------------------------------------------------------------------------------------------------------------------
# The built pack, alone, over the analyzer protocol


@dataclass(frozen=True)
class Program:
    label: str
    program_dir: Path
    stack_file: Path
    extra_policy_config: dict[str, Any]


PROGRAMS = [
    # another team's raw resources: NVv4 pool, P100 pool, Photon on T4 workers (mandatory violations); a stricter
    # floor through policy config, so the catalog-backed config schema is exercised too
    Program(
        "raw_program",
        RAW,
        RAW / "Pulumi.test.yaml",
        {"gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"}},
    ),
    # this repository's program with the prod stack (components, KAITO, GPU operator, Databricks), compliant as
    # configured; a stricter floor and a ten-year expiry warning make the size and lifecycle facts speak
    Program(
        "prod",
        REPO,
        REPO / "stacks" / "Pulumi.prod.yaml",
        {
            "gpu-size-minimum": {"minimumSize": "Standard_NC24ads_A100_v4"},
            "aks-kubernetes-version-expiring": {"warnDays": 3650},
        },
    ),
]


EXPECTED = {
    "raw_program": {
        ("gpu-size-no-nvv4", "mandatory", "amd"),
        ("gpu-size-not-retired", "mandatory", "p100"),
        ("gpu-size-minimum", "mandatory", "p100"),
        ("databricks-gpu-no-photon", "mandatory", "t4-photon"),
        ("gpu-size-minimum", "mandatory", "t4-photon"),  # below the A100 floor set through policy config
    },
    "prod": {
        ("gpu-size-minimum", "mandatory", "aks-t4"),
        ("gpu-size-minimum", "mandatory", "databricks-batch-inference"),
        ("aks-kubernetes-version-expiring", "advisory", "aks-cluster"),  # a stack policy, lifecycle facts
    },
}


@pytest.fixture(scope="module")
def moved_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pack built in one place, then moved alone to an empty one (the build place removed)."""
    build = tmp_path_factory.mktemp("build") / "pack"
    build_pack(build)
    target = tmp_path_factory.mktemp("elsewhere") / "azure-gpu-guardrails"
    shutil.copytree(build, target)
    shutil.rmtree(build)
    return target


def _record(program: Program) -> tuple[Any, list[Any]]:
    from preflight.stackfile import load_stack_settings
    from tests.shared_runs import program_run_in_process

    settings = load_stack_settings(program.program_dir, program.stack_file)
    run = program_run_in_process(settings)  # the preflight's runner, in this process (tests/shared_runs.py)
    return settings, run.resources


def _foreign_imports(verbose_log: str, pack_dir: Path) -> list[str]:
    """Paths in ``python -v`` output that are inside the repository but not in its virtualenv."""
    venvs = {Path(sys.prefix), Path(sys.prefix).resolve()}  # .venv may be a symlink to a shared virtualenv
    found = set()
    for path in re.findall(r"(/[^\s'\"]+\.py[c]?)\b", verbose_log):
        resolved = Path(path)
        in_venv = any(venv in resolved.parents for venv in venvs)
        if REPO in resolved.parents and not in_venv and pack_dir not in resolved.parents:
            found.add(path)
    return sorted(found)


def _comparable(result: Any) -> dict[str, Any]:
    return {
        "pack": (result.pack_name, result.version),
        "policies": result.policies,
        "config": result.config,
        "violations": sorted(result.violations, key=repr),
        "not_applicable": sorted(result.not_applicable, key=repr),
        "remediations": sorted(result.remediations, key=repr),
        "logs": sorted(result.logs, key=repr),
    }


@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.label)
def test_the_built_pack_alone_gives_the_repository_verdicts(
    program: Program, moved_pack: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from preflight.analyzer.client import run_policy_pack
    from tests.shared_runs import run_session_pack

    assert not (moved_pack / "venv").exists()  # so the pack runs on this interpreter, as the in-repo pack does
    assert REPO not in moved_pack.parents
    settings, resources = _record(program)
    policy_config = {**(settings.values.get(f"{settings.project}:policy") or {}), **program.extra_policy_config}
    kwargs: dict[str, Any] = {
        "policy_config": policy_config,
        "project": settings.project,
        "stack": settings.stack,
        "stack_config": settings.config,
    }

    in_repo = run_session_pack(resources, policy_config=policy_config)  # the repository's pack, started once
    monkeypatch.delenv("PYTHONPATH", raising=False)  # the pack process gets this environment: only its own folder
    monkeypatch.setenv("PYTHONVERBOSE", "1")  # the interpreter logs where every module comes from, on stderr
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    alone = run_policy_pack(moved_pack, resources, **kwargs)

    assert _comparable(alone) == _comparable(in_repo)

    assert f"code object from {moved_pack}/gpu_catalog/catalog.py" in alone.stderr
    assert f"code object from {moved_pack}/rules/__init__.py" in alone.stderr
    assert f"code object from {moved_pack}/policies/pack.py" in alone.stderr
    assert _foreign_imports(alone.stderr, moved_pack) == []
    assert not [line for line in alone.stderr.splitlines() if str(REPO) in line and ".venv" not in line]

    # The verdicts compared are not empty: these are among them.
    found = {(v.policy_name, v.enforcement_level, v.urn.rsplit("::", 1)[-1]) for v in in_repo.violations}
    assert EXPECTED[program.label] <= found
