"""``python -m preflight.pack_config``: the policy-pack config file of a stack, for the real engine.

``pulumi preview/up --policy-pack policies --policy-pack-config FILE`` hands the pack only what FILE holds: the
engine reads a JSON object whose keys are policy names, each an enforcement level or an object of
``enforcementLevel`` plus the policy's properties (pulumi/pulumi ``pkg/resource/analyzer/config.go``:
``LoadPolicyPackConfigFromFile`` / ``parsePolicyPackConfig``, the key ``environments`` reserved for ESC references;
then ``ReconcilePolicyPackConfig`` fills the pack's defaults and validates each policy's result against its config
schema). The stack file's keys never reach the pack by themselves, so this command writes them in that shape:

- ``<project>:policy`` as written (levels, the GPU floor, every policy's properties, ``all``);
- ``<project>:exemptions``: each entry under its policy's key, as that policy's ``exemptions`` property (the entry
  without ``policy``, which the key already says; ``policies/_exemptions.py`` reads it), expired entries included so
  a violation they no longer waive names them; ``<project>:exemptionMaxDays`` beside them when the stack sets it.

The result is checked the way the preflight checks it before writing anything: each entry by
:mod:`rules.exemptions` (every problem at once, exit 2, naming the stack file and the key), and the whole file
against the pack's own policies and config schemas over the analyzer protocol (:mod:`preflight.analyzer`: a policy
the pack does not define, a property its schema refuses). What it cannot check without the program — an exemption that
matches no resource — the preflight does.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Collection, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from gpu_catalog import clock
from gpu_catalog.problems import Problem, show
from preflight.analyzer.client import PolicyPackProcess
from preflight.analyzer.policy_config import reconcile_policy_config
from preflight.analyzer.protocol import PolicyConfigError, PolicyPackError
from preflight.project import PreflightInputError, read_project
from preflight.stackfile import StackFileError, StackSettings, load_stack_settings, stack_file_label
from rules.exemptions import EXEMPTIONS_KEY, MAX_DAYS_KEY, max_days_findings, parse_entries, resolve_max_days

REPO_ROOT = Path(__file__).resolve().parent.parent
POLICY_KEY = "policy"
EXIT_OK, EXIT_ERROR = 0, 2


def pack_config(
    values: Mapping[str, Any], project: str, *, today: date, policies: Collection[str]
) -> tuple[dict[str, Any], list[Problem]]:
    """The policy-pack config of a stack's values (``ns:key`` → YAML value) and every problem found on the way."""
    problems: list[Problem] = []
    raw_policy = values.get(f"{project}:{POLICY_KEY}")
    config: dict[str, Any] = {}
    if isinstance(raw_policy, Mapping):
        config = {str(k): copy.deepcopy(v) for k, v in raw_policy.items()}
    elif raw_policy is not None:
        problems.append(
            Problem(
                POLICY_KEY, f"must be a mapping of policy name to a level or to its settings; got {show(raw_policy)}"
            )
        )
    raw_max = values.get(f"{project}:{MAX_DAYS_KEY}")
    problems += [Problem(MAX_DAYS_KEY, f.message) for f in max_days_findings(raw_max)]
    exemptions, refused = parse_entries(
        values.get(f"{project}:{EXEMPTIONS_KEY}"), today=today, max_days=resolve_max_days(raw_max), policies=policies
    )
    problems += [Problem(EXEMPTIONS_KEY + f.field, f.message) for f in refused]
    if problems:
        return {}, problems
    for e in exemptions:
        entry = config.get(e.policy)
        if entry is not None and not isinstance(entry, str | Mapping):
            continue  # the pack's schema check names it (policy.<name>)
        settings: dict[str, Any] = {"enforcementLevel": entry} if isinstance(entry, str) else dict(entry or {})
        listed = settings.setdefault(EXEMPTIONS_KEY, [])
        if not isinstance(listed, list):
            where = f"{POLICY_KEY}.{e.policy}.{EXEMPTIONS_KEY}"
            problems.append(Problem(where, f"must be a list of exemptions; got {show(listed)}"))
            continue
        listed.append(
            {
                "resource": e.resource,
                "reason": e.reason,
                "owner": e.owner,
                "expires": e.expires.isoformat(),
                "category": e.category,
            }
        )
        if raw_max is not None:
            settings[MAX_DAYS_KEY] = raw_max
        config[e.policy] = settings
    return config, problems


def _pack_problems(exc: PolicyConfigError) -> list[Problem]:
    """The pack's refusals of the generated config (``<policy>.<property>: message``) on the stack's keys."""
    out: list[Problem] = []
    for error in exc.errors:
        path, sep, message = error.partition(": ")
        key = EXEMPTIONS_KEY if f".{EXEMPTIONS_KEY}" in path else f"{POLICY_KEY}.{path}"
        out.append(Problem(key, message) if sep else Problem(POLICY_KEY, error))
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m preflight.pack_config",
        description="Write the policy-pack config of a stack (its policy settings and its exemptions) for "
        "`pulumi preview/up --policy-pack policies --policy-pack-config FILE`: the real engine gives the pack only "
        "what that file holds.",
        epilog="Exit codes: 0 written; 2 invalid stack config (every problem listed, with the key) or bad usage.",
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--stack", metavar="NAME", help="reads <program>/<stackConfigDir>/Pulumi.NAME.yaml")
    which.add_argument("--config-file", metavar="PATH", type=Path, help="any Pulumi stack file (Pulumi.<stack>.yaml)")
    parser.add_argument("--program", metavar="DIR", type=Path, default=REPO_ROOT, help="default: this repo")
    parser.add_argument(
        "--policy-pack", metavar="DIR", type=Path, default=REPO_ROOT / "policies", help="default: policies/"
    )
    parser.add_argument("--out", metavar="FILE", type=Path, help="write the config here (default: stdout)")
    parser.add_argument("--today", metavar="YYYY-MM-DD", help="check the exemptions' dates as of this day")
    return parser


def _settings(args: argparse.Namespace) -> StackSettings:
    program_dir: Path = args.program.resolve()
    project = read_project(program_dir)
    stack_file: Path = project.stack_file(args.stack) if args.stack is not None else args.config_file
    if not stack_file.is_file():
        raise PreflightInputError(f"{stack_file}: stack file not found")
    return load_stack_settings(program_dir, stack_file, stack=args.stack, project=project)


def write_pack_config(args: argparse.Namespace, today: date) -> str:
    """The config file's text; raises :class:`StackFileError` with every problem of the stack file."""
    settings = _settings(args)
    problems = list(settings.problems)
    with PolicyPackProcess(args.policy_pack.resolve(), project=settings.project, stack=settings.stack) as pack:
        info = pack.analyzer_info()
    config, found = pack_config(
        settings.values, settings.project, today=today, policies=[p.name for p in info.policies]
    )
    problems += found
    if not found:
        try:
            reconcile_policy_config(info, config)
        except PolicyConfigError as exc:
            problems += _pack_problems(exc)
    if problems:
        raise StackFileError(stack_file_label(settings), problems, settings.project)
    return json.dumps(config, indent=2, sort_keys=True) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        today = clock.parse_day(args.today, "--today") if args.today is not None else clock.today()
        text = write_pack_config(args, today)
    except (clock.ClockError, PreflightInputError, StackFileError, PolicyPackError) as exc:
        sys.stderr.write(f"pack_config: error: {str(exc).rstrip()}\n")
        return EXIT_ERROR
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
