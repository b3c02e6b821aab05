"""The record a write leaves in the cache, and the next write linking unread what it proves."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.emit.trees import OLD, expected_files, file_contents
from tests.support.cached import open_store
from trainc.cache import stat_index
from trainc.cache.store import Store
from trainc.emit import writer
from trainc.emit.tree_index import TREES, read_index
from trainc.emit.writer import TreeWriter, write_tree


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return tmp_path / "rendered" / "out"


@pytest.fixture
def records(tmp_path: Path) -> Store:
    return open_store(tmp_path / "cache")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The old files the writer reads to compare them with the new bytes."""
    read: list[str] = []
    compare = writer._same_bytes

    def counted(file: str, data: bytes) -> bool:
        read.append(Path(file).name)
        return compare(file, data)

    monkeypatch.setattr(writer, "_same_bytes", counted)
    return read


@pytest.fixture
def fine_timestamps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Timestamps as fine as the kernel's clock tick (tmpfs and ext4 keep nanoseconds,
    stamped from a clock that lags by a tick): the tests wait 60 ms between writes, not
    the 2 s the rule allows for the coarsest file systems."""
    monkeypatch.setattr(stat_index, "GRANULARITY_NS", _GRANULARITY_NS)


_GRANULARITY_NS = 50_000_000


def _write(out: Path, files: dict[str, bytes], records: Store) -> None:
    time.sleep(1.2 * _GRANULARITY_NS / 1e9)  # what came before is older than a tick
    with TreeWriter(out, records=records) as tree:
        for path in sorted(files):
            tree.add(path, files[path])
        tree.commit()


def _inodes(out: Path) -> dict[str, int]:
    return {path: (out / path).stat().st_ino for path in OLD}


@pytest.mark.usefixtures("fine_timestamps")
def test_files_the_record_proves_are_linked_unread(
    out: Path, records: Store, reads: list[str]
) -> None:
    _write(out, OLD, records)  # written: racy for the next write, which reads them
    _write(out, OLD, records)
    assert sorted(reads) == sorted(Path(path).name for path in expected_files(OLD))
    reads.clear()
    before = _inodes(out)
    _write(out, OLD, records)
    assert reads == []
    assert _inodes(out) == before
    assert file_contents(out) == expected_files(OLD)


@pytest.mark.usefixtures("fine_timestamps")
def test_a_changed_file_is_written_and_only_it(out: Path, records: Store, reads: list[str]) -> None:
    _write(out, OLD, records)
    _write(out, OLD, records)
    reads.clear()
    changed = {**OLD, "team-a/a.yaml": b"kind: JobSet\nname: A\n"}  # the same size
    _write(out, changed, records)
    assert reads == []  # another digest: written without a look at the old file
    assert file_contents(out) == expected_files(changed)
    _write(out, changed, records)
    assert reads == ["a.yaml"]  # written by the last write: racy, so read once
    assert file_contents(out) == expected_files(changed)


@pytest.mark.usefixtures("fine_timestamps")
@pytest.mark.parametrize("how", ["edited in place", "replaced"])
def test_an_old_file_changed_behind_the_record_is_read_and_written_again(
    out: Path, records: Store, reads: list[str], how: str
) -> None:
    _write(out, OLD, records)
    _write(out, OLD, records)
    reads.clear()
    target = out / "team-a" / "b.yaml"
    if how == "edited in place":
        with target.open("r+b") as file:  # same size, same inode, a later time
            file.write(b"KIND")
    else:
        target.unlink()
        target.write_bytes(b"kind: JobSet\nname: B\n")
        target.chmod(0o644)
    _write(out, OLD, records)
    assert reads == ["b.yaml"]
    assert file_contents(out) == expected_files(OLD)


def test_without_a_record_every_kept_file_is_read(
    out: Path, records: Store, reads: list[str]
) -> None:
    write_tree(out, OLD)  # no cache: no record
    before = _inodes(out)
    _write(out, OLD, records)
    assert sorted(reads) == sorted(Path(path).name for path in expected_files(OLD))
    assert _inodes(out) == before
    assert file_contents(out) == expected_files(OLD)


@pytest.mark.usefixtures("fine_timestamps")
def test_a_record_serves_only_its_own_directory(
    tmp_path: Path, records: Store, reads: list[str]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for _ in range(2):
        _write(first, OLD, records)
    write_tree(second, OLD)
    reads.clear()
    _write(second, OLD, records)
    assert len(reads) == len(expected_files(OLD))
    assert read_index(records, second.resolve()).previous.keys() == expected_files(OLD).keys()


@pytest.mark.usefixtures("fine_timestamps")
def test_a_damaged_record_costs_only_the_reads(out: Path, records: Store, reads: list[str]) -> None:
    _write(out, OLD, records)
    _write(out, OLD, records)
    for entry in (records.directory / TREES).rglob("*"):
        if entry.is_file():
            entry.write_bytes(entry.read_bytes()[:-3])
    reads.clear()
    _write(out, OLD, records)
    assert len(reads) == len(expected_files(OLD))
    assert file_contents(out) == expected_files(OLD)


@pytest.mark.usefixtures("fine_timestamps")
def test_an_unchanged_tree_leaves_the_record_as_it_was(out: Path, records: Store) -> None:
    """Once every file is older than the write that recorded it, a write that changes
    nothing keeps the record it read: no cache write per compile of an unchanged tree."""

    def entry() -> os.stat_result:
        (found,) = (path for path in (records.directory / TREES).rglob("*") if path.is_file())
        return found.stat()

    _write(out, OLD, records)
    first = entry()
    _write(out, OLD, records)  # the files were racy for it: recorded again
    second = entry()
    assert second.st_ino != first.st_ino
    _write(out, OLD, records)
    assert entry().st_ino == second.st_ino
    assert entry().st_mtime_ns == second.st_mtime_ns


@pytest.mark.usefixtures("fine_timestamps")
@pytest.mark.parametrize("between", ["a write without the cache", "a write cut short"])
def test_a_record_older_than_the_tree_never_keeps_a_stale_file(
    out: Path, records: Store, between: str
) -> None:
    """The record names the tree its write swapped in; when another write changed the
    tree since (``--no-cache``), or one was cut short after staging, the record
    proves nothing about the changed files, and the next write still makes the tree it
    is given."""
    _write(out, OLD, records)
    _write(out, OLD, records)
    changed = {**OLD, "team-a/a.yaml": b"kind: JobSet\nname: A\n"}  # the same size
    if between == "a write without the cache":
        write_tree(out, changed)
    else:
        with TreeWriter(out, records=records) as tree:
            for path in sorted(changed):
                tree.add(path, changed[path])
            # no commit: the staged tree is removed, the old one and its record stay
    time.sleep(1.2 * _GRANULARITY_NS / 1e9)
    _write(out, OLD, records)
    assert file_contents(out) == expected_files(OLD)
    _write(out, changed, records)
    assert file_contents(out) == expected_files(changed)
