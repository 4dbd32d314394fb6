"""Exemptions: one policy waived for one resource, with a reason, an owner and an end date.

One shape everywhere: the stack config's ``exemptions`` list, a policy's ``exemptions`` property in a policy-pack
config (``--policy-pack-config``, a Pulumi Cloud policy group) and the Azure Policy exemptions generated from it::

    {policy: gpu-size-minimum, resource: aks-legacy-t4, reason: "...", owner: ml-platform@contoso.com,
     expires: 2027-01-15, category: Waiver}

- ``resource`` is a resource **name** (the last part of its URN, exactly) or a **URN**
  (``urn:pulumi:<stack>::<project>::<type>::<name>``) in which ``*`` may stand for the stack, the project or the
  parent types (``…$`` before the resource's own type) only: the resource's own type and name are literal, so an
  exemption can never widen itself to a whole stack or a whole resource type.
- Expiry is real: on and after ``expires`` the exemption no longer applies (the violation is back); within
  :data:`EXPIRING_DAYS` days of it, it still applies and is an advisory finding. ``expires`` may be at most
  ``max_days`` (default :data:`DEFAULT_MAX_DAYS`) after today.
- ``category`` is Azure Policy's (``Waiver``: accepted as is; ``Mitigated``: the intent is met another way).

Pure: dates come from the caller (``gpu_catalog.clock.today()`` in production, injected in tests). No Pulumi import.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal

from gpu_catalog.problems import show

from . import Finding

EXEMPTIONS_KEY = "exemptions"
"""The list's key: in a stack file (``<project>:exemptions``) and in each policy's config of a policy pack config."""
MAX_DAYS_KEY = "exemptionMaxDays"
"""How far ahead an exemption may end: the stack key (``<project>:exemptionMaxDays``) and the policy config key."""
EXEMPTION_KEYS: tuple[str, ...] = ("policy", "resource", "reason", "owner", "expires", "category")
REQUIRED_KEYS: tuple[str, ...] = ("policy", "resource", "reason", "owner", "expires")
CATEGORIES: tuple[str, ...] = ("Waiver", "Mitigated")
"""Azure Policy's exemption categories (``Microsoft.Authorization/policyExemptions``, ``exemptionCategory``)."""
DEFAULT_CATEGORY = "Waiver"
DEFAULT_MAX_DAYS = 180
"""How far ahead an exemption may end, by default (key :data:`MAX_DAYS_KEY`)."""
EXPIRING_DAYS = 14
"""An exemption ending within this many days is an advisory finding."""
MIN_REASON = 10
"""A reason shorter than this says nothing (``n/a``, ``legacy``)."""

Status = Literal["active", "expiring", "expired"]

_URN_PREFIX = "urn:pulumi:"


@dataclass(frozen=True, slots=True)
class Exemption:
    """One valid exemption entry (see the module docstring)."""

    policy: str
    resource: str
    reason: str
    owner: str
    expires: date
    category: str = DEFAULT_CATEGORY

    def days_left(self, today: date) -> int:
        """Days until it stops applying (0 or less: expired)."""
        return (self.expires - today).days

    def status(self, today: date) -> Status:
        left = self.days_left(today)
        if left <= 0:
            return "expired"
        return "expiring" if left <= EXPIRING_DAYS else "active"

    def applies(self, today: date) -> bool:
        return self.status(today) != "expired"

    def matches(self, policy: str, urn: str) -> bool:
        """Whether this exemption names this policy and this resource (by name, or by URN pattern)."""
        return policy == self.policy and matches_resource(self.resource, urn)

    def to_json(self, today: date) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "resource": self.resource,
            "reason": self.reason,
            "owner": self.owner,
            "expires": self.expires.isoformat(),
            "category": self.category,
            "daysLeft": self.days_left(today),
            "status": self.status(today),
        }

    def describe(self, today: date) -> str:
        """``reason (owner …; expires YYYY-MM-DD, N days left)``: how every report shows it."""
        left = self.days_left(today)
        when = f"expired on {self.expires.isoformat()}" if left <= 0 else f"expires {self.expires.isoformat()}, "
        days = "" if left <= 0 else f"{left} day{'s' if left != 1 else ''} left"
        return f"{self.reason} (owner {self.owner}; {when}{days})"


