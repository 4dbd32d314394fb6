"""Seeded mutations of the shipped stack files, for the preflight fuzz test (``test_fuzz.py``).

Every case starts from one of ``stacks/Pulumi.*.yaml`` and applies one or two mutations:

- ``swap``: a value of another YAML type (str, int, float, bool, null, list, mapping), anywhere in the tree;
- ``del``: a key deleted, anywhere (required keys and ``config`` itself included);
- ``dup``: a key written twice in the same mapping with another value (on the YAML text: a dict cannot hold it);
- ``num``: a number at an extreme (0, -1, 2**31, 2**63, ±1e308, .inf, .nan, 1e-300, 100000);
- ``uni``/``ukey``: a string value (or a mapping key) replaced by unicode (emoji, RTL, combining marks, zero-width
  space, 10k characters, ``:`` or a newline in it, ...);
- ``enc``: the whole file re-encoded or broken (UTF-8 BOM, UTF-16 LE/BE, Latin-1 comment, invalid UTF-8, truncated
  mid-line, empty, only a comment, a list at the top, tabs for indentation, CRLF).

Tree mutations are applied to the parsed document and serialized with ``yaml.safe_dump``; then the text mutations
(``dup``), then the encoding (always last). A case without a tree mutation keeps the shipped text (and its comments).
Everything is derived from ``random.Random(seed)``: the same seed gives the same bytes on every run.
"""

from __future__ import annotations

import codecs
import copy
import functools
import json
import math
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
STACKS_DIR = REPO / "stacks"
PROJECT = "azure-gpu-platform"
STACKS: tuple[str, ...] = tuple(
    sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in STACKS_DIR.glob("Pulumi.*.yaml"))
)

_PLAIN_KEY = re.compile(r"[A-Za-z0-9_:/-]+")

Path_ = tuple[Any, ...]
"""A node's path in the parsed document: mapping keys (str) and list indexes (int)."""

# --------------------------------------------------------------------------------------------------------------------
# Value pools

TYPE_SAMPLES: dict[str, Any] = {
    "str": "fuzz",
    "int": 7,
    "float": 2.5,
    "bool": True,
    "null": None,
    "list": ["a", 1],
    "map": {"k": "v"},
}

EXTREMES: dict[str, Any] = {
    "0": 0,
    "-1": -1,
    "2**31": 2**31,
    "2**63": 2**63,
    "1e308": 1e308,
    "-1e308": -1e308,
    "inf": math.inf,
    "nan": math.nan,
    "1e-300": 1e-300,
    "100000": 100000,
}

UNICODE: dict[str, str] = {
    "emoji": "🚀🔥gpu🧠",
    "rtl": "שלום-עולם مرحبا",
    "combining": "e\u0301\u0301a\u0308\u0323",
    "zwsp": "t4\u200bpool",
    "long10k": "x" * 10_000,
    "colon": "a: b",
    "newline": "line1\nline2",
    "rlo": "\u202eevil",
    "nul": "nul\x00byte",
    "empty": "",
    "spaces": "   ",
    "hash": "#not-a-comment",
}

DUP_VALUES: tuple[str, ...] = ("999", "dup-value", "true", "null", "[]", "{}", "-1", ".nan")

ENCODINGS: tuple[str, ...] = (
    "utf8-bom",
    "utf16-le",
    "utf16-be",
    "latin1-comment",
    "invalid-utf8",
    "truncated",
    "empty",
    "comment-only",
    "top-list",
    "tabs",
    "crlf",
)


# --------------------------------------------------------------------------------------------------------------------
# Cases


@dataclass(frozen=True)
class FuzzCase:
    """One mutated stack file: ``data`` is written as ``Pulumi.<stack>.yaml``."""

    id: str
    stack: str
    data: bytes
    mutations: tuple[str, ...]

    def __repr__(self) -> str:  # pytest shows it in assertion messages: keep the bytes out
        return f"FuzzCase({self.id})"


