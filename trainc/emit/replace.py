"""Replacing a file's text atomically: readers see the old bytes or the new, never a mix.

The new text goes to a temporary file beside the target (same directory, so the same
filesystem and an atomic rename), is fsynced, takes the target's permission bits, and is
renamed over it; the directory is fsynced so the rename survives a crash. On any failure
the temporary file is removed and the target is untouched.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import tempfile
from pathlib import Path


class ChangedMeanwhile(Exception):  # noqa: N818 - a condition the caller reports
    """The file no longer holds the text the migration was computed from."""


def replace_text(path: Path, before: str, after: str) -> None:
    """Write ``after`` to ``path`` if it still holds ``before`` (a BOM it had is kept)."""
    data = path.read_bytes()
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    if data[len(bom) :] != before.encode("utf-8"):
        raise ChangedMeanwhile(str(path))
    mode = stat.S_IMODE(path.stat().st_mode)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(bom + after.encode("utf-8"))
            stream.flush()
            os.fchmod(stream.fileno(), mode)
            os.fsync(stream.fileno())
        Path(temporary).replace(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            Path(temporary).unlink()
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
