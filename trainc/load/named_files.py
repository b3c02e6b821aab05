"""Which repository files may name one of a few objects, remembered between runs by stat.

A run on named files (the pre-commit hook) looks for the TrainJobs of the rest of the
repository that could clash with the named ones (:mod:`.declared`): only the files whose
bytes contain one of the names a clash needs are parsed, but finding them means reading
every file, most of a one-file run in a repository of thousands. The index kept in the
cache (section :data:`SECTION`) remembers each file's :mod:`.word_filter` with its stat
(:mod:`~trainc.cache.stat_index`, as :mod:`.runtime_files` does): a run stats every file
and reads only those whose stat differs, that the index does not hold, or whose filter
may hold a name. Between two commits almost nothing but the named files changes, so the
index keeps its files in the walk's order with their stamps end to end: when the files
looked at are those it holds, in that order, and their stamps joined are its own, the run
asks every filter at once (:class:`~.word_filter.FilterTable`) with no Python step per
file; anything else (a file edited, added, removed or renamed, a racy entry left out) is
compared file by file, as before.
Building a filter costs about as much as reading the file again, so the first run in a
cache only leaves an empty index, and the run that finds it builds the filters: a one-off
run (a CI job with an empty cache) pays nothing for an index it would never use.

The outcome is the one reading every file gives. A file read is judged by its bytes, as
without the index; a file the index spares holds none of the names as a whole word, and
a TrainJob's name in a file that is no template is one. So a template (which renders its
names) is entered with a filter that holds every word, and read by every run; files
whose read failed are never entered (a repository that has one is compared file by file
on each run); and names that are no whole word
(an invalid name with ``_`` or ``/``), which are searched for in every file's bytes.
Many names (a whole directory named) are matched against each file's ``name`` values
instead, and then every file is read.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Iterator, Set
from typing import TYPE_CHECKING, TypeAlias

from trainc.cache.stat_index import STAMP_SIZE, PackedStamp, settled
from trainc.load.file_indexes import index_key, split
from trainc.load.input_settings import InputSettings
from trainc.load.inputs import TEMPLATE_SUFFIX
from trainc.load.reader import read_input
from trainc.load.seen import Seen
from trainc.load.word_filter import EVERY_WORD, FilterTable, WordFilter, is_word, word_filter

if TYPE_CHECKING:
    from trainc.cache.store import Store

SECTION = "named-files"
#: Up to this many names, each is searched for (a fast scan of the bytes); beyond, the
#: values of the file's ``name`` keys are taken out once, which costs about as much as
#: this many searches.
_FEW_NAMES = 16
#: The value of a ``name`` key as YAML (block or flow) or JSON writes it, plain or quoted:
#: a word that may be an object name (a DNS label or subdomain, upper case included, so
#: that a name the API server refuses is found as well).
_NAME_VALUE = re.compile(
    rb"""name["']?[ \t]*:\s*["']?([A-Za-z0-9](?:[-A-Za-z0-9.]*[A-Za-z0-9])?)"""
)

#: path → (stamp, the filter of the file's words)
_Entries: TypeAlias = dict[str, tuple[PackedStamp, WordFilter]]
#: The index as the cache keeps it: the paths of the files it knows, in the walk's order;
#: their stamps end to end; their filters by position. Three objects, not one pair per
#: file: a warm run reads 10,000 files' entries back in a fraction of a millisecond.
_Stored: TypeAlias = tuple[tuple[str, ...], bytes, FilterTable]


def files_naming(
    files: Iterable[str],
    names: frozenset[bytes],
    *,
    skip: Set[str],
    config: InputSettings,
    store: Store | None,
    seen: Seen | None = None,
) -> Iterator[tuple[str, bytes]]:
    """The files among ``files`` (less ``skip``) whose bytes may name one of ``names``,
    with their bytes, in order.

    With a ``store``, and a few names that are whole words, a file the index knows with
    its current stat is read only when its filter may hold one; once the iteration ends,
    the index is rewritten if the run learned something new. A stat the run has ``seen``
    is not taken again.
    """
    indexed = store is not None and len(names) <= _FEW_NAMES and all(map(is_word, names))
    index = _Index(store, names, config, seen or Seen()) if store is not None and indexed else None
    walked = list(files)
    looked_at, skipped = split(walked, skip)
    to_read = index.to_read(looked_at, skipped) if index is not None else looked_at
    for path in to_read:
        data = read_input(config.root, path, config.limits)
        if not isinstance(data, bytes):
            continue
        if index is not None:
            index.learn(path, data)
        if names_one(data, names):
            yield path, data
    if index is not None:
        index.save(walked)