def _urn_parts(urn: str) -> tuple[str, str, str, str] | None:
    """``urn:pulumi:<stack>::<project>::<type chain>::<name>`` → (stack, project, type chain, name)."""
    if not urn.startswith(_URN_PREFIX):
        return None
    parts = urn[len(_URN_PREFIX) :].split("::", 3)
    if len(parts) != 4:
        return None
    return parts[0], parts[1], parts[2], parts[3]


def _glob(pattern: str, text: str) -> bool:
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), text) is not None


def matches_resource(pattern: str, urn: str) -> bool:
    """A name matches the URN's name exactly; a URN pattern matches segment by segment (``*`` only where allowed)."""
    target = _urn_parts(urn)
    if target is None:
        return False
    if not pattern.startswith(_URN_PREFIX):
        return pattern == target[3]
    want = _urn_parts(pattern)
    if want is None:
        return False
    stack, project, chain, name = want
    own_type = chain.rsplit("$", 1)[-1]
    parents = chain.rsplit("$", 1)[0] if "$" in chain else ""
    t_chain = target[2]
    t_own = t_chain.rsplit("$", 1)[-1]
    t_parents = t_chain.rsplit("$", 1)[0] if "$" in t_chain else ""
    return (
        _glob(stack, target[0])
        and _glob(project, target[1])
        and own_type == t_own
        and (parents == t_parents or ("*" in parents and _glob(parents, t_parents)))
        and name == target[3]
    )


def matches_type_and_name(pattern: str, resource_type: str, name: str) -> bool:
    """For callers that know a resource's own type and name but not its URN yet (the program, building the Azure
    Policy exemptions): a name pattern, or a URN pattern's own type and name."""
    if not pattern.startswith(_URN_PREFIX):
        return pattern == name
    parts = _urn_parts(pattern)
    return parts is not None and parts[2].rsplit("$", 1)[-1] == resource_type and parts[3] == name


def _resource_findings(value: Any) -> list[Finding]:
    allowed = (
        "a resource name (the last part of its URN) or a URN urn:pulumi:<stack>::<project>::<type>::<name>, "
        "'*' only for the stack, the project or the parent types"
    )
    if not isinstance(value, str) or not value.strip():
        return [Finding("resource", f"must be {allowed}; got {show(value)}")]
    if not value.startswith(_URN_PREFIX):
        if "*" in value or "::" in value:
            return [Finding("resource", f"{show(value)} is not a name; allowed: {allowed}")]
        return []
    parts = _urn_parts(value)
    if parts is None:
        return [Finding("resource", f"{show(value)} is not a URN (4 parts separated by '::'); allowed: {allowed}")]
    chain, name = parts[2], parts[3]
    own_type = chain.rsplit("$", 1)[-1]
    if "*" in name or not name:
        return [
            Finding(
                "resource",
                f"{show(value)}: the resource name must be literal (an exemption cannot widen itself to every "
                f"resource); allowed: {allowed}",
            )
        ]
    if "*" in own_type or own_type.count(":") != 2:
        return [
            Finding(
                "resource",
                f"{show(value)}: the resource's own type must be a literal type token <package>:<module>:<Type>; "
                f"allowed: {allowed}",
            )
        ]
    return []


