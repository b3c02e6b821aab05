"""Active and progress deadlines in detail: boundaries, the values Jobs get, progress."""

from __future__ import annotations

import pytest

from tests.sweep.states import RUNNING, Row, at, decided, job, jobset, resumed, row
from trainc.sweep.deadline import exhausted_deadline
from trainc.sweep.model import Reason

DEADLINE = Reason.DEADLINE_EXCEEDED
PROGRESS = Reason.PROGRESS_DEADLINE_EXCEEDED

DEADLINES = [
    row(
        "deadline-exactly-at-the-boundary-is-not-exceeded",
        60,
        jobset(deadline=60),
        RUNNING,
        expect=[("note", DEADLINE, "train", 0.0)],
    ),
    row(
        "deadline-one-microsecond-past-the-boundary",
        60.000001,
        jobset(deadline=60),
        RUNNING,
        expect=[("fail", DEADLINE, "train", (("train-node-0", 55),))],
    ),
    row(
        "job-not-started-gets-the-minimum",
        61,
        jobset(deadline=60),
        job(),
        expect=[("fail", DEADLINE, "train", (("train-node-0", 1),))],
    ),
    row(
        "job-started-in-the-future-gets-the-minimum",
        61,
        jobset(deadline=60),
        job(started=500),
        expect=[("fail", DEADLINE, "train", (("train-node-0", 1),))],
    ),
    row(
        "job-with-a-higher-deadline-is-lowered",
        100,
        jobset(deadline=60),
        job(started=10, deadline=3600),
        expect=[("fail", DEADLINE, "train", (("train-node-0", 90),))],
    ),
    row(
        "expired-deadline-with-no-jobs-yet-waits-for-them",
        100,
        jobset(deadline=60),
        expect=[],
    ),
    row(
        "progress-deadline-no-progress-fails-with-the-distinct-reason",
        121,
        jobset(progress=120),
        RUNNING,
        expect=[("fail", PROGRESS, "train", (("train-node-0", 116),))],
    ),
    *(
        row(
            f"progress-deadline-any-{counter}-pod-is-progress",
            10**6,
            jobset(progress=120),
            RUNNING,
            progressed,
            expect=[],
        )
        for counter, progressed in (
            ("ready", job("train-node-1", started=5, ready=1)),
            ("succeeded", job("train-node-1", started=5, succeeded=1)),
            ("failed", job("train-node-1", started=5, failed=1)),
        )
    ),
    row(
        "progress-deadline-pending-reports-the-wait",
        100,
        jobset(progress=120),
        RUNNING,
        expect=[("note", PROGRESS, "train", 20.0)],
    ),
    row(
        "progress-deadline-counts-from-the-last-resume",
        520,
        jobset(progress=50, conditions=(resumed(500),)),
        job(started=500),
        expect=[("note", PROGRESS, "train", 30.0)],
    ),
    row(
        "active-deadline-wins-when-both-expired",
        200,
        jobset(deadline=100, progress=50),
        RUNNING,
        expect=[("fail", DEADLINE, "train", (("train-node-0", 195),))],
    ),
    row(
        "progress-deadline-expired-before-the-active-one",
        60,
        jobset(deadline=1000, progress=50),
        RUNNING,
        expect=[("fail", PROGRESS, "train", (("train-node-0", 55),))],
    ),
    row(
        "both-deadlines-pending-two-waits",
        10,
        jobset(deadline=100, progress=50),
        RUNNING,
        expect=[("note", DEADLINE, "train", 90.0), ("note", PROGRESS, "train", 40.0)],
    ),
    row(
        "progress-made-leaves-only-the-active-deadline",
        10,
        jobset(deadline=100, progress=5),
        job(started=5, ready=1),
        expect=[("note", DEADLINE, "train", 90.0)],
    ),
]


@pytest.mark.parametrize("case", DEADLINES)
def test_deadlines(case: Row) -> None:
    assert decided(case) == case.expected


@pytest.mark.parametrize(
    ("started", "now", "expected"),
    [
        (None, 100, 1),
        (0, 0.5, 1),  # the API's minimum, even before a second has passed
        (0, 59.999999, 59),
        (0, 60, 60),
        (10, 5, 1),  # started in the future: clock skew between us and the Job controller
    ],
)
def test_exhausted_deadline_is_used_up_already(
    started: float | None, now: float, expected: int
) -> None:
    assert exhausted_deadline(job(started=started), at(now)) == expected
