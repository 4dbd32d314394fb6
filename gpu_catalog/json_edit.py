"""Write a changed JSON document back into its file's text, touching only what changed.

The facts files are hand-formatted (``catalog.json`` one space per level, the others two, short lists on one line,
key order chosen by their authors). :func:`patch` edits the original text in place: a changed value is replaced
where it stands, a removed key is cut with its comma, an added key goes after its siblings in their indentation, and
a changed list is rewritten in the list's own style (on one line if it was on one line). Everything else — indentation,
line breaks, key order, escapes — stays byte for byte. Standard library only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_DECODER = json.JSONDecoder()
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_SPACE = re.compile(r"\s*")


@dataclass
class _Node:
    start: int
    end: int
    members: dict[str, tuple[int, _Node]] = field(default_factory=dict)
    """An object's members: key → (where the member's key starts, the value's node)."""
    items: list[_Node] = field(default_factory=list)


def _skip(text: str, i: int) -> int:
    m = _SPACE.match(text, i)
    return m.end() if m else i


def _parse(text: str, i: int) -> _Node:
    i = _skip(text, i)
    ch = text[i]
    if ch == "{":
        node = _Node(i, i)
        i = _skip(text, i + 1)
        while text[i] != "}":
            key_start = i
            key, i = _DECODER.raw_decode(text, i)
            i = _skip(text, i)
            if text[i] != ":":
                raise ValueError(f"':' expected at offset {i}")
            value = _parse(text, i + 1)
            node.members[key] = (key_start, value)
            i = _skip(text, value.end)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node
    if ch == "[":
        node = _Node(i, i)
        i = _skip(text, i + 1)
        while text[i] != "]":
            item = _parse(text, i)
            node.items.append(item)
            i = _skip(text, item.end)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node
    if ch == '"':
        _, end = _DECODER.raw_decode(text, i)
        return _Node(i, end)
    m = _SCALAR.match(text, i)
    if m is None:
        raise ValueError(f"not JSON at offset {i}")
    return _Node(i, m.end())


@dataclass
class _Style:
    unit: str
    ascii_only: bool


def _line_indent(text: str, pos: int) -> str:
    """The spaces that start the line ``pos`` is on."""
    line_start = text.rfind("\n", 0, pos) + 1
    line = text[line_start:pos]
    return line[: len(line) - len(line.lstrip(" "))]


def _dump(value: Any, indent: str, style: _Style, *, inline: bool = False) -> str:
    """``value`` as JSON starting at a line indented by ``indent``: on one line when ``inline`` or a scalar."""
    if inline or not isinstance(value, dict | list) or not value:
        return json.dumps(value, ensure_ascii=style.ascii_only)
    body = json.dumps(value, indent=len(style.unit), ensure_ascii=style.ascii_only)
    return body.replace("\n", "\n" + indent)


@dataclass
class _Edit:
    start: int
    end: int
    text: str


def _edits(text: str, node: _Node, old: Any, new: Any, style: _Style) -> list[_Edit]:
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        return _object_edits(text, node, old, new, style)
    same_shape = isinstance(old, list) and isinstance(new, list) and len(old) == len(new) and bool(old)
    if same_shape and all(isinstance(o, dict | list) for o in old):
        return [e for n, o, w in zip(node.items, old, new, strict=True) for e in _edits(text, n, o, w, style)]
    inline = "\n" not in text[node.start : node.end]
    return [_Edit(node.start, node.end, _dump(new, _line_indent(text, node.start), style, inline=inline))]


def _object_edits(text: str, node: _Node, old: dict[str, Any], new: dict[str, Any], style: _Style) -> list[_Edit]:
    out: list[_Edit] = []
    keys = list(node.members)
    for key in keys:
        key_start, child = node.members[key]
        if key in new:
            out += _edits(text, child, old[key], new[key], style)
            continue
        index = keys.index(key)
        # cut from the end of the previous member: its comma goes with this one
        cut_from = node.members[keys[index - 1]][1].end if index > 0 else key_start
        cut_to = child.end
        if index == 0 and len(keys) > 1:
            cut_to = node.members[keys[1]][0]
        out.append(_Edit(cut_from, cut_to, ""))
    added = [k for k in new if k not in old]
    if added:
        out.append(_insertion(text, node, keys, {k: new[k] for k in added}, style))
    return out


def _insertion(text: str, node: _Node, keys: list[str], added: dict[str, Any], style: _Style) -> _Edit:
    one_line = "\n" not in text[node.start : node.end]
    if keys:
        last_key_start, last = node.members[keys[-1]]
        indent = _line_indent(text, last_key_start)
        at = last.end
        lead = ", " if one_line else ",\n" + indent
    else:
        indent = _line_indent(text, node.start) + style.unit
        at = node.start + 1
        lead = "" if one_line else "\n" + indent
    sep = ", " if one_line else ",\n" + indent
    parts = [
        f"{json.dumps(k, ensure_ascii=style.ascii_only)}: {_dump(v, indent, style, inline=one_line)}"
        for k, v in added.items()
    ]
    tail = "" if keys or one_line else "\n" + _line_indent(text, node.start)
    return _Edit(at, at, lead + sep.join(parts) + tail)


def _style(text: str) -> _Style:
    m = re.search(r"\n( +)\S", text)
    return _Style(unit=m.group(1) if m else "  ", ascii_only=text.isascii())


def patch(text: str, new: Any) -> str:
    """``text`` (a JSON document) changed to hold ``new``, editing only the values that differ."""
    old = json.loads(text)
    root = _parse(text, 0)
    edits = sorted(_edits(text, root, old, new, _style(text)), key=lambda e: e.start, reverse=True)
    for edit in edits:
        text = text[: edit.start] + edit.text + text[edit.end :]
    if json.loads(text) != new:  # never write a file that does not read back as the document
        raise ValueError("the patched text does not read back as the new document")
    return text
