"""The store hands out intact entries only, and never fails a run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from trainc.cache.store import LAYOUT, Store

KEY = "ab" + "0" * 38
OTHER = "cd" + "1" * 38


def _store(root: Path) -> Store:
    store = Store.open(root)
    assert isinstance(store, Store), store
    return store


def _entry(root: Path, key: str = KEY) -> Path:
    return root / LAYOUT / "files" / key[:2] / key[2:]


def test_an_entry_reads_back_as_written(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.get("files", KEY) is None
    store.put("files", KEY, b"payload")
    assert store.get("files", KEY) == b"payload"
    assert store.get("trainjobs", KEY) is None  # sections do not share entries


def test_the_directory_is_private(tmp_path: Path) -> None:
    _store(tmp_path).put("files", KEY, b"payload")
    for path in (tmp_path / LAYOUT, _entry(tmp_path).parent):
        assert path.stat().st_mode & 0o077 == 0, oct(path.stat().st_mode)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # torn write
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # one bit of the payload flipped
        lambda data: b"x" + data[1:],  # not our header
        lambda data: b"",
    ],
    ids=["torn", "bit-flip", "foreign-header", "empty"],
)
def test_a_damaged_entry_is_a_miss_and_is_rewritten(tmp_path: Path, damage: object) -> None:
    store = _store(tmp_path)
    store.put("files", KEY, b"payload" * 10)
    entry = _entry(tmp_path)
    entry.write_bytes(damage(entry.read_bytes()))  # type: ignore[operator]
    assert store.get("files", KEY) is None
    store.put("files", KEY, b"payload" * 10)
    assert store.get("files", KEY) == b"payload" * 10


def test_an_entry_copied_under_another_key_is_a_miss(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.put("files", KEY, b"payload")
    other = _entry(tmp_path, OTHER)
    other.parent.mkdir(parents=True)
    other.write_bytes(_entry(tmp_path).read_bytes())
    assert store.get("files", OTHER) is None


def test_a_directory_others_may_write_is_not_used(tmp_path: Path) -> None:
    _store(tmp_path)
    (tmp_path / LAYOUT).chmod(0o777)
    reason = Store.open(tmp_path)
    assert isinstance(reason, str)
    assert "others may write" in reason


def test_a_root_that_is_a_file_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("not a directory")
    reason = Store.open(tmp_path / "cache")
    assert isinstance(reason, str)
    assert "cannot use the cache directory" in reason


def test_a_failed_write_stops_writing_and_says_why(tmp_path: Path) -> None:
    store = _store(tmp_path)
    (tmp_path / LAYOUT / "files").write_text("in the way")  # as a full or broken disk would
    store.put("files", KEY, b"payload")
    assert store.write_failure is not None
    assert "cannot write to the cache" in store.write_failure
    store.put("trainjobs", KEY, b"payload")  # no further attempt, and no exception
    assert store.get("trainjobs", KEY) is None


def test_a_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.put("files", KEY, b"payload")
    store.put("files", KEY, b"payload")
    assert [path.name for path in _entry(tmp_path).parent.iterdir()] == [KEY[2:]]


def test_a_pickled_entry_reads_back_only_as_the_kind_stored(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save("files", KEY, {"a": 1})
    assert store.load("files", KEY, dict) == {"a": 1}
    assert store.load("files", KEY, list) is None  # another kind than the caller's
    store.put("files", OTHER, b"not a pickle")
    assert store.load("files", OTHER, dict) is None


def test_a_layout_removed_under_a_running_store_comes_back_private(tmp_path: Path) -> None:
    store = _store(tmp_path)
    shutil.rmtree(tmp_path / LAYOUT)  # a concurrent `trainc cache clean`
    previous = os.umask(0o002)
    try:
        store.put("files", KEY, b"payload")
    finally:
        os.umask(previous)
    assert store.get("files", KEY) == b"payload"
    for path in (tmp_path / LAYOUT, _entry(tmp_path).parent.parent, _entry(tmp_path).parent):
        assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))
    assert isinstance(Store.open(tmp_path), Store)
