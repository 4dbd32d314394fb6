"""Planned maintenance windows against the AKS REST spec 2025-09-01 (``MaintenanceWindow``, ``Schedule`` and its four
types) and the planned-maintenance article: the rule (``rules/maintenance.py``), the stack file and the wire inputs
the conformance checker sees, each refusing and passing concrete values."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance import check_resource, failures
from gpu_catalog.landing_zone import load_landing_zone_facts
from rules import Finding
from rules.maintenance import MaintenanceWindow, maintenance_window
from stack_config import StackConfigError, config_from_stack_yaml, validate_stack_config
from tests.components.harness import run_main
from tests.components.test_landing_zone import MAINTENANCE, example_config

FIELDS: dict[str, dict[str, Any]] = {
    "daily": {},
    "weekly": {"day_of_week": "Friday"},
    "absoluteMonthly": {"day_of_month": 15},
    "relativeMonthly": {"week_index": "Last", "day_of_week": "Monday"},
}


def test_the_facts_are_the_specs() -> None:
    f = load_landing_zone_facts()
    assert (f.min_window_hours, f.max_window_hours) == (4, 24)
    assert f.intervals == {
        "daily": ("intervalDays", 1, 7),
        "weekly": ("intervalWeeks", 1, 4),
        "absoluteMonthly": ("intervalMonths", 1, 6),
        "relativeMonthly": ("intervalMonths", 1, 6),
    }
    every = ("daily", "weekly", "absoluteMonthly", "relativeMonthly")
    assert f.schedules_by_configuration == {
        "aksManagedAutoUpgradeSchedule": every,
        "aksManagedNodeOSUpgradeSchedule": every,
        "default": ("weekly",),
    }


@pytest.mark.parametrize(
    ("schedule", "top", "field"),
    [
        ("daily", 7, "intervalDays"),
        ("weekly", 4, "intervalWeeks"),
        ("absoluteMonthly", 6, "intervalMonths"),
        ("relativeMonthly", 6, "intervalMonths"),
    ],
)
@pytest.mark.parametrize("kind", ["autoUpgrade", "nodeOs"])
def test_each_schedule_type_and_its_interval_range(schedule: Any, top: int, field: str, kind: Any) -> None:
    fields = FIELDS[schedule]
    for interval in (1, top):
        assert maintenance_window(MaintenanceWindow(kind, schedule, interval, **fields)) == []
    assert maintenance_window(MaintenanceWindow(kind, schedule, top + 1, **fields)) == [
        Finding("interval", f"{top + 1}: a {schedule} schedule's {field} is 1 to {top} (AKS REST API 2025-09-01)")
    ]
    assert [f.field for f in maintenance_window(MaintenanceWindow(kind, schedule, 0, **fields))] == ["interval"]


def test_duration_start_time_and_utc_offset() -> None:
    def fields(**kw: Any) -> list[str]:
        return [f.field for f in maintenance_window(MaintenanceWindow("nodeOs", "daily", **kw))]

    assert fields(duration_hours=4, start_time="00:00", utc_offset="-12:00") == []
    assert fields(duration_hours=24, start_time="23:59", utc_offset="+14:00") == []
    assert fields(duration_hours=3) == ["durationHours"]  # the spec's minimum 4; the docs' "four hours or more"
    assert fields(duration_hours=25) == ["durationHours"]
    assert fields(start_time="24:00") == ["startTime"]  # "Accepted values are from '00:00' to '23:59'"
    assert fields(start_time="1:00") == ["startTime"]  # the spec's pattern: two digits each
    assert fields(utc_offset="05:30") == ["utcOffset"]  # no sign: not the spec's +/-HH:mm
    assert fields(utc_offset="+5:30") == ["utcOffset"]


# ----------------------------------------------------------------------------------------------- the wire inputs


def wire(schedule: dict[str, Any], **window: Any) -> dict[str, Any]:
    return {
        "resourceGroupName": "rg-gpu-lz",
        "resourceName": "aks-gpu-lz",
        "configName": "aksManagedNodeOSUpgradeSchedule",
        "maintenanceWindow": {"schedule": schedule, "durationHours": 6.0, "startTime": "22:00", **window},
    }


@pytest.mark.parametrize(
    ("schedule", "path", "top"),
    [
        ({"daily": {"intervalDays": 7.0}}, "daily.intervalDays", 7.0),
        ({"weekly": {"intervalWeeks": 4.0, "dayOfWeek": "Friday"}}, "weekly.intervalWeeks", 4.0),
        ({"absoluteMonthly": {"intervalMonths": 6.0, "dayOfMonth": 31.0}}, "absoluteMonthly.intervalMonths", 6.0),
        (
            {"relativeMonthly": {"intervalMonths": 6.0, "weekIndex": "Last", "dayOfWeek": "Monday"}},
            "relativeMonthly.intervalMonths",
            6.0,
        ),
    ],
)
def test_conformance_of_each_schedule_on_the_wire(schedule: dict[str, Any], path: str, top: float) -> None:
    assert failures(check_resource(MAINTENANCE, wire(schedule, utcOffset="+01:00"))) == []
    over = copy.deepcopy(schedule)
    kind, key = path.split(".")
    over[kind][key] = top + 1
    (finding,) = failures(check_resource(MAINTENANCE, wire(over)))
    assert (finding.path, finding.rule) == (f"maintenanceWindow.schedule.{path}", "range")


def test_conformance_refuses_a_window_without_its_required_fields_and_a_bad_offset() -> None:
    missing = wire({"weekly": {"intervalWeeks": 1.0}})
    del missing["maintenanceWindow"]["startTime"]
    paths = sorted(f.path for f in failures(check_resource(MAINTENANCE, missing)))
    assert paths == ["maintenanceWindow.schedule.weekly.dayOfWeek", "maintenanceWindow.startTime"]
    (offset,) = failures(check_resource(MAINTENANCE, wire({"daily": {"intervalDays": 1.0}}, utcOffset="5:30")))
    assert offset.path == "maintenanceWindow.utcOffset"


# ----------------------------------------------------------------------------------------------- the stack file


def _daily_node_os(interval: int) -> dict[str, Any]:
    config = copy.deepcopy(example_config())
    config["azure-gpu-platform:cluster"]["maintenance"]["nodeOs"] = {
        "schedule": "daily",
        "interval": interval,
        "startTime": "02:00",
        "durationHours": 4,
        "utcOffset": "+05:30",
        "startDate": "2027-01-04",
    }
    return config


def test_the_stack_file_refuses_an_interval_out_of_the_spec_range() -> None:
    with pytest.raises(StackConfigError) as caught:
        validate_stack_config(config_from_stack_yaml(_daily_node_os(8)), stack_file="Pulumi.landing-zone.yaml")
    assert [(p.path, p.message) for p in caught.value.problems] == [
        (
            "cluster.maintenance.nodeOs.interval",
            "8: a daily schedule's intervalDays is 1 to 7 (AKS REST API 2025-09-01)",
        )
    ]


def test_a_daily_node_os_window_reaches_the_wire_as_the_spec_defines_it() -> None:
    run = run_main(_daily_node_os(7), stack="landing-zone")
    assert run.error is None, run.error
    (node_os,) = [r for r in run.of_type(MAINTENANCE) if r.inputs["configName"] == "aksManagedNodeOSUpgradeSchedule"]
    assert node_os.inputs["maintenanceWindow"] == {
        "schedule": {"daily": {"intervalDays": 7.0}},
        "durationHours": 4.0,
        "startTime": "02:00",
        "utcOffset": "+05:30",
        "startDate": "2027-01-04",
    }
    assert failures(check_resource(MAINTENANCE, node_os.inputs)) == []
