"""The cache's size bound: usage counted as runs write, least recently used entries out."""

from __future__ import annotations

import functools
import multiprocessing
import os
import re
import time
from pathlib import Path

import pytest

from trainc.cache import budget
from trainc.cache.budget import (
    DEFAULT_MAX_SIZE,
    TRIM_TO,
    account,
    bounded,
    suggested_bound,
    trim,
    trim_to_bound,
)
from trainc.cache.layouts import allocated
from trainc.cache.store import (
    ALLOCATION_UNIT,
    LAYOUT,
    REFRESH_SECONDS,
    TEMPORARY_PREFIX,
    USAGE_NAME,
    Store,
)

PROJECT = Path(__file__).resolve().parents[2]
PAYLOAD = b"x" * 1000
NOW = 2_000_000_000.0


def opened(root: Path) -> Store:
    store = Store.open(root)
    assert isinstance(store, Store), store
    return store


def key(number: int) -> str:
    return f"{number:040x}"


def entry_path(root: Path, number: int, section: str = "files") -> Path:
    return root / LAYOUT / section / key(number)[:2] / key(number)[2:]


def fill(root: Path, count: int, *, age: float = 0.0, now: float = NOW) -> Store:
    """``count`` entries, entry ``n`` last used ``age + count - n`` seconds before ``now``:
    the higher the number, the more recently used."""
    store = opened(root)
    for number in range(count):
        store.put("files", key(number), PAYLOAD)
        stamp = now - age - (count - number)
        os.utime(entry_path(root, number), (stamp, stamp))
    return store


def entry_size(root: Path) -> int:
    """The disk space one entry of :func:`fill` takes (whole blocks)."""
    return allocated(entry_path(root, 0).stat())


def remaining(root: Path) -> list[int]:
    return sorted(int(p.parent.name + p.name, 16) for p in (root / LAYOUT).glob("files/*/*"))


def record(root: Path) -> str:
    return (root / LAYOUT / USAGE_NAME).read_text(encoding="ascii")


def test_trim_removes_the_least_recently_used_until_the_target(tmp_path: Path) -> None:
    fill(tmp_path, 10)
    size = entry_size(tmp_path)
    trimmed = trim(tmp_path / LAYOUT, 4 * size, now=NOW)
    assert remaining(tmp_path) == [6, 7, 8, 9]
    assert (trimmed.entries, trimmed.size, trimmed.remaining) == (
        6,
        6 * size,
        4 * size,
    )


def test_trim_keeps_what_the_run_read_or_wrote_and_removes_the_rest_first(
    tmp_path: Path,
) -> None:
    fill(tmp_path, 10)
    size = entry_size(tmp_path)
    own = {str(entry_path(tmp_path, number)) for number in (0, 1, 2)}  # the least recent
    trimmed = trim(tmp_path / LAYOUT, 4 * size, keep=own, now=NOW)
    assert remaining(tmp_path) == [0, 1, 2, 9]
    assert (trimmed.entries, trimmed.remaining, trimmed.kept) == (6, 4 * size, 3 * size)
    # Over the target with the run's own entries alone: they stay, all others go.
    trimmed = trim(tmp_path / LAYOUT, size, keep=own, now=NOW)
    assert remaining(tmp_path) == [0, 1, 2]
    assert (trimmed.remaining, trimmed.kept) == (3 * size, 3 * size)


def test_a_run_over_the_bound_by_itself_is_told_how_to_size_it(tmp_path: Path) -> None:
    store = fill(tmp_path, 10)
    size = entry_size(tmp_path)
    live = {str(entry_path(tmp_path, number)) for number in range(5)}
    said = bounded(5 * size, live, directory=store.directory, limit=4 * size)
    assert said == (
        f"this run keeps {5 * size // 1024}.0 KiB in the cache, more than its bound of "
        f"{4 * size // 1024}.0 KiB (TRAINC_CACHE_MAX_SIZE): its entries stay, over the "
        "bound, so that the next run can use them; set TRAINC_CACHE_MAX_SIZE=64Mi or more "
        '(docs/cache.md, "Size bound")'
    )
    assert remaining(tmp_path) == [0, 1, 2, 3, 4]
    # A bound that holds the run's entries: trimmed as before, nothing to say.
    assert bounded(size, live, directory=store.directory, limit=6 * size) is None
    assert remaining(tmp_path) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("kept", "suggested"),
    [(1, "64Mi"), (32 * 1024 * 1024, "64Mi"), (33 * 1024 * 1024, "128Mi"), (10**9, "1920Mi")],
)
def test_the_bound_suggested_holds_two_sets_of_the_run_s_entries(kept: int, suggested: str) -> None:
    assert suggested_bound(kept) == suggested


def test_a_read_makes_an_entry_recent_once_an_hour(tmp_path: Path) -> None:
    fill(tmp_path, 10, age=2 * REFRESH_SECONDS, now=time.time())
    size = entry_size(tmp_path)
    store = opened(tmp_path)  # a later run
    assert store.get("files", key(0)) == PAYLOAD  # the oldest, used again
    before = entry_path(tmp_path, 0).stat().st_mtime
    assert before > store.opened - REFRESH_SECONDS
    assert store.get("files", key(0)) == PAYLOAD
    assert entry_path(tmp_path, 0).stat().st_mtime == before  # no write per read

    trim(tmp_path / LAYOUT, 3 * size)

    assert remaining(tmp_path) == [0, 8, 9]


