"""What the sweeper sees and what it decides: plain, immutable records.

The I/O layer (:mod:`trainc.sweep.client`) turns API objects into these records and
carries out actions; the decision (:mod:`trainc.sweep.decide`) is a pure function of a
snapshot and the current time, so every lifecycle case is a unit test without a cluster.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import assert_never


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """Identity of a live object, with what delete/patch preconditions need."""

    api_version: str
    kind: str
    namespace: str
    name: str
    uid: str
    resource_version: str


@dataclass(frozen=True, slots=True)
class Condition:
    """A status condition; ``last_transition`` is None when the server did not set it."""

    type: str
    status: str
    reason: str | None = None
    last_transition: datetime | None = None


@dataclass(frozen=True, slots=True)
class JobSetState:
    """A JobSet trainc compiled, as the sweeper reads it.

    ``annotations`` carries trainc's lifecycle settings (``trainc.dev/*``) and the source
    file of the TrainJob; ``suspended`` is ``spec.suspend``.
    """

    ref: ObjectRef
    created: datetime
    annotations: dict[str, str]
    suspended: bool
    conditions: tuple[Condition, ...] = ()
    deleting: bool = False


@dataclass(frozen=True, slots=True)
class ChildJobState:
    """A batch/v1 Job the JobSet controller created for a JobSet (git does not own it).

    ``active_deadline`` is the Job's ``spec.activeDeadlineSeconds``; the counters are the
    Job's status (``ready``, ``succeeded``, ``failed``, ``active``).
    """

    ref: ObjectRef
    jobset: str
    start_time: datetime | None
    active_deadline: int | None
    suspended: bool
    finished: bool
    ready: int = 0
    succeeded: int = 0
    failed: int = 0
    active: int = 0


@dataclass(frozen=True, slots=True)
class CompanionState:
    """A PodGroup, PVC or ConfigMap compiled for a TrainJob (labelled with its name).

    ``retained`` marks PVCs of a ``Retain`` claim policy, which must outlive their job.
    ``created`` lets the garbage pass spare a companion a GitOps sync has just applied
    ahead of its JobSet (PodGroups and claims are applied first).
    """

    ref: ObjectRef
    trainjob: str
    created: datetime
    retained: bool = False


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything trainc manages in the namespaces of one sweep."""

    jobsets: tuple[JobSetState, ...] = ()
    jobs: tuple[ChildJobState, ...] = ()
    companions: tuple[CompanionState, ...] = ()


class Reason(enum.StrEnum):
    """Why an action is taken; Event reasons and log keys."""

    DEADLINE_EXCEEDED = "DeadlineExceeded"
    PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded"
    TTL_EXPIRED = "TTLExpired"
    ORPHANED = "Orphaned"
    CLOCK_SKEW = "ClockSkew"
    INVALID_SETTING = "InvalidSetting"


@dataclass(frozen=True, slots=True)
class FailJobs:
    """Fail a JobSet's running Jobs by lowering their ``activeDeadlineSeconds``.

    The Job controller then fails each with reason ``DeadlineExceeded`` and the JobSet
    turns terminal; the git-declared JobSet itself is never edited or deleted.
    ``deadlines`` pairs each Job with the value to set (already exceeded).
    """

    jobset: ObjectRef
    reason: Reason
    message: str
    deadlines: tuple[tuple[ObjectRef, int], ...]


@dataclass(frozen=True, slots=True)
class DeleteJobs:
    """Delete a finished JobSet's Jobs (and through them its pods) after its TTL."""

    jobset: ObjectRef
    reason: Reason
    message: str
    jobs: tuple[ObjectRef, ...]


@dataclass(frozen=True, slots=True)
class DeleteObject:
    """Delete a companion (PodGroup, PVC, ConfigMap) whose JobSet no longer exists."""

    target: ObjectRef
    reason: Reason
    message: str


@dataclass(frozen=True, slots=True)
class Note:
    """Something worth a log line and an Event, with no change to the cluster."""

    subject: ObjectRef
    reason: Reason
    message: str
    wait_seconds: float | None = field(default=None)


Action = FailJobs | DeleteJobs | DeleteObject | Note


def subject_of(action: Action) -> ObjectRef:
    """The object an action is about: the JobSet for its Jobs, the companion, the Note's."""
    match action:
        case FailJobs() | DeleteJobs():
            return action.jobset
        case DeleteObject():
            return action.target
        case Note():
            return action.subject
        case _:
            assert_never(action)
