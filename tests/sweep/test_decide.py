"""The decision, case by case: the KEP-2899 and KEP-592 (``KEP_26``) test plans and the
sweeper's own cases of bad settings and a JobSet being deleted (``SETTINGS``).

Each row is a snapshot, a time, and the actions expected, summarised as (kind, reason,
subject, payload) so the rows read as the test plans do. Deadline details are in
``test_deadline.py``, garbage in ``test_garbage.py``.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.sweep.states import (
    DONE,
    RUNNING,
    T0,
    Row,
    at,
    companion,
    completed,
    decided,
    failed,
    job,
    jobset,
    resumed,
    row,
    summary,
    suspended,
)
from trainc.sweep.decide import decide, decide_jobset
from trainc.sweep.model import (
    ChildJobState,
    Condition,
    DeleteJobs,
    FailJobs,
    Note,
    Reason,
    Snapshot,
)

DEADLINE = Reason.DEADLINE_EXCEEDED
TTL = Reason.TTL_EXPIRED
SKEW = Reason.CLOCK_SKEW
ORPHANED = Reason.ORPHANED
INVALID = Reason.INVALID_SETTING


def _finished_jobs() -> tuple[ChildJobState, ChildJobState]:
    return job(started=5, finished=True, succeeded=1), DONE


KEP_2899_UNIT = [
    row(
        "ttl-from-runtime-deletes-jobs-after-expiry",
        161,
        jobset(ttl=60, conditions=(completed(100),)),
        *_finished_jobs(),
        expect=[("delete-jobs", TTL, "train", ("train-node-0", "train-node-1"))],
    ),
    row(
        "ttl-unset-never-deletes",
        10**9,
        jobset(conditions=(completed(100),)),
        *_finished_jobs(),
        expect=[],
    ),
    row(
        "ttl-zero-deletes-at-the-finish-instant",
        100,
        jobset(ttl=0, conditions=(completed(100),)),
        *_finished_jobs(),
        expect=[("delete-jobs", TTL, "train", ("train-node-0", "train-node-1"))],
    ),
    row(
        "deadline-set-and-exceeded-fails-running-jobs-with-deadline-exceeded",
        61,
        jobset(deadline=60),
        RUNNING,
        DONE,
        expect=[("fail", DEADLINE, "train", (("train-node-0", 56),))],
    ),
    row(
        "deadline-unset-no-enforcement",
        10**9,
        jobset(),
        RUNNING,
        expect=[],
    ),
    row(
        "deadline-not-reached-reports-the-wait",
        40,
        jobset(deadline=60),
        RUNNING,
        expect=[("note", DEADLINE, "train", 20.0)],
    ),
    row(
        "clock-skew-creation-in-the-future-waits-never-negative",
        0,
        jobset(created=100, deadline=60),
        RUNNING,
        expect=[("note", SKEW, "train", 160.0)],
    ),
]

KEP_2899_INTEGRATION = [
    row(
        "created-suspended-no-timer-until-first-resume",
        10**6,
        jobset(suspend=True, deadline=60, conditions=(suspended(0),)),
        job(suspend=True),
        expect=[],
    ),
    row(
        "created-suspended-then-resumed-full-window-from-resume",
        950,
        jobset(deadline=60, conditions=(resumed(900),)),
        job(started=901),
        expect=[("note", DEADLINE, "train", 10.0)],
    ),
    row(
        "created-suspended-then-resumed-expires-after-the-window",
        961,
        jobset(deadline=60, conditions=(resumed(900),)),
        job(started=901),
        expect=[("fail", DEADLINE, "train", (("train-node-0", 60),))],
    ),
    row(
        "running-suspended-and-resumed-window-restarts",
        540,
        jobset(deadline=60, conditions=(resumed(500),)),
        job(started=500),
        expect=[("note", DEADLINE, "train", 20.0)],
    ),
    row(
        "suspended-while-running-no-enforcement",
        10**6,
        jobset(suspend=True, deadline=60, progress=30, conditions=(suspended(30),)),
        job(suspend=True),
        expect=[],
    ),
    row(
        "suspend-requested-before-the-controller-saw-it",
        10**6,
        jobset(suspend=True, deadline=60, conditions=(resumed(10),)),
        RUNNING,
        expect=[],
    ),
    row(
        "resume-requested-before-the-controller-saw-it",
        10**6,
        jobset(deadline=60, conditions=(suspended(10),)),
        job(suspend=True),
        expect=[],
    ),
    row(
        "finished-while-suspended-ttl-counts-from-the-finish",
        550,
        jobset(suspend=True, ttl=100, conditions=(suspended(10), failed(500))),
        job(finished=True),
        expect=[("note", TTL, "train", 50.0)],
    ),
    row(
        "finished-while-suspended-deleted-after-ttl-from-the-finish",
        600,
        jobset(suspend=True, ttl=100, conditions=(suspended(10), failed(500))),
        job(finished=True),
        expect=[("delete-jobs", TTL, "train", ("train-node-0",))],
    ),
    row(
        "finished-jobset-deadline-left-alone",
        10**6,
        jobset(deadline=60, progress=10, conditions=(completed(100),)),
        job(started=5, deadline=1000),
        expect=[],
    ),
    row(
        "cascade-ttl-deletes-every-job-finished-or-not",
        200,
        jobset(ttl=60, conditions=(failed(100),)),
        RUNNING,
        DONE,
        expect=[("delete-jobs", TTL, "train", ("train-node-0", "train-node-1"))],
    ),
    row(
        "restart-after-enforcement-jobs-already-low-is-a-no-op",
        5000,
        jobset(deadline=60, progress=30),
        job(started=5, deadline=56),
        job("train-node-1", deadline=1),
        expect=[],
    ),
    row(
        "restart-partial-enforcement-finishes-the-rest",
        5000,
        jobset(deadline=60),
        job(started=5, deadline=56),
        job("train-node-1"),
        expect=[("fail", DEADLINE, "train", (("train-node-1", 1),))],
    ),
    row(
        "restart-missed-expiry-acts-immediately",
        10**6,
        jobset(ttl=60, conditions=(completed(100),)),
        job(finished=True),
        expect=[("delete-jobs", TTL, "train", ("train-node-0",))],
    ),
]

KEP_26 = [
    row(
        "unfinished-jobset-is-not-deleted",
        10**6,
        jobset(ttl=0),
        RUNNING,
        expect=[],
    ),
    row(
        "completed-false-is-not-finished",
        10**6,
        jobset(ttl=0, conditions=(Condition("Completed", "False", None, at(100)),)),
        RUNNING,
        expect=[],
    ),
    row(
        "failed-counts-as-finished",
        200,
        jobset(ttl=60, conditions=(failed(100),)),
        job(finished=True),
        expect=[("delete-jobs", TTL, "train", ("train-node-0",))],
    ),
    row(
        "ttl-not-expired-requeues-by-the-remaining-time",
        130,
        jobset(ttl=60, conditions=(completed(100),)),
        job(finished=True),
        expect=[("note", TTL, "train", 30.0)],
    ),
    row(
        "ttl-expires-exactly-at-finish-plus-ttl",
        160,
        jobset(ttl=60, conditions=(completed(100),)),
        job(finished=True),
        expect=[("delete-jobs", TTL, "train", ("train-node-0",))],
    ),
    row(
        "ttl-one-microsecond-before-expiry",
        159.999999,
        jobset(ttl=60, conditions=(completed(100),)),
        job(finished=True),
        expect=[("note", TTL, "train", 1e-6)],
    ),
    row(
        "finish-time-is-the-first-finishing-condition",
        200,
        jobset(ttl=60, conditions=(failed(100), completed(300))),
        job(finished=True),
        expect=[("delete-jobs", TTL, "train", ("train-node-0",))],
    ),
    row(
        "finish-without-a-time-cannot-start-the-ttl",
        10**6,
        jobset(ttl=0, conditions=(completed(None),)),
        job(finished=True),
        expect=[],
    ),
    row(
        "expired-ttl-with-nothing-left-to-delete-is-quiet",
        10**6,
        jobset(ttl=60, conditions=(completed(100),)),
        expect=[],
    ),
    row(
        "clock-skew-finish-in-the-future-is-not-expired",
        50,
        jobset(ttl=0, conditions=(completed(100),)),
        job(finished=True),
        expect=[("note", SKEW, "train", 50.0)],
    ),
]


SETTINGS = [
    row(
        "invalid-deadline-noted-and-not-enforced",
        10**6,
        jobset(deadline="8h"),
        RUNNING,
        expect=[("note", INVALID, "train", None)],
    ),
    row(
        "invalid-ttl-noted-valid-deadline-still-enforced",
        61,
        jobset(deadline=60, ttl="-1"),
        RUNNING,
        expect=[
            ("fail", DEADLINE, "train", (("train-node-0", 56),)),
            ("note", INVALID, "train", None),
        ],
    ),
    row(
        "invalid-ttl-on-a-finished-jobset-deletes-nothing",
        10**6,
        jobset(ttl="1e3", conditions=(completed(100),)),
        job(finished=True),
        expect=[("note", INVALID, "train", None)],
    ),
    row(
        "deleting-jobset-is-skipped",
        10**6,
        jobset(deadline=60, ttl="bad", deleting=True),
        RUNNING,
        expect=[],
    ),
]


@pytest.mark.parametrize("case", KEP_2899_UNIT + KEP_2899_INTEGRATION + KEP_26 + SETTINGS)
def test_decide(case: Row) -> None:
    assert decided(case) == case.expected


def test_the_same_snapshot_later_gives_the_later_action() -> None:
    """Restart of the sweeper: nothing is remembered between runs, only times are stored."""
    snapshot = Snapshot((jobset(deadline=60, ttl=30),), (RUNNING,))
    assert [summary(a) for a in decide(snapshot, at(30))] == [("note", DEADLINE, "train", 30.0)]
    fail = decide(snapshot, at(90))
    assert [summary(a) for a in fail] == [("fail", DEADLINE, "train", (("train-node-0", 85),))]
    assert isinstance(fail[0], FailJobs)
    enforced = Snapshot(snapshot.jobsets, (job(started=5, deadline=fail[0].deadlines[0][1]),))
    assert decide(enforced, at(95)) == ()
    finished = Snapshot(
        (jobset(deadline=60, ttl=30, conditions=(failed(92),)),),
        (job(started=5, deadline=85, finished=True),),
    )
    assert [summary(a) for a in decide(finished, at(100))] == [("note", TTL, "train", 22.0)]
    assert [summary(a) for a in decide(finished, at(122))] == [
        ("delete-jobs", TTL, "train", ("train-node-0",))
    ]


def test_grace_period_is_configurable() -> None:
    snapshot = Snapshot(companions=(companion("PodGroup"),))
    assert decide(snapshot, at(61), grace=timedelta(minutes=10))[0].reason is ORPHANED
    assert [summary(a) for a in decide(snapshot, at(61), grace=timedelta(minutes=1))] == [
        ("delete", ORPHANED, "PodGroup/train")
    ]


def test_fresh_redecision_sees_a_changed_ttl() -> None:
    """KEP-592: the TTL is checked again on a fresh GET; a longer TTL now keeps the Jobs."""
    jobs = [job(finished=True)]
    stale = jobset(ttl=60, conditions=(completed(100),))
    fresh = jobset(ttl=3600, conditions=(completed(100),))
    assert isinstance(decide_jobset(stale, jobs, at(200))[0], DeleteJobs)
    assert [summary(a) for a in decide_jobset(fresh, jobs, at(200))] == [
        ("note", TTL, "train", 3500.0)
    ]


def test_decide_jobset_ignores_jobs_of_other_jobsets() -> None:
    strangers = [job("other-node-0", "other", started=5), job(namespace="team-b", started=5)]
    assert decide_jobset(jobset(deadline=60), strangers, at(100)) == ()


def test_ttl_message_names_the_file_to_remove_from_git() -> None:
    snapshot = Snapshot((jobset(ttl=0, conditions=(completed(100),)),), (job(finished=True),))
    (action,) = decide(snapshot, at(100))
    assert isinstance(action, DeleteJobs)
    assert "remove jobs/train.yaml from git" in action.message


def test_ttl_message_without_a_source_annotation_names_the_trainjob() -> None:
    snapshot = Snapshot(
        (jobset(ttl=0, source=None, conditions=(completed(100),)),), (job(finished=True),)
    )
    (action,) = decide(snapshot, at(100))
    assert "the file of TrainJob team-a/train" in action.message


def test_messages_say_what_happens_and_when() -> None:
    running = Snapshot((jobset(deadline=60, progress=30),), (RUNNING,))
    notes = decide(running, at(10))
    assert [note.message for note in notes] == [
        "active deadline of 60s: Jobs fail in 50s (creation at 2025-03-01T12:00:00+00:00)",
        "progress deadline of 30s: Jobs fail unless a pod becomes ready or finishes in 20s "
        "(creation at 2025-03-01T12:00:00+00:00)",
    ]
    (fail,) = decide(running, at(61.5))
    assert fail.message == (
        "active deadline of 60s passed 2s ago (counted from creation at "
        "2025-03-01T12:00:00+00:00); failing 1 Job with reason DeadlineExceeded"
    )
    (skew,) = decide(Snapshot((jobset(created=100, deadline=60),)), at(0))
    assert skew.message.startswith("creation at 2025-03-01T12:01:40+00:00 is 100s in the future")


def test_invalid_setting_message_names_the_value_and_the_file() -> None:
    (note,) = decide(Snapshot((jobset(progress="0"),)), T0)
    assert isinstance(note, Note)
    assert "trainc.dev/progress-deadline-seconds='0'" in note.message
    assert "jobs/train.yaml" in note.message


def test_namespaces_then_names_then_action_kind() -> None:
    snapshot = Snapshot(
        jobsets=(
            jobset("b", "team-b", deadline=60),
            jobset("a", "team-b", deadline="x"),
            jobset("train", "team-a", deadline=60, ttl="x"),
        ),
        jobs=(job("b-node-0", "b", "team-b"), job("train-node-0")),
        companions=(
            companion("PodGroup", "a", "gone", "team-b"),
            companion("ConfigMap", "z", "gone"),
        ),
    )
    assert [summary(a) for a in decide(snapshot, at(1000))] == [
        ("fail", DEADLINE, "train", (("train-node-0", 1),)),
        ("note", INVALID, "train", None),
        ("delete", ORPHANED, "ConfigMap/z"),
        ("delete", ORPHANED, "PodGroup/a"),
        ("note", INVALID, "a", None),
        ("fail", DEADLINE, "b", (("b-node-0", 1),)),
    ]
