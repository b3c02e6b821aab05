"""One sweep pass: list what trainc manages, decide, then act on fresh data, one record per action.

The clock is read once, by the caller, and passed in as ``now`` (``docs/design.md``,
"Determinism"): every
decision of a pass, the first and the fresh ones, and every Event use the same instant.
List data can be minutes old by the time an action's turn comes, so before any change the
objects it touches are read again and the decision is taken again on them (KEP-592, the
TTL controller's live GET; ``docs/upstream.md``, "Lifecycle: deadlines, TTL, deletion");
only the fresh action is
carried out, with the fresh ``resourceVersion`` in its preconditions. A conflict (409)
means the object changed meanwhile: read, decide and try again, a bounded number of times.
A failure on one object becomes a failed record and the pass goes on with the next.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
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
    DeleteJobs,
    DeleteObject,
    FailJobs,
    Note,
    Reason,
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
    """What every step of one pass shares: the client, the clock reading and the options."""

    client: SweepClient
    now: datetime
    dry_run: bool
    grace: timedelta

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

    With ``dry_run`` nothing is written: no patch, no delete, no Event; changes are still
    re-decided on fresh reads and reported as ``skipped``. A pass whose lists fail yields
    a single failed ``Snapshot`` record and decides nothing: a partial view could make
    live objects look orphaned.
    """
    if bool(namespaces) == all_namespaces:
        raise UsageError("sweep either the given namespaces or all namespaces")
    client.start_pass()
    scope = None if all_namespaces else tuple(namespaces)
    run = _Pass(client, now, dry_run, grace)
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
    for action in decide(snapshot, now, grace=grace):
        yield _carry_out(run, action)


def _carry_out(run: _Pass, action: Action) -> ActionRecord:
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
    attempt = 0
    while True:
        try:
            return _change_once(run, action)
        except Conflict as conflict:
            if attempt + 1 >= run.client.limits.attempts:
                return _conflicted(run, action, conflict)
            failure = _pause(run.client, attempt)
        except ApiError as error:
            failure = str(error)
        if failure is not None:
            return run.record(action, Outcome.FAILED, error=failure)
        attempt += 1


def _change_once(run: _Pass, action: Change) -> ActionRecord:
    fresh = _refresh(run, action)
    if fresh is None:
        return run.record(action, Outcome.SKIPPED, note="a fresh read shows nothing to do")
    if run.dry_run:
        return run.record(fresh, Outcome.SKIPPED, note="dry run")
    errors = _apply(run.client, fresh)
    if errors:
        return run.record(fresh, Outcome.FAILED, error="; ".join(errors))
    return run.record(fresh, Outcome.DONE, error=run.event(fresh))


def _refresh(run: _Pass, action: Change) -> Change | None:
    """The same kind of action, decided again on what the API server holds now; or None.

    A JobSet action reads the JobSet and lists its Jobs; a companion's deletion reads the
    companion and looks for its JobSet (named after the TrainJob) again.
    """
    client = run.client
    match action:
        case FailJobs() | DeleteJobs():
            ref = action.jobset
            jobset = client.read_jobset(ref.namespace, ref.name)
            if jobset is None:
                return None
            fresh = decide_jobset(jobset, client.list_jobs(ref.namespace, ref.name), run.now)
        case DeleteObject():
            companion = client.read_companion(action.target)
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
