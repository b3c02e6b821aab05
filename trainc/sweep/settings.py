"""The lifecycle settings trainc wrote on a JobSet, read back from its annotations.

``trainc compile`` writes ``trainc.dev/active-deadline-seconds`` (TrainJob, KEP-2899),
``trainc.dev/ttl-seconds-after-finished`` (runtime, KEP-2899) and
``trainc.dev/progress-deadline-seconds`` (seed 003) as decimal strings; see
:mod:`trainc.build.plugins.lifecycle`. A value edited by hand in git can be anything, so
a value outside the API's bounds becomes an ``InvalidSetting`` Note and that setting is
not enforced: the sweeper never guesses what a broken value meant, and never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trainc.model.labels import (
    ACTIVE_DEADLINE_ANNOTATION,
    PROGRESS_DEADLINE_ANNOTATION,
    SOURCE_ANNOTATION,
    TTL_ANNOTATION,
)
from trainc.sweep.model import JobSetState, Note, Reason

#: Canonical decimal, as compile writes it: no sign, blanks, leading zeros or non-ASCII digits.
_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_INT32_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1

#: Bounds of each setting: the API types KEP-2899 gives them (``*int64`` with
#: ``Minimum=1`` for the deadline, ``*int32`` with ``Minimum=0`` for the TTL); the progress
#: deadline follows the active deadline (seed 003: a positive number of seconds).
_BOUNDS: dict[str, tuple[int, int]] = {
    ACTIVE_DEADLINE_ANNOTATION: (1, _INT64_MAX),
    TTL_ANNOTATION: (0, _INT32_MAX),
    PROGRESS_DEADLINE_ANNOTATION: (1, _INT64_MAX),
}


@dataclass(frozen=True, slots=True)
class Settings:
    """A JobSet's valid lifecycle settings in seconds; None when unset or invalid."""

    active_deadline: int | None
    ttl: int | None
    progress_deadline: int | None


def read_settings(jobset: JobSetState) -> tuple[Settings, tuple[Note, ...]]:
    """The JobSet's settings, and one ``InvalidSetting`` Note per value out of bounds."""
    values: dict[str, int | None] = {}
    notes: list[Note] = []
    for key, (low, high) in _BOUNDS.items():
        raw = jobset.annotations.get(key)
        values[key] = None if raw is None else _parse(raw, low, high)
        if raw is not None and values[key] is None:
            notes.append(
                Note(
                    jobset.ref,
                    Reason.INVALID_SETTING,
                    f"annotation {key}={raw!r} is not a whole number of seconds from {low} "
                    f"to {high}; it is not enforced until {source_file(jobset)} is fixed",
                )
            )
    settings = Settings(
        active_deadline=values[ACTIVE_DEADLINE_ANNOTATION],
        ttl=values[TTL_ANNOTATION],
        progress_deadline=values[PROGRESS_DEADLINE_ANNOTATION],
    )
    return settings, tuple(notes)


def source_file(jobset: JobSetState) -> str:
    """The TrainJob's file in git, as messages name it (``trainc.dev/source``)."""
    source = jobset.annotations.get(SOURCE_ANNOTATION)
    if source:
        return source
    return f"the file of TrainJob {jobset.ref.namespace}/{jobset.ref.name} (no {SOURCE_ANNOTATION})"


def _parse(raw: str, low: int, high: int) -> int | None:
    # The length check comes first: int() refuses strings of over 4300 digits.
    if len(raw) > len(str(high)) or _DECIMAL.fullmatch(raw) is None:
        return None
    value = int(raw)
    return value if low <= value <= high else None
