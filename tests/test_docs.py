"""The docs cite only what exists: every relative link (and its #anchor) and every repository path in inline code.

Checked in README.md, docs/ and every other Markdown file of the repository (policies/RULES.md,
conformance/README.md, bench/RESULTS.md, …), outside virtualenvs and generated output.

- Links: ``[text](target)``, ``![alt](target)`` and ``[ref]: target`` outside fenced code blocks and inline code.
  A relative target must exist (relative to the Markdown file); ``#anchor`` must be the GitHub slug of a heading of
  the target Markdown file (or of the same file for ``(#anchor)``). URLs (``https:``, ``mailto:``) are not fetched.
- Paths in inline code: every whitespace-separated word of a code span outside fenced code blocks whose first
  segment is a top-level directory of the repository (``stack_config/``, ``gpu_catalog/facts/aks_kubernetes.json``,
  ``python bench/profile_pack.py --what-if``) must exist, relative to the repository root; a word with ``*`` must
  match at least one file. Words with placeholders (``stacks/Pulumi.<env>.yaml``, ``…``) are skipped, as are the few
  paths listed below that are created at run time or name another project's file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent

# Directories never searched for Markdown files: virtualenvs, caches, generated output.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".venv",
        ".venv-checkov",
        "venv",
        "node_modules",
        "__pycache__",
        ".pytest_cache",
        ".ruff_cache",
        "out",
        "build",
    }
)

# Paths a doc may name in inline code although they are not in the repository.
NOT_IN_REPO: dict[str, str] = {
    "policies/venv": "created by the Pulumi CLI for the policy pack (PulumiPolicy.yaml runtime.options.virtualenv)",
    "bench/out/": "written by `make bench`",
    ".venv-checkov": "created by `make checkov` (Checkov's own virtualenv)",
    "build/arm/": "written by `make checkov`",
}
# (doc, path) pairs that name another project's file whose first segment happens to be one of our directories.
UPSTREAM_PATHS: frozenset[tuple[str, str]] = frozenset(
    {
        ("conformance/README.md", "docs/resources/cluster.md"),  # databricks/terraform-provider-databricks
    }
)

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR_RE = re.compile(r"""<a\s+(?:name|id)=["']([^"']+)["']""")
CODE_SPAN_RE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
INLINE_LINK_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'(][^)]*)?\)")
REF_DEFINITION_RE = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*<?(\S+?)>?(?:[ \t]+.*)?$", re.MULTILINE)
URL_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
PLACEHOLDER_CHARS = frozenset("<>{}$…|")
TRAILING_PUNCTUATION = ".,;:)]'\""


@dataclass(frozen=True)
class Line:
    number: int
    text: str
    in_fence: bool


@dataclass(frozen=True)
class Paragraph:
    """Consecutive non-blank lines outside fenced code (inline code and links may wrap across them)."""

    first_line: int
    text: str

    def line_of(self, offset: int) -> int:
        return self.first_line + self.text.count("\n", 0, offset)


def markdown_files(root: Path) -> list[Path]:
    """Every *.md under root, outside SKIP_DIRS, sorted."""
    found: list[Path] = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS)
        found.extend(Path(directory) / name for name in sorted(files) if name.endswith(".md"))
    return sorted(found)


def lines(path: Path) -> Iterator[Line]:
    fence: str | None = None
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = FENCE_RE.match(text)
        if fence is None and match:
            fence = match.group(1)
            yield Line(number, text, in_fence=True)
        elif fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            yield Line(number, text, in_fence=True)
        else:
            yield Line(number, text, in_fence=False)


def paragraphs(path: Path) -> Iterator[Paragraph]:
    current: list[Line] = []
    for line in [*lines(path), Line(0, "", in_fence=False)]:
        if line.in_fence or not line.text.strip():
            if current:
                yield Paragraph(current[0].number, "\n".join(item.text for item in current))
            current = []
        else:
            current.append(line)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading (github-slugger): rendered text, lowercased, punctuation dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links → their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Anchors of a Markdown file: heading slugs (with GitHub's -1, -2 for repeats) and explicit HTML anchors."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in lines(path):
        if line.in_fence:
            continue
        found.update(HTML_ANCHOR_RE.findall(line.text))
        match = HEADING_RE.match(line.text)
        if match:
            slug = github_slug(match.group(2))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def _without_code_spans(text: str) -> str:
    """The text with every inline code span blanked out (same length, newlines kept)."""
    return CODE_SPAN_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def link_targets(paragraph: Paragraph) -> list[tuple[int, str]]:
    """(line, target) of every link and reference definition of a paragraph, outside inline code."""
    text = _without_code_spans(paragraph.text)
    found = [(paragraph.line_of(m.start()), m.group(1)) for m in INLINE_LINK_RE.finditer(text)]
    found += [(paragraph.line_of(m.start()), m.group(1)) for m in REF_DEFINITION_RE.finditer(text)]
    return sorted(found)


def broken_link(doc: Path, target: str, root: Path, anchor_cache: dict[Path, set[str]]) -> str | None:
    """Why a link target does not resolve, or None."""
    if not target or URL_SCHEME_RE.match(target) or target.startswith("//"):
        return None
    file_part, _, anchor = target.partition("#")
    resolved = (doc.parent / file_part).resolve() if file_part else doc
    if file_part:
        if not resolved.exists():
            return f"link target {file_part} does not exist"
        if root not in resolved.parents and resolved != root:
            return f"link target {file_part} is outside the repository"
    if anchor and resolved.suffix == ".md":
        if resolved not in anchor_cache:
            anchor_cache[resolved] = anchors(resolved)
        if anchor not in anchor_cache[resolved]:
            where = resolved.relative_to(root).as_posix()
            return f"link target {target}: {where} has no heading with anchor #{anchor}"
    return None


def code_paths(paragraph: Paragraph, top_level: frozenset[str]) -> list[tuple[int, str]]:
    """(line, word) of inline-code words that name a path under one of the repository's top-level directories."""
    found: list[tuple[int, str]] = []
    for match in CODE_SPAN_RE.finditer(paragraph.text):
        for word_match in re.finditer(r"\S+", match.group(2)):
            word = word_match.group(0).rstrip(TRAILING_PUNCTUATION).removeprefix("./")
            if "/" not in word or "://" in word or PLACEHOLDER_CHARS & set(word) or "..." in word:
                continue
            if word.split("/", 1)[0] in top_level:
                found.append((paragraph.line_of(match.start(2) + word_match.start()), word))
    return found


