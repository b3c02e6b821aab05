"""What one run has seen of the repository's file system, shared by its walks.

A run on named files (the pre-commit hook) walks the rest of the repository twice: for
the runtimes its TrainJobs use (:mod:`.runtime_files`), then for the TrainJobs that may
clash with them (:mod:`.named_files`). In a repository of thousands of files, listing the
directories and taking each file's stat are a good part of such a run, so each directory
is listed, and each file stat'ed, once per run.
"""

from __future__ import annotations

import os
from pathlib import Path

from trainc.load.stamps import Stamp, stamp


class Seen:
    """The directory listings (by real path) and file stats (by path) of one run."""

    __slots__ = ("listings", "stamps")

    def __init__(self) -> None:
        self.listings: dict[Path, list[os.DirEntry[str]]] = {}
        self.stamps: dict[str, Stamp | None] = {}

    def stamp(self, file: str) -> Stamp | None:
        """The stat of ``file``, taken once per run (see :func:`~.stamps.stamp`)."""
        if file not in self.stamps:
            self.stamps[file] = stamp(file)
        return self.stamps[file]
