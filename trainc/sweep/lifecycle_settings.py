"""The lifecycle settings trainc wrote on a JobSet, read back from its annotations.

``trainc compile`` writes them with the codec of :mod:`trainc.model.lifecycle`, which
this module reads with. A value edited by hand in git can be anything, so a value the
codec refuses becomes an ``InvalidSetting`` Note and that setting is not enforced: the
sweeper never guesses what a broken value meant, and never raises.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.model.labels import (
    ACTIVE_DEADLINE_ANNOTATION,
    PROGRESS_DEADLINE_ANNOTATION,
    SOURCE_ANNOTATION,
    TTL_ANNOTATION,
)
from trainc.model.lifecycle import BOUNDS, describe_bounds, parse_seconds
from trainc.sweep.model import JobSetState, Note, Reason


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
    for key in BOUNDS:
        raw = jobset.annotations.get(key)
        values[key] = None if raw is None else parse_seconds(key, raw)
        if raw is not None and values[key] is None:
            notes.append(
                Note(
                    jobset.ref,
                    Reason.INVALID_SETTING,
                    f"annotation {key}={raw!r} is not {describe_bounds(key)}; it is not "
                    f"enforced until {source_file(jobset)} is fixed",
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
