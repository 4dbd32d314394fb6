"""Read a Pulumi stack file the way the Pulumi CLI does, and describe every way it can fail as a Problem.

- Encoding: UTF-8, with or without a byte-order mark. Anything else (UTF-16 as some Windows editors save it, a
  Latin-1 comment) is refused with one line naming where the first undecodable byte is.
- YAML syntax errors name the line and column.
- Duplicate keys are refused (the CLI's YAML reader refuses them; PyYAML would silently keep the last), naming both
  lines. ``gpuPools`` and ``<project>:gpuPools`` are the same config key, so writing both is a duplicate too.

Key paths are those of the program's messages: under ``config:``, a key of the project's namespace without its
namespace (``gpuPools[0].vmSize``), any other key with it (``azure-native:location``).

:func:`load_stack_settings` turns a program's stack file (and its ``Pulumi.yaml`` config defaults) into the
:class:`StackSettings` a run under mocks needs: the config as the Pulumi CLI hands it to the program.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpu_catalog.problems import Problem, key_path, render_problems, show
from preflight.project import PreflightInputError, Project, read_project
from preflight.wire import config_string

_UTF16_32_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, minus its timestamp resolver: an unquoted ``2026-11-30`` stays the string a Pulumi
    program receives, not a ``date`` no config value can be."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class StackFileError(Exception):
    """The stack file cannot be used: every problem found, rendered like the program's own refusals (exit 2)."""

    def __init__(self, label: str, problems: Sequence[Problem], namespace: str, notes: Sequence[str] = ()) -> None:
        self.label = label
        self.problems = list(problems)
        self.namespace = namespace
        lines = [*(f"({note})" for note in notes), render_problems(label, self.problems, namespace)]
        super().__init__("\n".join(lines))


@dataclass
class StackDocument:
    """A decoded, parsed stack file and the problems that did not stop the parse (duplicate keys)."""

    doc: Any
    problems: list[Problem] = field(default_factory=list)


def decode(data: bytes) -> str | Problem:
    """The text of a stack file, or the one problem that stops Pulumi from reading it."""
    for bom, name in _UTF16_32_BOMS:
        if data.startswith(bom):
            return Problem(
                "(encoding)",
                f"the file is {name} (it starts with a {name} byte-order mark); Pulumi reads stack files as UTF-8. "
                "Save it as UTF-8 (with or without BOM) and run again.",
            )
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return Problem(
            f"line {line}, column {column}",
            f"byte 0x{data[exc.start]:02x} is not UTF-8 (the file looks saved as Latin-1 or Windows-1252); Pulumi "
            "reads stack files as UTF-8. Save it as UTF-8 and run again.",
        )


def _config_path(parts: list[Any], project: str) -> str:
    """The message key path of a node: ``config`` → its key without the project namespace → the rest."""
    if len(parts) >= 2 and parts[0] == "config":
        key = str(parts[1])
        if key.startswith(f"{project}:"):
            key = key[len(project) + 1 :]
        return key_path([key, *parts[2:]]) if ":" not in key else key + key_path(parts[2:]).removeprefix("(root)")
    return key_path(parts)