def path_exists(root: Path, path: str) -> bool:
    if "*" in path or "?" in path:
        return any(root.glob(path.rstrip("/")))
    return (root / path).exists()


def broken_references(root: Path) -> list[str]:
    """Every broken link and missing inline-code path of the Markdown files under root, as 'file:line: why'."""
    root = root.resolve()
    top_level = frozenset(p.name for p in root.iterdir() if p.is_dir() and p.name not in SKIP_DIRS)
    anchor_cache: dict[Path, set[str]] = {}
    problems: list[str] = []
    for doc in markdown_files(root):
        name = doc.relative_to(root).as_posix()
        for paragraph in paragraphs(doc):
            for number, target in link_targets(paragraph):
                why = broken_link(doc, target, root, anchor_cache)
                if why:
                    problems.append(f"{name}:{number}: {why}")
            for number, path in code_paths(paragraph, top_level):
                if (name, path) in UPSTREAM_PATHS or any(path.startswith(p) for p in NOT_IN_REPO):
                    continue
                if not path_exists(root, path):
                    problems.append(f"{name}:{number}: `{path}` does not exist in the repository")
    return problems


def _failure(problems: list[str]) -> str:
    return f"{len(problems)} broken reference(s) in the docs:\n  " + "\n  ".join(problems)


# --- the repository ---------------------------------------------------------------------------------------------


