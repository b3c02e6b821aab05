"""When a JobSet's lifecycle windows open and close, read from the times the API server wrote.

Every quantity is a time a controller stored (``docs/upstream.md``, "Lifecycle: deadlines,
TTL, deletion"): the deadline window opens at ``metadata.creationTimestamp`` or at the last
resume (Trainer's ``reconcileDeadline``), the TTL window at the first
``Completed``/``Failed`` condition that is ``True`` (KEP-592 and JobSet's TTL controller).
Windows are compared in whole microseconds, so an annotation of
up to 2^63 - 1 seconds never overflows ``datetime``/``timedelta`` arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from trainc.sweep.model import Condition, JobSetState, Note, ObjectRef, Reason

_MICROSECOND = timedelta(microseconds=1)
_MICROS_PER_SECOND = 1_000_000

#: Condition types that make a JobSet terminal, and the one that pauses it.
_FINISHED_TYPES = ("Completed", "Failed")
_SUSPENDED = "Suspended"


@dataclass(frozen=True, slots=True)
class Window:
    """A span of ``length_us`` microseconds that opened at ``opened``.

    ``origin`` names the event that opened it (``creation``, ``last resume``, the finishing
    condition) for messages.
    """

    opened: datetime
    origin: str
    length_us: int

    @classmethod
    def of_seconds(cls, opened: datetime, origin: str, seconds: int) -> Window:
        """A window of whole seconds, the unit of every lifecycle annotation."""
        return cls(opened, origin, seconds * _MICROS_PER_SECOND)

    @classmethod
    def of_delta(cls, opened: datetime, origin: str, length: timedelta) -> Window:
        """A window given as a ``timedelta`` (the garbage grace period)."""
        return cls(opened, origin, length // _MICROSECOND)

    def remaining_us(self, now: datetime) -> int:
        """Microseconds until the window closes; negative once it has."""
        return self.length_us - (now - self.opened) // _MICROSECOND

    def exceeded(self, now: datetime) -> bool:
        """Strictly past the end: Trainer's ``now > start + activeDeadlineSeconds``."""
        return self.remaining_us(now) < 0

    def reached(self, now: datetime) -> bool:
        """At or past the end: the TTL rule, remaining ``<= 0`` (KEP-592, JobSet's TTL)."""
        return self.remaining_us(now) <= 0

    def wait_seconds(self, now: datetime) -> float:
        """Seconds until the window closes, never negative (KEP-2899 "Clock Skew Handling")."""
        return max(0, self.remaining_us(now)) / _MICROS_PER_SECOND

    def overdue_seconds(self, now: datetime) -> float:
        """Seconds since the window closed, never negative."""
        return max(0, -self.remaining_us(now)) / _MICROS_PER_SECOND

    @property
    def length_seconds(self) -> float:
        """The window's length in seconds, for messages."""
        return self.length_us / _MICROS_PER_SECOND

    def skewed(self, now: datetime) -> bool:
        """The window opens after ``now``: the API server's clock runs ahead of ours."""
        return self.opened > now


def is_finished(jobset: JobSetState) -> bool:
    """A ``Completed`` or ``Failed`` condition with status ``True`` (JobSet's finish)."""
    return finishing_condition(jobset) is not None


def finishing_condition(jobset: JobSetState) -> Condition | None:
    """The first ``Completed``/``Failed`` condition that is ``True``, in status order.

    Its ``lastTransitionTime`` is the finish time, as in the Job and JobSet TTL controllers
    (KEP-592); suspension does not move it (KEP-2899 "Interaction with Suspend").
    """
    for condition in jobset.conditions:
        if condition.type in _FINISHED_TYPES and condition.status == "True":
            return condition
    return None


def is_suspended(jobset: JobSetState) -> bool:
    """``spec.suspend`` or ``Suspended=True``: no deadline runs while either holds.

    Both count, because the controller lags the spec in each direction: a JobSet just
    suspended still says ``Suspended=False`` and one just resumed still says ``True``.
    """
    return jobset.suspended or any(
        condition.type == _SUSPENDED and condition.status == "True"
        for condition in jobset.conditions
    )


def window_start(jobset: JobSetState) -> tuple[datetime, str]:
    """When the deadline window opened, and what opened it (Trainer's ``reconcileDeadline``).

    ``metadata.creationTimestamp``, replaced by the ``lastTransitionTime`` of
    ``Suspended=False`` (the last resume): a JobSet created suspended starts counting at
    its first resume, and every resume restarts the full window. The JobSet controller adds
    ``Suspended`` only once it has been ``True``, so a never-suspended JobSet counts from
    creation. A resume without a time (the CRD requires one) falls back to creation.
    """
    for condition in jobset.conditions:
        if (
            condition.type == _SUSPENDED
            and condition.status == "False"
            and condition.last_transition is not None
        ):
            return condition.last_transition, "last resume"
    return jobset.created, "creation"


def format_time(moment: datetime) -> str:
    """RFC 3339 as the API server writes it, to the second."""
    return moment.isoformat(timespec="seconds")


def format_seconds(seconds: float) -> str:
    """Whole seconds, rounded up, so a wait is ``0s`` only when it is due now."""
    return f"{math.ceil(seconds)}s"


def pending_note(
    subject: ObjectRef, reason: Reason, window: Window, now: datetime, outcome: str
) -> Note:
    """A Note announcing ``outcome`` when ``window`` closes, carrying the wait.

    A window that opens in the future is reported as ``ClockSkew`` instead: it is
    treated as not yet expired, and the wait still counts from the stored time.
    """
    wait = window.wait_seconds(now)
    opened = f"{window.origin} at {format_time(window.opened)}"
    if window.skewed(now):
        ahead = format_seconds((window.opened - now) / timedelta(seconds=1))
        return Note(
            subject,
            Reason.CLOCK_SKEW,
            f"{opened} is {ahead} in the future (clock skew): not counted as expired; "
            f"{outcome} in {format_seconds(wait)} by the stored time",
            wait,
        )
    return Note(subject, reason, f"{outcome} in {format_seconds(wait)} ({opened})", wait)
