"""A run without a cache keeps the whole objects behind its outlines in a spill file that
has no name: read back as written, by the run and by its forked workers, and gone with
the run however it ends."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from trainc.engine.spill import SpillFile
from trainc.engine.workers import ordered
from trainc.errors import UsageError


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory of the test's own, where a spill file would be made."""
    where = tmp_path / "tmp"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    return where


def test_payloads_read_back_as_written_here_and_in_workers(private_tmp: Path) -> None:
    with SpillFile() as spill:
        payloads = [bytes([number % 251]) * (number * 37 % 5000) for number in range(300)]
        places = [spill.put(payload) for payload in payloads]
        assert [spill.get(place) for place in places] == payloads
        assert list(ordered(spill.get, places, jobs=2)) == payloads
        assert list(private_tmp.iterdir()) == []  # the file never has a name


def test_a_spill_file_is_made_only_when_something_is_put(private_tmp: Path) -> None:
    before = set(Path("/proc/self/fd").iterdir())
    with SpillFile():
        assert set(Path("/proc/self/fd").iterdir()) == before


def test_a_spill_that_cannot_be_written_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    with SpillFile() as spill, pytest.raises(UsageError, match="cannot write the run's temporary"):
        spill.put(b"whole")
