"""Where a run without a cache keeps the whole objects behind its outlines: a file with no
name, so they need not stay in memory.

A run with a cache keeps each file's whole check in the cache's pack until its TrainJobs
are judged (:mod:`trainc.engine.file_pass`); a ``--no-cache`` run has no pack, and held
every pickle in memory instead, several kilobytes per TrainJob for the whole run. It
appends them here. The file is made with :func:`tempfile.TemporaryFile`, which on Linux
opens it with ``O_TMPFILE`` (https://man7.org/linux/man-pages/man2/open.2.html): it never
has a name, so however the run ends (an exception, Ctrl-C, ``kill -9``) nothing is left
behind; elsewhere its name is removed as soon as it is made. Forked workers inherit the
descriptor and read with ``pread``, which moves no shared offset; only the run's process
appends.
"""

from __future__ import annotations

import os
from typing import BinaryIO

from trainc.errors import CompilerBug, UsageError

#: Where a payload is in the spill file: its offset and its length.
Spilled = tuple[int, int]


class SpillFile:
    """An append-only file of payloads, read back by their :data:`Spilled` place."""

    def __init__(self) -> None:
        self._file: BinaryIO | None = None
        self._size = 0

    def put(self, payload: bytes) -> Spilled:
        """Append ``payload``; where it is. The file is made on the first payload: a run
        with no TrainJob (the pre-commit hook on a runtime) makes none."""
        # Imported here: a run that spills nothing (the pre-commit hook's) starts faster.
        import tempfile  # noqa: PLC0415

        try:
            if self._file is None:
                self._file = tempfile.TemporaryFile(prefix="trainc-spill-")  # noqa: SIM115 - closed by close()
            view = memoryview(payload)
            while view:
                written = os.pwrite(self._file.fileno(), view, self._size)
                self._size += written
                view = view[written:]
        except OSError as error:
            raise UsageError(
                f"cannot write the run's temporary file in {tempfile.gettempdir()}: "
                f"{error.strerror or error}; free space there, set TMPDIR to another "
                "directory, or run with a cache"
            ) from error
        return self._size - len(payload), len(payload)

    def get(self, place: Spilled) -> bytes:
        """The payload at ``place``, in the run's process or a worker forked from it."""
        offset, length = place
        if self._file is None:
            raise CompilerBug("the spill file was read before anything was put in it")
        data = os.pread(self._file.fileno(), length, offset)
        if len(data) != length:
            raise CompilerBug(f"the spill file holds {len(data)} of {length} bytes at {offset}")
        return data

    def close(self) -> None:
        """Release the file (its space with it). Safe to repeat."""
        if self._file is not None:
            self._file.close()

    def __enter__(self) -> SpillFile:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
