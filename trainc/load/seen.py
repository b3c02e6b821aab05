"""What one run has seen of the repository's file system, shared by its walks.

A run on named files (the pre-commit hook) walks the rest of the repository twice: for
the runtimes its TrainJobs use (:mod:`.runtime_files`), then for the TrainJobs that may
clash with them (:mod:`.named_files`). In a repository of thousands of files, listing the
directories and taking each file's stat are a good part of such a run, so each directory
is listed, and each file stat'ed, once per run. Every stat is taken after
:attr:`Seen.since_ns`, the moment an index judges them racy against
(:func:`~trainc.cache.stat_index.racy`): a stat the first walk took and the second reuses
is as old as the first walk, not the second.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from trainc.cache.stat_index import PackedStamp, file_stamp
from trainc.load.pathnames import os_name


class Seen:
    """The directory listings (by real path) and file stats (by path) of one run, all
    taken from :attr:`since_ns` on."""

    __slots__ = ("listings", "since_ns", "stamps")

    def __init__(self) -> None:
        self.listings: dict[Path, list[os.DirEntry[str]]] = {}
        self.stamps: dict[str, PackedStamp | None] = {}
        self.since_ns = time.time_ns()

    def stamps_of(self, directory: str, paths: Iterable[str]) -> list[PackedStamp | None]:
        """The stat of each of the repository files ``paths`` under ``directory`` (which
        ends in a separator), each taken once per run
        (:func:`~trainc.cache.stat_index.file_stamp`); in one call, for a walk of the
        whole repository asks for thousands."""
        files = [directory + os_name(path) for path in paths]
        stamps = self.stamps
        stamps.update((file, file_stamp(file)) for file in files if file not in stamps)
        return [stamps[file] for file in files]
