"""Build the publishable policy pack: ``python -m policies._build_pack [OUT_DIR]`` (``make pack``).

``pulumi policy publish`` uploads the pack's directory and nothing else, but ``policies/`` imports the GPU catalog
(``gpu_catalog/``, with its JSON data) and the rules layer (``rules/``) from the repository root. This module assembles
a directory that carries everything the pack imports, taken from the one copy in the repository at build time
(nothing is committed twice):

- ``PulumiPolicy.yaml`` and the entry point ``__main__.py``: ``policies/PulumiPolicy.yaml`` and
  ``policies/__main__.py`` as they are (the entry point finds its packages next to itself in a built pack);
- ``requirements.txt``: the names of ``policies/requirements.txt`` with the version ranges of the repository's
  ``requirements.txt`` written in (the ``-c ../requirements.txt`` of the in-repository file points outside the pack),
  plus the same ranges for the repository-pinned packages those requirements install themselves (``grpcio``,
  ``protobuf``, ``PyYAML``), which ``-c`` constrained too;
- the ``policies`` package and every repository-local package it imports, found by reading the imports (AST) of the
  package's modules, then of each package found, until no new one appears. A package travels whole: its modules and
  its data files (``gpu_catalog/catalog.json``, ``gpu_catalog/facts/*.json``), so a module or data file added later
  travels without a change here; bytecode, virtualenvs, hidden files and Markdown stay behind;
- ``.gitignore`` (``venv/``, bytecode): ``pulumi policy publish`` leaves out what it lists, so a virtualenv the CLI
  created by running the built pack locally is not uploaded; ``.pack-manifest.json``: what was vendored, and the mark
  that lets a rebuild replace the directory.

The build fails, naming the module and the import, when the pack imports a third-party distribution that its
requirements do not install, or a module that is neither in the repository, the standard library nor installed.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

PACK_DIR = Path(__file__).resolve().parent
"""``policies/``: the pack in the repository (and the Python package of its policies)."""
DEFAULT_OUT = PACK_DIR.parent / "build" / "policy-pack"
ENTRY_POINT = "__main__.py"
PACK_YAML = "PulumiPolicy.yaml"
REQUIREMENTS = "requirements.txt"
MANIFEST = ".pack-manifest.json"
GENERATOR = "policies/_build_pack.py"

# Files of the pack's own package that are not modules of it: they go to the top of the built pack, are regenerated
# there, or only build it.
PACK_LEVEL_FILES = frozenset({ENTRY_POINT, PACK_YAML, REQUIREMENTS, Path(__file__).name})
SKIPPED_DIRS = frozenset({"__pycache__", "venv", ".venv", "node_modules"})
SKIPPED_SUFFIXES = frozenset({".pyc", ".pyo", ".md"})
BUILT_GITIGNORE = (
    "# `pulumi policy publish` uploads this folder without what is listed here.\nvenv/\n__pycache__/\n*.pyc\n"
)


class PackBuildError(Exception):
    """The pack cannot be built; the message says what to change."""


@dataclass(frozen=True)
class VendoredPackage:
    """A repository-local package (or single module) the pack carries, and why."""

    name: str
    source: Path  # the package directory, or the module file
    files: tuple[str, ...]  # paths relative to the repository root, posix
    imported_by: tuple[str, ...]  # "<module path>: import <name>" of the first imports that pulled it in


@dataclass
class PackPlan:
    """What a build writes: the vendored packages and the built requirements."""

    repo_root: Path
    pack_dir: Path
    packages: list[VendoredPackage]
    requirements: list[str]  # the lines of the built requirements.txt, comments included
    third_party: dict[str, str] = field(default_factory=dict)  # imported top-level name -> distribution

    @property
    def package_names(self) -> list[str]:
        return [p.name for p in self.packages]

    def files(self) -> list[str]:
        return [f for p in self.packages for f in p.files]


# --------------------------------------------------------------------------------------------------------------------
# Which packages: imports, read from the source


def _package_files(source: Path, *, skip_names: frozenset[str] = frozenset()) -> Iterator[Path]:
    """Every file a package carries: modules and data, recursively, without caches, virtualenvs and hidden files."""
    if source.is_file():
        yield source
        return
    for directory, subdirs, files in os.walk(source):
        here = Path(directory)
        subdirs[:] = sorted(
            d
            for d in subdirs
            if d not in SKIPPED_DIRS and not d.startswith(".") and not (here / d / "pyvenv.cfg").exists()
        )
        for name in sorted(files):
            path = here / name
            if name.startswith(".") or path.suffix in SKIPPED_SUFFIXES or path.is_symlink():
                continue
            if here == source and name in skip_names:
                continue
            yield path


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    """(top-level module name, line) of every absolute import in a module, lazy ones in functions included."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        raise PackBuildError(f"{path}: cannot be parsed to find its imports: {exc}") from exc
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.partition(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.partition(".")[0], node.lineno


def _local_source(repo_root: Path, name: str) -> Path | None:
    """The repository-local package directory or module file for a top-level import name, if there is one."""
    package = repo_root / name
    if (package / "__init__.py").is_file():
        return package
    module = repo_root / f"{name}.py"
    if module.is_file() and name != "__main__":
        return module
    return None


def _distributions_of(name: str, installed: Mapping[str, list[str]]) -> list[str]:
    return sorted({canonicalize_name(d) for d in installed.get(name, [])})


def plan_pack(pack_dir: Path = PACK_DIR) -> PackPlan:
    """Find what the pack imports and what its built requirements are, without writing anything."""
    pack_dir = pack_dir.resolve()
    repo_root = pack_dir.parent
    requirements, installs = _built_requirements(pack_dir, repo_root)
    installed = metadata.packages_distributions()
    stdlib = set(sys.stdlib_module_names) | {"__future__"}

    order: list[str] = [pack_dir.name]
    sources: dict[str, Path] = {pack_dir.name: pack_dir}
    pulled_in: dict[str, list[str]] = {pack_dir.name: ["the policy pack itself"]}
    third_party: dict[str, str] = {}
    problems: list[str] = []
    i = 0
    while i < len(order):
        name = order[i]
        i += 1
        skip = PACK_LEVEL_FILES - {ENTRY_POINT} if name == pack_dir.name else frozenset()
        for path in _package_files(sources[name], skip_names=skip):
            if path.suffix != ".py":
                continue
            where = path.relative_to(repo_root).as_posix()
            for top, line in _imports(path):
                if top == name:
                    continue
                local = _local_source(repo_root, top)  # before the standard library: it would shadow it in the pack
                if local is None and top in stdlib:
                    continue
                if local is not None:
                    if top not in sources:
                        sources[top] = local
                        order.append(top)
                        pulled_in[top] = []
                    if len(pulled_in[top]) < 3 and not any(w.startswith(f"{where}:") for w in pulled_in[top]):
                        pulled_in[top].append(f"{where}:{line}: import {top}")
                    continue
                dists = _distributions_of(top, installed)
                if not dists:
                    problems.append(
                        f"{where}:{line}: imports {top!r}, which is neither a package of the repository, the standard "
                        "library nor an installed distribution"
                    )
                elif not set(dists) & installs:
                    problems.append(
                        f"{where}:{line}: imports {top!r} (distribution {', '.join(dists)}), which the pack's "
                        f"requirements do not install; add it to {pack_dir.name}/{REQUIREMENTS} (and its version "
                        f"range to the root {REQUIREMENTS})"
                    )
                else:
                    third_party[top] = next(d for d in dists if d in installs)
    if problems:
        raise PackBuildError("the policy pack cannot be built on its own:\n" + "\n".join(f"  - {p}" for p in problems))

    packages: list[VendoredPackage] = []
    for name in order:
        source = sources[name]
        skip = PACK_LEVEL_FILES if name == pack_dir.name else frozenset()
        files = tuple(p.relative_to(repo_root).as_posix() for p in _package_files(source, skip_names=skip))
        packages.append(VendoredPackage(name, source, files, tuple(pulled_in[name])))
    return PackPlan(repo_root, pack_dir, packages, requirements, dict(sorted(third_party.items())))


# --------------------------------------------------------------------------------------------------------------------
# Requirements: the pack's names, the repository's version ranges


@dataclass(frozen=True)
class _RequirementsFile:
    requirements: list[tuple[Requirement, str]]  # (parsed, the line as written)
    constraint_files: list[Path]


def _read_requirements(path: Path) -> _RequirementsFile:
    requirements: list[tuple[Requirement, str]] = []
    constraints: list[Path] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-c ", "--constraint ")):
            constraints.append((path.parent / line.split(None, 1)[1]).resolve())
            continue
        if line.startswith("-"):
            raise PackBuildError(f"{path}:{number}: {line!r}: only requirements and '-c <file>' are supported here")
        try:
            requirements.append((Requirement(line), line))
        except InvalidRequirement as exc:
            raise PackBuildError(f"{path}:{number}: {line!r} is not a requirement: {exc}") from exc
    return _RequirementsFile(requirements, constraints)


def _installed_closure(names: Iterable[str]) -> set[str]:
    """The distributions installing ``names`` installs (from this environment's metadata; extras not followed)."""
    seen: set[str] = set()
    todo = [canonicalize_name(n) for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(canonicalize_name(req.name))
    return seen


def _built_requirements(pack_dir: Path, repo_root: Path) -> tuple[list[str], set[str]]:
    """The lines of the built requirements.txt, and every distribution installing them installs."""
    source = pack_dir / REQUIREMENTS
    own = _read_requirements(source)
    pins: dict[str, str] = {}
    for constraint_file in own.constraint_files:
        if not constraint_file.is_file():
            raise PackBuildError(f"{source}: constraint file {constraint_file} does not exist")
        for req, line in _read_requirements(constraint_file).requirements:
            pins[canonicalize_name(req.name)] = line
    where = ", ".join(p.relative_to(repo_root).as_posix() for p in own.constraint_files) or "no constraint file"
    lines = [
        f"# Built by {GENERATOR} from {pack_dir.name}/{REQUIREMENTS}, with the version ranges of {where}.",
        "# Generated: edit those files and rebuild (make pack).",
    ]
    direct: list[str] = []
    for req, line in own.requirements:
        name = canonicalize_name(req.name)
        if req.specifier or req.marker or req.extras or req.url:
            raise PackBuildError(
                f"{source}: {line!r}: name the distribution only; its version range belongs in the root {REQUIREMENTS}"
            )
        if name not in pins:
            raise PackBuildError(f"{source}: {req.name!r} has no version range in {where}")
        lines.append(pins[name])
        direct.append(name)
    installs = _installed_closure(direct)
    indirect = [pins[n] for n in sorted(installs - set(direct)) if n in pins]
    if indirect:
        lines.append(f"# installed by the requirements above; ranges from {where}, as '-c' applied them")
        lines.extend(indirect)
    return lines, installs


# --------------------------------------------------------------------------------------------------------------------
# Writing the pack


def _check_out_dir(out: Path, plan: PackPlan) -> None:
    for package in plan.packages:
        if out == package.source or package.source in out.parents:
            raise PackBuildError(f"{out}: the built pack cannot go inside the package it vendors ({package.source})")
    if out == plan.repo_root or out in plan.repo_root.parents:
        raise PackBuildError(f"{out}: the built pack cannot replace the repository or a folder holding it")
    if out.exists() and not out.is_dir():
        raise PackBuildError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise PackBuildError(
            f"{out} is not empty and was not built by {GENERATOR} (no {MANIFEST}): not replacing it; "
            "choose an empty or new directory"
        )


def _write(plan: PackPlan, target: Path) -> None:
    root, pack_dir = plan.repo_root, plan.pack_dir
    shutil.copy2(pack_dir / PACK_YAML, target / PACK_YAML)
    shutil.copy2(pack_dir / ENTRY_POINT, target / ENTRY_POINT)
    (target / REQUIREMENTS).write_text("\n".join(plan.requirements) + "\n", encoding="utf-8")
    (target / ".gitignore").write_text(BUILT_GITIGNORE, encoding="utf-8")
    for rel in plan.files():
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, dest)
    manifest = {
        "generator": GENERATOR,
        "entryPointFrom": f"{pack_dir.name}/{ENTRY_POINT}",
        "packages": {p.name: {"importedBy": list(p.imported_by), "files": list(p.files)} for p in plan.packages},
        "thirdParty": plan.third_party,
    }
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def build_pack(out: Path, pack_dir: Path = PACK_DIR) -> PackPlan:
    """Write the publishable pack to ``out`` (replacing an earlier build there) and return what it holds."""
    plan = plan_pack(pack_dir)
    out = out.resolve()
    _check_out_dir(out, plan)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.building-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    try:
        _write(plan, staging)
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return plan


def _summary(plan: PackPlan, out: Path) -> str:
    lines = [f"built the policy pack in {out}"]
    for p in plan.packages:
        data = sum(1 for f in p.files if not f.endswith(".py"))
        lines.append(f"  {p.name}/: {len(p.files) - data} modules, {data} data files")
    lines.append("  requirements.txt: " + "; ".join(r for r in plan.requirements if not r.startswith("#")))
    lines.append(f"publish it: cd {out} && pulumi policy publish <org>  (docs/policy-pack-publishing.md)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m policies._build_pack",
        description="Assemble the publishable policy pack: PulumiPolicy.yaml, the entry point, pinned requirements, "
        "the policies and every repository package they import, with its data files.",
    )
    parser.add_argument(
        "out",
        nargs="?",
        type=Path,
        default=DEFAULT_OUT,
        help="where to write the pack (default: build/policy-pack in the repository); an earlier build there is "
        "replaced, any other non-empty directory is refused",
    )
    args = parser.parse_args(argv)
    try:
        plan = build_pack(args.out)
    except PackBuildError as exc:
        sys.stderr.write(f"build_pack: error: {exc}\n")
        return 2
    sys.stdout.write(_summary(plan, args.out.resolve()) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
