"""Exemptions inside the pack: every policy takes an ``exemptions`` list in its config, and drops what it waives.

A published pack gets its config from ``pulumi preview --policy-pack-config <file>`` or from a Pulumi Cloud policy
group; pulumi_policy hands each policy only its own config (``args.get_config()``), so the list lives under each
policy's key, in the one shape of :mod:`rules.exemptions` (``policy`` may be left out; when given it must be this
policy)::

    {"gpu-size-minimum": {"exemptions": [{"resource": "aks-legacy", "reason": "...", "owner": "ml-platform",
                                          "expires": "2027-01-15"}]}}

:func:`exempting_report` is what a policy reports through: a violation an active exemption covers (this policy, the
reported resource by name or URN pattern, not expired on ``gpu_catalog.clock.today()``) is not reported —
pulumi_policy sends every violation at the policy's level and has no "suppressed" result — and is written to the
engine's log instead (a warning on that resource: the policy, the reason, the owner, the days left, the message), so
``pulumi preview`` still shows it. An exemption within 14 days of its end is logged once as a warning too. An entry
the rule refuses (expiry too far ahead, no reason, a wildcard resource) waives nothing and is logged. What the engine
cannot show, the preflight does (``preflight/exemptions.py``: structured results, SARIF suppressions).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

from gpu_catalog import clock
from rules.exemptions import (
    CATEGORIES,
    DEFAULT_MAX_DAYS,
    MIN_REASON,
    Exemption,
    exempted_message,
    exemption_for,
    expiring_message,
    parse_entries,
)

EXEMPTIONS_KEY = "exemptions"
MAX_DAYS_KEY = "exemptionMaxDays"

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
    """The two config properties every policy takes (JSON schema; the engine validates config against it)."""
    entry = {
        "type": "object",
        "properties": {
            "policy": {"type": "string", "enum": [policy]},
            "resource": {"type": "string", "minLength": 1},
            "reason": {"type": "string", "minLength": MIN_REASON},
            "owner": {"type": "string", "minLength": 1},
            "expires": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
            "category": {"type": "string", "enum": list(CATEGORIES)},
        },
        "required": ["resource", "reason", "owner", "expires"],
        "additionalProperties": False,
    }
    return {
        EXEMPTIONS_KEY: {"type": "array", "items": entry},
        MAX_DAYS_KEY: {"type": "integer", "minimum": 1},
    }


def policy_exemptions(policy: str, config: Mapping[str, Any] | None) -> list[Exemption]:
    """This policy's valid exemptions from its config; refused entries are logged (once) and waive nothing."""
    if not config or not config.get(EXEMPTIONS_KEY):
        return []
    raw = config.get(MAX_DAYS_KEY)
    max_days = raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 1 else DEFAULT_MAX_DAYS
    entries = [{"policy": policy, **e} if isinstance(e, Mapping) else e for e in config[EXEMPTIONS_KEY]]
    today = clock.today()
    good, refused = parse_entries(entries, today=today, max_days=max_days, policies={policy})
    for f in refused:
        _once(
            f"refused:{policy}{f.field}:{f.message}",
            f"{policy}: exemption refused, it waives nothing: {EXEMPTIONS_KEY}{f.field}: {f.message}",
        )
    for e in good:
        if e.status(today) == "expiring":
            _once(f"expiring:{policy}:{e.resource}", f"{policy}: {expiring_message(e, today)}")
    return good


def exempting_report(policy: str, args: Any, report_violation: Callable[..., None]) -> Callable[..., None]:
    """``report_violation`` with this policy's exemptions applied (resource and stack policies alike: the reported
    URN, else the analysed resource's); ``report_violation`` itself when the policy's config lists none."""
    config = args.get_config()
    if not config or not config.get(EXEMPTIONS_KEY):
        return report_violation
    exemptions = policy_exemptions(policy, config)
    if not exemptions:
        return report_violation
    today = clock.today()

    def report(message: str, urn: str | None = None) -> None:
        target = urn or getattr(args, "urn", "") or ""
        e = exemption_for(exemptions, policy, target, today)
        if e is None:
            report_violation(message, urn)
            return
        engine_log(f"{policy}: {exempted_message(e, today)}: {message}", target)

    return report
