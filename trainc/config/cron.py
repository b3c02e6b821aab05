"""The longest wait between two runs of a CronJob schedule, as the CronJob controller reads it.

The sweeper enforces TrainJob deadlines only when it runs, so a deadline shorter than the
longest gap between two runs of ``sweeper.schedule`` cannot be held on time. The
CronJob controller parses ``spec.schedule`` with robfig/cron v3's standard parser
(``cron.ParseStandard`` in ``pkg/controller/cronjob/utils.go`` of
https://github.com/kubernetes/kubernetes; the grammar is
https://github.com/robfig/cron/blob/v3/parser.go and ``spec.go``): five fields
(minute, hour, day of month, month, day of week) or a macro; each field a list of
``*``, ``?``, ``N``, ``N-M``, each optionally ``/STEP`` (``N/STEP`` runs from ``N`` to the
field's maximum); months and weekdays also by three-letter name. When both day fields are
restricted a day matches either one; when one of them starts with ``*`` or ``?`` (without
a step above 1) both must match. Schedules run in the controller's time zone, UTC unless
``spec.timeZone`` says otherwise, which the sweeper's CronJob does not set.
"""

from __future__ import annotations

import datetime
import itertools
from functools import cache
from typing import Final, NamedTuple

_MACROS: Final = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_MONTHS: Final = (
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
)
_DAYS: Final = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
#: Days searched for runs: 16 years hold every calendar pattern a schedule can wait for
#: (29 February comes back within 8 years, across a century's skipped leap year too).
_HORIZON_DAYS: Final = 16 * 366
_START: Final = datetime.date(2024, 1, 1)
_MINUTES_PER_DAY: Final = 24 * 60


class _Range(NamedTuple):
    low: int
    high: int
    names: tuple[str, ...] = ()
    first_name: int = 0


_MINUTE: Final = _Range(0, 59)
_HOUR: Final = _Range(0, 23)
_DOM: Final = _Range(1, 31)
_MONTH: Final = _Range(1, 12, _MONTHS, 1)
_DOW: Final = _Range(0, 6, _DAYS, 0)


class _Field(NamedTuple):
    values: frozenset[int]
    star: bool


@cache
def longest_gap_seconds(schedule: str) -> int | None:
    """Seconds of the longest wait between two runs; None when ``schedule`` does not parse
    (the API server refuses it: trainc.yaml's schema says so) or never runs."""
    fields = _MACROS.get(schedule.strip(), schedule).split()
    if len(fields) != len((_MINUTE, _HOUR, _DOM, _MONTH, _DOW)):
        return None
    try:
        minute, hour, dom, month, dow = (
            _parse(text, bounds)
            for text, bounds in zip(fields, (_MINUTE, _HOUR, _DOM, _MONTH, _DOW), strict=True)
        )
    except ValueError:
        return None
    times = sorted(h * 60 + m for h in hour.values for m in minute.values)
    day_fields = ((dom, _DOM), (month, _MONTH), (dow, _DOW))
    if times and all(field.values == _every(bounds) for field, bounds in day_fields):
        # Every day runs (the sweeper's default, every five minutes): the longest wait is
        # within a day or from one day's last run to the next's first, and the 16 years
        # of days need no walk (a few milliseconds of every pre-commit run).
        ends = [*times, times[0] + _MINUTES_PER_DAY]
        return max(later - earlier for earlier, later in itertools.pairwise(ends)) * 60
    days = [
        day.toordinal()
        for day in (_START + datetime.timedelta(n) for n in range(_HORIZON_DAYS))
        if _day_matches(day, dom, month, dow)
    ]
    if not times or not days:
        return None
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    across = _MINUTES_PER_DAY - times[-1] + times[0]
    gaps += [
        (later - earlier - 1) * _MINUTES_PER_DAY + across
        for earlier, later in itertools.pairwise(days)
    ]
    return max(gaps) * 60


def _every(bounds: _Range) -> frozenset[int]:
    """Every value of a field."""
    return frozenset(range(bounds.low, bounds.high + 1))


def _day_matches(day: datetime.date, dom: _Field, month: _Field, dow: _Field) -> bool:
    """robfig/cron's ``dayMatches``, and the month."""
    if day.month not in month.values:
        return False
    in_dom = day.day in dom.values
    in_dow = day.isoweekday() % 7 in dow.values
    if dom.star or dow.star:
        return in_dom and in_dow
    return in_dom or in_dow


def _parse(text: str, bounds: _Range) -> _Field:
    values: set[int] = set()
    star = False
    for part in text.split(","):
        found, part_star = _parse_range(part, bounds)
        values |= found
        star = star or part_star
    return _Field(frozenset(values), star)


def _parse_range(text: str, bounds: _Range) -> tuple[set[int], bool]:
    span, _, step_text = text.partition("/")
    step = int(step_text) if step_text else 1
    if step < 1:
        raise ValueError(text)
    star = span in {"*", "?"}
    if star:
        low, high = bounds.low, bounds.high
    else:
        low_text, dash, high_text = span.partition("-")
        low = _value(low_text, bounds)
        high = _value(high_text, bounds) if dash else (bounds.high if step_text else low)
    if not bounds.low <= low <= high <= bounds.high:
        raise ValueError(text)
    return set(range(low, high + 1, step)), star and step == 1


def _value(text: str, bounds: _Range) -> int:
    name = text.lower()
    if name in bounds.names:
        return bounds.names.index(name) + bounds.first_name
    return int(text)
