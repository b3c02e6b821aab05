"""The call budget of a pass: what it grows with, and what bounds it."""

from __future__ import annotations

from trainc.sweep.calls import SweepLimits, call_budget

LIMITS = SweepLimits()


def test_twenty_calls_cover_the_lists_and_the_retries() -> None:
    # 10,000 JobSets with their Jobs list in 14 pages; 5,000 deletions need 3 calls each.
    assert call_budget(LIMITS, listed=14, planned=5000 * 3) == 20 + 5000 * 3


def test_lists_longer_than_twenty_calls_leave_no_spare_calls() -> None:
    assert call_budget(LIMITS, listed=44, planned=300) == 44 + 300


def test_nothing_planned_leaves_the_spare_calls() -> None:
    assert call_budget(LIMITS, listed=6, planned=0) == 20


def test_max_calls_is_the_ceiling() -> None:
    assert call_budget(SweepLimits(max_calls=8), listed=6, planned=6) == 8
    assert call_budget(LIMITS, listed=14, planned=10**6) == 100_000
