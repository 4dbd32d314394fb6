"""The stack file's ``exemptions``, applied by the preflight on the engine side (rules: :mod:`rules.exemptions`).

The preflight reads ``<project>:exemptions`` (and ``<project>:exemptionMaxDays``) itself, refuses what the rule
refuses plus what only it can check — a policy the pack does not define, an exemption that matches no resource of
the stack — and applies the rest to the pack's verdict: an exempted violation is not counted (it cannot fail the
run) but every report shows it, with its reason, owner and days left; an exemption within 14 days of its end adds
an advisory finding (policy :data:`EXPIRING_POLICY`). The pack is run without them, so the preflight sees each
exempted violation in full; the pack applies the same rule itself when a policy's config carries ``exemptions``
(``policies/_exemptions.py``: ``--policy-pack-config``, a policy group), which is what ``pulumi preview`` sees.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from gpu_catalog.problems import Problem
from preflight.analyzer.protocol import PolicyInfo, Violation
from preflight.model import RecordedResource
from preflight.wire import STACK_TYPE
from rules.exemptions import (
    EXEMPTIONS_KEY,
    MAX_DAYS_KEY,
    Exemption,
    closest_name,
    exemption_for,
    expiring_message,
    lapsed_notes,
    max_days_findings,
    parse_entries,
    resolve_max_days,
    unmatched,
    with_notes,
)

KEY = EXEMPTIONS_KEY
EXPIRING_POLICY = "exemption-expiring"
EXPIRING_PACK = "azure-gpu-platform-preflight"
EXPIRING_DESCRIPTION = (
    "An exemption ends within 14 days — from its expiry date the exempted violation counts again (rules/exemptions.py)."
)


@dataclass(frozen=True)
class ExemptedViolation:
    """A violation an active exemption waives: shown, never counted."""

    violation: Violation
    exemption: Exemption


def expiring_policy() -> PolicyInfo:
    return PolicyInfo(
        name=EXPIRING_POLICY,
        description=EXPIRING_DESCRIPTION,
        enforcement_level="advisory",
        policy_type="stack",
        severity="low",
        remediation_steps="Fix the resource, or renew the exemption with a new expiry date and reason.",
    )


def read_exemptions(
    values: dict[str, Any], project: str, *, today: date, policies: Collection[str], problems: list[Problem]
) -> list[Exemption]:
    """The stack file's valid exemptions; every refusal goes to ``problems`` (exit 2, key and allowed values)."""
    raw_max = values.get(f"{project}:{MAX_DAYS_KEY}")
    problems.extend(Problem(MAX_DAYS_KEY, f.message) for f in max_days_findings(raw_max))
    max_days = resolve_max_days(raw_max)
    good, refused = parse_entries(values.get(f"{project}:{KEY}"), today=today, max_days=max_days, policies=policies)
    problems.extend(Problem(KEY + f.field, f.message) for f in refused)
    return good if not refused else []


PROVIDER_TYPE_PREFIX = "pulumi:providers:"


def _offered(r: RecordedResource) -> bool:
    """A name an exemption may usefully take: not the stack, not a default provider (``default``, ``default_<v>``:
    the engine's, never written in the program)."""
    if r.type.startswith(PROVIDER_TYPE_PREFIX):
        return r.name != "default" and not r.name.startswith("default_")
    return r.type != STACK_TYPE


def unmatched_problems(exemptions: Sequence[Exemption], resources: Iterable[RecordedResource]) -> list[Problem]:
    """An exemption that matches no resource: a typo or a resource gone (its reason would outlive it). The names on
    offer are the program's resources (not the engine's default providers, nor the stack itself), and the closest
    one is named."""
    rs = list(resources)
    names = sorted({r.name for r in rs if _offered(r)})
    shown = ", ".join(names[:12]) + (f", … ({len(names)} in all)" if len(names) > 12 else "")
    out: list[Problem] = []
    for i in unmatched(exemptions, [r.urn for r in rs]):
        wanted = exemptions[i].resource
        close = closest_name(wanted.rsplit("::", 1)[-1], names)
        hint = f" (did you mean {close!r}?)" if close else ""
        out.append(
            Problem(
                f"{KEY}[{i}].resource",
                f"{wanted!r} matches no resource of the stack{hint}; allowed: a resource's name or URN "
                f"(names: {shown})",
            )
        )
    return out


