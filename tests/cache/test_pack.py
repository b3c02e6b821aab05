"""Packs read back whole or not at all; the stat index trusts only what is not racy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trainc.cache.pack import MAGIC, PackReader, PackWriter, entry_name
from trainc.cache.stat_index import GRANULARITY_NS, StatIndex

ENTRIES = {entry_name("files", f"{number:040x}"): bytes([number]) * 300 for number in range(5)}


def _pack(directory: Path) -> Path:
    writer = PackWriter.create(directory)
    for name, payload in ENTRIES.items():
        writer.add(name, payload)
    assert writer.get(next(iter(ENTRIES))) == next(iter(ENTRIES.values()))  # before it is done
    target = directory / "ab" / "cd"
    target.parent.mkdir()
    writer.finish(target)
    assert [path.name for path in directory.iterdir()] == ["ab"]  # no temporary file left
    return target


def test_a_pack_reads_back_as_written(tmp_path: Path) -> None:
    reader = PackReader.open(str(_pack(tmp_path)))
    assert reader is not None
    assert {name: reader.get(name) for name in ENTRIES} == ENTRIES
    assert reader.get(entry_name("trainjobs", f"{0:040x}")) is None
    reader.close()
    reader.close()


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),
        lambda data: b"x" + data[1:],
        lambda data: data[: len(MAGIC)],
        lambda data: b"",
    ],
    ids=["torn", "index-digest", "foreign-header", "magic-only", "empty"],
)
def test_a_damaged_pack_is_no_pack(tmp_path: Path, damage: object) -> None:
    path = _pack(tmp_path)
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert PackReader.open(str(path)) is None


def test_a_damaged_payload_is_a_miss_of_that_entry_alone(tmp_path: Path) -> None:
    path = _pack(tmp_path)
    data = path.read_bytes()
    first = data.index(bytes([1]) * 300)  # the second entry's payload
    path.write_bytes(data[:first] + b"\0" + data[first + 1 :])
    reader = PackReader.open(str(path))
    assert reader is not None
    found = {name: reader.get(name) for name in ENTRIES}
    assert [name for name, payload in found.items() if payload != ENTRIES[name]] == [
        entry_name("files", f"{1:040x}")
    ]
    assert found[entry_name("files", f"{1:040x}")] is None


def test_an_abandoned_pack_leaves_nothing(tmp_path: Path) -> None:
    writer = PackWriter.create(tmp_path)
    writer.add("files/00", b"payload")
    writer.abandon()
    writer.abandon()
    assert list(tmp_path.iterdir()) == []


def test_the_stat_index_trusts_unchanged_files_older_than_its_granularity(
    tmp_path: Path,
) -> None:
    path = tmp_path / "job.yaml"
    path.write_text("kind: TrainJob\n")
    first = StatIndex()
    first.record("job.yaml", path.stat(), "digest", runtime=False)
    # The run that wrote the index began as the file was written: racy, read again.
    racy = StatIndex(first.current, path.stat().st_ctime_ns)
    assert racy.unchanged("job.yaml", path.stat()) is None
    later = StatIndex(first.current, path.stat().st_ctime_ns + GRANULARITY_NS + 1)
    known = later.unchanged("job.yaml", path.stat())
    assert known is not None
    assert (known[1], later.current) == ("digest", first.current)
    before = path.stat()
    path.write_text("kind: TrainJob # edited\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as `touch -r` would
    assert later.unchanged("job.yaml", path.stat()) is None
    assert later.unchanged("other.yaml", path.stat()) is None
