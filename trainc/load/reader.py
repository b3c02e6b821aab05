"""Reading an input file's bytes within bounds and decoding them as strict UTF-8.

Working-tree files and files read from a git revision go through :func:`decode_input`
alike, so both are judged by the same rules.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic, Rule, Severity, counted, finding
from trainc.load.pathnames import os_name
from trainc.load.source import line_and_column

LOAD_UNREADABLE = Rule(
    "load.unreadable",
    Severity.ERROR,
    "the file could not be read",
)

LOAD_TOO_LARGE = Rule(
    "load.too-large",
    Severity.ERROR,
    "the file is larger than the configured bound",
)

LOAD_BINARY = Rule(
    "load.binary",
    Severity.ERROR,
    "the file is binary, not YAML text",
)

LOAD_ENCODING = Rule(
    "load.encoding",
    Severity.ERROR,
    "the file is not valid UTF-8",
)


# O_NONBLOCK: opening a FIFO planted in the repository must not hang the run.
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


def file_finding(
    path: str,
    code: str,
    message: str,
    *,
    line: int | None = None,
    column: int | None = None,
    hint: str | None = None,
) -> Diagnostic:
    """A finding about a whole file (or one point in it), with the code's catalogue severity."""
    return finding(code, message, file=path, line=line, column=column, hint=hint)


def too_large(
    path: str, size: int | None, limits: InputLimits, *, subject: str = "the file"
) -> Diagnostic:
    """``load.too-large``; ``size`` is None when reading stopped at the bound."""
    actual = f"is {counted(size, 'byte')}" if size is not None else "is larger"
    return file_finding(
        path,
        LOAD_TOO_LARGE.code,
        f"{subject} {actual}; inputs are limited to {counted(limits.max_file_bytes, 'byte')}",
        hint="raise limits.maxFileBytes in trainc.yaml if the file is meant to be this large",
    )


def read_input(root: Path, path: str, limits: InputLimits) -> bytes | Diagnostic:
    """The bytes of the repository file ``path`` (repo-relative), as :func:`read_file`."""
    return read_file(root / os_name(path), path, limits)


def read_file(file: Path, path: str, limits: InputLimits) -> bytes | Diagnostic:
    """The bytes of ``file``, reported as ``path``, never more than ``limits.max_file_bytes``.

    The size is checked on the open descriptor before reading and again while reading
    (a file can grow in between), so a huge file costs one ``fstat`` and a bounded read.
    A file that vanished since discovery is a finding, not a crash.
    """
    try:
        descriptor = os.open(file, _OPEN_FLAGS)
    except OSError as error:
        return file_finding(path, LOAD_UNREADABLE.code, f"cannot open the file: {error.strerror}")
    try:
        return _read_bounded(descriptor, path, limits)
    except OSError as error:
        return file_finding(path, LOAD_UNREADABLE.code, f"cannot read the file: {error.strerror}")
    finally:
        os.close(descriptor)


def read_stream(stream: BinaryIO, path: str, limits: InputLimits) -> bytes | Diagnostic:
    """The bytes of ``stream`` up to its end (``trainc validate -``), reported as ``path``.

    A pipe has no size to check beforehand: reading stops one byte past the bound, so a
    runaway producer costs no more memory than a file at the bound.
    """
    try:
        return _read_chunks(stream.read, path, limits)
    except OSError as error:
        return file_finding(path, LOAD_UNREADABLE.code, f"cannot read the input: {error.strerror}")


def _read_bounded(descriptor: int, path: str, limits: InputLimits) -> bytes | Diagnostic:
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        return file_finding(path, LOAD_UNREADABLE.code, "not a regular file")
    if status.st_size > limits.max_file_bytes:
        return too_large(path, status.st_size, limits)
    return _read_chunks(lambda size: os.read(descriptor, size), path, limits)


def _read_chunks(
    read: Callable[[int], bytes], path: str, limits: InputLimits
) -> bytes | Diagnostic:
    """Everything ``read`` gives until it returns nothing, or ``load.too-large`` past the bound."""
    chunks: list[bytes] = []
    remaining = limits.max_file_bytes + 1
    while remaining > 0:
        chunk = read(min(remaining, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    if remaining <= 0:
        return too_large(path, None, limits)
    return b"".join(chunks)


def decode_input(path: str, data: bytes) -> str | Diagnostic:
    """``data`` as text: strict UTF-8, a leading byte-order mark dropped, no NUL bytes.

    A NUL byte never occurs in YAML text (and UTF-16 files are full of them), so it marks
    a binary file. For bad UTF-8 the finding points at the line of the first bad byte.
    """
    if b"\0" in data:
        return file_finding(path, LOAD_BINARY.code, "the file contains NUL bytes; it is not text")
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start].decode("utf-8")  # valid up to the bad byte
        line, column = line_and_column(before, len(before))
        return file_finding(
            path,
            LOAD_ENCODING.code,
            f"the file is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})",
            line=line + 1,
            column=column + 1,
            hint="save the file as UTF-8",
        )
