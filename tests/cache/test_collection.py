"""The collector is kept off entries read back in bulk, and given them back after the run."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from trainc.cache.collection import collected_again, collection_paused


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_no_collection_runs_while_entries_are_read() -> None:
    gc.enable()
    seen: list[str] = []

    def heard(phase: str, info: dict[str, int]) -> None:
        seen.append(phase)

    gc.callbacks.append(heard)
    try:
        with collection_paused():
            assert not gc.isenabled()
            kept = [[index] for index in range(50_000)]  # far past the young threshold
        assert seen == []
    finally:
        gc.callbacks.remove(heard)
    assert gc.isenabled()
    assert len(kept) == 50_000


def test_what_was_read_is_frozen_until_the_run_ends() -> None:
    gc.enable()
    with collected_again():
        with collection_paused():
            kept = [[index] for index in range(1_000)]
        assert gc.get_freeze_count() >= len(kept)
    assert gc.get_freeze_count() == 0


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    with collection_paused():
        pass
    assert not gc.isenabled()
