"""One sweep pass: list what trainc manages, decide, then act on fresh data, one record per action.

The clock is read once, by the caller, and passed in as ``now`` (``docs/design.md``,
"Determinism"): every decision of a pass, the first and the fresh ones, and every Event
use the same instant. The API cost does not grow with the objects listed: each kind is
listed once per namespace (label-selected, paged) and joined in memory. Only what is
about to be changed is read again, as the TTL controller reads live before it deletes
(https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/ttlafterfinished/ttlafterfinished_controller.go):
a JobSet action reads its JobSet and decides again on it with the Jobs of the list, a
companion's deletion looks for its JobSet again; each change carries the listed object's
``uid`` and ``resourceVersion`` as preconditions, so an object changed since the list
answers 409 Conflict, and the action is then decided again on fresh reads of everything
it touches, a bounded number of times. A dry run changes nothing and so reads nothing
again: it reports the decisions of the lists. Actions run a few at a time
(``SweepLimits.concurrency``); records come out in the order the actions were decided. A
failure on one object becomes a failed record and the pass goes on with the next.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import assert_never

from trainc.errors import UsageError
from trainc.model.json import JsonObject
from trainc.sweep.calls import ApiError, Conflict
from trainc.sweep.client import SweepClient
from trainc.sweep.decide import decide, decide_jobset
from trainc.sweep.garbage import DEFAULT_GRACE, decide_companion
from trainc.sweep.model import (
    Action,
    ChildJobState,
    CompanionState,
    DeleteJobs,
    DeleteObject,
    FailJobs,
    Note,
    ObjectRef,
    Reason,
    Snapshot,
    subject_of,
)
from trainc.sweep.times import format_time

#: Actions that change the cluster, each re-decided on fresh data first.
Change = FailJobs | DeleteJobs | DeleteObject

#: Reasons whose Events are Warnings: a training was stopped, or a person must look.
_WARNINGS = frozenset(
    {
        Reason.DEADLINE_EXCEEDED,
        Reason.PROGRESS_DEADLINE_EXCEEDED,
        Reason.CLOCK_SKEW,
        Reason.INVALID_SETTING,
    }
)
#: Notes worth an Event; the others announce a wait and are only logged (no Event spam).
_NOTE_EVENTS = frozenset({Reason.CLOCK_SKEW, Reason.INVALID_SETTING})


class Outcome(enum.StrEnum):
    """What became of an action."""

    DONE = "done"
    SKIPPED = "skipped"
    FAILED = "failed"


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionRecord:
    """One action of a pass, as logged (one JSON line) and summarised.

    ``subject`` is ``Kind/name`` of the object the action is about (the JobSet for its
    Jobs). ``error`` says why an action failed, or that its Event could not be recorded.
    """

    timestamp: datetime
    action: str
    reason: str
    namespace: str
    subject: str
    message: str
    dry_run: bool
    outcome: Outcome
    error: str | None = None

    def to_json(self) -> JsonObject:
        """The record with the JSON keys of the log line."""
        return {
            "timestamp": format_time(self.timestamp),
            "action": self.action,
            "reason": self.reason,
            "namespace": self.namespace,
            "object": self.subject,
            "message": self.message,
            "dryRun": self.dry_run,
            "outcome": str(self.outcome),
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class _Pass:
    """What every step of one pass shares: the client, the clock reading, the options, and
    what the lists found (each JobSet's Jobs, the companions), to act on without reading
    them again."""

    client: SweepClient
    now: datetime
    dry_run: bool
    grace: timedelta
    jobs: Mapping[tuple[str, str], tuple[ChildJobState, ...]] = field(default_factory=dict)
    companions: Mapping[ObjectRef, CompanionState] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        client: SweepClient,
        snapshot: Snapshot,
        now: datetime,
        *,
        dry_run: bool,
        grace: timedelta,
    ) -> _Pass:
        """A pass over ``snapshot``."""
        jobs: dict[tuple[str, str], list[ChildJobState]] = {}
        for job in snapshot.jobs:
            jobs.setdefault((job.ref.namespace, job.jobset), []).append(job)
        return cls(
            client,
            now,
            dry_run,
            grace,
            {key: tuple(listed) for key, listed in jobs.items()},
            {companion.ref: companion for companion in snapshot.companions},
        )

    def record(
        self, action: Action, outcome: Outcome, *, note: str = "", error: str | None = None
    ) -> ActionRecord:
        subject = subject_of(action)
        return ActionRecord(
            timestamp=self.now,
            action=type(action).__name__,
            reason=str(action.reason),
            namespace=subject.namespace,
            subject=f"{subject.kind}/{subject.name}",
            message=f"{action.message} ({note})" if note else action.message,
            dry_run=self.dry_run,
            outcome=outcome,
            error=error,
        )

    def event(self, action: Action) -> str | None:
        """Record the action as an Event on its subject; the error text if that failed."""
        try:
            self.client.record_event(
                subject_of(action),
                reason=str(action.reason),
                message=action.message,
                warning=action.reason in _WARNINGS,
                now=self.now,
            )
        except ApiError as error:
            return f"the Event was not recorded: {error}"
        return None


def sweep(
    client: SweepClient,
    *,
    namespaces: Sequence[str] = (),
    all_namespaces: bool = False,
    now: datetime,
    dry_run: bool,
    grace: timedelta = DEFAULT_GRACE,
) -> Iterator[ActionRecord]:
    """Sweep ``namespaces`` (or all of them) at ``now``; one record per action, lazily.

    With ``dry_run`` nothing is written (no patch, delete or Event) and nothing read
    again: changes are reported as ``skipped``. A pass whose lists fail yields a single
    failed ``Snapshot`` record and decides nothing: a partial view could make live
    objects look orphaned.
    """
    if bool(namespaces) == all_namespaces:
        raise UsageError("sweep either the given namespaces or all namespaces")
    client.start_pass()
    scope = None if all_namespaces else tuple(namespaces)
    try:
        snapshot = client.snapshot(scope)
    except ApiError as error:
        yield ActionRecord(
            timestamp=now,
            action="Snapshot",
            reason="ListFailed",
            namespace=",".join(namespaces),
            subject="",
            message="could not list the objects trainc manages; nothing was decided",
            dry_run=dry_run,
            outcome=Outcome.FAILED,
            error=str(error),
        )
        return
    run = _Pass.of(client, snapshot, now, dry_run=dry_run, grace=grace)
    actions = decide(snapshot, now, grace=grace)
    needed = [_calls_needed(run, action) for action in actions]
    # The budget grows with the plan, then is shared out in decision order before any
    # action runs, so which action it stops does not depend on the threads (Caller.share).
    client.plan(sum(needed))
    shares = [client.share(calls) for calls in needed]
    with ThreadPoolExecutor(max_workers=client.limits.concurrency) as pool:
        yield from pool.map(partial(_carry_out, run), actions, shares)


def _calls_needed(run: _Pass, action: Action) -> int:
    """The calls ``action`` makes when nothing conflicts or fails: a fresh read, one write
    per object, and its Event."""
    match action:
        case Note():
            return 1 if action.reason in _NOTE_EVENTS and not run.dry_run else 0
        case _ if run.dry_run:
            return 0
        case FailJobs():
            return 2 + len(action.deadlines)
        case DeleteJobs():
            return 2 + len(action.jobs)
        case DeleteObject():
            return 3
        case _:
            assert_never(action)


def _carry_out(run: _Pass, action: Action, share: int) -> ActionRecord:
    with run.client.spending(share):
        return _carried_out(run, action)


def _carried_out(run: _Pass, action: Action) -> ActionRecord:
    match action:
        case Note():
            error = None
            if action.reason in _NOTE_EVENTS and not run.dry_run:
                error = run.event(action)
            return run.record(action, Outcome.DONE, error=error)
        case FailJobs() | DeleteJobs() | DeleteObject():
            return _change(run, action)
        case _:
            assert_never(action)


def _change(run: _Pass, action: Change) -> ActionRecord:
    """Read fresh, decide again, act; on a conflict, again, up to the client's attempts."""
    if run.dry_run:
        return run.record(action, Outcome.SKIPPED, note="dry run")
    attempt = 0
    while True:
        try:
            return _change_once(run, action, listed=attempt == 0)
        except Conflict as conflict:
            if attempt + 1 >= run.client.limits.attempts:
                return _conflicted(run, action, conflict)
            failure = _pause(run.client, attempt)
        except ApiError as error:
            failure = str(error)
        if failure is not None:
            return run.record(action, Outcome.FAILED, error=failure)
        attempt += 1


def _change_once(run: _Pass, action: Change, *, listed: bool) -> ActionRecord:
    fresh = _refresh(run, action, listed=listed)
    if fresh is None:
        return run.record(action, Outcome.SKIPPED, note="a fresh read shows nothing to do")
    errors = _apply(run.client, fresh)
    if errors:
        return run.record(fresh, Outcome.FAILED, error="; ".join(errors))
    return run.record(fresh, Outcome.DONE, error=run.event(fresh))


def _refresh(run: _Pass, action: Change, *, listed: bool) -> Change | None:
    """The same kind of action, decided again on what the API server holds now; or None.

    A JobSet action reads the JobSet; its Jobs are the listed ones while ``listed`` (the
    first attempt: the preconditions catch a Job changed since), else listed again. A
    companion's deletion looks for its JobSet (named after the TrainJob) again; the
    companion itself is the listed one while ``listed``, else read again.
    """
    client = run.client
    match action:
        case FailJobs() | DeleteJobs():
            ref = action.jobset
            jobset = client.read_jobset(ref.namespace, ref.name)
            if jobset is None:
                return None
            key = (ref.namespace, ref.name)
            jobs = run.jobs.get(key, ()) if listed else client.list_jobs(*key)
            fresh = decide_jobset(jobset, jobs, run.now)
        case DeleteObject():
            companion = (
                run.companions.get(action.target)
                if listed
                else client.read_companion(action.target)
            )
            if companion is None:
                return None
            present = client.read_jobset(companion.ref.namespace, companion.trainjob) is not None
            fresh = decide_companion(companion, run.now, jobset_present=present, grace=run.grace)
        case _:
            assert_never(action)
    changes = [candidate for candidate in fresh if not isinstance(candidate, Note)]
    return next((change for change in changes if type(change) is type(action)), None)


def _apply(client: SweepClient, change: Change) -> list[str]:
    """Carry out ``change`` object by object; the errors of those that failed.

    A 404 means already gone (nothing to do); a :class:`Conflict` propagates so the whole
    action is re-decided, and objects already done then need nothing more.
    """
    steps: list[Callable[[], bool]]
    match change:
        case FailJobs():
            steps = [partial(client.set_active_deadline, job, s) for job, s in change.deadlines]
        case DeleteJobs():
            steps = [partial(client.delete, job) for job in change.jobs]
        case DeleteObject():
            steps = [partial(client.delete, change.target)]
        case _:
            assert_never(change)
    errors: list[str] = []
    for step in steps:
        try:
            step()
        except Conflict:
            raise
        except ApiError as error:
            errors.append(str(error))
    return errors


def _pause(client: SweepClient, attempt: int) -> str | None:
    """Back off before the next attempt; the error text if the time budget forbids it."""
    try:
        client.pause(attempt)
    except ApiError as error:
        return str(error)
    return None


def _conflicted(run: _Pass, action: Change, conflict: Conflict) -> ActionRecord:
    """Still conflicting after every attempt: a deletion waits for the next run.

    A 409 on a precondition means the object changed or was re-created, which the next
    run re-evaluates from scratch; a deadline that cannot be set is a failure.
    """
    if isinstance(action, FailJobs):
        return run.record(action, Outcome.FAILED, error=str(conflict))
    note = "the object kept changing (409 Conflict); re-evaluated next run"
    return run.record(action, Outcome.SKIPPED, note=note)