def test_every_doc_reference_exists() -> None:
    problems = broken_references(REPO_ROOT)
    assert not problems, _failure(problems)


def test_the_checked_files_include_the_site() -> None:
    checked = {p.relative_to(REPO_ROOT).as_posix() for p in markdown_files(REPO_ROOT)}
    assert {"README.md", "docs/index.md", "policies/RULES.md", "conformance/README.md"} <= checked
    assert not any(name.startswith((".venv/", "policies/venv/")) for name in checked)


def test_docs_index_maps_every_page() -> None:
    index = REPO_ROOT / "docs" / "index.md"
    linked = {
        (index.parent / target.partition("#")[0]).resolve()
        for paragraph in paragraphs(index)
        for _, target in link_targets(paragraph)
        if target and not URL_SCHEME_RE.match(target) and not target.startswith("#")
    }
    pages = set((REPO_ROOT / "docs").glob("*.md")) - {index}
    missing = sorted(p.name for p in pages if p.resolve() not in linked)
    assert not missing, f"docs/index.md does not link {', '.join(missing)}"


def test_readme_is_the_front_page() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 100, "README.md is the front page: keep the reference in docs/"
    assert "make test" in readme
    assert "make preflight STACK=dev" in readme
    assert "](docs/index.md)" in readme


def test_readme_example_is_the_dev_stack() -> None:
    """The README's example stack says what stacks/Pulumi.dev.yaml says (flow style allowed, comments aside)."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(.*?)^```", readme, flags=re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, "README.md has one YAML example: the dev stack"
    shipped = yaml.safe_load((REPO_ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    assert yaml.safe_load(blocks[0]) == shipped, "README.md's example differs from stacks/Pulumi.dev.yaml"


# --- the checker itself ------------------------------------------------------------------------------------------


def test_github_slug() -> None:
    assert github_slug("MIG: who partitions the GPUs") == "mig-who-partitions-the-gpus"
    assert github_slug("Running it with the Pulumi CLI") == "running-it-with-the-pulumi-cli"
    assert github_slug("`gpu-size-minimum` — the floor") == "gpu-size-minimum--the-floor"
    assert github_slug("[Deploying](deploying.md) for real") == "deploying-for-real"


def test_checker_reports_each_broken_reference_with_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "components").mkdir()
    (tmp_path / "components" / "real.py").write_text("", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# A page\n\n## Section two\n\n## Section two\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "\n".join(
            [
                "# Front",  # 1
                "[ok](docs/page.md) [ok](docs/page.md#section-two) [ok](docs/page.md#section-two-1) [ok](#front)",
                "[gone](docs/missing.md) and [bad anchor](docs/page.md#section-three) [url](https://x.invalid/a)",
                "`components/real.py`, `python components/real.py --x`, `components/*.py`, `stacks/Pulumi.<env>.yaml`",
                "`components/gone.py` and `upstream/api/types.go` and `components/nothing*.py`",  # 5
                "```",
                "[not a link](nowhere.md) `components/fenced.py`",
                "```",
                "`[not a link](nowhere.md)` [self](#nope)",  # 9
                "[ref]: docs/absent.md",
                "",
                "A wrapped `python components/real.py",
                "components/wrapped.py` and [a wrapped",  # 13
                "link](docs/wrapped.md); `python -m x",
                "y` then prose components/prose.py, then `z`",  # 15: prose between two code spans
            ]
        ),
        encoding="utf-8",
    )
    assert broken_references(tmp_path) == [
        "README.md:3: link target docs/missing.md does not exist",
        "README.md:3: link target docs/page.md#section-three: docs/page.md has no heading with anchor #section-three",
        "README.md:5: `components/gone.py` does not exist in the repository",
        "README.md:5: `components/nothing*.py` does not exist in the repository",
        "README.md:9: link target #nope: README.md has no heading with anchor #nope",
        "README.md:10: link target docs/absent.md does not exist",
        "README.md:13: link target docs/wrapped.md does not exist",
        "README.md:13: `components/wrapped.py` does not exist in the repository",
    ]