def test_under_the_bound_a_run_only_adds_to_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(tmp_path, 10)
    (tmp_path / LAYOUT / USAGE_NAME).write_text(f"surveyed={int(NOW)} size=5000\n")

    def no_walk(directory: Path, now: float) -> None:
        raise AssertionError("walked the cache")

    monkeypatch.setattr(budget, "_entries", no_walk)
    assert account(tmp_path / LAYOUT, 3000, 100_000, now=NOW + 10) is None
    assert record(tmp_path) == f"surveyed={int(NOW)} size=8000\n"


def test_past_the_bound_a_run_trims_to_three_quarters(tmp_path: Path) -> None:
    fill(tmp_path, 10)
    size = entry_size(tmp_path)
    (tmp_path / LAYOUT / USAGE_NAME).write_text(f"surveyed={int(NOW)} size=0\n")
    limit = 8 * size
    assert account(tmp_path / LAYOUT, 7 * size, limit, now=NOW) is None
    trimmed = account(tmp_path / LAYOUT, 2 * size, limit, now=NOW + 1)
    assert trimmed is not None
    assert remaining(tmp_path) == [4, 5, 6, 7, 8, 9]
    assert trimmed.remaining == 6 * size <= TRIM_TO * limit
    assert record(tmp_path) == f"surveyed={int(NOW) + 1} size={6 * size}\n"


def test_a_stale_or_missing_record_is_corrected_by_measuring(tmp_path: Path) -> None:
    fill(tmp_path, 3)
    size = entry_size(tmp_path)
    assert account(tmp_path / LAYOUT, 1, 10**9, now=NOW) is None  # no record yet
    assert record(tmp_path) == f"surveyed={int(NOW)} size={3 * size}\n"
    later = NOW + budget.SURVEY_SECONDS + 1
    (tmp_path / LAYOUT / USAGE_NAME).write_text(f"surveyed={int(NOW)} size=99999999\n")
    assert account(tmp_path / LAYOUT, 1, 10**9, now=later) is None
    assert record(tmp_path) == f"surveyed={int(later)} size={3 * size}\n"


def test_writes_in_flight_stay_and_leftovers_of_dead_runs_go_first(tmp_path: Path) -> None:
    fill(tmp_path, 4)
    bucket = entry_path(tmp_path, 0).parent
    in_flight = bucket / f"{TEMPORARY_PREFIX}77-{key(0)[2:]}"
    leftover = bucket / f"{TEMPORARY_PREFIX}66-{key(1)[2:]}"
    for path, age in ((in_flight, 5), (leftover, 2 * budget.STALE_TEMPORARY_SECONDS)):
        path.write_bytes(PAYLOAD)
        os.utime(path, (NOW - age, NOW - age))

    trim(tmp_path / LAYOUT, 0, now=NOW)

    assert [p.name for p in bucket.iterdir()] == [in_flight.name]


def _account_many(directory: str, times: int) -> None:
    for _ in range(times):
        account(Path(directory), 1000, 10**12, now=NOW)


def test_concurrent_runs_add_up(tmp_path: Path) -> None:
    opened(tmp_path)
    (tmp_path / LAYOUT / USAGE_NAME).write_text(f"surveyed={int(NOW)} size=0\n")
    workers = [
        multiprocessing.get_context("fork").Process(
            target=_account_many, args=(str(tmp_path / LAYOUT), 100)
        )
        for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    assert record(tmp_path) == f"surveyed={int(NOW)} size={4 * 100 * 1000}\n"


def test_a_store_hands_its_writes_to_the_budget(tmp_path: Path) -> None:
    told: list[tuple[int, set[str]]] = []
    store = opened(tmp_path)
    store.account = lambda written, live: told.append((written, set(live)))
    store.put("files", key(1), PAYLOAD)
    assert told == []  # batched, not one call per write
    store.flush()
    # A whole block, as the disk holds it, and the entry as the run's own.
    assert told == [(ALLOCATION_UNIT, {str(entry_path(tmp_path, 1))})]
    store.flush()
    assert len(told) == 1


def _write_one_and_flush(store: Store) -> None:
    store.put("files", key(2), PAYLOAD)
    store.flush()


def test_a_forked_worker_tells_only_its_own_writes(tmp_path: Path) -> None:
    opened(tmp_path)
    (tmp_path / LAYOUT / USAGE_NAME).write_text(f"surveyed={int(time.time())} size=0\n")
    store = opened(tmp_path)
    store.account = functools.partial(bounded, directory=store.directory, limit=10**12)
    store.put("files", key(1), PAYLOAD)  # the parent's, not yet told
    worker = multiprocessing.get_context("fork").Process(target=_write_one_and_flush, args=(store,))
    worker.start()
    worker.join(timeout=60)
    assert worker.exitcode == 0
    store.flush()
    assert record(tmp_path).endswith(f" size={2 * ALLOCATION_UNIT}\n")


def test_trim_to_bound_measures_and_trims_now(tmp_path: Path) -> None:
    fill(tmp_path, 8)
    size = entry_size(tmp_path)
    trimmed = trim_to_bound(tmp_path / LAYOUT, 4 * size, now=NOW)
    assert remaining(tmp_path) == [5, 6, 7]
    assert record(tmp_path) == f"surveyed={int(NOW)} size={trimmed.remaining}\n"


def test_the_default_is_well_under_the_documented_size_limit() -> None:
    patch = (PROJECT / "deploy" / "argocd" / "repo-server-patch.yaml").read_text()
    found = re.search(r"name: trainc-cache\n\s+emptyDir:\n\s+sizeLimit: (\d+)Gi", patch)
    assert found is not None
    assert int(found[1]) * 1024**3 // 4 >= DEFAULT_MAX_SIZE
