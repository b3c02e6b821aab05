"""Which TrainJobs are done for good: the verdict on each JobSet, clock passed in."""

from __future__ import annotations

import pytest

from tests.sweep.states import at, completed, failed, jobset
from trainc.prune.verdict import Verdict, judge
from trainc.sweep.model import Condition

SOURCE = "jobs/train.yaml"


@pytest.mark.parametrize("finish", [completed(100), failed(100)])
def test_a_finished_jobset_is_done_once_its_ttl_has_passed(finish: Condition) -> None:
    state = jobset(ttl=60, conditions=(finish,))
    assert judge(state, SOURCE, at(159)).verdict is Verdict.WITHIN_TTL
    expired = judge(state, SOURCE, at(160))  # remaining <= 0, the TTL rule
    assert expired.verdict is Verdict.EXPIRED
    assert expired.reason.startswith(f"{finish.type} at ")
    assert expired.reason.endswith("its TTL of 60s has passed")


def test_a_running_or_suspended_jobset_stays() -> None:
    assert judge(jobset(ttl=60), SOURCE, at(10_000)).verdict is Verdict.RUNNING
    paused = judge(jobset(ttl=60, suspend=True), SOURCE, at(10_000))
    assert (paused.verdict, paused.reason) == (Verdict.RUNNING, "its JobSet is suspended")


def test_without_a_valid_ttl_a_finished_jobset_stays_and_says_why() -> None:
    done = (completed(100),)
    assert judge(jobset(conditions=done), SOURCE, at(10_000)).verdict is Verdict.NO_TTL
    bad = judge(jobset(ttl="soon", conditions=done), SOURCE, at(10_000))
    assert bad.verdict is Verdict.NO_TTL
    assert "'soon'" in bad.reason


def test_a_missing_jobset_or_one_compiled_from_another_file_stays() -> None:
    assert judge(None, SOURCE, at(0)).verdict is Verdict.MISSING
    done = jobset(ttl=60, conditions=(completed(100),))
    moved = judge(done, "jobs/renamed.yaml", at(10_000))
    assert moved.verdict is Verdict.OTHER_SOURCE
    assert f"'{SOURCE}'" in moved.reason
    unmarked = judge(jobset(ttl=60, conditions=(completed(100),), source=None), SOURCE, at(10_000))
    assert unmarked.verdict is Verdict.OTHER_SOURCE


def test_only_expired_removes() -> None:
    assert [v for v in Verdict if v.removes] == [Verdict.EXPIRED]
