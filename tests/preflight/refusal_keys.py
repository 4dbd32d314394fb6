"""The check of issue 27, item 2 (a refusal never names a key the user did not write), shared by the seeded fuzz
(``test_fuzz.py``, on every case it validates) and ``test_refusal_keys.py`` (each key of the shipped stacks
deleted)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from gpu_catalog.problems import Problem

_STEP = re.compile(r'\.?([^.\[\]"]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
MISSING_WORDS = ("required", "missing")


def parse_path(path: str) -> list[str | int] | None:
    """``gpuPools[1].sharing["a b"]`` → ``['gpuPools', 1, 'sharing', 'a b']`` (``None``: not a key path)."""
    out: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _STEP.match(path, pos)
        if m is None or m.end() == pos:
            return None
        name, index, quoted = m.groups()
        out.append(name if name is not None else int(index) if index is not None else json.loads(quoted))
        pos = m.end()
    return out


def present(doc: Any, parts: list[str | int]) -> bool:
    for part in parts:
        if isinstance(part, int):
            if not isinstance(doc, list) or not 0 <= part < len(doc):
                return False
            doc = doc[part]
        elif isinstance(doc, Mapping) and part in doc:
            doc = doc[part]
        else:
            return False
    return True


def unwritten(problem: Problem, data: Mapping[str, Any], written_keys: set[str]) -> str | None:
    """Why the problem names a key the user did not write (``None`` when it names one they did)."""
    path, message = problem.path, problem.message
    if path == "(root)" or path.startswith("line "):
        return None
    parts = parse_path(path)
    if parts is None:
        return f"{path!r} is not a key path"
    if present(data, parts):
        return None
    if ":" in str(parts[0]):  # a key of the whole config section (another namespace), as written
        return None if path in written_keys else f"{path!r} is not a key of the config section"
    if present(data, parts[:-1]) and any(w in message for w in MISSING_WORDS):
        return None  # a required key missing under a mapping the user wrote
    if "default" in message:
        return None  # worded as a default's collision
    return f"{path!r} is not in the file and the message does not say it is a default: {message[:200]!r}"
