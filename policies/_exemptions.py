"""Exemptions inside the pack: every policy takes an ``exemptions`` list in its config, and drops what it waives.

A published pack gets its config from ``pulumi preview --policy-pack-config <file>`` or from a Pulumi Cloud policy
group; pulumi_policy hands each policy only its own config (``args.get_config()``), so the list lives under each
policy's key, in the one shape of :mod:`rules.exemptions` (``policy`` may be left out; when given it must be this
policy)::

    {"gpu-size-minimum": {"exemptions": [{"resource": "aks-legacy", "reason": "...", "owner": "ml-platform",
                                          "expires": "2027-01-15"}]}}

:func:`exempting_report` is what a policy reports through: a violation an active exemption covers (this policy, the
reported resource by name or URN pattern, not expired on the request's day, ``policies._resources.request_today()``) is
not reported — pulumi_policy sends every violation at the policy's level and has no "suppressed" result — and is written
to the engine's log instead (a warning on that resource: the policy, the reason, the owner, the days left, the message),
so ``pulumi preview`` still shows it. An exemption within 14 days of its end is logged once as a warning too. An entry
the rule refuses (expiry too far ahead, no reason, a wildcard resource) waives nothing and is logged. A violation that
is reported names the expired or refused entries of its policy and resource, with their dates
(:func:`rules.exemptions.with_notes`, the words the preflight uses too). What the engine cannot show, the preflight does
(``preflight/exemptions.py``: structured results, SARIF suppressions, an entry that matches no resource).

The config is written from a stack file by ``python -m preflight.pack_config`` (docs/exemptions.md).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from rules import Finding
from rules.exemptions import (
    CATEGORIES,
    EXEMPTION_KEYS,
    EXEMPTIONS_KEY,
    MAX_DAYS_KEY,
    MIN_REASON,
    REQUIRED_KEYS,
    Exemption,
    check_entries,
    exempted_message,
    exemption_for,
    expiring_message,
    lapsed_notes,
    matches_resource,
    refused_note,
    resolve_max_days,
    with_notes,
)

from ._resources import request_today

_engine: dict[str, str] = {}
_lock = threading.Lock()
_logged: set[str] = set()


def set_engine(address: str) -> None:
    """The engine's address (the pack's first argument): where exemptions are logged. Unset: stderr."""
    _engine["address"] = address


def engine_log(message: str, urn: str = "") -> None:
    """A warning in the engine's log (what ``pulumi preview`` prints under the resource's diagnostics)."""
    address = _engine.get("address")
    if address is None:
        sys.stderr.write(f"warning: {message}\n")
        return
    import grpc
    from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc

    try:
        with grpc.insecure_channel(address) as channel:
            engine_pb2_grpc.EngineStub(channel).Log(
                engine_pb2.LogRequest(severity=engine_pb2.WARNING, message=message, urn=urn), timeout=10
            )
    except grpc.RpcError:
        sys.stderr.write(f"warning: {message}\n")


def _once(key: str, message: str, urn: str = "") -> None:
    with _lock:
        if key in _logged:
            return
        _logged.add(key)
    engine_log(message, urn)


def config_schema(policy: str) -> dict[str, Any]:
    """The two config properties every policy takes (JSON schema; the engine validates config against it). An entry's
    keys are :data:`rules.exemptions.EXEMPTION_KEYS`; the required ones :data:`rules.exemptions.REQUIRED_KEYS` but
    ``policy``, which the policy's own config implies (given, it must name that policy)."""
    schemas: dict[str, dict[str, Any]] = {
        "policy": {"type": "string", "enum": [policy]},
        "resource": {"type": "string", "minLength": 1},
        "reason": {"type": "string", "minLength": MIN_REASON},
        "owner": {"type": "string", "minLength": 1},
        "expires": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "category": {"type": "string", "enum": list(CATEGORIES)},
    }
    entry = {
        "type": "object",
        "properties": {key: schemas[key] for key in EXEMPTION_KEYS},
        "required": [key for key in REQUIRED_KEYS if key != "policy"],
        "additionalProperties": False,
    }
    return {
        EXEMPTIONS_KEY: {"type": "array", "items": entry},
        MAX_DAYS_KEY: {"type": "integer", "minimum": 1},
    }


@dataclass(frozen=True)
class PolicyExemptions:
    """One policy's exemptions from its config: the valid ones (active, expiring, expired) and the refused entries
    with their refusals (they waive nothing, and a violation they name says why)."""

    policy: str
    valid: list[Exemption]
    refused: list[tuple[Mapping[str, Any], list[Finding]]]

    def notes(self, urn: str, today: date) -> list[str]:
        """What a violation on ``urn`` that no exemption waives says about the entries naming it."""
        notes = lapsed_notes(self.valid, self.policy, urn, today)
        for value, problems in self.refused:
            resource = value.get("resource")
            if urn and isinstance(resource, str) and matches_resource(resource, urn):
                notes.append(refused_note(value, problems))
        return notes


def read_policy_exemptions(policy: str, config: Mapping[str, Any] | None, today: date) -> PolicyExemptions:
    """This policy's exemptions from its config; refused entries are logged (once) and waive nothing."""
    if not config or not config.get(EXEMPTIONS_KEY):
        return PolicyExemptions(policy, [], [])
    max_days = resolve_max_days(config.get(MAX_DAYS_KEY))
    entries = [{"policy": policy, **e} if isinstance(e, Mapping) else e for e in config[EXEMPTIONS_KEY]]
    checked, _ = check_entries(entries, today=today, max_days=max_days, policies={policy})
    valid: list[Exemption] = []
    refused: list[tuple[Mapping[str, Any], list[Finding]]] = []
    for i, (value, parsed, problems) in enumerate(checked):
        for f in problems:
            where = f"[{i}]" + (f".{f.field}" if f.field else "")
            _once(
                f"refused:{policy}{where}:{f.message}",
                f"{policy}: exemption refused, it waives nothing: {EXEMPTIONS_KEY}{where}: {f.message}",
            )
        if parsed is not None:
            valid.append(parsed)
            if parsed.status(today) == "expiring":
                _once(f"expiring:{policy}:{parsed.resource}", f"{policy}: {expiring_message(parsed, today)}")
        elif isinstance(value, Mapping):
            refused.append((value, problems))
    return PolicyExemptions(policy, valid, refused)


def exempting_report(policy: str, args: Any, report_violation: Callable[..., None]) -> Callable[..., None]:
    """``report_violation`` with this policy's exemptions applied (resource and stack policies alike: the reported
    URN, else the analysed resource's); ``report_violation`` itself when the policy's config lists none. A violation
    no exemption waives names the expired or refused entries that name its resource, with their dates."""
    config = args.get_config()
    if not config or not config.get(EXEMPTIONS_KEY):
        return report_violation
    today = request_today()
    exemptions = read_policy_exemptions(policy, config, today)
    if not exemptions.valid and not exemptions.refused:
        return report_violation

    def report(message: str, urn: str | None = None) -> None:
        target = urn or getattr(args, "urn", "") or ""
        e = exemption_for(exemptions.valid, policy, target, today)
        if e is None:
            report_violation(with_notes(message, exemptions.notes(target, today)), urn)
            return
        engine_log(f"{policy}: {exempted_message(e, today)}: {message}", target)

    return report
