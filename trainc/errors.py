"""The only exceptions that cross package boundaries, and how an operating-system error reads.

Anything wrong in a user's files is a :class:`~trainc.diagnostics.Diagnostic`, not an
exception; these two cover the cases where trainc cannot produce a report at all. An
:class:`OSError` (a path that cannot be created, read or written, a full disk) is the
user's environment, not a bug: it is reported as a usage error too, worded by
:func:`describe_os_error`.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from os import PathLike, fsdecode


class UsageError(Exception):
    """The command line asks for something that cannot be done (exit code 2)."""


class CompilerBug(Exception):  # noqa: N818 - a bug, not an error in the input
    """trainc broke one of its own invariants; the message says so (exit code 2)."""


def _reason(error: OSError) -> str:
    """The system's words for ``error`` ("Permission denied"), without errno or path."""
    return error.strerror or str(error) or type(error).__name__


def _name(name: object) -> str:
    """A path from an OSError as text; a descriptor number as itself."""
    return fsdecode(name) if isinstance(name, str | bytes | PathLike) else str(name)


def describe_os_error(error: OSError) -> str:
    """``path: reason`` (``path -> other: reason`` for a rename), or the reason alone.

    A write that fails on an open descriptor (a full disk) names no path: callers that
    know which file they were writing say so with :func:`os_errors_as_usage`.
    """
    paths = [_name(name) for name in (error.filename, error.filename2) if name is not None]
    reason = _reason(error)
    return f"{' -> '.join(paths)}: {reason}" if paths else reason


@contextmanager
def os_errors_as_usage(action: str, path: str | PathLike[str]) -> Iterator[None]:
    """Turn an OSError inside the block into ``cannot <action> <path>: <reason>``.

    The path the system call failed on is added when it is not ``path`` itself (a
    staging directory beside an output, a file inside it). A closed pipe (``trainc
    validate | head``) is let through: the reader is gone, and the command line ends
    quietly, as click does.
    """
    try:
        yield
    except OSError as error:
        if error.errno == errno.EPIPE:
            raise
        subject = fsdecode(path)
        failed = subject if error.filename is None else _name(error.filename)
        where = "" if failed == subject else f" ({failed})"
        raise UsageError(f"cannot {action} {subject}: {_reason(error)}{where}") from error
