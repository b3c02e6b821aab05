"""What to do when the API server refuses to update an object: put the change in a new one.

Fields under a transition rule (``self == oldSelf``) never change on a live object, and a
deployed JobSet takes no edit of its jobs: the update is refused whatever is retried. The
way out is a new object under a new ``metadata.name``, which for a TrainJob is a new job
and for a runtime a new blueprint for new TrainJobs (a TrainJob's ``runtimeRef`` is
immutable, so the deployed ones keep the runtime they were compiled from). Every finding
of a refused update ends with this advice, worded here once.
"""

from __future__ import annotations

from trainc.model.kinds import TRAINJOB

#: The fix for a refused TrainJob update.
NEW_TRAINJOB = "to change it, submit the job under a new metadata.name"
#: The fix for a refused runtime update.
NEW_RUNTIME = (
    "to change it, put the change in a new runtime (a new metadata.name) for new TrainJobs, "
    "and keep this one as it is for the jobs already deployed from it"
)


def new_object_fix(kind: str) -> str:
    """How to make a change that an object of ``kind`` refuses on update."""
    return NEW_TRAINJOB if kind == TRAINJOB.kind else NEW_RUNTIME
