"""The worker pool: results in order from forked workers, errors as themselves, no orphans."""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path

import pytest

from trainc.cache.collection import collected_again, collection_paused
from trainc.engine import workers
from trainc.engine.workers import check_jobs, ordered, workers_for
from trainc.errors import CompilerBug, UsageError


@pytest.fixture(autouse=True)
def every_run_pays(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool for any number of items, so small inputs exercise it."""
    monkeypatch.setattr(workers, "MIN_ITEMS_PER_WORKER", 1)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _gone(pids: set[int]) -> bool:
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(_alive(pid) for pid in pids)


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_results_come_in_item_order_whatever_the_workers(jobs: int) -> None:
    table = [f"item-{number}" for number in range(500)]

    assert list(ordered(table.__getitem__, range(len(table)), jobs=jobs)) == table


def _slow_pid(_: int) -> int:
    """The worker's process id, after long enough that one worker cannot take every
    chunk before the other has started (a loaded machine starts workers slowly)."""
    time.sleep(0.005)
    return os.getpid()


def test_more_than_one_job_runs_the_work_in_forked_workers() -> None:
    parent = os.getpid()
    seen = set(ordered(_slow_pid, range(200), jobs=2))

    assert len(seen) == 2
    assert parent not in seen


def test_one_job_or_few_items_stay_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(ordered(lambda _: os.getpid(), range(200), jobs=1)) == {os.getpid()}
    monkeypatch.setattr(workers, "MIN_ITEMS_PER_WORKER", 50)
    assert workers_for(99, 8) == 1
    assert workers_for(100, 8) == 2
    assert workers_for(10_000, 3) == 3
    assert set(ordered(lambda _: os.getpid(), range(99), jobs=2)) == {os.getpid()}


def test_what_the_work_reads_is_what_the_process_held_at_the_start() -> None:
    prepared = {"runtime": "torch"}  # made before the pool: no pickling needed
    answers = list(ordered(lambda number: (number, prepared["runtime"]), range(100), jobs=2))

    assert answers == [(number, "torch") for number in range(100)]


@pytest.mark.parametrize("error", [CompilerBug("emitted objects fail validation"), KeyError("x")])
def test_an_error_in_a_worker_is_raised_here_as_itself_at_its_turn(error: Exception) -> None:
    def work(number: int) -> int:
        if number == 150:
            raise error
        return number

    results = ordered(work, range(300), jobs=2)
    got = [next(results) for _ in range(150)]
    with pytest.raises(type(error)) as raised:
        next(results)

    assert got == list(range(150))
    assert str(raised.value) == str(error)


def test_the_workers_end_when_the_caller_stops_early() -> None:
    results = ordered(lambda _: os.getpid(), range(10_000), jobs=2)
    pids = {next(results) for _ in range(2_000)}
    results.close()

    assert os.getpid() not in pids
    assert _gone(pids)


def test_the_workers_end_when_the_work_fails() -> None:
    pids: set[int] = set()

    def work(number: int) -> int:
        if number == 1_000:
            raise ValueError("boom")
        return os.getpid()

    def run() -> None:
        for pid in ordered(work, range(10_000), jobs=2):
            pids.add(pid)

    with pytest.raises(ValueError, match="boom"):
        run()

    assert pids
    assert _gone(pids)


@pytest.mark.parametrize("jobs", [0, -1])
def test_fewer_than_one_job_is_a_usage_error(jobs: int) -> None:
    with pytest.raises(UsageError, match=f"--jobs {jobs}: give at least 1"):
        check_jobs(jobs)


def test_starting_workers_leaves_what_the_run_froze_frozen() -> None:
    """Entries a warm run read back are frozen until it ends (trainc.cache.collection);
    the pool's own freeze before its fork must not hand them back to the collector."""
    with collected_again():
        with collection_paused():
            kept = [[number] for number in range(1_000)]
        frozen = gc.get_freeze_count()
        assert frozen >= len(kept)
        assert list(ordered(str, range(50), jobs=2)) == [str(number) for number in range(50)]
        assert gc.get_freeze_count() >= frozen
    assert gc.get_freeze_count() == 0


def test_starting_workers_unfreezes_what_it_froze_itself() -> None:
    assert gc.get_freeze_count() == 0
    assert list(ordered(str, range(50), jobs=2)) == [str(number) for number in range(50)]
    assert gc.get_freeze_count() == 0
