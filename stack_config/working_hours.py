"""``cluster.workingHours``: when a dev/test cluster is used, so it can be stopped outside those hours.

The key changes no resource. The preflight report shows it (text, JSON ``workingHours``, Markdown), and
``docs/idle-cost.md`` shows how to stop and start the cluster on that schedule with AKS's own start/stop
(``az aks stop`` / ``az aks start``, the REST ``managedClusters/{name}/stop`` and ``/start`` actions) from a
scheduler you own; this package never runs one.

Who may set it (:func:`stack_config.checks.working_hours_problems`, a cross-field check of the whole stack):

- not a protected stack (``cluster.protect``, by default true on ``environment: prod``): AKS does not recommend
  stopping mission-critical workloads, since a stopped cluster may fail to start in a region short of capacity
  (MicrosoftDocs/azure-aks-docs ``articles/aks/start-stop-cluster.md``);
- not a cluster with node auto-provisioning (``gpuNodePools``): AKS cannot stop a NAP cluster (same page).
"""

from __future__ import annotations

import re
import zoneinfo
from typing import Annotated, Final, Literal, get_args

from pydantic import Field, field_validator, model_validator

from gpu_catalog.problems import show
from rules.idle import clock_minutes, describe_working_hours, working_hours_per_week

from .base import StrictModel

Day = Literal["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
DAYS: Final[tuple[str, ...]] = get_args(Day)

_TIME_RE = re.compile(r"^(?P<h>[01]\d|2[0-3]):(?P<m>[0-5]\d)$")
TIME_FORMAT: Final = "a 24-hour time HH:MM, 00:00 to 23:59"

START_STOP_SOURCE: Final = "AKS docs, start-stop-cluster.md"


class WorkingHoursConfig(StrictModel):
    """``cluster.workingHours``: the days and local hours a dev/test cluster is used (see the module docstring)."""

    days: Annotated[list[Day], Field(min_length=1)]
    """Days the cluster runs (``Mon`` … ``Sun``), each at most once."""
    start: str
    """Local start time, ``HH:MM``."""
    end: str
    """Local end time, ``HH:MM``, after ``start`` (hours within one day)."""
    timeZone: str
    """An IANA time zone name (``Europe/Amsterdam``, ``UTC``), checked against Python's zoneinfo database."""

    @field_validator("days")
    @classmethod
    def _unique_days(cls, value: list[str]) -> list[str]:
        repeated = sorted({d for d in value if value.count(d) > 1}, key=DAYS.index)
        if repeated:
            raise ValueError(f"lists {', '.join(repeated)} more than once; allowed: each of {', '.join(DAYS)} once")
        return value

    @field_validator("start", "end")
    @classmethod
    def _time(cls, value: str) -> str:
        if not _TIME_RE.match(value):
            raise ValueError(f"must be {TIME_FORMAT} (quote it in YAML: '08:00'), got {show(value)}")
        return value

    @field_validator("timeZone")
    @classmethod
    def _zone(cls, value: str) -> str:
        if not zoneinfo.available_timezones():
            raise ValueError("cannot be checked: this Python has no time zone database (install the tzdata package)")
        try:
            zoneinfo.ZoneInfo(value)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(
                f"must be an IANA time zone name such as Europe/Amsterdam, America/New_York or UTC, got {show(value)}"
                f" ({type(exc).__name__})"
            ) from exc
        return value

    @model_validator(mode="after")
    def _end_after_start(self) -> WorkingHoursConfig:
        if clock_minutes(self.end) <= clock_minutes(self.start):
            raise ValueError(
                f"end {self.end} must be after start {self.start} (working hours within one day; allowed: "
                "start < end, both HH:MM)"
            )
        return self

    def describe(self) -> str:
        """``Mon–Fri 08:00–19:00 Europe/Amsterdam``."""
        return describe_working_hours(list(self.days), self.start, self.end, self.timeZone)

    def hours_per_week(self) -> float:
        return working_hours_per_week(list(self.days), self.start, self.end)
