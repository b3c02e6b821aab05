"""What the last compile into a directory left there, so that the next one links the
files it would write again without reading them (:mod:`trainc.emit.writer`).

A re-run of a compile after one TrainJob changed writes a tree of 10,000 files, nearly
all with the bytes the old tree holds. Proving that by reading each old file back (an
open, a stat, a read and a close per file) was most of what the writer cost. Instead,
each write records every file of the new tree: its stamp and the digest of its bytes,
kept in the cache under the output directory's real path. The next write into that
directory stats the old file it would replace anyway (it links only files of trainc's
mode): when the stamp is the recorded one and the recorded digest is the new bytes', the
file is linked unread.

The stamp is the stat index's (:mod:`trainc.cache.stat_index`) without the
status-change time: the writer's own swap changes that time of every file it keeps (a
hard link made, the old tree's name removed), so it would never match. The size, the
modification time, the inode and the device remain: a file written again in place
changes its modification time, one replaced changes its inode. The racy rule is the
stat index's: a file whose modification time is not older than the moment its write
began, less the timestamp granularity, is read and compared by the next write, and
trusted by the one after.

No record (a cache that is off, damaged or trimmed, another trainc) costs only the
reads: every file is compared as before.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from trainc.cache.keys import code_fingerprint, digest
from trainc.cache.stat_index import racy_time
from trainc.cache.store import Store

#: The cache section of the records, one per output directory.
TREES = "trees"

#: A file's stat as a written tree keeps it: size, modification time (ns), inode, device.
TreeStamp: TypeAlias = tuple[int, int, int, int]
#: What a record keeps of each file: its stamp and the digest of its bytes.
Recorded: TypeAlias = tuple[TreeStamp, str]


def tree_stamp(info: os.stat_result) -> TreeStamp:
    """The stamp of a ``stat`` result of an output file."""
    return (info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev)


def bytes_digest(data: bytes) -> str:
    """The digest a record keeps of a file's bytes."""
    return digest((data,))


@dataclass(slots=True)
class TreeIndex:
    """The files of the tree a write replaces, as the write that made it recorded them
    (:attr:`previous`, written from :attr:`since_ns` on), and those of the new tree
    (:attr:`current`, written from :attr:`started_ns` on)."""

    previous: dict[str, Recorded] = field(default_factory=dict)
    since_ns: int = 0
    current: dict[str, Recorded] = field(default_factory=dict)
    started_ns: int = field(default_factory=time.time_ns)

    def known_digest(self, path: str, info: os.stat_result) -> str | None:
        """The digest of the bytes the old tree's ``path``, stat-ed as ``info``, is proven
        to hold; None when only reading it can tell."""
        known = self.previous.get(path)
        if known is None or known[0] != tree_stamp(info):
            return None
        return None if racy_time(info.st_mtime_ns, self.since_ns) else known[1]

    def record(self, path: str, info: os.stat_result, data_digest: str) -> None:
        """Keep what the new tree holds at ``path``."""
        self.current[path] = (tree_stamp(info), data_digest)

    @property
    def changed(self) -> bool:
        """Whether the new tree's record tells more than the old one's: a file written,
        linked or gone, or a racy entry the new start makes trustworthy."""
        return self.current != self.previous or any(
            racy_time(known[0][1], self.since_ns) and not racy_time(known[0][1], self.started_ns)
            for known in self.current.values()
        )


def _key(target: Path) -> str:
    """The record's key: the output directory's real path, and trainc itself."""
    return digest((code_fingerprint(), os.fspath(target)))


def read_index(store: Store, target: Path) -> TreeIndex:
    """The record of ``target``'s tree (empty when none reads back), for a new write."""
    found = store.load(TREES, _key(target), tuple)
    if found is None or len(found) != 2:  # noqa: PLR2004 - (since_ns, files)
        return TreeIndex()
    since_ns, files = found
    if not isinstance(since_ns, int) or not isinstance(files, dict):
        return TreeIndex()
    return TreeIndex(files, since_ns)


def keep_index(store: Store, target: Path, index: TreeIndex) -> None:
    """Record the tree just swapped into ``target``, when the record changed."""
    if index.changed:
        store.save(TREES, _key(target), (index.started_ns, index.current))
