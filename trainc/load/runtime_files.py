"""Which repository files may define a runtime, remembered between runs by their stat.

A run on a few named files (the pre-commit hook) needs the runtimes of the rest of the
repository, and finding them means reading every file for
:func:`~trainc.load.prefilter.may_define_runtime`. In a repository of thousands of
TrainJobs that reading is most of the run, although between two commits almost no file
changed. The index kept in the cache (section :data:`SECTION`) remembers each file's
verdict with its stat (size, modification and change times, inode, device); a run stats
every file and reads only those whose stat differs or that the index does not hold.

Timestamps are racy, as git's index is: only files whose times lie safely before the
run began stat-ing are entered (:func:`~trainc.cache.stat_index.racy`); a newer file is
read again by every run until it is old enough. Files whose read failed
are never entered: they are read, and reported by the caller, every time. The outcome is
thus the one reading every file gives; the index only spares the reads.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Set
from typing import TYPE_CHECKING, TypeAlias

from trainc.cache.stat_index import PackedStamp, settled
from trainc.load.file_indexes import index_key, split
from trainc.load.input_settings import InputSettings
from trainc.load.prefilter import may_define_runtime
from trainc.load.reader import read_input
from trainc.load.seen import Seen

if TYPE_CHECKING:
    from trainc.cache.store import Store

SECTION = "runtime-files"
#: path → (stamp, whether the file may define a runtime)
_Entries: TypeAlias = dict[str, tuple[PackedStamp, bool]]


def runtime_candidates(
    files: Iterable[str],
    *,
    skip: Set[str],
    config: InputSettings,
    store: Store | None,
    seen: Seen | None = None,
) -> Iterator[tuple[str, bytes]]:
    """The files among ``files`` (less ``skip``) that may define a runtime, with their bytes.

    Without a ``store`` every file is read. With one, a file the index knows with its
    current stat is read only when it may define a runtime; once the iteration ends, the
    index is rewritten if the run learned something new. Entries of skipped files are
    kept as they were; a stat the run has ``seen`` is not taken again.
    """
    key = (
        index_key(SECTION, config, config.include, config.exclude, config.runtimes)
        if store is not None
        else ""
    )
    known = (store.load(SECTION, key, dict) if store is not None else None) or {}
    entries: _Entries = {}
    seen = seen or Seen()
    looked_at, skipped = split(files, skip)
    entries.update((path, known[path]) for path in skipped if path in known)
    directory = os.path.join(config.root, "")  # noqa: PTH118  # a str prefix: no Path per file
    # Stat-ed all at once: one call for thousands of files, not one each.
    stats = seen.stamps_of(directory, looked_at) if store is not None else [None] * len(looked_at)
    learned = False
    for path, stat in zip(looked_at, stats, strict=True):
        entry = known.get(path)
        if entry is not None and entry == (stat, False):
            entries[path] = entry
            continue
        learned = learned or entry is None or entry[0] != stat
        data = read_input(config.root, path, config.limits)
        if not isinstance(data, bytes):
            continue
        verdict = may_define_runtime(data)
        if stat is not None:
            entries[path] = (stat, verdict)
        if verdict:
            yield path, data
    # Nothing learned and no file gone: the index holds just these entries, each trusted
    # when it was written (a later start only makes a stamp safer), so it stays as it is.
    if store is not None and (learned or len(entries) != len(known)):
        trusted = settled(entries, since_ns=seen.since_ns)
        if trusted != known:
            store.save(SECTION, key, trusted)
