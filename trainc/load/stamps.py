"""A repository file's stat, as the indexes that spare reading unchanged files compare it.

Git's index (https://git-scm.com/docs/racy-git) and ruff's cache decide that a file is
unchanged from its stat. Timestamps are racy: a file written in the same clock tick as it
was indexed can change again without its stat changing. So an index trusts only entries
whose times lie safely in the past (:data:`RACY_NS`, above any filesystem's timestamp
granularity); a newer file is read again by every run until it is old enough.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeAlias, TypeVar

from trainc.cache.keys import code_fingerprint, digest
from trainc.load.input_settings import InputSettings

#: How far in the past a file's times must lie to be trusted by a later run: two
#: seconds, the coarsest timestamp granularity of a common filesystem (FAT).
RACY_NS = 2_000_000_000

#: A file's stat as an index compares it: size, mtime, ctime, inode, device (nanoseconds).
Stamp: TypeAlias = tuple[int, int, int, int, int]

_Fact = TypeVar("_Fact")


def stamp(file: str) -> Stamp | None:
    """The stat of ``file`` (through links), None when it has none."""
    try:
        info = os.stat(file)  # noqa: PTH116  # thousands of calls: no Path objects
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def settled(entries: dict[str, tuple[Stamp, _Fact]], *, now: int) -> dict[str, tuple[Stamp, _Fact]]:
    """The entries whose file times lie far enough before ``now`` to be trusted later."""
    horizon = now - RACY_NS
    return {
        path: entry for path, entry in entries.items() if max(entry[0][1], entry[0][2]) < horizon
    }


def index_key(section: str, config: InputSettings, *selection: tuple[str, ...]) -> str:
    """The key of ``section``'s index of one checkout (its absolute root), read within
    ``config``'s limits, of the files the globs of ``selection`` select."""
    parts = [code_fingerprint(), section, str(Path(config.root).resolve()), repr(config.limits)]
    for globs in selection:
        parts += [str(len(globs)), *globs]
    return digest(parts)
