"""Active and progress deadlines of a running JobSet: fail its Jobs once one has passed.

The active deadline follows Trainer's ``reconcileDeadline`` (KEP-2899,
https://github.com/kubeflow/trainer/blob/master/pkg/controller/trainjob_controller.go):
the window opens at creation or the last resume and is exceeded when
``now > start + deadline``. The progress deadline (``docs/design.md``, "Lifecycle") shares the
window and applies only while no child Job shows progress (a ready, succeeded or failed
pod). JobSet has no deadline field (``docs/upstream.md``, "JobSet"), and the git-declared
JobSet must not be edited,
so enforcement lowers each unfinished child Job's ``activeDeadlineSeconds`` to a value it
has already used up: the Job controller fails it with ``DeadlineExceeded``
(https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/job/job_controller.go) and the
JobSet fails through its failure policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from trainc.diagnostics import counted
from trainc.sweep.lifecycle_settings import Settings
from trainc.sweep.model import Action, ChildJobState, FailJobs, JobSetState, Reason
from trainc.sweep.times import Window, format_seconds, format_time, pending_note, window_start

_SECOND = timedelta(seconds=1)


@dataclass(frozen=True, slots=True)
class _Deadline:
    """A deadline that applies to the JobSet now; ``name`` and ``outcome`` are for messages."""

    reason: Reason
    name: str
    outcome: str
    window: Window


def deadline_actions(
    jobset: JobSetState, settings: Settings, jobs: Sequence[ChildJobState], now: datetime
) -> tuple[Action, ...]:
    """For an unfinished, unsuspended JobSet: a FailJobs once a deadline has passed, else
    a Note with the wait of each deadline still running.

    The active deadline wins when both have passed. A passed deadline whose Jobs all carry
    a low enough ``activeDeadlineSeconds`` already (a sweep after enforcement, while the
    Job controller catches up) yields nothing, so repeated sweeps are quiet no-ops.
    """
    deadlines = _applicable(jobset, settings, jobs)
    for deadline in deadlines:
        if deadline.window.exceeded(now):
            return _fail_jobs(jobset, jobs, deadline, now)
    return tuple(
        pending_note(jobset.ref, deadline.reason, deadline.window, now, deadline.outcome)
        for deadline in deadlines
    )


def _applicable(
    jobset: JobSetState, settings: Settings, jobs: Sequence[ChildJobState]
) -> list[_Deadline]:
    """The deadlines that apply, active first; both share one window (Trainer's)."""
    opened, origin = window_start(jobset)
    deadlines: list[_Deadline] = []
    if settings.active_deadline is not None:
        window = Window.of_seconds(opened, origin, settings.active_deadline)
        outcome = f"active deadline of {format_seconds(window.length_seconds)}: Jobs fail"
        deadlines.append(_Deadline(Reason.DEADLINE_EXCEEDED, "active deadline", outcome, window))
    if settings.progress_deadline is not None and not _any_progress(jobs):
        window = Window.of_seconds(opened, origin, settings.progress_deadline)
        outcome = (
            f"progress deadline of {format_seconds(window.length_seconds)}: Jobs fail "
            "unless a pod becomes ready or finishes"
        )
        deadlines.append(
            _Deadline(Reason.PROGRESS_DEADLINE_EXCEEDED, "progress deadline", outcome, window)
        )
    return deadlines


def _any_progress(jobs: Sequence[ChildJobState]) -> bool:
    """Seed 003: progress is a pod that is ready or has finished, in any Job."""
    return any(job.ready + job.succeeded + job.failed > 0 for job in jobs)


def _fail_jobs(
    jobset: JobSetState, jobs: Sequence[ChildJobState], deadline: _Deadline, now: datetime
) -> tuple[Action, ...]:
    targets = ((job, exhausted_deadline(job, now)) for job in jobs if not job.finished)
    lowered = tuple(
        sorted(
            ((job.ref, target) for job, target in targets if _needs_lowering(job, target)),
            key=lambda pair: pair[0].name,
        )
    )
    if not lowered:
        return ()
    window = deadline.window
    message = (
        f"{deadline.name} of {format_seconds(window.length_seconds)} passed "
        f"{format_seconds(window.overdue_seconds(now))} ago (counted from {window.origin} at "
        f"{format_time(window.opened)}); failing {counted(len(lowered), 'Job')} with reason "
        "DeadlineExceeded"
    )
    return (FailJobs(jobset.ref, deadline.reason, message, lowered),)


def exhausted_deadline(job: ChildJobState, now: datetime) -> int:
    """An ``activeDeadlineSeconds`` the Job has already used up at ``now``.

    The Job controller fails a Job once ``now - startTime >= activeDeadlineSeconds``
    (``pastActiveDeadline``), so the whole seconds since ``status.startTime`` qualify; at
    least 1, the API's minimum, which a Job not started yet (or suspended: its start time
    is cleared) gets, failing one second after it starts.
    """
    if job.start_time is None:
        return 1
    return max(1, (now - job.start_time) // _SECOND)


def _needs_lowering(job: ChildJobState, target: int) -> bool:
    """Idempotence: a Job whose deadline is already at or below the target needs nothing."""
    return job.active_deadline is None or job.active_deadline > target
