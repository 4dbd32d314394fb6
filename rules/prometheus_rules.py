"""Azure Monitor Prometheus rule groups as Prometheus rule files, so Prometheus's own tool (``promtool check rules``,
``promtool test rules``) can judge what the program sends. No Pulumi import.

Azure's ``Microsoft.AlertsManagement/prometheusRuleGroups`` (2023-03-01) takes the open-source rule fields with ISO 8601
durations (``interval``, a rule's ``for``: ``PT1M``, ``PT60M``, ``P1D``); a Prometheus rule file takes Prometheus
durations (``1m``, ``60m``, ``1d``). :func:`prometheus_duration` converts one to the other and refuses what has no
exact equivalent (years, months, weeks, fractions), so a test never judges a duration other than the one sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

ISO_DURATION_RE = re.compile(r"^P(?:(?P<d>\d+)D)?(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+)S)?)?$")
"""The ISO 8601 durations with an exact Prometheus equivalent: days, hours, minutes, whole seconds."""


def iso_minutes(minutes: int) -> str:
    """``60`` → ``PT60M``: a whole number of minutes as the ISO 8601 duration Azure's rule fields take."""
    return f"PT{minutes}M"


def prometheus_duration(iso: str) -> str:
    """``PT1H30M`` → ``1h30m``: the same length of time in Prometheus's duration syntax (units d, h, m, s)."""
    match = ISO_DURATION_RE.match(iso)
    if match is None or iso in ("P", "PT") or iso.endswith("T"):
        raise ValueError(
            f"{iso!r} is not an ISO 8601 duration of days, hours, minutes and whole seconds (PnDTnHnMnS); years, "
            "months, weeks and fractions have no exact Prometheus duration"
        )
    parts = [f"{int(match[u])}{u}" for u in ("d", "h", "m", "s") if match[u] is not None and int(match[u])]
    return "".join(parts) or "0s"


def _rule(rule: Mapping[str, Any]) -> dict[str, Any]:
    """One Azure rule (wire shape, camelCase) as a Prometheus rule."""
    out: dict[str, Any] = {"alert": rule["alert"]} if "alert" in rule else {"record": rule["record"]}
    out["expr"] = rule["expression"]
    if rule.get("for"):
        out["for"] = prometheus_duration(rule["for"])
    if rule.get("labels"):
        out["labels"] = dict(rule["labels"])
    if rule.get("annotations"):
        out["annotations"] = dict(rule["annotations"])
    return out


def rule_file(groups: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A Prometheus rule file (``groups:``) from ``PrometheusRuleGroup`` inputs as the engine sees them (name in
    ``ruleGroupName``, ISO ``interval``, enabled rules only)."""
    return {
        "groups": [
            {
                "name": group["ruleGroupName"],
                "interval": prometheus_duration(group.get("interval", "PT1M")),
                "rules": [_rule(r) for r in group["rules"] if r.get("enabled", True)],
            }
            for group in groups
        ]
    }
