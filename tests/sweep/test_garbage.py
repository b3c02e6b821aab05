"""Garbage: companions whose JobSet is gone, after the grace period, never Retain claims."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.sweep.states import Row, at, companion, completed, decided, jobset, row, summary
from trainc.sweep.garbage import decide_companion
from trainc.sweep.model import DeleteObject, Reason

ORPHANED = Reason.ORPHANED
SKEW = Reason.CLOCK_SKEW

GARBAGE = [
    row(
        "orphaned-podgroup-deleted-after-the-grace-period",
        601,
        companion("PodGroup"),
        expect=[("delete", ORPHANED, "PodGroup/train")],
    ),
    row(
        "orphaned-pvc-and-configmap-deleted-after-the-grace-period",
        601,
        companion("PersistentVolumeClaim", "train-data"),
        companion("ConfigMap", "train-hostfile"),
        expect=[
            ("delete", ORPHANED, "PersistentVolumeClaim/train-data"),
            ("delete", ORPHANED, "ConfigMap/train-hostfile"),
        ],
    ),
    row(
        "orphan-exactly-at-the-grace-period-is-kept",
        600,
        companion("PodGroup"),
        expect=[("note", ORPHANED, "train", 0.0)],
    ),
    row(
        "orphan-within-the-grace-period-reports-the-wait",
        300,
        companion("PodGroup"),
        expect=[("note", ORPHANED, "train", 300.0)],
    ),
    row(
        "retained-pvc-never-deleted",
        10**6,
        companion("PersistentVolumeClaim", "train-data", retained=True),
        expect=[],
    ),
    row(
        "companion-of-a-present-jobset-never-deleted",
        10**6,
        jobset(conditions=(completed(100),)),
        companion("PodGroup"),
        companion("ConfigMap", "train-hostfile"),
        expect=[],
    ),
    row(
        "companion-of-a-deleting-jobset-waits-for-it-to-go",
        10**6,
        jobset(deleting=True),
        companion("PodGroup"),
        expect=[],
    ),
    row(
        "jobset-of-the-same-name-in-another-namespace-does-not-count",
        601,
        jobset(namespace="team-b"),
        companion("PodGroup"),
        expect=[("delete", ORPHANED, "PodGroup/train")],
    ),
    row(
        "orphan-created-in-the-future-is-clock-skew",
        0,
        companion("PodGroup", created=60),
        expect=[("note", SKEW, "train", 660.0)],
    ),
]


@pytest.mark.parametrize("case", GARBAGE)
def test_garbage(case: Row) -> None:
    assert decided(case) == case.expected


def test_fresh_redecision_sees_the_jobset_that_appeared() -> None:
    """The I/O layer asks again after a fresh GET; a JobSet applied meanwhile keeps it."""
    podgroup = companion("PodGroup")
    assert isinstance(decide_companion(podgroup, at(601), jobset_present=False)[0], DeleteObject)
    assert decide_companion(podgroup, at(601), jobset_present=True) == ()


def test_retained_claims_are_never_deleted() -> None:
    claim = companion("PersistentVolumeClaim", "data", retained=True)
    assert decide_companion(claim, at(10**9), jobset_present=False, grace=timedelta(0)) == ()


def test_zero_grace_deletes_anything_older_than_now() -> None:
    podgroup = companion("PodGroup", created=10)
    assert [
        summary(a)
        for a in decide_companion(podgroup, at(10), jobset_present=False, grace=timedelta(0))
    ] == [("note", Reason.ORPHANED, "train", 0.0)]
    assert [
        summary(a)
        for a in decide_companion(podgroup, at(10.5), jobset_present=False, grace=timedelta(0))
    ] == [("delete", Reason.ORPHANED, "PodGroup/train")]


def test_messages_name_the_missing_jobset_and_the_age() -> None:
    pvc = companion("PersistentVolumeClaim", "train-data", "train")
    (note,) = decide_companion(pvc, at(60), jobset_present=False)
    assert note.message == (
        "no JobSet team-a/train for TrainJob train: PersistentVolumeClaim train-data is "
        "deleted in 540s (creation at 2025-03-01T12:00:00+00:00)"
    )
    (delete,) = decide_companion(pvc, at(700), jobset_present=False)
    assert delete.message == (
        "no JobSet team-a/train for TrainJob train and PersistentVolumeClaim train-data is "
        "700s old (grace 600s): deleting it"
    )
