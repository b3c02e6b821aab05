from __future__ import annotations

from datetime import timedelta

import pytest

from tests.sweep.states import T0, at, completed, failed, jobset, resumed, suspended
from trainc.sweep.model import Condition, Reason
from trainc.sweep.times import (
    Window,
    finishing_condition,
    format_seconds,
    is_finished,
    is_suspended,
    pending_note,
    window_start,
)

INT64_MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("now", "exceeded", "reached", "wait"),
    [
        (59, False, False, 1.0),
        (59.999999, False, False, 1e-6),
        (60, False, True, 0.0),  # Trainer: strictly after; KEP-592: remaining <= 0
        (60.000001, True, True, 0.0),
        (1000, True, True, 0.0),
    ],
)
def test_window_boundaries(now: float, exceeded: bool, reached: bool, wait: float) -> None:
    window = Window.of_seconds(T0, "creation", 60)
    assert (window.exceeded(at(now)), window.reached(at(now))) == (exceeded, reached)
    assert window.wait_seconds(at(now)) == wait


def test_windows_beyond_datetime_range_do_not_overflow() -> None:
    window = Window.of_seconds(T0, "creation", INT64_MAX)
    assert not window.exceeded(at(10**9))
    assert window.wait_seconds(at(10**9)) == pytest.approx(INT64_MAX - 10**9)


def test_overdue_and_length() -> None:
    window = Window.of_delta(T0, "creation", timedelta(minutes=10))
    assert window.length_seconds == 600.0
    assert window.overdue_seconds(at(601.5)) == 1.5
    assert window.overdue_seconds(at(10)) == 0.0


def test_skew_is_a_window_opening_after_now() -> None:
    window = Window.of_seconds(at(10), "creation", 0)
    assert window.skewed(T0)
    assert not window.skewed(at(10))
    assert not window.reached(T0)


def test_window_starts_at_creation_unless_resumed() -> None:
    assert window_start(jobset(created=5)) == (at(5), "creation")
    assert window_start(jobset(conditions=(suspended(10),))) == (at(0), "creation")
    assert window_start(jobset(conditions=(resumed(20),))) == (at(20), "last resume")
    untimed = Condition("Suspended", "False", "ResumeJobs", None)
    assert window_start(jobset(created=5, conditions=(untimed,))) == (at(5), "creation")


@pytest.mark.parametrize(
    ("suspend", "conditions", "expected"),
    [
        (False, (), False),
        (True, (), True),
        (False, (suspended(1),), True),
        (False, (resumed(1),), False),
        (True, (resumed(1),), True),
        (False, (Condition("Suspended", "Unknown"),), False),
    ],
)
def test_suspended_by_spec_or_condition(
    suspend: bool, conditions: tuple[Condition, ...], expected: bool
) -> None:
    assert is_suspended(jobset(suspend=suspend, conditions=conditions)) is expected


def test_finishing_condition_is_the_first_true_completed_or_failed() -> None:
    assert finishing_condition(jobset()) is None
    running = jobset(conditions=(Condition("Failed", "False"), Condition("Completed", "Unknown")))
    assert not is_finished(running)
    both = jobset(conditions=(suspended(1), completed(5), failed(9)))
    assert finishing_condition(both) == completed(5)


@pytest.mark.parametrize(("seconds", "text"), [(0, "0s"), (1e-6, "1s"), (59.5, "60s"), (60, "60s")])
def test_seconds_round_up(seconds: float, text: str) -> None:
    assert format_seconds(seconds) == text


def test_pending_note_in_the_future_is_clock_skew_with_a_positive_wait() -> None:
    subject = jobset().ref
    window = Window.of_seconds(at(30), "Completed", 0)
    note = pending_note(subject, Reason.TTL_EXPIRED, window, T0, "Jobs deleted")
    assert (note.reason, note.wait_seconds) == (Reason.CLOCK_SKEW, 30.0)
    assert note.message == (
        "Completed at 2025-03-01T12:00:30+00:00 is 30s in the future (clock skew): not counted "
        "as expired; Jobs deleted in 30s by the stored time"
    )