def _expiry(value: Any) -> date | None:
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def entry_findings(
    value: Any, *, today: date, max_days: int = DEFAULT_MAX_DAYS, policies: Collection[str] | None = None
) -> list[Finding]:
    """Every reason to refuse one entry; field ``""`` is the entry itself, else its key. ``policies``: the names an
    entry may use (``None``: not checked here, the caller checks them against the pack)."""
    if not isinstance(value, Mapping):
        return [Finding("", f"must be a mapping with keys {', '.join(EXEMPTION_KEYS)}; got {show(value)}")]
    found = [
        Finding(str(k), f"unknown key; allowed: {', '.join(EXEMPTION_KEYS)}")
        for k in sorted(str(k) for k in value if k not in EXEMPTION_KEYS)
    ]
    for key in REQUIRED_KEYS:
        if key not in value:
            found.append(Finding(key, f"required; an exemption names {', '.join(REQUIRED_KEYS)}"))
    policy = value.get("policy")
    if "policy" in value:
        if not isinstance(policy, str) or not policy.strip():
            found.append(Finding("policy", f"must be a policy name; got {show(policy)}"))
        elif policies is not None and policy not in policies:
            found.append(Finding("policy", unknown_policy_message(policy, policies)))
    if "resource" in value:
        found += _resource_findings(value.get("resource"))
    reason = value.get("reason")
    if "reason" in value and (not isinstance(reason, str) or len(reason.strip()) < MIN_REASON):
        found.append(
            Finding(
                "reason",
                f"must say why this resource may break the rule (at least {MIN_REASON} characters); got {show(reason)}",
            )
        )
    owner = value.get("owner")
    if "owner" in value and (not isinstance(owner, str) or not owner.strip()):
        found.append(
            Finding("owner", f"must name who answers for the exemption (a team or a person); got {show(owner)}")
        )
    if "expires" in value:
        expires = _expiry(value.get("expires"))
        latest = today + timedelta(days=max_days)
        if expires is None:
            found.append(Finding("expires", f"must be a date YYYY-MM-DD; got {show(value.get('expires'))}"))
        elif expires > latest:
            found.append(
                Finding(
                    "expires",
                    f"{expires.isoformat()} is {(expires - today).days} days ahead; allowed: at most {max_days} days "
                    f"ahead (on or before {latest.isoformat()}); renew it when it runs out",
                )
            )
    category = value.get("category", DEFAULT_CATEGORY)
    if category not in CATEGORIES:
        found.append(Finding("category", f"{show(category)} is not a category; allowed: {', '.join(CATEGORIES)}"))
    return found


def unknown_policy_message(policy: str, policies: Collection[str]) -> str:
    close = closest_name(policy, policies)
    hint = f" (did you mean {close!r}?)" if close else ""
    return f"{show(policy)} is not a policy of the pack{hint}; allowed: {', '.join(sorted(policies))}"


def max_days_findings(value: Any) -> list[Finding]:
    """``exemptionMaxDays``: a whole number of days, at least 1."""
    if value is None:
        return []
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return [
            Finding("", f"must be a whole number of days, at least 1 (default {DEFAULT_MAX_DAYS}); got {show(value)}")
        ]
    return []


def resolve_max_days(value: Any) -> int:
    """The days ``exemptionMaxDays`` allows: its value when :func:`max_days_findings` accepts it, else (unset or
    refused) :data:`DEFAULT_MAX_DAYS`. Every layer resolves it here (a refused value is reported by the caller)."""
    if value is None or max_days_findings(value):
        return DEFAULT_MAX_DAYS
    return int(value)


def parse_entry(value: Mapping[str, Any]) -> Exemption:
    """An entry :func:`entry_findings` accepted."""
    expires = _expiry(value["expires"])
    if expires is None:  # pragma: no cover - checked first
        raise ValueError(f"expires: {value['expires']!r}")
    return Exemption(
        policy=str(value["policy"]),
        resource=str(value["resource"]),
        reason=str(value["reason"]).strip(),
        owner=str(value["owner"]).strip(),
        expires=expires,
        category=str(value.get("category", DEFAULT_CATEGORY)),
    )