def apply_exemptions(
    violations: Sequence[Violation], exemptions: Sequence[Exemption], today: date, stack_urn: str
) -> tuple[list[Violation], list[ExemptedViolation]]:
    """The violations that still count (plus an advisory per exemption about to end) and the exempted ones. A
    violation an expired exemption names says so, with the entry and the date (:func:`rules.exemptions.with_notes`,
    the words the pack uses too)."""
    kept: list[Violation] = []
    exempted: list[ExemptedViolation] = []
    for v in violations:
        e = exemption_for(exemptions, v.policy_name, v.urn, today)
        if e is None:
            notes = lapsed_notes(exemptions, v.policy_name, v.urn, today)
            kept.append(replace(v, message=with_notes(v.message, notes)) if notes else v)
        else:
            exempted.append(ExemptedViolation(v, e))
    for e in exemptions:
        if e.status(today) == "expiring":
            kept.append(
                Violation(
                    policy_name=EXPIRING_POLICY,
                    policy_pack_name=EXPIRING_PACK,
                    enforcement_level="advisory",
                    urn=stack_urn,
                    message=expiring_message(e, today),
                    description=EXPIRING_DESCRIPTION,
                    severity="low",
                )
            )
    return kept, exempted


# ---------------------------------------------------------------------------------------------------- rendering


def text_lines(exemptions: Sequence[Exemption], exempted: Sequence[ExemptedViolation], today: date) -> list[str]:
    if not exemptions:
        return []
    live = [e for e in exemptions if e.applies(today)]
    out = [f"Exemptions ({len(live)} active, {len(exemptions) - len(live)} expired)"]
    for e in exemptions:
        mark = {"active": "·", "expiring": "!", "expired": "✗"}[e.status(today)]
        out.append(f"  {mark} [{e.policy}] {e.resource} ({e.category}): {e.describe(today)}")
    if exempted:
        out.append(f"  exempted violations ({len(exempted)}, not counted):")
        for x in exempted:
            first = x.violation.message.strip().splitlines()[-1] if x.violation.message.strip() else ""
            out.append(f"    - [{x.violation.policy_name}] {x.violation.urn}: {first}")
    out.append("")
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\r", "").strip().replace("\n", "<br>")


def markdown_lines(exemptions: Sequence[Exemption], exempted: Sequence[ExemptedViolation], today: date) -> list[str]:
    if not exemptions:
        return []
    out = [
        "#### Exemptions",
        "",
        "| Policy | Resource | Status | Days left | Reason | Owner | Expires | Exempted violations |",
        "|---|---|---|---:|---|---|---|---:|",
    ]
    for e in exemptions:
        n = sum(1 for x in exempted if x.exemption == e)
        out.append(
            f"| `{e.policy}` | `{_md(e.resource)}` | {e.status(today)} | {max(e.days_left(today), 0)} | "
            f"{_md(e.reason)} | {_md(e.owner)} | {e.expires.isoformat()} | {n} |"
        )
    out.append("")
    return out


def json_section(exemptions: Sequence[Exemption], exempted: Sequence[ExemptedViolation], today: date) -> dict[str, Any]:
    """Keys added to the JSON report when the stack has exemptions (none otherwise: reports stay as they were)."""
    if not exemptions:
        return {}
    return {
        "exemptions": [e.to_json(today) for e in exemptions],
        "exemptedViolations": [
            {
                "policyName": x.violation.policy_name,
                "policyPackName": x.violation.policy_pack_name,
                "enforcementLevel": x.violation.enforcement_level,
                "urn": x.violation.urn,
                "message": x.violation.message,
                "exemption": x.exemption.to_json(today),
            }
            for x in exempted
        ],
    }


def sarif_suppression(e: Exemption, today: date) -> dict[str, Any]:
    """SARIF 2.1.0 §3.35: an external suppression (not in the source), accepted, justified by the reason."""
    return {
        "kind": "external",
        "status": "accepted",
        "justification": e.reason,
        "properties": {
            "owner": e.owner,
            "expires": e.expires.isoformat(),
            "daysLeft": e.days_left(today),
            "category": e.category,
            "resource": e.resource,
        },
    }
