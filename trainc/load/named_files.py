"""Which repository files may name one of a few objects, remembered between runs by stat.

A run on named files (the pre-commit hook) looks for the TrainJobs of the rest of the
repository that could clash with the named ones (:mod:`.declared`): only the files whose
bytes contain one of the names a clash needs are parsed, but finding them means reading
every file, most of a one-file run in a repository of thousands. The index kept in the
cache (section :data:`SECTION`) remembers each file's :mod:`.word_filter` with its stat
(:mod:`~trainc.cache.stat_index`, as :mod:`.runtime_files` does): a run stats every file
and reads only those whose stat differs, that the index does not hold, or whose filter
may hold a name.
Building a filter costs about as much as reading the file again, so the first run in a
cache only leaves an empty index, and the run that finds it builds the filters: a one-off
run (a CI job with an empty cache) pays nothing for an index it would never use.

The outcome is the one reading every file gives. A file read is judged by its bytes, as
without the index; a file the index spares holds none of the names as a whole word, and
a TrainJob's name in a file that is no template is one. So templates (which render their
names) are never entered, nor files whose read failed, nor names that are no whole word
(an invalid name with ``_`` or ``/``), which are searched for in every file's bytes.
Many names (a whole directory named) are matched against each file's ``name`` values
instead, and then every file is read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Set
from typing import TYPE_CHECKING, TypeAlias

from trainc.cache.stat_index import PackedStamp, settled
from trainc.load.file_indexes import index_key, split
from trainc.load.input_settings import InputSettings
from trainc.load.inputs import TEMPLATE_SUFFIX
from trainc.load.reader import read_input
from trainc.load.seen import Seen
from trainc.load.word_filter import WordFilter, Words, is_word, word_filter

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
    looked_at, skipped = split(files, skip)
    spared = index.spared(looked_at) if index is not None else frozenset()
    if index is not None:
        index.keep(skipped)
    for path in looked_at:
        if path in spared:
            continue
        data = read_input(config.root, path, config.limits)
        if not isinstance(data, bytes):
            continue
        if index is not None:
            index.learn(path, data)
        if names_one(data, names):
            yield path, data
    if index is not None:
        index.save()


class _Index:
    """The index as one run reads and rewrites it."""

    def __init__(
        self, store: Store, names: frozenset[bytes], config: InputSettings, seen: Seen
    ) -> None:
        self._store = store
        self._key = index_key(SECTION, config, config.include, config.exclude)
        found = store.load(SECTION, self._key, dict)
        # Filters are built by a run that finds the index, even empty: a one-off run (a CI
        # job with an empty cache) pays nothing for them, the next run builds them.
        self._building = found is not None
        self._known: _Entries = found or {}
        self._entries: _Entries = {}
        self._stats: dict[str, PackedStamp | None] = {}
        self._seen = seen
        self._learned = False
        self._words = Words(names)
        self._directory = os.path.join(config.root, "")  # noqa: PTH118  # no Path per file

    def keep(self, paths: Iterable[str]) -> None:
        """Keep the entries of files the run does not look at."""
        known = self._known
        self._entries.update((path, known[path]) for path in paths if path in known)

    def spared(self, paths: list[str]) -> frozenset[str]:
        """Those of ``paths`` unchanged since they were indexed whose filters hold none of
        the names: all of them at once, in comprehensions, for 10,000 files cost less
        than one Python call each."""
        if not self._building:
            return frozenset()
        stamps = self._seen.stamps_of(self._directory, paths)
        stats = self._stats = dict(zip(paths, stamps, strict=True))
        known = self._known
        unchanged = {
            path: entry
            for path, stat in stats.items()
            if (entry := known.get(path)) is not None and entry[0] == stat
        }
        self._learned = len(unchanged) < len(paths)
        self._entries.update(unchanged)
        return self._words.lacking({path: entry[1] for path, entry in unchanged.items()})

    def learn(self, path: str, data: bytes) -> None:
        """Enter the words of ``path``, read as ``data``, unless known or a template."""
        stat = self._stats.get(path)
        if stat is not None and path not in self._entries and not path.endswith(TEMPLATE_SUFFIX):
            self._entries[path] = (stat, word_filter(data))

    def save(self) -> None:
        """Rewrite the index when the run learned something its next run can trust, or
        files left; leave an empty one for the next run to build."""
        if not self._building:
            self._store.save(SECTION, self._key, {})
            return
        if not self._learned and len(self._entries) == len(self._known):
            return
        trusted = settled(self._entries, since_ns=self._seen.since_ns)
        if trusted != self._known:
            self._store.save(SECTION, self._key, trusted)


def names_one(data: bytes, names: frozenset[bytes]) -> bool:
    """Whether ``data`` may name one of ``names``: a search for each of a few, else one
    pass over the values of its ``name`` keys (a whole directory named has thousands of
    names, and a search for each in every file would cost more than the parsing it
    spares)."""
    if len(names) <= _FEW_NAMES:
        return any(name in data for name in names)
    return not names.isdisjoint(_NAME_VALUE.findall(data))
