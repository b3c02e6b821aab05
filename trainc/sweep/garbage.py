"""Companions left behind: delete a PodGroup, PVC or ConfigMap whose JobSet is gone.

An offline compiler cannot give these objects an ownerReference to the JobSet (no UID
before apply, ``docs/design.md``, "Offline, by design"), so garbage collection never
removes them. A companion is garbage when no JobSet of its TrainJob (same name) exists in
its namespace and it is older than a grace period: a GitOps sync applies PodGroups and
claims before the JobSet, so a young companion may simply be waiting for it. Claims that
must outlive their job (``Retain``) are never deleted. While the JobSet exists, even
terminal or being deleted, its companions are left to GitOps, which would re-create them.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from trainc.sweep.model import Action, CompanionState, DeleteObject, Reason
from trainc.sweep.times import Window, format_seconds, pending_note

#: How long a companion may wait for its JobSet before it counts as garbage.
DEFAULT_GRACE = timedelta(minutes=10)


def decide_companion(
    companion: CompanionState,
    now: datetime,
    *,
    jobset_present: bool,
    grace: timedelta = DEFAULT_GRACE,
) -> tuple[Action, ...]:
    """A DeleteObject for an orphaned companion older than ``grace``, else a Note of the wait.

    The I/O layer calls this again with a fresh GET of the companion and of its JobSet
    before it deletes anything (the fresh GET of the TTL-after-finished controller,
    KEP-592). The grace period is passed strictly ("older than"), and a creation time in
    the future counts as young (clock skew).
    """
    if jobset_present or companion.retained:
        return ()
    ref = companion.ref
    window = Window.of_delta(companion.created, "creation", grace)
    missing = f"no JobSet {ref.namespace}/{companion.trainjob} for TrainJob {companion.trainjob}"
    if not window.exceeded(now):
        outcome = f"{missing}: {ref.kind} {ref.name} is deleted"
        return (pending_note(ref, Reason.ORPHANED, window, now, outcome),)
    age = format_seconds(window.length_seconds + window.overdue_seconds(now))
    message = (
        f"{missing} and {ref.kind} {ref.name} is {age} old (grace "
        f"{format_seconds(window.length_seconds)}): deleting it"
    )
    return (DeleteObject(ref, Reason.ORPHANED, message),)
