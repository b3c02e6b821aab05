"""Builders for the sweeper's records (a JobSet, its Jobs and companions at chosen times),
and the rows of the decision tables."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypedDict, Unpack, assert_never

import pytest

from trainc.model.labels import (
    ACTIVE_DEADLINE_ANNOTATION,
    PROGRESS_DEADLINE_ANNOTATION,
    SOURCE_ANNOTATION,
    TTL_ANNOTATION,
)
from trainc.sweep.decide import decide
from trainc.sweep.model import (
    Action,
    ChildJobState,
    CompanionState,
    Condition,
    DeleteJobs,
    DeleteObject,
    FailJobs,
    JobSetState,
    Note,
    ObjectRef,
    Snapshot,
)

#: The reference instant every test counts from.
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
NS = "team-a"


def at(seconds: float) -> datetime:
    """``T0`` plus ``seconds`` (negative: before it)."""
    return T0 + timedelta(seconds=seconds)


def ref(kind: str, name: str, namespace: str = NS, api_version: str = "v1") -> ObjectRef:
    return ObjectRef(api_version, kind, namespace, name, f"uid-{namespace}-{kind}-{name}", "7")


def completed(seconds: float | None) -> Condition:
    return Condition(
        "Completed", "True", "AllJobsCompleted", None if seconds is None else at(seconds)
    )


def failed(seconds: float) -> Condition:
    return Condition("Failed", "True", "FailedJobs", at(seconds))


def suspended(seconds: float) -> Condition:
    return Condition("Suspended", "True", "SuspendedJobs", at(seconds))


def resumed(seconds: float) -> Condition:
    return Condition("Suspended", "False", "ResumeJobs", at(seconds))


class Lifecycle(TypedDict, total=False):
    """The lifecycle settings compile writes on a JobSet, and the file it came from."""

    deadline: int | str | None
    ttl: int | str | None
    progress: int | str | None
    source: str | None


def jobset(
    name: str = "train",
    namespace: str = NS,
    *,
    created: float = 0,
    suspend: bool = False,
    conditions: tuple[Condition, ...] = (),
    deleting: bool = False,
    **lifecycle: Unpack[Lifecycle],
) -> JobSetState:
    """A compiled JobSet; lifecycle settings become annotations as compile writes them
    (``source`` defaults to ``jobs/train.yaml``)."""
    settings = {
        ACTIVE_DEADLINE_ANNOTATION: lifecycle.get("deadline"),
        TTL_ANNOTATION: lifecycle.get("ttl"),
        PROGRESS_DEADLINE_ANNOTATION: lifecycle.get("progress"),
        SOURCE_ANNOTATION: lifecycle.get("source", "jobs/train.yaml"),
    }
    annotations = {key: str(value) for key, value in settings.items() if value is not None}
    return JobSetState(
        ref=ref("JobSet", name, namespace, "jobset.x-k8s.io/v1alpha2"),
        created=at(created),
        annotations=annotations,
        suspended=suspend,
        conditions=conditions,
        deleting=deleting,
    )


class PodCounts(TypedDict, total=False):
    """A Job's pods by state (none by default)."""

    ready: int
    succeeded: int
    failed: int


def job(
    name: str = "train-node-0",
    jobset_name: str = "train",
    namespace: str = NS,
    *,
    started: float | None = None,
    deadline: int | None = None,
    finished: bool = False,
    suspend: bool = False,
    **pods: Unpack[PodCounts],
) -> ChildJobState:
    return ChildJobState(
        ref=ref("Job", name, namespace, "batch/v1"),
        jobset=jobset_name,
        start_time=None if started is None else at(started),
        active_deadline=deadline,
        suspended=suspend,
        finished=finished,
        ready=pods.get("ready", 0),
        succeeded=pods.get("succeeded", 0),
        failed=pods.get("failed", 0),
        active=0 if finished else 1,
    )


def companion(
    kind: str = "PodGroup",
    name: str = "train",
    trainjob: str = "train",
    namespace: str = NS,
    *,
    created: float = 0,
    retained: bool = False,
) -> CompanionState:
    return CompanionState(ref(kind, name, namespace), trainjob, at(created), retained)


def summary(action: Action) -> tuple[object, ...]:
    """What a test asserts about an action: kind, reason, subject and payload, not prose."""
    match action:
        case FailJobs():
            deadlines = tuple((job_ref.name, value) for job_ref, value in action.deadlines)
            return ("fail", action.reason, action.jobset.name, deadlines)
        case DeleteJobs():
            return ("delete-jobs", action.reason, action.jobset.name, _names(action.jobs))
        case DeleteObject():
            return ("delete", action.reason, f"{action.target.kind}/{action.target.name}")
        case Note():
            return ("note", action.reason, action.subject.name, action.wait_seconds)
        case _:
            assert_never(action)


def _names(refs: tuple[ObjectRef, ...]) -> tuple[str, ...]:
    return tuple(item.name for item in refs)


#: A Job of JobSet ``train`` running since T0+5s, and one that finished.
RUNNING = job(started=5)
DONE = job("train-node-1", started=5, finished=True, succeeded=1)


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a decision table: a snapshot, the time, and the summaries expected."""

    snapshot: Snapshot
    now: float
    expected: list[tuple[object, ...]]


def row(
    row_id: str,
    now: float,
    *records: JobSetState | ChildJobState | CompanionState,
    expect: list[tuple[object, ...]],
) -> object:
    """A table row named ``row_id``: the records sorted into a snapshot, decided at ``now``."""
    snapshot = Snapshot(
        tuple(r for r in records if isinstance(r, JobSetState)),
        tuple(r for r in records if isinstance(r, ChildJobState)),
        tuple(r for r in records if isinstance(r, CompanionState)),
    )
    return pytest.param(Row(snapshot, now, expect), id=row_id)


def decided(case: Row) -> list[tuple[object, ...]]:
    """The summaries of what ``decide`` returns for a row."""
    return [summary(action) for action in decide(case.snapshot, at(case.now))]
