"""A file's stat as the indexes that spare reading unchanged files compare it, the one rule
that says when such a stat can be trusted, and the stat index of whole-repository runs.

As git's index (https://git-scm.com/docs/index-format) and ruff's cache do, each file a
run read is recorded with what ``stat`` says of it (size, modification and status-change
times in nanoseconds, inode and device): its :data:`Stamp`. A later run stats the file:
when all five agree, the file is taken as unchanged. An edit changes the status-change
time, which no program can set back (``touch -d`` and ``git checkout`` set only the
modification time), so a file rewritten with the same size and modification time is
still seen as changed.

One hole remains, the one git calls "racy git" (https://git-scm.com/docs/racy-git): a
file written again within the timestamp granularity of the moment it was stat-ed can
keep all five values. So a stamp whose modification or status-change time is not older
than the moment its run *began stat-ing*, less :data:`GRANULARITY_NS`, is racy
(:func:`racy`): it cannot tell a later run that the file is unchanged. The moment is when
stat-ing began, never when the index is written: a long run would otherwise trust a file
written in the tick it was stat-ed. Every index of stamps keeps this one rule: the
:class:`StatIndex` of whole-repository runs keeps racy entries and has the next run read
their files again; the indexes of runs on named files
(:mod:`trainc.load.runtime_files`, :mod:`trainc.load.named_files`) leave them out
(:func:`settled`).

Those indexes hold an entry for each of thousands of files and are read back by every
pre-commit run, so they keep each stamp packed into one bytes object
(:func:`file_stamp`): 10,000 tuples of five integers, most too large for Python's
small-integer cache, take several times longer to unpickle and compare.
"""

from __future__ import annotations

import os
import struct
import time
from dataclasses import field
from typing import TypeAlias, TypeVar

from trainc.records import dataclass

#: The coarsest file timestamp this must be safe with: 2 s, FAT's; ext4, XFS and tmpfs
#: keep nanoseconds, but the kernel stamps files from a clock that lags by a tick.
GRANULARITY_NS = 2_000_000_000


#: A file's stat as an index compares it: size, modification and status-change times
#: (nanoseconds), inode, device. Plain tuples: a head of 10,000 files unpickles in
#: milliseconds, where as many objects would take a large part of a warm run.
Stamp: TypeAlias = tuple[int, int, int, int, int]
#: A :data:`Stamp` packed into 40 bytes (:func:`file_stamp`), as the indexes of runs on
#: named files keep it.
PackedStamp: TypeAlias = bytes
_PACKED = struct.Struct("=5q")
#: The length of a :data:`PackedStamp`: an index can keep many end to end.
STAMP_SIZE = _PACKED.size
_Fact = TypeVar("_Fact")
#: What the index keeps of a file: its stamp, the digest of its bytes, and whether it
#: may define a runtime (which decides when it is checked,
#: :func:`~trainc.load.prefilter.may_define_runtime`).
Indexed: TypeAlias = tuple[Stamp, str, bool]


def stamp(info: os.stat_result) -> Stamp:
    """The stamp of a ``stat`` result."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def file_stamp(file: str) -> PackedStamp | None:
    """The packed stamp of ``file`` (through links), None when it has none."""
    try:
        info = os.stat(file)  # noqa: PTH116  # thousands of calls: no Path objects
    except OSError:
        return None
    return _PACKED.pack(*stamp(info))


def racy(known: Stamp, since_ns: int) -> bool:
    """Whether the file ``known`` was stamped from could have changed again, within its
    times' granularity, without its stamp changing, when stat-ing began at ``since_ns``."""
    _, mtime_ns, ctime_ns, _, _ = known
    return racy_time(max(mtime_ns, ctime_ns), since_ns)


def racy_time(time_ns: int, since_ns: int) -> bool:
    """Whether a file last changed at ``time_ns`` could have changed again within the
    timestamp's granularity, unseen, by a stat taken from ``since_ns`` on."""
    return time_ns >= since_ns - GRANULARITY_NS


def settled(
    entries: dict[str, tuple[PackedStamp, _Fact]], *, since_ns: int
) -> dict[str, tuple[PackedStamp, _Fact]]:
    """The entries of ``entries`` (stamped from ``since_ns`` on) that a later run may trust."""
    return {
        path: entry
        for path, entry in entries.items()
        if not racy(_PACKED.unpack(entry[0]), since_ns)
    }


@dataclass(slots=True)
class StatIndex:
    """The files of the last run (:attr:`previous`, stat-ed from :attr:`since_ns` on) and
    those of this one (:attr:`current`, stat-ed from :attr:`started_ns` on)."""

    previous: dict[str, Indexed] = field(default_factory=dict)
    since_ns: int = 0
    current: dict[str, Indexed] = field(default_factory=dict)
    started_ns: int = field(default_factory=time.time_ns)

    def unchanged(self, path: str, info: os.stat_result) -> Indexed | None:
        """What the last run knew of ``path`` when ``info`` shows it unchanged and the
        entry is not racy; None when the file must be read. Recorded for this run."""
        known = self.previous.get(path)
        if known is None or known[0] != stamp(info) or racy(known[0], self.since_ns):
            return None
        self.current[path] = known
        return known

    def record(self, path: str, info: os.stat_result, digest: str, *, runtime: bool) -> None:
        """Keep what this run read of ``path`` (``info`` taken before the read)."""
        self.current[path] = (stamp(info), digest, runtime)

    @property
    def changed(self) -> bool:
        """Whether this run's index tells more than the last one's: a file added, removed
        or changed, or a racy entry that this run's later start makes trustworthy."""
        return self.current != self.previous or any(
            racy(known[0], self.since_ns) and not racy(known[0], self.started_ns)
            for known in self.current.values()
        )