class _Index:
    """The index as one run reads and rewrites it."""

    def __init__(
        self, store: Store, names: frozenset[bytes], config: InputSettings, seen: Seen
    ) -> None:
        self._store = store
        self._key = index_key(SECTION, config, config.include, config.exclude)
        found = _stored(store.load(SECTION, self._key, tuple))
        # Filters are built by a run that finds the index, even empty: a one-off run (a CI
        # job with an empty cache) pays nothing for them, the next run builds them.
        self._building = found is not None
        self._found: _Stored = found or ((), b"", FilterTable({}))
        self._entries: _Entries | None = None
        self._stats: dict[str, PackedStamp | None] = {}
        self._seen = seen
        self._names = names
        self._directory = os.path.join(config.root, "")  # noqa: PTH118  # no Path per file

    def to_read(self, looked_at: list[str], skipped: list[str]) -> list[str]:
        """Those of ``looked_at`` that changed since they were indexed, or whose filters
        may hold a name, in order. Entries of the ``skipped`` files are kept.

        When every file looked at is indexed, unchanged, and in the walk's order (a warm
        pre-commit run), that is told from the stamps end to end and the
        :class:`~.word_filter.FilterTable`, without one Python step per file.
        """
        if not self._building:
            return looked_at
        stamps = self._seen.stamps_of(self._directory, looked_at)
        paths, packed, table = self._found
        unindexed = _positions(paths, skipped)
        kept, kept_stamps = _without(paths, packed, unindexed)
        present = [stamp for stamp in stamps if stamp is not None]
        unchanged = len(present) == len(stamps) and b"".join(present) == kept_stamps
        if unchanged and kept == tuple(looked_at):
            hits = set(table.holding(self._names)).difference(unindexed)
            return [paths[position] for position in sorted(hits)]
        return self._changed(looked_at, skipped, stamps)

    def _changed(
        self, looked_at: list[str], skipped: list[str], stamps: list[PackedStamp | None]
    ) -> list[str]:
        """:meth:`to_read` when files changed, came or left: file by file."""
        paths, packed, table = self._found
        filters = table.filters()
        known = {
            path: (packed[at * STAMP_SIZE : (at + 1) * STAMP_SIZE], filters[at])
            for at, path in enumerate(paths)
        }
        stats = self._stats = dict(zip(looked_at, stamps, strict=True))
        unchanged = [
            path
            for path, stat in stats.items()
            if (entry := known.get(path)) is not None and entry[0] == stat
        ]
        entries = self._entries = {path: known[path] for path in unchanged}
        entries.update((path, known[path]) for path in skipped if path in known)
        may_hold = FilterTable.of(known[path][1] for path in unchanged).holding(self._names)
        read = set(looked_at).difference(unchanged).union(unchanged[at] for at in may_hold)
        return [path for path in looked_at if path in read]

    def learn(self, path: str, data: bytes) -> None:
        """Enter the words of ``path``, read as ``data``, unless known; a template's
        filter holds every word (it renders its names, so it is always read)."""
        entries, stat = self._entries, self._stats.get(path)
        if entries is not None and stat is not None and path not in entries:
            template = path.endswith(TEMPLATE_SUFFIX)
            entries[path] = (stat, EVERY_WORD if template else word_filter(data))

    def save(self, walked: list[str]) -> None:
        """Rewrite the index, in the order of the ``walked`` files, when the run learned
        something its next run can trust, or files left; leave an empty one for the next
        run to build."""
        if not self._building:
            self._store.save(SECTION, self._key, _stored_form({}, walked))
            return
        if self._entries is None:
            return
        trusted = _stored_form(settled(self._entries, since_ns=self._seen.since_ns), walked)
        if trusted[:2] != self._found[:2] or trusted[2].groups != self._found[2].groups:
            self._store.save(SECTION, self._key, trusted)


def _stored(found: object) -> _Stored | None:
    """``found`` when it is an index as :func:`_stored_form` writes it."""
    if not isinstance(found, tuple) or len(found) != 3:  # noqa: PLR2004  # _Stored's length
        return None
    paths, packed, table = found
    well_formed = isinstance(paths, tuple) and isinstance(packed, bytes)
    if well_formed and isinstance(table, FilterTable) and len(packed) == STAMP_SIZE * len(paths):
        return (paths, packed, table)
    return None


def _stored_form(entries: _Entries, walked: list[str]) -> _Stored:
    """``entries`` as the cache keeps them, in the order of the ``walked`` files."""
    paths = tuple(path for path in walked if path in entries)
    packed = b"".join(entries[path][0] for path in paths)
    return (paths, packed, FilterTable.of(entries[path][1] for path in paths))


def _positions(paths: tuple[str, ...], wanted: list[str]) -> list[int]:
    """The positions in ``paths`` of those of the few ``wanted`` it holds, in order."""
    return sorted(paths.index(path) for path in wanted if path in paths)


def _without(
    paths: tuple[str, ...], packed: bytes, positions: list[int]
) -> tuple[tuple[str, ...], bytes]:
    """``paths`` and their ``packed`` stamps less those at ``positions`` (a few, in
    order): slices of both, no step per path."""
    spans = list(itertools.pairwise([-1, *positions, len(paths)]))
    kept = tuple(itertools.chain.from_iterable(paths[start + 1 : end] for start, end in spans))
    stamps = b"".join(packed[(start + 1) * STAMP_SIZE : end * STAMP_SIZE] for start, end in spans)
    return kept, stamps


def names_one(data: bytes, names: frozenset[bytes]) -> bool:
    """Whether ``data`` may name one of ``names``: a search for each of a few, else one
    pass over the values of its ``name`` keys (a whole directory named has thousands of
    names, and a search for each in every file would cost more than the parsing it
    spares)."""
    if len(names) <= _FEW_NAMES:
        return any(name in data for name in names)
    return not names.isdisjoint(_NAME_VALUE.findall(data))
