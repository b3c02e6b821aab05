"""The longest wait between two runs of a cron schedule, as the CronJob controller runs it."""

from __future__ import annotations

import pytest

from trainc.config.cron import longest_gap_seconds

_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR


@pytest.mark.parametrize(
    ("schedule", "gap"),
    [
        ("*/5 * * * *", 5 * _MINUTE),  # the sweeper's default
        ("* * * * *", _MINUTE),
        ("*/7 * * * *", 7 * _MINUTE),  # 56 -> 0 is only 4 minutes: 7 is the longest
        ("5/20 * * * *", 20 * _MINUTE),  # N/STEP runs from N to the field's end
        ("0,50 * * * *", 50 * _MINUTE),
        ("@hourly", _HOUR),
        ("0 */6 * * *", 6 * _HOUR),
        ("@daily", _DAY),
        ("30 9 * * 1-5", 3 * _DAY),  # Friday to Monday
        ("0 0 * * SUN", 7 * _DAY),
        ("0 0 1 jan *", 366 * _DAY),  # across a leap year
        ("0 0 29 2 *", (3 * 365 + 366) * _DAY),  # 29 February comes every four years
        ("0 0 1,15 * 1", 7 * _DAY),  # both day fields restricted: either matches
        ("0 0 */2 * 1", 2 * _DAY),  # a stepped day is restricted: odd days or Mondays
        ("0 0 * * 1", 7 * _DAY),  # a starred day of month: the weekday decides
        ("0 0 1-31 1-12 0-6", _DAY),  # every day, each field spelled out
        ("0 0 1-31 1-12 1-6", _DAY),  # both restricted: every day of the month matches
        ("0 0 * 1-11 *", 32 * _DAY),  # no December
    ],
)
def test_the_longest_gap_between_runs(schedule: str, gap: int) -> None:
    assert longest_gap_seconds(schedule) == gap


@pytest.mark.parametrize(
    "schedule", ["not a schedule", "61 * * * *", "*/0 * * * *", "0 0 30 2 *", "* * * *"]
)
def test_no_gap_for_what_does_not_parse_or_never_runs(schedule: str) -> None:
    assert longest_gap_seconds(schedule) is None