def check_entries(
    values: Any, *, today: date, max_days: int = DEFAULT_MAX_DAYS, policies: Collection[str] | None = None
) -> tuple[list[tuple[Any, Exemption | None, list[Finding]]], list[Finding]]:
    """Each entry of a list with its parsed exemption (``None`` when refused) and its own refusals (fields relative to
    the entry), plus the list's own refusal (not a list)."""
    if values is None:
        return [], []
    if not isinstance(values, list | tuple):
        return [], [Finding("", f"must be a list of exemptions ({', '.join(REQUIRED_KEYS)}); got {show(values)}")]
    out: list[tuple[Any, Exemption | None, list[Finding]]] = []
    for value in values:
        problems = entry_findings(value, today=today, max_days=max_days, policies=policies)
        out.append((value, None if problems else parse_entry(value), problems))
    return out, []


def parse_entries(
    values: Any, *, today: date, max_days: int = DEFAULT_MAX_DAYS, policies: Collection[str] | None = None
) -> tuple[list[Exemption], list[Finding]]:
    """The valid exemptions of a list, and every refusal (field ``[i].key``); a refused entry never applies."""
    checked, found = check_entries(values, today=today, max_days=max_days, policies=policies)
    good: list[Exemption] = []
    for i, (_, parsed, problems) in enumerate(checked):
        found += [Finding(f"[{i}]" + (f".{f.field}" if f.field else ""), f.message) for f in problems]
        if parsed is not None:
            good.append(parsed)
    return good, found


def unmatched(exemptions: Sequence[Exemption], urns: Iterable[str]) -> list[int]:
    """Indexes of the exemptions whose resource matches no resource of the stack (a typo, or a resource gone)."""
    known = list(urns)
    return [i for i, e in enumerate(exemptions) if not any(matches_resource(e.resource, u) for u in known)]


def exemption_for(exemptions: Sequence[Exemption], policy: str, urn: str, today: date) -> Exemption | None:
    """The exemption that waives this policy's violation on this resource today, if any (expired ones never do)."""
    if not urn:
        return None
    return next((e for e in exemptions if e.applies(today) and e.matches(policy, urn)), None)


def expiring_message(e: Exemption, today: date) -> str:
    """The advisory finding of an exemption about to end."""
    left = e.days_left(today)
    return (
        f"the exemption of {e.policy} for {e.resource} ends on {e.expires.isoformat()} ({left} day"
        f"{'s' if left != 1 else ''} left; owner {e.owner}): fix the resource or renew the exemption with a new "
        f"reason; from that day the violation counts again"
    )


def exempted_message(e: Exemption, today: date) -> str:
    """How an exempted violation is shown where it cannot be a structured result (the pack's engine log)."""
    return f"exempted from {e.policy}: {e.describe(today)}"


def closest_name(name: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` closest to a misspelt ``name`` (difflib ratio at least 0.6), if any."""
    import difflib

    close = difflib.get_close_matches(name, sorted(set(names)), n=1, cutoff=0.6)
    return close[0] if close else None


def expired_note(e: Exemption) -> str:
    """What a violation an exemption no longer waives says about it: the entry and its date."""
    return (
        f"the exemption of {e.policy} for {e.resource} (owner {e.owner}) expired on {e.expires.isoformat()}: from "
        "that day it no longer waives this violation; fix the resource or renew the exemption with a new reason and "
        "expiry date"
    )


def refused_note(value: Mapping[str, Any], problems: Sequence[Finding]) -> str:
    """What a violation says about an entry naming it that the rule refused (so it waives nothing)."""
    why = "; ".join(f"{f.field}: {f.message}" if f.field else f.message for f in problems)
    return (
        f"the exemption of {value.get('policy')} for {value.get('resource')} (expires {value.get('expires')}) is not "
        f"valid, so it waives nothing: {why}"
    )


def lapsed_notes(exemptions: Sequence[Exemption], policy: str, urn: str, today: date) -> list[str]:
    """The notes of the exemptions naming this policy and resource that no longer apply (expired)."""
    if not urn:
        return []
    return [expired_note(e) for e in exemptions if not e.applies(today) and e.matches(policy, urn)]


def with_notes(message: str, notes: Sequence[str]) -> str:
    """A violation's message with the notes about its exemptions appended (unchanged without any)."""
    return message if not notes else f"{message} [{'; '.join(notes)}]"
