"""The stat index: which input files are unchanged since the last run, told without reading them.

As git's index (https://git-scm.com/docs/index-format) and ruff's cache do, each file a
run read is recorded with what ``stat`` says of it (size, modification and status-change
times in nanoseconds, inode and device) and the digest of the bytes read. The next run
stats the file: when all five agree, the file is taken as unchanged and its digest as
the digest of its bytes, so neither reading nor hashing it is needed. An edit changes
the status-change time, which no program can set back (``touch -d`` and ``git checkout``
set only the modification time), so a file rewritten with the same size and
modification time is still seen as changed.

One hole remains, the one git calls "racy git"
(https://github.com/git/git/blob/master/Documentation/technical/racy-git.txt): a file
written again within the timestamp granularity of the moment it was stat-ed can keep
all five values. So an entry whose modification or status-change time is not older than
the moment the run began stat-ing, less :data:`GRANULARITY_NS`, is *racy*: it is kept,
but the next run reads and digests the file as if it were new; once it is old enough it
is trusted. (The moment is the run's start, not its end: a long run would otherwise
trust a file written in the tick it was stat-ed.)
"""

from __future__ import annotations

import os
import time
from dataclasses import field
from typing import TypeAlias

from trainc.records import dataclass

#: The coarsest file timestamp this must be safe with: 2 s, FAT's; ext4, XFS and tmpfs
#: keep nanoseconds, but the kernel stamps files from a clock that lags by a tick.
GRANULARITY_NS = 2_000_000_000


#: A file's stat as the index compares it: size, modification and status-change times
#: (nanoseconds), inode, device. Plain tuples: a head of 10,000 files unpickles in
#: milliseconds, where as many objects would take a large part of a warm run.
Stamp: TypeAlias = tuple[int, int, int, int, int]
#: What the index keeps of a file: its stamp, the digest of its bytes, and whether it
#: may define a runtime (which decides when it is checked,
#: :func:`~trainc.load.prefilter.may_define_runtime`).
Indexed: TypeAlias = tuple[Stamp, str, bool]


def stamp(info: os.stat_result) -> Stamp:
    """The stamp of a ``stat`` result."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


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
        if known is None or known[0] != stamp(info) or _racy(known, self.since_ns):
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
            _racy(known, self.since_ns) and not _racy(known, self.started_ns)
            for known in self.current.values()
        )


def _racy(known: Indexed, since_ns: int) -> bool:
    """Whether the file could have changed again within its times' granularity after a
    run that began stat-ing at ``since_ns`` saw it."""
    _, mtime_ns, ctime_ns, _, _ = known[0]
    return max(mtime_ns, ctime_ns) >= since_ns - GRANULARITY_NS
