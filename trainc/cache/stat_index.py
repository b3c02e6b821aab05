"""The stat index: which input files are unchanged since the last run, told without reading them.

As git's index (https://git-scm.com/docs/index-format) and ruff's cache do, each file a
run read is recorded with what ``stat`` says of it (size, modification and status-change
times in nanoseconds, inode) and the digest of the bytes read. The next run stats the
file: when all four agree, the file is taken as unchanged and its digest as the digest of
its bytes, so neither reading nor hashing it is needed. An edit changes the
status-change time, which no program can set back (``touch -d`` and ``git checkout``
set only the modification time), so a file rewritten with the same size and
modification time is still seen as changed.

One hole remains, the one git calls "racy git"
(https://github.com/git/git/blob/master/Documentation/technical/racy-git.txt): a file
written again within the timestamp granularity of the moment it was stat-ed can keep
all four values. So an entry whose modification time is not older than the moment the
run began stat-ing, less :data:`GRANULARITY_NS`, is *racy*: it is kept, but the next
run reads and digests the file as if it were new; once it is old enough it is trusted.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

#: The coarsest file timestamp this must be safe with: 2 s, FAT's; ext4, XFS and tmpfs
#: keep nanoseconds, but the kernel stamps files from a clock that lags by a tick.
GRANULARITY_NS = 2_000_000_000


@dataclass(frozen=True, slots=True)
class Stamp:
    """What ``stat`` says of a file that changes whenever its bytes do."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int

    @classmethod
    def of(cls, info: os.stat_result) -> Stamp:
        """The stamp of a ``stat`` result."""
        return cls(info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


@dataclass(frozen=True, slots=True)
class Indexed:
    """One file as the last run found it: its stamp, the digest of its bytes, and whether
    it may define a runtime (which decides when it is checked,
    :func:`~trainc.load.prefilter.may_define_runtime`)."""

    stamp: Stamp
    digest: str
    may_define_runtime: bool


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
        if known is None or known.stamp != Stamp.of(info):
            return None
        if known.stamp.mtime_ns >= self.since_ns - GRANULARITY_NS:
            return None
        self.current[path] = known
        return known

    def record(self, path: str, info: os.stat_result, digest: str, *, runtime: bool) -> None:
        """Keep what this run read of ``path`` (``info`` taken before the read)."""
        self.current[path] = Indexed(Stamp.of(info), digest, runtime)

    @property
    def changed(self) -> bool:
        """Whether this run's index tells more than the last one's: a file added, removed
        or changed, or a racy entry that this run's later start makes trustworthy."""
        racy_then, racy_now = self.since_ns - GRANULARITY_NS, self.started_ns - GRANULARITY_NS
        return self.current != self.previous or any(
            racy_then <= known.stamp.mtime_ns < racy_now for known in self.current.values()
        )