@functools.cache
def base_text(stack: str) -> str:
    return (STACKS_DIR / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8")


@functools.cache
def _parsed(stack: str) -> Any:
    return yaml.safe_load(base_text(stack))


def base_doc(stack: str) -> Any:
    """A fresh copy of the parsed shipped stack (mutations change it in place)."""
    return copy.deepcopy(_parsed(stack))


def show_path(path: Path_) -> str:
    """``("config", "azure-gpu-platform:gpuPools", 0, "minCount")`` → ``gpuPools[0].minCount`` (as messages say)."""
    out = ""
    parts = list(path)
    if parts[:1] == ["config"] and len(parts) > 1:
        parts = parts[1:]
        first = str(parts[0])
        parts[0] = first.removeprefix(f"{PROJECT}:")
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(str(part)):
            out += ("." if out else "") + str(part)
        else:  # unicode keys stay readable (and on one line) in test ids: JSON-escaped, at most 24 characters
            quoted = json.dumps(str(part))
            out += f"[{quoted if len(quoted) <= 24 else quoted[:20] + '...' + chr(34)}]"
    return out or "(root)"


def dump(doc: Any) -> str:
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def walk(node: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every node below the root, parents before children."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key), value
            yield from walk(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield (*path, index), value
            yield from walk(value, (*path, index))


def get(doc: Any, path: Path_) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def put(doc: Any, path: Path_, value: Any) -> None:
    get(doc, path[:-1])[path[-1]] = value


def rename_key(doc: Any, path: Path_, new: str) -> None:
    """Replace the key at ``path`` by ``new``, keeping its value and the mapping's order."""
    parent = get(doc, path[:-1])
    items = [(new if k == path[-1] else k, v) for k, v in parent.items()]
    parent.clear()
    parent.update(items)


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    return "map"


# Tree mutations: (doc, rng) → description, or None when the document has no node to mutate.


def swap_type(doc: Any, rng: random.Random, path: Path_ | None = None, to: str | None = None) -> str | None:
    paths = [p for p, _ in walk(doc)]
    if path is None:
        if not paths:
            return None
        path = rng.choice(paths)
    current = type_name(get(doc, path))
    if to is None:
        to = rng.choice([t for t in TYPE_SAMPLES if t != current])
    put(doc, path, copy.deepcopy(TYPE_SAMPLES[to]))
    return f"swap:{show_path(path)}={to}"


def delete_key(doc: Any, rng: random.Random, path: Path_ | None = None) -> str | None:
    if path is None:
        paths = [p for p, _ in walk(doc) if isinstance(p[-1], str)]
        if not paths:
            return None
        path = rng.choice(paths)
    del get(doc, path[:-1])[path[-1]]
    return f"del:{show_path(path)}"


def _set_from(
    doc: Any,
    rng: random.Random,
    path: Path_ | None,
    to: str | None,
    *,
    table: dict[str, Any],
    paths: list[Path_],
    tag: str,
) -> str | None:
    """Set the value at ``path`` (or a random one of ``paths``) to ``table[to]`` (or a random entry)."""
    if path is None:
        if not paths:
            return None
        path = rng.choice(paths)
    if to is None:
        to = rng.choice(list(table))
    put(doc, path, table[to])
    return f"{tag}:{show_path(path)}={to}"


def numeric_extreme(doc: Any, rng: random.Random, path: Path_ | None = None, to: str | None = None) -> str | None:
    numbers = [p for p, v in walk(doc) if isinstance(v, int | float) and not isinstance(v, bool)]
    scalars = [p for p, v in walk(doc) if not isinstance(v, dict | list)]
    paths = numbers if numbers and (path is not None or rng.random() < 0.8) else scalars
    return _set_from(doc, rng, path, to, table=EXTREMES, paths=paths, tag="num")


def unicode_value(doc: Any, rng: random.Random, path: Path_ | None = None, to: str | None = None) -> str | None:
    strings = [p for p, v in walk(doc) if isinstance(v, str)]
    return _set_from(doc, rng, path, to, table=UNICODE, paths=strings, tag="uni")


def unicode_key(doc: Any, rng: random.Random, path: Path_ | None = None, to: str | None = None) -> str | None:
    if path is None:
        # Keys below the config's top level (a top-level key without ':' is another key of the project namespace).
        keys = [p for p, _ in walk(doc) if isinstance(p[-1], str) and len(p) >= 3]
        if not keys:
            return None
        path = rng.choice(keys)
    if to is None:
        to = rng.choice([name for name in UNICODE if name not in ("empty", "nul")])
    rename_key(doc, path, UNICODE[to])
    return f"ukey:{show_path(path)}={to}"


TREE_MUTATIONS: dict[str, Callable[[Any, random.Random], str | None]] = {
    "swap": swap_type,
    "del": delete_key,
    "num": numeric_extreme,
    "uni": unicode_value,
    "ukey": unicode_key,
}


# Text mutations


@dataclass(frozen=True)
class _KeyLine:
    path: Path_
    column: int
    insert_at: int
    """Index in ``text.splitlines()`` where a second line for the key goes (after its value, in the same mapping)."""


def _key_lines(text: str) -> list[_KeyLine]:
    node = yaml.compose(text, Loader=yaml.CSafeLoader)
    out: list[_KeyLine] = []

    def visit(node: yaml.Node, path: Path_) -> None:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = key_node.value
                if not node.flow_style and isinstance(key_node, yaml.ScalarNode):
                    block = isinstance(value_node, yaml.CollectionNode) and not value_node.flow_style
                    end = value_node.end_mark.line if block else value_node.end_mark.line + 1
                    out.append(_KeyLine((*path, key), key_node.start_mark.column, end))
                visit(value_node, (*path, key))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                visit(item, (*path, index))

    if node is not None:
        visit(node, ())
    return out


def duplicate_key(
    text: str, rng: random.Random, path: Path_ | None = None, value: str | None = None
) -> tuple[str, str]:
    """The text with a second line for one key (``path``, or a random one) in the same mapping."""
    candidates = _key_lines(text)
    chosen = rng.choice(candidates) if path is None else next(c for c in candidates if c.path == path)
    key = str(chosen.path[-1])
    written = key
    # `gpuPools` and `azure-gpu-platform:gpuPools` are the same config key: sometimes write the other spelling.
    if len(chosen.path) == 2 and chosen.path[0] == "config" and key.startswith(f"{PROJECT}:") and rng.random() < 0.4:
        written = key.removeprefix(f"{PROJECT}:")
    if value is None:
        value = rng.choice(DUP_VALUES)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    lines.insert(chosen.insert_at, f"{' ' * chosen.column}{written}: {value}\n")
    spelled = "" if written == key else "(unqualified)"
    return "".join(lines), f"dup:{show_path(chosen.path)}{spelled}={value}@L{chosen.insert_at + 1}"


def encode(text: str, doc: Any, how: str, rng: random.Random) -> bytes:
    """The file's bytes, re-encoded or broken as ``how`` says."""
    if how == "utf8-bom":
        return codecs.BOM_UTF8 + text.encode("utf-8")
    if how == "utf16-le":
        return codecs.BOM_UTF16_LE + text.encode("utf-16-le")
    if how == "utf16-be":
        return codecs.BOM_UTF16_BE + text.encode("utf-16-be")
    if how == "latin1-comment":
        return ("# Résumé: café, naïve, Größe ±5 µs\n" + text).encode("latin-1", errors="replace")
    data = text.encode("utf-8")
    if how == "invalid-utf8":
        ends = [i for i, b in enumerate(data) if b == 0x0A] or [len(data)]
        at = rng.choice(ends)
        return data[:at] + b" \xff\xfe\xc3(" + data[at:]
    if how == "truncated":
        lines = data.splitlines(keepends=True)
        long_lines = [i for i, line in enumerate(lines) if len(line.strip()) > 2 and not line.strip().startswith(b"#")]
        if not long_lines:
            return data[: len(data) // 2]
        i = rng.choice(long_lines)
        cut = rng.randrange(1, len(lines[i].rstrip()))
        return b"".join(lines[:i]) + lines[i][:cut]
    if how == "empty":
        return b""
    if how == "comment-only":
        return b"# this stack file only has a comment\n"
    if how == "top-list":
        return dump([doc]).encode("utf-8")
    if how == "tabs":
        out = []
        for line in text.splitlines(keepends=True):
            stripped = line.lstrip(" ")
            indent = len(line) - len(stripped)
            out.append("\t" * (indent // 2) + " " * (indent % 2) + stripped)
        return "".join(out).encode("utf-8")
    if how == "crlf":
        return text.replace("\n", "\r\n").encode("utf-8")
    raise ValueError(f"unknown encoding mutation {how!r}")


# --------------------------------------------------------------------------------------------------------------------
# Generators


def random_case(seed: int) -> FuzzCase:
    """One or two mutations of one shipped stack, all drawn from ``random.Random(seed)``."""
    rng = random.Random(seed)
    stack = rng.choice(STACKS)
    doc = base_doc(stack)
    text = base_text(stack)
    count = 1 if rng.random() < 0.6 else 2
    kinds = [rng.choices(["tree", "dup", "enc"], weights=[6, 2, 2])[0] for _ in range(count)]
    kinds.sort(key=["tree", "dup", "enc"].index)  # tree mutations, then text, then the encoding
    if kinds.count("enc") > 1:
        kinds = [k for k in kinds if k != "enc"] + ["enc"]
    descriptions: list[str] = []
    tree_changed = False
    for kind in kinds:
        if kind == "tree":
            name = rng.choices(list(TREE_MUTATIONS), weights=[6, 4, 5, 4, 2])[0]
            described = TREE_MUTATIONS[name](doc, rng)
            if described is not None:
                descriptions.append(described)
                tree_changed = True
        elif kind == "dup":
            if tree_changed:
                text = dump(doc)
                tree_changed = False
            text, described = duplicate_key(text, rng)
            descriptions.append(described)
    if tree_changed:
        text = dump(doc)
    data = text.encode("utf-8")
    if "enc" in kinds:
        how = rng.choice(ENCODINGS)
        data = encode(text, doc, how, rng)
        descriptions.append(f"enc:{how}")
    return FuzzCase(f"s{seed:03d}-{stack}-{'+'.join(descriptions)}", stack, data, tuple(descriptions))


def _config(key: str) -> tuple[str, str]:
    return ("config", f"{PROJECT}:{key}")


def _tree_case(stack: str, mutate: Callable[[Any, random.Random], str | None]) -> FuzzCase:
    doc = base_doc(stack)
    described = mutate(doc, random.Random(0))
    assert described is not None
    return FuzzCase(f"fixed-{stack}-{described}", stack, dump(doc).encode("utf-8"), (described,))


def _dup_case(stack: str, path: Path_, value: str, *, unqualified: bool = False) -> FuzzCase:
    text = base_text(stack)
    if unqualified:
        # `gpuPools:` next to `azure-gpu-platform:gpuPools:` in the config mapping.
        line = next(k for k in _key_lines(text) if k.path == path)
        lines = text.splitlines(keepends=True)
        key = str(path[-1]).removeprefix(f"{PROJECT}:")
        lines.insert(line.insert_at, f"{' ' * line.column}{key}: {value}\n")
        described = f"dup:{show_path(path)}(unqualified)={value}@L{line.insert_at + 1}"
        return FuzzCase(f"fixed-{stack}-{described}", stack, "".join(lines).encode("utf-8"), (described,))
    text, described = duplicate_key(text, random.Random(1), path, value)
    return FuzzCase(f"fixed-{stack}-{described}", stack, text.encode("utf-8"), (described,))


def _enc_case(stack: str, how: str) -> FuzzCase:
    data = encode(base_text(stack), base_doc(stack), how, random.Random(2))
    return FuzzCase(f"fixed-{stack}-enc:{how}", stack, data, (f"enc:{how}",))


def fixed_cases() -> list[FuzzCase]:
    """A diverse, hand-picked set (the subprocess layer runs these end to end)."""
    pools = (*_config("gpuPools"), 0)
    workspace = (*_config("kaito"), "workspaces", 0)
    prod_tpg = (*_config("databricks"), "clusters", 1, "tasksPerGpu")
    return [
        # encodings and broken files
        _enc_case("dev", "utf16-le"),
        _enc_case("staging", "latin1-comment"),
        _enc_case("prod", "utf8-bom"),
        _enc_case("dev", "invalid-utf8"),
        _enc_case("dev", "empty"),
        _enc_case("staging", "comment-only"),
        _enc_case("prod", "top-list"),
        _enc_case("staging", "tabs"),
        _enc_case("dev", "truncated"),
        # duplicate keys
        _dup_case("staging", (*pools, "count"), "999"),
        _dup_case("prod", _config("gpuPools"), "[]", unqualified=True),
        # type swaps
        _tree_case("dev", lambda d, r: swap_type(d, r, (*pools, "minCount"), "str")),
        _tree_case("staging", lambda d, r: swap_type(d, r, _config("cluster"), "list")),
        _tree_case("prod", lambda d, r: swap_type(d, r, (*_config("budget"), "monthlyUsd"), "bool")),
        _tree_case("dev", lambda d, r: swap_type(d, r, ("config",), "null")),
        # numbers at extremes
        _tree_case("prod", lambda d, r: numeric_extreme(d, r, prod_tpg, "100000")),
        _tree_case("dev", lambda d, r: numeric_extreme(d, r, (*pools, "maxCount"), "2**63")),
        _tree_case("staging", lambda d, r: numeric_extreme(d, r, (*_config("budget"), "monthlyUsd"), "nan")),
        _tree_case("dev", lambda d, r: numeric_extreme(d, r, (*pools, "sharing", "timeSlicing", "replicas"), "inf")),
        # unicode
        _tree_case("dev", lambda d, r: unicode_value(d, r, (*pools, "name"), "emoji")),
        _tree_case("prod", lambda d, r: unicode_key(d, r, (*_config("cluster"), "tags", "cost-center"), "rtl")),
        _tree_case("staging", lambda d, r: unicode_value(d, r, (*workspace, "name"), "long10k")),
        # deleted keys
        _tree_case("dev", lambda d, r: delete_key(d, r, (*pools, "vmSize"))),
        _tree_case("staging", lambda d, r: delete_key(d, r, _config("location"))),
    ]


RANDOM_SEEDS = range(300)


def random_cases() -> list[FuzzCase]:
    return [random_case(seed) for seed in RANDOM_SEEDS]


SECTIONS: tuple[str, ...] = ("gpuNodePools", "kaito", "databricks", "azurePolicy", "budget")
"""The stack-file sections every run mutates on purpose (node auto-provisioning, KAITO, Databricks, Azure Policy,
budget): a random path anywhere rarely lands in a given one."""

SECTION_SEEDS = range(12)
"""Cases per section."""


def _section_mutation(doc: Any, rng: random.Random, section: tuple[str, ...]) -> str | None:
    """One tree mutation at a node of ``section`` (the section itself included): type swap, deletion, number at an
    extreme or unicode, each drawn from ``rng``."""
    if not isinstance(doc.get("config"), dict) or section[1] not in doc["config"]:
        return None  # an earlier mutation deleted the section
    root = get(doc, section)
    paths = [section, *((*section, *p) for p, _ in walk(root))]
    path = rng.choice(paths)
    value = get(doc, path)
    kinds = ["swap", "del"] if isinstance(path[-1], str) else ["swap"]
    if not isinstance(value, dict | list):
        kinds.append("num")
    if isinstance(value, str):
        kinds.append("uni")
    kind = rng.choice(kinds)
    if kind == "swap":
        return swap_type(doc, rng, path)
    if kind == "del":
        return delete_key(doc, rng, path)
    if kind == "num":
        return numeric_extreme(doc, rng, path)
    return unicode_value(doc, rng, path)


def section_cases() -> list[FuzzCase]:
    """For each of :data:`SECTIONS`, seeded mutations of a shipped stack that has it, one or two inside the section."""
    out: list[FuzzCase] = []
    for section in SECTIONS:
        key = _config(section)
        stacks = [s for s in STACKS if key[1] in (_parsed(s).get("config") or {})]
        for seed in SECTION_SEEDS:
            rng = random.Random(f"{section}-{seed}")
            stack = rng.choice(stacks)
            doc = base_doc(stack)
            described = [_section_mutation(doc, rng, key) for _ in range(1 if rng.random() < 0.6 else 2)]
            kept = tuple(d for d in described if d is not None)
            out.append(FuzzCase(f"sec-{section}-{seed:02d}-{stack}-{'+'.join(kept)}", stack, dump(doc).encode(), kept))
    return out


def alias_bomb(levels: int = 9) -> bytes:
    """Nested YAML anchors, each list reusing the previous one nine times (9**levels values once expanded)."""
    lines = ["config:", f"  {PROJECT}:environment: dev", '  a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, levels):
        lines.append(f"  a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    lines.append(f"  {PROJECT}:tags: *a{levels - 1}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _set_case(stack: str, path: Path_, value: Any, label: str) -> FuzzCase:
    doc = base_doc(stack)
    put(doc, path, value)
    described = f"set:{show_path(path)}={label}"
    return FuzzCase(f"fixed-{stack}-{described}", stack, dump(doc).encode("utf-8"), (described,))


def section_fixed_cases() -> list[FuzzCase]:
    """End-to-end cases, one per section of :data:`SECTIONS` and one alias bomb (issue 27)."""
    nap = (*_config("gpuNodePools"), 0)
    return [
        _tree_case("staging", lambda d, r: swap_type(d, r, (*nap, "limits", "gpus"), "bool")),
        _set_case("staging", (*_config("kaito"), "workspaces", 0, "count"), True, "true"),
        _set_case("prod", (*_config("databricks"), "clusters", 0, "sparkVersion"), "13.3.x-gpu-ml-scala2.12", "13.3"),
        _tree_case("prod", lambda d, r: swap_type(d, r, (*_config("azurePolicy"), "effect"), "int")),
        _tree_case("dev", lambda d, r: unicode_value(d, r, (*_config("budget"), "enforcementLevel"), "rtl")),
        FuzzCase("fixed-dev-alias-bomb", "dev", alias_bomb(), ("alias:9**9",)),
    ]
