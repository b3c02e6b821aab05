"""Which repository files may define a runtime, remembered between runs by their stat.

A run on a few named files (the pre-commit hook) needs the runtimes of the rest of the
repository, and finding them means reading every file for
:func:`~trainc.load.prefilter.may_define_runtime`. In a repository of thousands of
TrainJobs that reading is most of the run, although between two commits almost no file
changed. The index kept in the cache (section :data:`SECTION`) remembers each file's
verdict with its stat (size, modification and change times, inode, device); a run stats
every file and reads only those whose stat differs or that the index does not hold.

Timestamps are racy, as git's index is: a file written in the same clock tick as it was
indexed can change again without its stat changing. So only files whose times lie safely
in the past (:data:`_RACY_NS`, above any filesystem's timestamp granularity) are entered;
a newer file is read again by every run until it is old enough. Files whose read failed
are never entered: they are read, and reported by the caller, every time. The outcome is
thus the one reading every file gives; the index only spares the reads.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Set
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from trainc.cache.keys import code_fingerprint, digest
from trainc.load.input_settings import InputSettings
from trainc.load.pathnames import os_name
from trainc.load.prefilter import may_define_runtime
from trainc.load.reader import read_input

if TYPE_CHECKING:
    from trainc.cache.store import Store

SECTION = "runtime-files"
#: How far in the past a file's times must lie to be trusted by a later run: two
#: seconds, the coarsest timestamp granularity of a common filesystem (FAT).
_RACY_NS = 2_000_000_000

#: A file's stat as the index compares it: size, mtime, ctime, inode, device (nanoseconds).
_Stamp: TypeAlias = tuple[int, int, int, int, int]
#: path → (stamp, whether the file may define a runtime)
_Entries: TypeAlias = dict[str, tuple[_Stamp, bool]]


def runtime_candidates(
    files: Iterable[str], *, skip: Set[str], config: InputSettings, store: Store | None
) -> Iterator[tuple[str, bytes]]:
    """The files among ``files`` (less ``skip``) that may define a runtime, with their bytes.

    Without a ``store`` every file is read. With one, a file the index knows with its
    current stat is read only when it may define a runtime; once the iteration ends, the
    index is rewritten if the run learned something new. Entries of skipped files are
    kept as they were.
    """
    key = _index_key(config) if store is not None else ""
    known = (store.load(SECTION, key, dict) if store is not None else None) or {}
    entries: _Entries = {}
    directory = os.path.join(config.root, "")  # noqa: PTH118  # a str prefix: no Path per file
    for path in files:
        entry = known.get(path)
        if path in skip:
            if entry is not None:
                entries[path] = entry
            continue
        stamp = _stamp(directory + os_name(path)) if store is not None else None
        if entry is not None and entry == (stamp, False):
            entries[path] = entry
            continue
        data = read_input(config.root, path, config.limits)
        if not isinstance(data, bytes):
            continue
        verdict = may_define_runtime(data)
        if stamp is not None:
            entries[path] = (stamp, verdict)
        if verdict:
            yield path, data
    if store is not None:
        trusted = _settled(entries, now=time.time_ns())
        if trusted != known:
            store.save(SECTION, key, trusted)


def _index_key(config: InputSettings) -> str:
    """The index of one checkout (its absolute root) read with one file selection."""
    parts = [code_fingerprint(), SECTION, str(Path(config.root).resolve()), repr(config.limits)]
    for globs in (config.include, config.exclude, config.runtimes):
        parts += [str(len(globs)), *globs]
    return digest(parts)


def _stamp(file: str) -> _Stamp | None:
    """The stat of ``file`` (through links), None when it has none."""
    try:
        info = os.stat(file)  # noqa: PTH116  # thousands of calls: no Path objects
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def _settled(entries: _Entries, *, now: int) -> _Entries:
    """The entries whose file times lie far enough before ``now`` to be trusted later."""
    horizon = now - _RACY_NS
    return {
        path: entry for path, entry in entries.items() if max(entry[0][1], entry[0][2]) < horizon
    }
