"""Properties of the decision over arbitrary snapshots, including hand-edited annotations."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import assert_never

from hypothesis import given
from hypothesis import strategies as st

from tests.sweep.states import T0, ref
from trainc.model.labels import (
    ACTIVE_DEADLINE_ANNOTATION,
    PROGRESS_DEADLINE_ANNOTATION,
    SOURCE_ANNOTATION,
    TTL_ANNOTATION,
)
from trainc.sweep.decide import decide
from trainc.sweep.model import (
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
from trainc.sweep.times import is_finished, is_suspended

NAMESPACES = ("team-a", "team-b")
NAMES = ("a", "b", "c")

times = st.builds(
    lambda seconds, micros: T0 + timedelta(seconds=seconds, microseconds=micros),
    st.integers(-3600, 3600),
    st.sampled_from([0, 0, 1, 999_999]),
)
junk_seconds = st.one_of(
    st.integers(-5, 2**64).map(str),
    st.sampled_from(["", "0", " 1", "1.5", "٣", "1h"]),
    st.text(max_size=8),
)
#: Mostly what compile writes; one value in ten hand-edited into anything.
setting_values = st.integers(0, 9).flatmap(
    lambda draw: junk_seconds if draw == 0 else st.integers(0, 3600).map(str)
)
rarely = st.sampled_from([False, False, False, True])
#: The sweep's clock, mostly after the stored times (skew is the exception).
nows = st.builds(lambda seconds: T0 + timedelta(seconds=seconds), st.integers(-600, 7200))
annotation_maps = st.dictionaries(
    st.sampled_from(
        [
            ACTIVE_DEADLINE_ANNOTATION,
            TTL_ANNOTATION,
            PROGRESS_DEADLINE_ANNOTATION,
            SOURCE_ANNOTATION,
        ]
    ),
    setting_values,
)
conditions = st.lists(
    st.builds(
        Condition,
        st.sampled_from(["Completed", "Failed", "Suspended", "StartupPolicyCompleted"]),
        st.sampled_from(["True", "False", "Unknown"]),
        st.none(),
        st.none() | times,
    ),
    max_size=3,
).map(tuple)
jobsets = st.builds(
    lambda ns, name, created, notes, suspended, conds, deleting: JobSetState(
        ref("JobSet", name, ns), created, notes, suspended, conds, deleting
    ),
    st.sampled_from(NAMESPACES),
    st.sampled_from(NAMES),
    times,
    annotation_maps,
    rarely,
    conditions,
    rarely,
)
counters = st.sampled_from([0, 0, 0, 1])


def jobs_of(namespace: str, jobset: str) -> st.SearchStrategy[ChildJobState]:
    """Child Jobs of one JobSet, in every state a Job can be in."""
    return st.builds(
        lambda index, start, deadline, suspended, finished, ready, succeeded, failed: ChildJobState(
            ref("Job", f"{jobset}-node-{index}", namespace),
            jobset,
            start,
            deadline,
            suspended,
            finished,
            ready,
            succeeded,
            failed,
        ),
        st.integers(0, 2),
        st.none() | times,
        st.none() | st.integers(1, 3600),
        rarely,
        rarely,
        counters,
        counters,
        counters,
    )


companions = st.builds(
    lambda ns, kind, trainjob, created, retained: CompanionState(
        ref(kind, trainjob, ns), trainjob, created, retained
    ),
    st.sampled_from(NAMESPACES),
    st.sampled_from(["PodGroup", "PersistentVolumeClaim", "ConfigMap"]),
    st.sampled_from(NAMES),
    times,
    st.booleans(),
)


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    """JobSets with their Jobs, Jobs of JobSets that are gone, and companions."""
    present = draw(st.lists(jobsets, max_size=4, unique_by=lambda js: js.ref))
    owners = [(js.ref.namespace, js.ref.name) for js in present]
    owners += draw(
        st.lists(st.tuples(st.sampled_from(NAMESPACES), st.sampled_from(NAMES)), max_size=2)
    )
    jobs = [
        job
        for namespace, name in owners
        for job in draw(st.lists(jobs_of(namespace, name), max_size=3, unique_by=lambda j: j.ref))
    ]
    unique_jobs = {job.ref: job for job in jobs}
    return Snapshot(
        tuple(present),
        tuple(unique_jobs.values()),
        tuple(draw(st.lists(companions, max_size=4, unique_by=lambda c: c.ref))),
    )


def _jobset_of(snapshot: Snapshot, action: FailJobs | DeleteJobs) -> JobSetState:
    (jobset,) = (js for js in snapshot.jobsets if js.ref == action.jobset)
    return jobset


def _own_jobs(snapshot: Snapshot, jobset: ObjectRef) -> dict[ObjectRef, ChildJobState]:
    return {
        job.ref: job
        for job in snapshot.jobs
        if (job.ref.namespace, job.jobset) == (jobset.namespace, jobset.name)
    }


@given(snapshots(), nows)
def test_actions_respect_the_lifecycle_state(snapshot: Snapshot, now: datetime) -> None:
    """No FailJobs for a finished, suspended or deleting JobSet; no negative wait; and so on."""
    for action in decide(snapshot, now):
        match action:
            case FailJobs():
                jobset = _jobset_of(snapshot, action)
                assert not jobset.deleting
                assert not is_finished(jobset)
                assert not is_suspended(jobset)
                own = _own_jobs(snapshot, action.jobset)
                assert action.deadlines
                for job_ref, value in action.deadlines:
                    current = own[job_ref].active_deadline
                    assert not own[job_ref].finished
                    assert value >= 1
                    assert current is None or current > value
            case DeleteJobs():
                jobset = _jobset_of(snapshot, action)
                assert is_finished(jobset)
                assert not jobset.deleting
                assert set(action.jobs) == set(_own_jobs(snapshot, action.jobset))
            case DeleteObject():
                (orphan,) = (c for c in snapshot.companions if c.ref == action.target)
                assert not orphan.retained
                present = {(js.ref.namespace, js.ref.name) for js in snapshot.jobsets}
                assert (orphan.ref.namespace, orphan.trainjob) not in present
            case Note():
                assert action.wait_seconds is None or action.wait_seconds >= 0
            case _:
                assert_never(action)


@given(snapshots(), nows)
def test_enforcement_is_idempotent(snapshot: Snapshot, now: datetime) -> None:
    """A sweep after the Jobs were patched (and before the Job controller acts) is a no-op."""
    lowered = {
        job_ref: value
        for action in decide(snapshot, now)
        if isinstance(action, FailJobs)
        for job_ref, value in action.deadlines
    }
    patched = dataclasses.replace(
        snapshot,
        jobs=tuple(
            dataclasses.replace(job, active_deadline=lowered.get(job.ref, job.active_deadline))
            for job in snapshot.jobs
        ),
    )
    assert not any(isinstance(a, FailJobs) for a in decide(patched, now))


@given(st.data(), snapshots(), nows)
def test_the_order_of_the_snapshot_does_not_matter(
    data: st.DataObject, snapshot: Snapshot, now: datetime
) -> None:
    shuffled = Snapshot(
        tuple(data.draw(st.permutations(snapshot.jobsets))),
        tuple(data.draw(st.permutations(snapshot.jobs))),
        tuple(data.draw(st.permutations(snapshot.companions))),
    )
    assert decide(shuffled, now) == decide(snapshot, now)
