"""``python -m preflight``: check a stack (or any Pulumi Python program) offline — policies, GPU cost, budget.

Steps: read the stack file → run the program under mocks (child process) while the policy pack starts → Configure the
pack with the stack's policy config → Analyze every resource, AnalyzeStack once → estimate GPU cost, check the budget
→ report. Exit codes: 0 no mandatory violation, 1 at least one, 2 invalid config, unreadable program, policy-pack
failure or bad usage (the error on stderr, naming the file and the key).

Keys the preflight itself reads from the stack file (``<project>`` is the program's project name):

- ``<project>:policy``: the policy config handed to the pack, ``{"<policy-name>": level | {"enforcementLevel": level,
  "<property>": value}, "all": level}`` (the shape of ``pulumi preview --policy-pack-config``);
- ``<project>:budget``: ``{monthlyUsd: number, enforcementLevel: advisory|mandatory}`` (optional).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any, TextIO

from gpu_catalog import clock
from gpu_catalog.problems import Problem, merge_problems, show
from gpu_catalog.staleness import DEFAULT_MAX_AGE_DAYS, MAX_AGE_ENV, REFRESH_COMMAND, stale_facts
from preflight.analyzer.client import PolicyPackProcess
from preflight.analyzer.protocol import Analysis, AnalyzerInfo, PolicyConfigError, PolicyPackError, Violation
from preflight.cost import Budget, BudgetConfigError, check_budget, estimate_cost, parse_budget
from preflight.exemptions import (
    EXPIRING_POLICY,
    apply_exemptions,
    expiring_policy,
    read_exemptions,
    unmatched_problems,
)
from preflight.idle_cost import WorkingHours
from preflight.project import PreflightInputError, Project, read_project
from preflight.quota import quota_demand
from preflight.render import FORMATS, render
from preflight.report import Report, budget_policy, budget_violation
from preflight.runner import ProgramError, ProgramRun, run_program
from preflight.stackfile import StackFileError, StackSettings, load_stack_settings, stack_file_label
from preflight.wire import STACK_TYPE
from rules.exemptions import Exemption

REPO_ROOT = Path(__file__).resolve().parent.parent
_STACK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
EXIT_OK, EXIT_MANDATORY, EXIT_ERROR = 0, 1, 2


class _Progress:
    """Progress lines on stderr, only when stderr is a terminal (never in CI logs or captured output)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.start = time.monotonic()

    def __call__(self, message: str) -> None:
        if self.enabled:
            self.stream.write(f"[{time.monotonic() - self.start:5.1f}s] {message}\n")
            self.stream.flush()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m preflight",
        description="Offline preflight: run a Pulumi Python program under mocks, check it with the CrossGuard policy "
        "pack exactly as `pulumi preview --policy-pack` would, estimate GPU cost and check the budget. "
        "No Pulumi CLI, no cloud credentials.",
        epilog="Exit codes: 0 no mandatory violation; 1 at least one mandatory violation; 2 invalid config, "
        "unreadable program, policy-pack failure or bad usage. Policy config comes from the stack file key "
        "'<project>:policy', the budget from '<project>:budget'.",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--stack", metavar="NAME", help="stack name: reads <program>/<stackConfigDir>/Pulumi.NAME.yaml (stacks/ here)"
    )
    which.add_argument("--config-file", metavar="PATH", type=Path, help="any Pulumi stack file (Pulumi.<stack>.yaml)")
    parser.add_argument(
        "--program",
        metavar="DIR",
        type=Path,
        default=REPO_ROOT,
        help="Pulumi Python program directory (default: this repo)",
    )
    parser.add_argument(
        "--policy-pack",
        metavar="DIR",
        type=Path,
        default=REPO_ROOT / "policies",
        help="CrossGuard policy pack directory (default: policies/)",
    )
    parser.add_argument(
        "--today",
        metavar="YYYY-MM-DD",
        help="check dates (Kubernetes and GPU operator lifecycles, size retirements) as of this day instead of today, "
        "e.g. to see what a stack needs before a planned date",
    )
    parser.add_argument(
        "--facts-max-age",
        metavar="DAYS",
        type=int,
        default=None,
        help=f"warn (advisory) about facts files whose sources were read more than DAYS ago (default "
        f"${MAX_AGE_ENV} or {DEFAULT_MAX_AGE_DAYS}); refresh them with {REFRESH_COMMAND}",
    )
    parser.add_argument(
        "--live",
        action="store_true",
        help="also compare the quota demand with the subscription's quotas and SKU offers (azure-identity's "
        "DefaultAzureCredential, Reader on the subscription; subscription from the stack's azure-native:subscriptionId "
        "or $AZURE_SUBSCRIPTION_ID); without credentials or network it says why and the offline result stands",
    )
    parser.add_argument(
        "--live-level",
        choices=("advisory", "mandatory", "disabled"),
        default="advisory",
        help="enforcement level of the live check's findings (quota shortfall, restricted size, zone mismatch; "
        "default: advisory)",
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument("--output", metavar="FILE", type=Path, help="write the report here instead of stdout")
    return parser


def _policy_config(settings: StackSettings, problems: list[Problem]) -> dict[str, Any] | None:
    value = settings.values.get(f"{settings.project}:policy")
    if value is None:
        return None
    if not isinstance(value, Mapping):
        problems.append(
            Problem(
                "policy",
                "must be a mapping of policy name to a level (advisory, mandatory, remediate, disabled) or to "
                f"{{enforcementLevel: ..., <property>: ...}}; got {show(value)}.",
            )
        )
        return None
    return dict(value)


def _pack_config_problems(exc: PolicyConfigError) -> list[Problem]:
    """The pack's config errors (``<policy>.<property>: message``) as problems of the ``policy`` key."""
    out: list[Problem] = []
    for error in exc.errors:
        path, sep, message = error.partition(": ")
        out.append(Problem(f"policy.{path}", message) if sep else Problem("policy", error))
    return out


def _refuse(
    settings: StackSettings, problems: list[Problem], intended: Path | None, notes: list[str]
) -> StackFileError:
    """Every problem of the stack file, in the program's format (file, key path, what is wrong and allowed).

    Without a stack file, the file a stack would read (``--stack``) is named, as the program names it."""
    if settings.stack_file is not None:
        label = stack_file_label(settings)
    elif intended is not None:
        label = stack_file_label(replace(settings, stack_file=intended.resolve()))
    else:
        label = "(no stack file)"
    return StackFileError(label, problems, settings.project, notes)


def _where(settings: StackSettings) -> str:
    if settings.stack_file is None:
        return "(no stack file)"
    try:
        return str(settings.stack_file.relative_to(Path.cwd()))
    except ValueError:
        return str(settings.stack_file)


def facts_max_age(value: int | None) -> int:
    """``--facts-max-age``, else ``$AGP_FACTS_MAX_AGE_DAYS``, else 90; raises PreflightInputError for a bad value."""
    if value is None:
        raw = os.environ.get(MAX_AGE_ENV)
        if not raw:
            return DEFAULT_MAX_AGE_DAYS
        try:
            value = int(raw)
        except ValueError:
            raise PreflightInputError(f"{MAX_AGE_ENV}={raw!r}: expected a whole number of days") from None
    if value < 0:
        raise PreflightInputError(f"--facts-max-age {value}: expected 0 or more days")
    return value


def staleness_warnings(max_age_days: int, today: date) -> list[str]:
    """Advisory report lines for the facts files read more than ``max_age_days`` ago on ``today`` (never a
    violation)."""
    return [s.message(max_age_days) for s in stale_facts(today, max_age_days)]


def run_day(args: argparse.Namespace) -> date:
    """The day of one preflight run, read once at its entry point: ``--today``, else :func:`gpu_catalog.clock.today`
    (``$AGP_TODAY`` or the real date). Every check of the run is given it, and its child processes (the program, the
    policy pack) are started with it as ``$AGP_TODAY``. Raises :class:`~gpu_catalog.clock.ClockError`."""
    given = getattr(args, "today", None)
    return clock.parse_day(given, "--today") if given is not None else clock.today()


def run_preflight(
    args: argparse.Namespace,
    progress: _Progress,
    warnings_out: list[str] | None = None,
    *,
    live_credential: Any = None,
    live_transport: Any = None,
    today: date | None = None,
) -> Report:
    """Everything but rendering; raises PreflightInputError, StackFileError, ProgramError, PolicyPackError.

    ``warnings_out`` receives the warnings found before such an error (the notes, what the program warned about,
    stale facts), so the caller prints them on exit 2 as the report does on exit 0 and 1. ``live_credential`` /
    ``live_transport``: an azure-core credential and transport for ``--live`` (tests answer with recorded responses;
    default: DefaultAzureCredential over the network). ``today``: the run's day (:func:`run_day`, read here when not
    given)."""
    facts_max_age_days = facts_max_age(getattr(args, "facts_max_age", None))
    day = today if today is not None else run_day(args)
    pending: list[str] = []
    try:
        return _run_preflight(
            args,
            progress,
            _Run(day, facts_max_age_days, pending),
            live_credential=live_credential,
            live_transport=live_transport,
        )
    except (StackFileError, ProgramError, PolicyPackError):
        if warnings_out is not None:
            warnings_out.extend(dict.fromkeys([*pending, *staleness_warnings(facts_max_age_days, day)]))
        raise


@dataclass
class _Run:
    """What one run carries from its entry point down: its day, the facts' maximum age, and the warnings found so far
    (printed with an error on exit 2)."""

    today: date
    facts_max_age_days: int
    pending: list[str]


@dataclass
class _Inputs:
    """What the preflight reads before anything runs: the stack's settings and the keys the preflight itself owns."""

    program_dir: Path
    python: str
    settings: StackSettings
    intended: Path | None
    """The stack file a ``--stack`` names, also when it does not exist (for the refusal's file name)."""
    notes: list[str]
    problems: list[Problem]
    """Problems the preflight finds itself (duplicate keys, policy, budget): reported with the program's own, in one
    list, so one run names every problem of the file."""
    policy_config: dict[str, Any] | None
    budget: Budget | None
    pack_dir: Path


@dataclass
class _Checked:
    """The program's run and the pack's verdict on it."""

    run: ProgramRun
    info: AnalyzerInfo
    config: dict[str, Any]
    analysis: Analysis
    exemptions: list[Exemption]
    warnings: list[str]


def _run_preflight(
    args: argparse.Namespace,
    progress: _Progress,
    this_run: _Run,
    *,
    live_credential: Any = None,
    live_transport: Any = None,
) -> Report:
    inputs = _read_inputs(args)
    checked = _check_with_pack(inputs, progress, this_run)
    progress(f"policy pack done: {len(checked.analysis.violations)} violation(s); estimating cost")
    return _verdict(
        args, inputs, checked, progress, this_run.today, live_credential=live_credential, live_transport=live_transport
    )


def _stack_file(args: argparse.Namespace, project: Project) -> tuple[Path | None, Path | None, list[str]]:
    """(the stack file to read, the one a ``--stack`` names, notes about a missing one)."""
    stack_file: Path | None = args.config_file
    if args.stack is not None:
        if not _STACK_NAME.fullmatch(args.stack):
            raise PreflightInputError(
                f"--stack {args.stack!r}: a stack name is letters, digits, '-', '_' and '.', "
                "starting with a letter or digit"
            )
        stack_file = project.stack_file(args.stack)
    notes: list[str] = []
    intended = stack_file
    if stack_file is not None and args.stack is not None and not stack_file.exists():
        # As `pulumi` does for a stack without a Pulumi.<stack>.yaml: run with empty stack config.
        notes.append(
            f"no stack file {stack_file}: the program ran with empty stack config (and Pulumi.yaml defaults), as "
            f"`pulumi preview --stack {args.stack}` does for a stack without one"
        )
        stack_file = None
    elif stack_file is None:
        notes.append(
            "no stack file given (--stack or --config-file): the program ran with empty stack config (and Pulumi.yaml "
            "defaults) as stack 'dev'"
        )
    return stack_file, intended, notes


def _read_inputs(args: argparse.Namespace) -> _Inputs:
    program_dir: Path = args.program.resolve()
    project = read_project(program_dir)  # fails early, naming Pulumi.yaml, when DIR is not a Python program
    stack_file, intended, notes = _stack_file(args, project)
    settings = load_stack_settings(program_dir, stack_file, stack=args.stack, project=project)
    where = _where(settings)
    problems: list[Problem] = list(settings.problems)
    policy_config = _policy_config(settings, problems)
    budget = None
    try:
        key = f"{settings.project}:budget"
        budget = parse_budget(settings.values.get(key), where=f"{where}: {key}")
    except BudgetConfigError as exc:
        problems.extend(exc.problems)
    pack_dir: Path = args.policy_pack.resolve()
    if not (pack_dir / "PulumiPolicy.yaml").is_file():
        raise PreflightInputError(f"{pack_dir}: no PulumiPolicy.yaml (not a policy pack directory)")
    return _Inputs(program_dir, project.python, settings, intended, notes, problems, policy_config, budget, pack_dir)


def _check_with_pack(inputs: _Inputs, progress: _Progress, this_run: _Run) -> _Checked:
    """Run the program (a child process) and start the policy pack (another one) in parallel, both on the run's day;
    Configure the pack, then Analyze what the program registered. The program's process never outlives this call."""
    settings, today = inputs.settings, this_run.today
    progress(f"running {inputs.program_dir} under mocks for stack {settings.stack}")
    outcome: dict[str, Any] = {}
    cancel = threading.Event()

    def program() -> None:
        try:
            outcome["run"] = run_program(settings, python=inputs.python, cancel=cancel, today=today)
        except BaseException as exc:  # re-raised in the main thread by _program_run
            outcome["error"] = exc

    worker = threading.Thread(target=program, name="preflight-program", daemon=True)
    worker.start()
    try:
        with PolicyPackProcess(
            inputs.pack_dir,
            project=settings.project,
            stack=settings.stack,
            dry_run=True,
            stack_config=settings.config,
            today=today,
        ) as pack:
            info = pack.analyzer_info()
            progress(f"policy pack {info.name} {info.version} started ({len(info.policies)} policies)")
            config: dict[str, Any] = {}
            try:
                config = pack.configure(inputs.policy_config)
            except PolicyConfigError as exc:
                inputs.problems.extend(_pack_config_problems(exc))
            exemptions = read_exemptions(
                settings.values,
                settings.project,
                today=today,
                policies=[p.name for p in info.policies],
                problems=inputs.problems,
            )
            worker.join()
            run = _program_run(inputs, outcome, this_run.pending)
            unmatched = unmatched_problems(exemptions, run.resources)
            if unmatched:
                raise _refuse(settings, unmatched, inputs.intended, inputs.notes)
            progress(f"program registered {len(run.resources)} resources; analyzing them")
            pack.know_providers(run.resources)
            analysis = pack.analyze_many(run.resources)
            analysis.extend(pack.analyze_stack(run.resources))
            warnings = inputs.notes + list(run.warnings) + staleness_warnings(this_run.facts_max_age_days, today)
            warnings += [f"policy pack: {m.message}" for m in pack.logs if m.severity in ("warning", "error")]
    except BaseException:
        cancel.set()  # the verdict is decided (an error): stop the program's process instead of waiting for it
        raise
    finally:
        worker.join()  # never leave the program's process behind, whatever failed
    return _Checked(run, info, config, analysis, exemptions, warnings)


def _program_run(inputs: _Inputs, outcome: Mapping[str, Any], pending: list[str]) -> ProgramRun:
    """The program's run, or the refusal: the program's problems and the preflight's in one list, else its error."""
    settings, problems = inputs.settings, inputs.problems
    error = outcome.get("error")
    if isinstance(error, ProgramError):
        pending.extend(error.warnings)  # printed with the refusal (exit 2), as the report lists them
    if isinstance(error, ProgramError) and error.problems is not None:
        # The program's problems first; the preflight's only on keys the program did not already report.
        raise _refuse(settings, merge_problems(error.problems, problems), inputs.intended, inputs.notes)
    if problems:
        if isinstance(error, ProgramError):
            problems.append(Problem("(program)", f"the program also failed: {error.message}"))
        raise _refuse(settings, problems, inputs.intended, inputs.notes)
    if error is not None:
        if inputs.notes and isinstance(error, ProgramError):
            error.message = f"({inputs.notes[0]})\n{error.message}"
        raise error
    return outcome["run"]


def _verdict(
    args: argparse.Namespace,
    inputs: _Inputs,
    checked: _Checked,
    progress: _Progress,
    today: date,
    *,
    live_credential: Any,
    live_transport: Any,
) -> Report:
    """The report: the pack's violations plus the budget's and the live check's, exemptions applied."""
    settings, run, info = inputs.settings, checked.run, checked.info
    violations: list[Violation] = list(checked.analysis.violations)
    policies = list(info.policies)
    cost = estimate_cost(run.resources)
    finding = check_budget(cost, inputs.budget)
    if inputs.budget is not None:
        policies.append(budget_policy(inputs.budget.enforcement_level))
    stack_urn = next((r.urn for r in run.resources if r.type == STACK_TYPE), "")
    if finding is not None and finding.over:
        violations.append(budget_violation(finding, stack_urn))
    location = settings.values.get("azure-native:location")
    quota = quota_demand(run.resources, default_region=location if isinstance(location, str) else None)
    live = None
    if getattr(args, "live", False):
        # Imported only for --live: the offline preflight never loads the live check (a test holds it to that).
        from preflight.live_quota import live_policies, run_live_check, subscription_from

        progress("live quota check: reading usages and Resource SKUs")
        level = getattr(args, "live_level", "advisory")
        live = run_live_check(
            quota,
            subscription=subscription_from(settings.values),
            level=level,
            stack_urn=stack_urn,
            credential=live_credential,
            transport=live_transport,
        )
        if live.ran:  # else the report's quota section says in one line why it did not run
            policies.extend(live_policies(level))
            violations.extend(live.findings)
    violations, exempted = apply_exemptions(violations, checked.exemptions, today, stack_urn)
    if any(v.policy_name == EXPIRING_POLICY for v in violations):
        policies.append(expiring_policy())
    return Report(
        stack=settings.stack,
        project=settings.project,
        program_dir=inputs.program_dir,
        stack_file=settings.stack_file,
        resources=run.resources,
        violations=violations,
        policies=policies,
        pack_name=info.name,
        pack_version=info.version,
        cost=cost,
        budget=finding,
        warnings=checked.warnings,
        policy_config=checked.config,
        not_applicable=list(checked.analysis.not_applicable),
        checked_on=today.isoformat(),
        scheduling=run.scheduling,
        quota=quota,
        live=live,
        exemptions=checked.exemptions,
        exempted=exempted,
        working_hours=WorkingHours.from_stack(settings.values.get(f"{settings.project}:cluster")),
    )


def _error(message: str, warnings: Sequence[str] = ()) -> int:
    """Exit 2: the error, then the warnings found before it (as the report lists them on exit 0 and 1)."""
    sys.stderr.write(f"preflight: error: {message.rstrip()}\n")
    for warning in warnings:
        sys.stderr.write(f"preflight: warning: {warning}\n")
    return EXIT_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # bad usage: argparse prints usage and exits 2
    progress = _Progress(sys.stderr)
    try:
        today = run_day(args)  # the one read of the clock: every check, the program and the pack are given this day
    except clock.ClockError as exc:
        given = args.today is not None
        return _error(f"--today {args.today!r}: expected a date YYYY-MM-DD" if given else str(exc))
    warnings: list[str] = []
    try:
        report = run_preflight(args, progress, warnings, today=today)
    except (PreflightInputError, StackFileError) as exc:
        return _error(str(exc), warnings)
    except ProgramError as exc:
        where = f"the program {args.program}"
        text = exc.message if exc.detail is None else f"{exc.message}\n{exc.detail}"
        return _error(f"{where} failed:\n{text}", warnings)
    except PolicyPackError as exc:
        return _error(f"policy pack {args.policy_pack}: {exc}", warnings)
    output = render(report, args.format)
    if args.output is not None:
        try:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(output, encoding="utf-8")
        except OSError as exc:
            return _error(f"{args.output}: cannot write the report: {exc}")
        progress(f"report written to {args.output}")
    else:
        sys.stdout.write(output)
        sys.stdout.flush()
    return report.exit_code
