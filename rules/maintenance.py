"""Planned maintenance windows and the GPU cost of an upgrade surge. Pure: no Pulumi, no clock (``today`` passed in).

Windows (``MaintenanceConfiguration`` ``aksManagedAutoUpgradeSchedule`` / ``aksManagedNodeOSUpgradeSchedule``, AKS REST
API 2025-09-01 ``MaintenanceWindow`` / ``Schedule`` and the planned-maintenance article; the limits are in
``gpu_catalog/facts/aks_landing_zone.json``): one schedule of a type the configuration takes (both take daily,
weekly, absoluteMonthly and relativeMonthly), its interval within the spec's range (``intervalDays`` 1–7,
``intervalWeeks`` 1–4, ``intervalMonths`` 1–6) and its own fields, a start time ``00:00``–``23:59`` in the window's
UTC offset (the spec's ``±HH:mm``, an offset that exists: −12:00 to +14:00), 4 to 24 hours, a start date, date
ranges maintenance may not run. A window for a channel that is off has nothing to schedule (advisory).

Surge: an upgrade adds ``maxSurge`` nodes to a pool before it drains the old ones; on a GPU pool those are GPU VMs,
drawn from the same vCPU quota ("Node surges require subscription quota", upgrade article). :func:`surge_quota`
refuses a surge the stated quota cannot hold, with the numbers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from gpu_catalog.landing_zone import load_landing_zone_facts

from . import Finding

ScheduleType = Literal["daily", "weekly", "absoluteMonthly", "relativeMonthly"]
WindowKind = Literal["autoUpgrade", "nodeOs"]
WeekDay = Literal["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
"""The REST spec's ``WeekDay`` (``dayOfWeek``)."""
WeekIndex = Literal["First", "Second", "Third", "Fourth", "Last"]
"""The REST spec's ``weekIndex`` of a relativeMonthly schedule."""
START_TIME_RE = re.compile(r"^(?:[01][0-9]|2[0-3]):[0-5][0-9]$")
UTC_OFFSET_RE = re.compile(r"^[+-](?:0[0-9]|1[0-4]):[0-5][0-9]$")


@dataclass(frozen=True, slots=True)
class MaintenanceWindow:
    """One planned maintenance window, as the ``MaintenanceConfiguration`` gets it."""

    kind: WindowKind
    schedule: ScheduleType
    interval: int = 1
    """Days, weeks or months between occurrences (by ``schedule``)."""
    day_of_week: str | None = None
    day_of_month: int | None = None
    week_index: str | None = None
    start_time: str = "00:00"
    duration_hours: int = 4
    utc_offset: str = "+00:00"
    start_date: date | None = None
    not_allowed: tuple[tuple[date, date], ...] = ()

    @property
    def config_name(self) -> str:
        return load_landing_zone_facts().maintenance_configurations[self.kind]


def maintenance_window(w: MaintenanceWindow) -> list[Finding]:
    """The window's shape (module docstring); not-allowed ranges end after they start."""
    f = load_landing_zone_facts()
    found: list[Finding] = []
    if not f.min_window_hours <= w.duration_hours <= f.max_window_hours:
        found.append(
            Finding(
                "durationHours",
                f"{w.duration_hours} hours: a {w.config_name} window lasts {f.min_window_hours} to "
                f"{f.max_window_hours} hours (AKS REST API 2025-09-01; auto-upgrade needs four hours or more)",
            )
        )
    if not START_TIME_RE.match(w.start_time):
        found.append(Finding("startTime", f"{w.start_time!r} is not a time from '00:00' to '23:59'"))
    if not UTC_OFFSET_RE.match(w.utc_offset):
        found.append(Finding("utcOffset", f"{w.utc_offset!r} is not an offset like '+05:30' or '-07:00'"))
    found += _schedule_fields(w)
    field, lo, hi = f.intervals[w.schedule]
    if not lo <= w.interval <= hi:
        found.append(
            Finding(
                "interval", f"{w.interval}: a {w.schedule} schedule's {field} is {lo} to {hi} (AKS REST API 2025-09-01)"
            )
        )
    allowed = f.schedules_by_configuration[w.config_name]
    if w.schedule not in allowed:
        found.append(Finding("schedule", f"{w.config_name} takes a {' or '.join(allowed)} schedule, not {w.schedule}"))
    for i, (start, end) in enumerate(w.not_allowed):
        if end < start:
            found.append(Finding(f"notAllowedDates[{i}]", f"ends ({end}) before it starts ({start})"))
    return found


