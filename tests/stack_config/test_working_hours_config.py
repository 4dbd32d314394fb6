"""cluster.workingHours: validated days, times and IANA time zone; refused on protected stacks and NAP clusters."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rules.idle import WEEKDAYS
from stack_config import StackConfigError, validate_stack_config
from stack_config.working_hours import DAYS, WorkingHoursConfig

FILE = "stacks/Pulumi.test.yaml"
HOURS = {"days": ["Mon", "Tue", "Wed", "Thu", "Fri"], "start": "08:00", "end": "19:00", "timeZone": "Europe/Amsterdam"}
BASE: dict[str, Any] = {
    "environment": "dev",
    "location": "westeurope",
    "gpuPools": [{"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "minCount": 0, "maxCount": 2}],
    "cluster": {"access": {"deployerPrincipalType": "User"}, "workingHours": HOURS},
}


def stack(**hours: Any) -> dict[str, Any]:
    cfg = copy.deepcopy(BASE)
    cfg["cluster"]["workingHours"].update(hours)
    return cfg


def problems(cfg: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(StackConfigError) as err:
        validate_stack_config(cfg, stack_file=FILE)
    return [(p.path, p.message) for p in err.value.problems]


def test_valid_working_hours_load_and_describe() -> None:
    hours = validate_stack_config(stack(), stack_file=FILE).cluster.workingHours
    assert isinstance(hours, WorkingHoursConfig)
    assert hours.describe() == "Mon–Fri 08:00–19:00 Europe/Amsterdam"
    assert hours.hours_per_week() == 55.0
    assert WorkingHoursConfig(days=["Sat", "Mon"], start="00:00", end="23:59", timeZone="UTC").describe() == (
        "Mon,Sat 00:00–23:59 UTC"
    )


def test_day_names_are_the_rules_day_names() -> None:
    assert DAYS == WEEKDAYS == ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def test_absent_by_default() -> None:
    cfg = copy.deepcopy(BASE)
    del cfg["cluster"]["workingHours"]
    assert validate_stack_config(cfg, stack_file=FILE).cluster.workingHours is None


def test_bad_time_bad_zone_and_unknown_day_all_named_at_once() -> None:
    found = problems(stack(days=["Mon", "Funday"], start="8:00", end="24:00", timeZone="Europe/Amsterdm"))
    assert found == [
        (
            "cluster.workingHours.days[1]",
            f"Input should be {', '.join(repr(d) for d in DAYS[:-1])} or 'Sun' (got 'Funday').",
        ),
        (
            "cluster.workingHours.start",
            "must be a 24-hour time HH:MM, 00:00 to 23:59 (quote it in YAML: '08:00'), got '8:00'.",
        ),
        (
            "cluster.workingHours.end",
            "must be a 24-hour time HH:MM, 00:00 to 23:59 (quote it in YAML: '08:00'), got '24:00'.",
        ),
        (
            "cluster.workingHours.timeZone",
            "must be an IANA time zone name such as Europe/Amsterdam, America/New_York or UTC, got 'Europe/Amsterdm' "
            "(ZoneInfoNotFoundError).",
        ),
    ]


@pytest.mark.parametrize("zone", ["../etc/passwd", "", "CET+1"])
def test_not_a_zone_name_refused(zone: str) -> None:
    [(path, message)] = problems(stack(timeZone=zone))
    assert path == "cluster.workingHours.timeZone"
    assert message.startswith("must be an IANA time zone name such as Europe/Amsterdam")


def test_end_before_start_and_repeated_day() -> None:
    assert problems(stack(start="19:00", end="08:00")) == [
        (
            "cluster.workingHours",
            "end 08:00 must be after start 19:00 (working hours within one day; allowed: start < end, both HH:MM).",
        )
    ]
    assert problems(stack(days=["Mon", "Mon"])) == [
        (
            "cluster.workingHours.days",
            "lists Mon more than once; allowed: each of Mon, Tue, Wed, Thu, Fri, Sat, Sun once.",
        )
    ]
    assert problems(stack(days=[]))[0][0] == "cluster.workingHours.days"


def test_unknown_key_names_the_allowed_keys() -> None:
    assert problems(stack(weekends=True)) == [
        ("cluster.workingHours.weekends", "unknown key. Allowed keys here: days, start, end, timeZone.")
    ]


def test_refused_on_a_protected_stack() -> None:
    cfg = stack()
    cfg["environment"] = "prod"
    [(path, message)] = problems(cfg)
    assert path == "cluster.workingHours"
    assert message.startswith("a protected stack (environment prod, cluster.protect true) is not stopped outside")
    assert "Allowed on dev/test stacks (cluster.protect false)" in message
    cfg["cluster"]["protect"] = False
    assert validate_stack_config(cfg, stack_file=FILE).cluster.workingHours is not None


def test_refused_with_node_auto_provisioning() -> None:
    cfg = stack()
    cfg["gpuPools"] = []
    cfg["gpuNodePools"] = [{"name": "infer", "sizes": ["Standard_NC16as_T4_v3"], "limits": {"gpus": 4}}]
    found = problems(cfg)
    assert (
        "cluster.workingHours",
        "AKS cannot stop a cluster with node auto-provisioning (gpuNodePools), so there is nothing to stop outside "
        "working hours (AKS docs, start-stop-cluster.md). Allowed: gpuNodePools empty, or remove the key.",
    ) in found
