"""TTL after finished for a terminal JobSet: delete its Jobs, keep the JobSet.

Semantics of KEP-592 and the Job/JobSet TTL controllers (``docs/upstream.md``, "Lifecycle:
deadlines, TTL, deletion"), with the TTL KEP-2899 puts on the runtime: the window opens at the
``lastTransitionTime`` of the first ``Completed``/``Failed`` condition that is ``True``
(suspension does not move it), ``0`` expires at once, and it has expired when the time
remaining is ``<= 0``. Deleting the git-declared JobSet would make GitOps re-create it and
run the training again (https://github.com/argoproj/argo-cd/issues/8586), so only the
child Jobs go (their pods with
them); the JobSet stays terminal and the message names the file to remove from git, after
which GitOps prunes the JobSet and its companions together.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from trainc.diagnostics import counted
from trainc.sweep.lifecycle_settings import Settings, source_file
from trainc.sweep.model import Action, ChildJobState, DeleteJobs, JobSetState, Reason
from trainc.sweep.times import (
    Window,
    finishing_condition,
    format_seconds,
    format_time,
    pending_note,
)


def ttl_window(jobset: JobSetState, settings: Settings) -> Window | None:
    """The TTL of a finished JobSet, from its finish; None while it runs or without a TTL.

    A finish condition without a time (the CRD requires one) cannot start the TTL, as in
    the upstream controllers, which refuse a zero time. ``trainc prune`` reads the same
    window: a JobSet past it is done for good.
    """
    finished = finishing_condition(jobset)
    if settings.ttl is None or finished is None or finished.last_transition is None:
        return None
    return Window.of_seconds(finished.last_transition, finished.type, settings.ttl)


def ttl_actions(
    jobset: JobSetState, settings: Settings, jobs: Sequence[ChildJobState], now: datetime
) -> tuple[Action, ...]:
    """For a finished JobSet: a DeleteJobs once its TTL has expired, else a Note with the wait.

    Once the Jobs are gone an expired TTL yields nothing, so the run that deletes them is
    the only one that reports it.
    """
    window = ttl_window(jobset, settings)
    if window is None:
        return ()
    if not window.reached(now):
        outcome = f"TTL of {format_seconds(window.length_seconds)}: its Jobs are deleted"
        return (pending_note(jobset.ref, Reason.TTL_EXPIRED, window, now, outcome),)
    if not jobs:
        return ()
    refs = tuple(sorted((job.ref for job in jobs), key=lambda ref: ref.name))
    message = (
        f"{window.origin} at {format_time(window.opened)}; TTL of "
        f"{format_seconds(window.length_seconds)} expired: deleting "
        f"{counted(len(refs), 'Job')} and their pods. The JobSet stays, terminal: remove "
        f"{source_file(jobset)} from git and "
        "GitOps prunes the JobSet with its PodGroups, claims and ConfigMaps"
    )
    return (DeleteJobs(jobset.ref, Reason.TTL_EXPIRED, message, refs),)
