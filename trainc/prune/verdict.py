"""Which TrainJobs are done for good, so their files can leave git: ``trainc prune``.

The sweeper never deletes a git-declared JobSet (GitOps would re-create it and run the
training again); once a JobSet's TTL has passed it deletes the Jobs and names the file to
remove from git. ``trainc prune`` is that removal, run from CI against the cluster: a
TrainJob whose JobSet finished (Completed, or Failed, by its deadline or otherwise) and
whose TTL after finishing has passed is done for good. Everything else is left alone,
and said why: a JobSet that is missing (not synced yet, or pruned already), still running
or suspended, finished but within its TTL or without one, or compiled from another file
(its ``trainc.dev/source`` annotation names where git holds it). Pure: the clock is
passed in.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from trainc.model.labels import SOURCE_ANNOTATION
from trainc.sweep.lifecycle_settings import read_settings
from trainc.sweep.model import JobSetState
from trainc.sweep.times import format_seconds, format_time, is_finished
from trainc.sweep.ttl import ttl_window


class Verdict(enum.StrEnum):
    """What becomes of one TrainJob's file."""

    EXPIRED = "expired"
    MISSING = "missing"
    RUNNING = "running"
    WITHIN_TTL = "within-ttl"
    NO_TTL = "no-ttl"
    OTHER_SOURCE = "other-source"

    @property
    def removes(self) -> bool:
        """Whether the TrainJob's document leaves git."""
        return self is Verdict.EXPIRED


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict on one TrainJob and why, in words."""

    verdict: Verdict
    reason: str


def judge(jobset: JobSetState | None, source: str, now: datetime) -> Judgement:
    """Whether the TrainJob in ``source`` (repository-relative) is done for good, given
    its JobSet as the cluster has it (None: there is none)."""
    if jobset is None:
        return Judgement(Verdict.MISSING, "no JobSet in the cluster (not synced yet, or pruned)")
    compiled_from = jobset.annotations.get(SOURCE_ANNOTATION)
    if compiled_from != source:
        where = repr(compiled_from) if compiled_from else "no file"
        return Judgement(Verdict.OTHER_SOURCE, f"its JobSet was compiled from {where}")
    if not is_finished(jobset):
        state = "suspended" if jobset.suspended else "still running"
        return Judgement(Verdict.RUNNING, f"its JobSet is {state}")
    settings, notes = read_settings(jobset)
    window = ttl_window(jobset, settings)
    if window is None:
        why = notes[0].message if notes else "set ttlSecondsAfterFinished on its runtime"
        return Judgement(Verdict.NO_TTL, f"its JobSet finished but has no TTL ({why})")
    finished = f"{window.origin} at {format_time(window.opened)}"
    ttl = f"TTL of {format_seconds(window.length_seconds)}"
    if not window.reached(now):
        return Judgement(
            Verdict.WITHIN_TTL,
            f"{finished}; its {ttl} runs {format_seconds(window.wait_seconds(now))} more",
        )
    return Judgement(Verdict.EXPIRED, f"{finished}; its {ttl} has passed")
