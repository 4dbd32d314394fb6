"""What is wrong with a stack file, in one format wherever it is found.

The program (``stack_config/``: wrong types, catalog rules, cross-field rules) and the preflight (YAML syntax,
encodings, duplicate keys, ``budget``, ``policy``) both describe a mistake as a :class:`Problem` (key path + what is
wrong and what is allowed) and print a list of them with :func:`render_problems`, so a refusal reads the same whoever
caught it, lists every problem of the file at once and says that nothing was deployed. :func:`show` prints a value
as it was written in YAML (``true``, not Python's ``True``). Pure: no Pulumi import.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a stack file: where (key path, or ``line N`` for YAML syntax) and what (with what is
    allowed)."""

    path: str
    message: str

    def line(self, stack_file: str) -> str:
        """One line, whatever the values in it contain (a newline in a value is shown as ``\\n``)."""
        return _one_line(f"{stack_file}: {self.path}: {self.message}")


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


def render_problems(stack_file: str, problems: Sequence[Problem], namespace: str) -> str:
    """The refusal: a header naming the file, the count and that nothing was deployed, then one line per problem."""
    count = len(problems)
    header = (
        f"invalid stack configuration in {stack_file} ({count} problem{'s' if count != 1 else ''}; "
        f"keys are under '{namespace}:'; nothing was deployed):"
    )
    return "\n".join([header, *(f"  {p.line(stack_file)}" for p in problems)])


def merge_problems(first: Iterable[Problem], then: Iterable[Problem]) -> list[Problem]:
    """``first``, then every problem of ``then`` on a key path ``first`` does not already report (no key twice)."""
    out = list(dict.fromkeys(first))
    seen = {p.path for p in out}
    out.extend(p for p in dict.fromkeys(then) if p.path not in seen)
    return out


def show(value: Any) -> str:
    """A value as YAML wrote it: ``true``/``false``/``null``, numbers as numbers, strings quoted, lists and mappings
    in flow style (never Python's ``True`` or ``None``)."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if value is None or isinstance(value, bool | int | float | list | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return repr(value)


def key_path(loc: Iterable[int | str]) -> str:
    """``('gpuPools', 1, 'minCount')`` → ``gpuPools[1].minCount``; a key that is not a plain name is quoted:
    ``labels["bad key"]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _plain(str(part)):
            out += ("." if out else "") + str(part)
        else:
            out += f"[{json.dumps(str(part), ensure_ascii=False)}]"
    return out or "(root)"


def _plain(name: str) -> bool:
    return bool(name) and all(c.isalnum() or c in "-_:/" for c in name) and not name[0].isdigit()