def _value_text(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return f" to {node.value}" if node.style is None else f" to {show(node.value)}"  # as written: true, 'x'
    return ""


def _duplicates(node: yaml.Node, parts: list[Any], project: str, out: list[Problem]) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = key_node.value
            if len(parts) == 1 and parts[0] == "config" and ":" not in key:
                key = f"{project}:{key}"  # `gpuPools` is `<project>:gpuPools`
            if key in seen:
                first_key, first_value = seen[key]
                first, again = first_key.start_mark.line + 1, key_node.start_mark.line + 1
                out.append(
                    Problem(
                        _config_path([*parts, key], project),
                        f"duplicate key: line {first} sets it{_value_text(first_value)} and line {again} "
                        f"again{_value_text(value_node)}; Pulumi refuses a stack file with a duplicate key. Keep one.",
                    )
                )
            else:
                seen[key] = (key_node, value_node)
            _duplicates(value_node, [*parts, key], project, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _duplicates(item, [*parts, index], project, out)


MAX_EXPANDED_NODES = 100_000
"""The most values a stack file may hold once its YAML aliases are expanded (every real stack has a few hundred):
nested anchors that reuse each other multiply ("billion laughs") and would stall every reader after the parse.
Counted on the composed node graph, each node once, so the check itself stays linear."""


def _expanded_size(root: yaml.Node) -> tuple[int, yaml.Node | None]:
    """How many values ``root`` holds with every alias expanded (capped just past the limit), and the shared node that
    expands the most (the anchor to name), or ``None`` without aliases."""
    sizes: dict[int, int] = {}
    uses: dict[int, int] = {}
    nodes: dict[int, yaml.Node] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            children: list[yaml.Node] = []
            if isinstance(node, yaml.MappingNode):
                children = [n for pair in node.value for n in pair]
            elif isinstance(node, yaml.SequenceNode):
                children = list(node.value)
            sizes[key] = min(1 + sum(sizes[id(c)] for c in children), MAX_EXPANDED_NODES + 1)
            continue
        uses[key] = uses.get(key, 0) + 1
        if key in nodes:
            continue
        nodes[key] = node
        stack.append((node, True))
        if isinstance(node, yaml.MappingNode):
            stack.extend((n, False) for pair in node.value for n in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((n, False) for n in node.value)
    shared = [nodes[k] for k, n in uses.items() if n > 1 and sizes.get(k, 1) > 1]
    worst = max(shared, key=lambda n: sizes[id(n)] * uses[id(n)], default=None)
    return sizes[id(root)], worst


def parse(text: str, project: str) -> StackDocument:
    """Parse the YAML; raise ``_SyntaxProblem`` for a syntax error. Duplicate keys are listed, not fatal (the
    rest of the file is still checked; the refusal lists them with everything else)."""
    try:
        node = yaml.compose(text, Loader=_Loader)
        if node is not None:
            size, worst = _expanded_size(node)
            if size > MAX_EXPANDED_NODES:
                where = f"line {worst.start_mark.line + 1}" if worst is not None else "(YAML)"
                raise _SyntaxProblem(
                    Problem(
                        where,
                        f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} values (anchors that reuse each "
                        "other multiply; the anchor here is the largest one reused), far more than any stack file "
                        "needs: refused before anything reads it. Write the values out, or reuse an anchor only "
                        "where it is needed.",
                    )
                )
        doc = yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "(YAML)"
        what = " ".join(p for p in (exc.context, exc.problem) if p)
        raise _SyntaxProblem(Problem(where, f"not valid YAML: {what}.")) from None
    except yaml.YAMLError as exc:
        raise _SyntaxProblem(Problem("(YAML)", f"not valid YAML: {exc}.")) from None
    problems: list[Problem] = []
    if node is not None:
        _duplicates(node, [], project, problems)
    return StackDocument(doc=doc, problems=problems)


class _SyntaxProblem(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def read_stack_file(path: Path, *, label: str, project: str) -> StackDocument:
    """Decode and parse a stack file; raise :class:`StackFileError` when Pulumi could not read it at all."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StackFileError(
            label, [Problem("(file)", f"cannot read the file: {exc.strerror or exc}.")], project
        ) from exc
    text = decode(data)
    if isinstance(text, Problem):
        raise StackFileError(label, [text], project)
    try:
        return parse(text, project)
    except _SyntaxProblem as exc:
        raise StackFileError(label, [exc.problem], project) from None


# --------------------------------------------------------------------------------------------------------------------
# A program's config for one stack


@dataclass
class StackSettings:
    """Everything needed to run one program for one stack."""

    program_dir: Path
    project: str
    stack: str
    config: dict[str, str] = field(default_factory=dict)
    """Pulumi config as the language host passes it: ``ns:key`` → string (objects and lists JSON-encoded)."""
    secret_keys: list[str] = field(default_factory=list)
    stack_file: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)
    """The same config with its YAML values (not stringified), for the preflight's own keys (policy, budget)."""
    problems: list[Problem] = field(default_factory=list)
    """Problems of the stack file that did not stop reading it (duplicate keys), reported with all the others."""


_KEY_FORM = "a config key looks like 'namespace:key' (or 'key' for this project's namespace)."


def full_key(key: str, project: str) -> str | None:
    """``ns:key`` as written, or ``<project>:key`` for a key without a namespace; ``None`` when ``:`` leaves either
    side empty."""
    if ":" in key:
        ns, _, name = key.partition(":")
        return key if ns and name else None
    return f"{project}:{key}"


def load_stack_settings(
    program_dir: Path, stack_file: Path | None, stack: str | None = None, *, project: Project | None = None
) -> StackSettings:
    """Read a Pulumi stack file (``config:`` section) for a program as the Pulumi CLI reads it.

    Raise :class:`StackFileError` when the file cannot be read at all (encoding, YAML syntax, not a mapping);
    problems that leave it readable (duplicate keys) are kept in ``problems`` so the caller reports them with every
    other problem of the file. The stack name is ``stack`` or, from the file name ``Pulumi.<stack>.yaml``, the part
    between the dots. ``secure:`` values cannot be decrypted offline: they reach the program as a placeholder and are
    marked secret. ``project``: the program's ``Pulumi.yaml`` when the caller has read it already.
    """
    program_dir = program_dir.resolve()
    if project is None or project.program_dir != program_dir:
        project = read_project(program_dir)
    name = project.name
    values: dict[str, Any] = {}
    for key, default in project.config.items():
        full = full_key(key, name)
        if full is None:
            raise PreflightInputError(f"config key {key!r}: {_KEY_FORM}")
        values[full] = default
    secret_keys: list[str] = []
    problems: list[Problem] = []
    if stack_file is not None:
        if not stack_file.is_file():
            raise PreflightInputError(f"{stack_file}: stack file not found")
        label = file_label(program_dir, stack_file)
        parsed = read_stack_file(stack_file, label=label, project=name)
        problems.extend(parsed.problems)
        doc = {} if parsed.doc is None else parsed.doc
        if not isinstance(doc, dict):
            raise StackFileError(
                label, [Problem("(root)", f"must be a mapping with a 'config' key; got {show(doc)}.")], name
            )
        section = doc.get("config") or {}
        if not isinstance(section, dict):
            raise StackFileError(
                label,
                [Problem("config", f"must be a mapping of 'namespace:key' to values; got {show(section)}.")],
                name,
            )
        bad_keys: list[Problem] = []
        for key, value in section.items():
            full = full_key(str(key), name)
            if full is None:
                bad_keys.append(Problem(str(key), _KEY_FORM))
                continue
            if isinstance(value, dict) and set(value) == {"secure"}:
                values[full] = "[secret: encrypted in the stack file, not available offline]"
                secret_keys.append(full)
            else:
                values[full] = value
        if bad_keys:
            raise StackFileError(label, [*problems, *bad_keys], name)
        if stack is None:
            stack = _stack_name(stack_file)
    return StackSettings(
        program_dir=program_dir,
        project=name,
        stack=stack or "dev",
        config={k: config_string(v) for k, v in values.items()},
        secret_keys=secret_keys,
        stack_file=stack_file.resolve() if stack_file is not None else None,
        values=values,
        problems=problems,
    )


def _stack_name(stack_file: Path) -> str:
    """``<stack>`` of ``Pulumi.<stack>.yaml``."""
    name = stack_file.name
    for suffix in (".yaml", ".yml"):
        if name.startswith("Pulumi.") and name.endswith(suffix) and len(name) > len("Pulumi.") + len(suffix):
            return name[len("Pulumi.") : -len(suffix)]
    raise PreflightInputError(f"{stack_file}: cannot tell the stack name; name it Pulumi.<stack>.yaml")


def file_label(program_dir: Path, stack_file: Path) -> str:
    """How messages name a stack file: relative to the program dir when inside it (``stacks/Pulumi.dev.yaml``)."""
    try:
        return stack_file.resolve().relative_to(program_dir).as_posix()
    except ValueError:
        return str(stack_file)


def stack_file_label(settings: StackSettings) -> str:
    """How errors name the settings' stack file (:func:`file_label`)."""
    assert settings.stack_file is not None
    return file_label(settings.program_dir, settings.stack_file)