def _schedule_fields(w: MaintenanceWindow) -> list[Finding]:
    """Each schedule type takes its own fields (REST ``Schedule``): weekly a day of the week, absoluteMonthly a day of
    the month, relativeMonthly a week index and a day of the week; daily none of them."""
    f = load_landing_zone_facts()
    wants = {
        "daily": set[str](),
        "weekly": {"dayOfWeek"},
        "absoluteMonthly": {"dayOfMonth"},
        "relativeMonthly": {"weekIndex", "dayOfWeek"},
    }[w.schedule]
    given = {
        k
        for k, v in (("dayOfWeek", w.day_of_week), ("dayOfMonth", w.day_of_month), ("weekIndex", w.week_index))
        if v is not None
    }
    found = [Finding(k, f"a {w.schedule} schedule needs {k}") for k in sorted(wants - given)]
    found += [Finding(k, f"a {w.schedule} schedule takes no {k}") for k in sorted(given - wants)]
    if w.day_of_month is not None and not 1 <= w.day_of_month <= 31:
        found.append(Finding("dayOfMonth", f"{w.day_of_month} is not a day of the month (1..31)"))
    if w.week_index is not None and w.week_index not in f.week_indexes:
        found.append(Finding("weekIndex", f"{w.week_index!r}: allowed {', '.join(f.week_indexes)}"))
    return found


def past_not_allowed(w: MaintenanceWindow, today: date) -> list[Finding]:
    """Advisory: a not-allowed range that ended before ``today`` protects nothing any more."""
    return [
        Finding(f"notAllowedDates[{i}]", f"{start}..{end} ended before {today}: it protects nothing any more")
        for i, (start, end) in enumerate(w.not_allowed)
        if end < today
    ]


def window_without_channel(w: MaintenanceWindow, channel: str) -> list[Finding]:
    """Advisory: a window for a channel that moves nothing schedules nothing (planned maintenance does not turn
    auto-upgrade on)."""
    if channel.lower() not in {"none", "unmanaged"}:
        return []
    key = "autoUpgradeChannel" if w.kind == "autoUpgrade" else "nodeOsUpgradeChannel"
    message = f"{w.config_name} schedules the {key} upgrades, and {key} is {channel!r}: nothing to schedule"
    return [Finding(key, message)]


@dataclass(frozen=True, slots=True)
class SurgeUse:
    """One GPU pool's surge in one quota family."""

    pool: str
    family: str
    vcpus_per_node: int
    max_nodes: int
    surge_nodes: int


def surge_quota(uses: Sequence[SurgeUse], granted: dict[str, int]) -> list[Finding]:
    """Per quota family with a stated grant (``gpuQuota``): the pools at their maximum plus every surge must fit
    (each pool's upgrade needs its surge; the upgrade article counts them together). Refused with the numbers; a
    family without a stated grant is not judged here (``--live`` compares with the subscription)."""
    found: list[Finding] = []
    families = sorted({u.family for u in uses})
    for fam in families:
        if fam not in granted:
            continue
        rows = [u for u in uses if u.family == fam]
        steady = sum(u.max_nodes * u.vcpus_per_node for u in rows)
        surge = sum(u.surge_nodes * u.vcpus_per_node for u in rows)
        have = granted[fam]
        if steady + surge <= have:
            continue
        parts = "; ".join(f"{u.pool}: ({u.max_nodes} + {u.surge_nodes} surge) × {u.vcpus_per_node} vCPUs" for u in rows)
        what = "the pools at maxCount" if steady > have else "the upgrade surge"
        found.append(
            Finding(
                f"gpuQuota.{fam}",
                f"{fam}: {steady} vCPUs at maxCount + {surge} vCPUs of upgrade surge = {steady + surge}, but the "
                f"stated quota is {have}: {what} cannot be placed ({parts}). Ask for more quota, lower maxSurge "
                "(maxSurge '0' with maxUnavailable '1' upgrades in place, no extra GPU) or maxCount",
            )
        )
    return found
