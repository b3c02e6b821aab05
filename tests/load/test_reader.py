from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic
from trainc.load.reader import decode_input, read_input

from .files import write


def finding(result: object) -> tuple[str, int | None]:
    assert isinstance(result, Diagnostic), result
    return result.code, result.line


def test_reads_bytes(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", "a: 1\n")
    assert read_input(tmp_path, "a.yaml", InputLimits()) == b"a: 1\n"


def test_ten_megabytes_is_refused_before_reading(tmp_path: Path) -> None:
    write(tmp_path, "big.yaml", b"a" * (10 * 1024 * 1024))
    result = read_input(tmp_path, "big.yaml", InputLimits())
    assert finding(result) == ("load.too-large", None)
    assert isinstance(result, Diagnostic)
    assert "10485760 bytes" in result.message
    assert result.file == "big.yaml"


def test_a_file_growing_after_stat_is_cut_at_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "grows.yaml", b"a" * 100)
    real_fstat = os.fstat

    def shrunk_fstat(fd: int) -> os.stat_result:  # reports the size it had before growing
        status = real_fstat(fd)
        return os.stat_result((*status[:6], 10, *status[7:]))

    monkeypatch.setattr(os, "fstat", shrunk_fstat)
    assert finding(read_input(tmp_path, "grows.yaml", InputLimits(max_file_bytes=50))) == (
        "load.too-large",
        None,
    )


def test_vanished_file_is_a_finding(tmp_path: Path) -> None:
    result = read_input(tmp_path, "gone.yaml", InputLimits())
    assert finding(result) == ("load.unreadable", None)
    assert isinstance(result, Diagnostic)
    assert "No such file" in result.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    result = read_input(tmp_path, "pipe.yaml", InputLimits())
    assert finding(result) == ("load.unreadable", None)
    assert isinstance(result, Diagnostic)
    assert result.message == "not a regular file"


def test_directory_is_not_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "dir.yaml").mkdir()
    assert finding(read_input(tmp_path, "dir.yaml", InputLimits())) == ("load.unreadable", None)


def test_binary() -> None:
    assert finding(decode_input("x.yaml", b"\x89PNG\r\n\x1a\n\0\0\0")) == ("load.binary", None)


def test_utf16_is_binary() -> None:
    assert finding(decode_input("x.yaml", "a: 1\n".encode("utf-16"))) == ("load.binary", None)


def test_bad_utf8_points_at_the_line_of_the_first_bad_byte() -> None:
    result = decode_input("x.yaml", b"a: 1\nb: caf\xc3\xa9\nc: caf\xe9\nd: \xff\n")
    assert finding(result) == ("load.encoding", 3)
    assert isinstance(result, Diagnostic)
    assert result.column == 7
    assert "0xe9" in result.message


def test_bom_is_stripped() -> None:
    assert decode_input("x.yaml", codecs.BOM_UTF8 + b"a: 1\n") == "a: 1\n"
