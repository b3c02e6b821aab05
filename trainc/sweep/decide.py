"""The sweeper's decision: a snapshot of what trainc manages, and the time, in; actions out.

Pure and stateless, like the upstream controllers after a restart (KEP-2899 "Controller
Restart Behavior"): every timer is recomputed from times the API server stored, so the
same snapshot at a later ``now`` gives the right action and a sweep after enforcement is
a no-op. The clock is read once by :mod:`trainc.sweep.sweep_pass` and passed in
(``docs/design.md``, "Determinism"). The I/O layer re-decides with :func:`decide_jobset` and
:func:`~trainc.sweep.garbage.decide_companion` on freshly read objects before it deletes
or patches anything, as the TTL-after-finished controller does (KEP-592,
https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/ttlafterfinished/ttlafterfinished_controller.go).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from trainc.sweep.deadline import deadline_actions
from trainc.sweep.garbage import DEFAULT_GRACE, decide_companion
from trainc.sweep.lifecycle_settings import read_settings
from trainc.sweep.model import (
    Action,
    ChildJobState,
    DeleteJobs,
    DeleteObject,
    FailJobs,
    JobSetState,
    Note,
    Snapshot,
    subject_of,
)
from trainc.sweep.times import is_finished, is_suspended
from trainc.sweep.ttl import ttl_actions

#: Within one object, changes come before notes.
_ACTION_RANK: dict[type[Action], int] = {FailJobs: 0, DeleteJobs: 1, DeleteObject: 2, Note: 3}


def decide(
    snapshot: Snapshot, now: datetime, *, grace: timedelta = DEFAULT_GRACE
) -> tuple[Action, ...]:
    """Every action the snapshot calls for at ``now``, in a canonical order.

    ``grace`` is how long a companion may wait for its JobSet (:mod:`.garbage`). The
    result does not depend on the order of the snapshot's records.
    """
    jobs: dict[tuple[str, str], list[ChildJobState]] = defaultdict(list)
    for job in snapshot.jobs:
        jobs[job.ref.namespace, job.jobset].append(job)
    present = {(jobset.ref.namespace, jobset.ref.name) for jobset in snapshot.jobsets}
    actions: list[Action] = []
    for jobset in snapshot.jobsets:
        actions += decide_jobset(jobset, jobs[jobset.ref.namespace, jobset.ref.name], now)
    for companion in snapshot.companions:
        actions += decide_companion(
            companion,
            now,
            jobset_present=(companion.ref.namespace, companion.trainjob) in present,
            grace=grace,
        )
    return sort_actions(actions)


def decide_jobset(
    jobset: JobSetState, jobs: Sequence[ChildJobState], now: datetime
) -> tuple[Action, ...]:
    """What one JobSet calls for at ``now``, given its child Jobs.

    A JobSet being deleted is left alone (as the JobSet TTL controller does). A
    finished JobSet is subject to its TTL only, a suspended one to nothing (no timer runs,
    as in Trainer), a running one to its deadlines. Jobs of another JobSet in ``jobs`` are ignored,
    so a caller's broader list can never fail or delete the wrong Jobs.
    """
    if jobset.deleting:
        return ()
    settings, notes = read_settings(jobset)
    own = [
        job
        for job in jobs
        if job.jobset == jobset.ref.name and job.ref.namespace == jobset.ref.namespace
    ]
    if is_finished(jobset):
        actions = ttl_actions(jobset, settings, own, now)
    elif is_suspended(jobset):
        actions = ()
    else:
        actions = deadline_actions(jobset, settings, own, now)
    return sort_actions((*notes, *actions))


def sort_actions(actions: Iterable[Action]) -> tuple[Action, ...]:
    """Canonical order: namespace, object name, action kind, then the rest of the record."""
    return tuple(sorted(actions, key=_sort_key))


def _sort_key(action: Action) -> tuple[str, str, int, str, str, str, str]:
    subject = subject_of(action)
    return (
        subject.namespace,
        subject.name,
        _ACTION_RANK[type(action)],
        subject.kind,
        subject.api_version,
        action.reason,
        action.message,
    )
