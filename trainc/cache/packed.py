"""A whole-repository run's cache: its entries in a few packs, its files in a stat index.

A run over a whole repository knows, from the last run with the same settings (its
*head*, a small entry keyed by the settings and the command), which packs hold the
entries it used (:mod:`.pack`) and what each input file was (:mod:`.stat_index`). It
reads its entries from those packs, writes what it computes to one new pack, and at the
end writes a new head naming the packs it used, newest first. Packs are never changed,
heads are replaced whole (:meth:`Store.put`), so runs sharing a cache see a whole head
and whole packs: when two runs of one repository overlap, the last head written wins and
the other run's pack is no longer named; the size bound (:mod:`.budget`) removes it in
time, as it removes the packs of heads no run reads any more, least recently used first,
but never the head a run read nor the packs its new head names (:attr:`Store.live`).

No key holds the repository's place, so a copy elsewhere (Argo CD extracts every
generation into a new directory) starts from what the original left; and so two
different repositories with the same settings share a head too. The head therefore keeps
a :class:`Lineage` per repository, up to :data:`MAX_LINEAGES`, newest first: a run reads
entries from the packs of every lineage, and its own is the one of its directory (the
root's device and inode), else, for a copy, the one whose files mostly have its bytes. Runs
alternating between two repositories each keep their own packs and stat index.

A lineage naming more than :data:`MAX_PACKS` packs is compacted: the entries the run read
from the old packs are copied into its new one, and its lineage names that one alone, so
what a repository keeps does not grow with the number of its runs.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import uuid
from dataclasses import field
from pathlib import Path

from trainc.cache.pack import PackReader, PackWriter, entry_name
from trainc.cache.stat_index import Indexed, StatIndex
from trainc.cache.store import Store, Stored, decoded
from trainc.records import dataclass

HEADS = "heads"
PACKS = "packs"
#: How many packs a lineage may name before a run compacts them into one.
MAX_PACKS = 4
#: How many repositories with the same settings a head remembers.
MAX_LINEAGES = 4

#: Where a repository lies, without its path: its root directory's device and inode.
Place = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Lineage:
    """What the last run of one repository left: its packs, newest first, its files, and
    the directory it ran in."""

    place: Place
    packs: tuple[str, ...]
    files: dict[str, Indexed]
    since_ns: int


@dataclass(frozen=True, slots=True)
class Head:
    """The lineages of the repositories that share a head, the last run's first."""

    lineages: tuple[Lineage, ...]


@dataclass(slots=True)
class _Opened:
    """A pack of the head, open, and the entries the run read from it."""

    name: str
    reader: PackReader
    used: set[str] = field(default_factory=set)


class PackedStore:
    """The entries of one whole-repository run (see the module docstring); :meth:`finish`
    writes its pack and head, :meth:`close` releases what it holds."""

    def __init__(self, store: Store, key: str, head: Head | None, place: Place) -> None:
        self.store = store
        self.key = key
        self.place = place
        self.lineages = head.lineages if head is not None else ()
        self.own = own = next((line for line in self.lineages if line.place == place), None)
        # A copy in a new directory has none of its own: it starts from the last run's.
        known = own or next(iter(self.lineages), None)
        self.index = StatIndex() if known is None else StatIndex(known.files, known.since_ns)
        self._opened: list[_Opened] = []
        self._writer: PackWriter | None = None
        self._owner = os.getpid()
        names = (own.packs if own is not None else ()) + tuple(
            name for lineage in self.lineages for name in lineage.packs
        )
        for name in dict.fromkeys(names):  # its own packs first
            path = store.path(PACKS, name)
            reader = PackReader.open(path)
            if reader is not None:
                store.refresh(path, reader.descriptor)
                self._opened.append(_Opened(name, reader))

    @classmethod
    def open(cls, store: Store, key: str, root: Path) -> PackedStore:
        """The run keyed ``key`` (the settings and the command) on ``store``, of the
        repository at ``root``."""
        info = root.stat()
        return cls(store, key, store.load(HEADS, key, Head), (info.st_dev, info.st_ino))

    def get(self, section: str, key: str) -> bytes | None:
        """The payload of an intact entry, or None."""
        name = entry_name(section, key)
        if self._writer is not None and name in self._writer.index:
            return self._writer.get(name)
        for opened in self._opened:
            payload = opened.reader.get(name)
            if payload is not None:
                opened.used.add(name)
                return payload
        return None

    def has(self, section: str, key: str) -> bool:
        """Whether an entry exists for ``key`` (intact or not: :meth:`get` tells)."""
        name = entry_name(section, key)
        written = self._writer is not None and name in self._writer.index
        return written or any(name in opened.reader.index for opened in self._opened)

    def retain(self, section: str, key: str) -> None:
        """Keep an entry the run did not read (a whole object read only when its TrainJob
        is judged again) in the packs the head names."""
        name = entry_name(section, key)
        for opened in self._opened:
            if name in opened.reader.index:
                opened.used.add(name)
                return

    def load(self, section: str, key: str, kind: type[Stored]) -> Stored | None:
        """The ``kind`` stored under ``key``, or None (see :func:`decoded`)."""
        return decoded(self.get(section, key), kind)

    def save(self, section: str, key: str, value: object) -> None:
        """Keep ``value`` pickled under ``key``."""
        self.put(section, key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def put(self, section: str, key: str, payload: bytes) -> None:
        """Add an entry to the run's pack. Only the run's own process writes (a forked
        worker's entries reach the pack through its parent); after a failed write,
        nothing more is written."""
        if self.store.write_failure is not None or os.getpid() != self._owner:
            return
        try:
            if self._writer is None:
                self._writer = PackWriter.create(self.store.directory / PACKS)
            self._writer.add(entry_name(section, key), payload)
        except OSError as error:
            self._failed(error)

    def finish(self) -> None:
        """Write the run's pack and its head, unless nothing changed since the last run."""
        if self.store.write_failure is not None or os.getpid() != self._owner:
            return
        kept = [opened for opened in self._opened if opened.used]
        try:
            if len(kept) + (self._writer is not None) > MAX_PACKS:
                self._compact(kept)
                kept = []
            packs = tuple(opened.name for opened in kept)
            # The packs its lineage names: a trim this run triggers keeps them.
            self.store.live.update(self.store.path(PACKS, name) for name in packs)
            if self._writer is not None:
                name = uuid.uuid4().hex
                target = self.store.path(PACKS, name)
                self.store.live.add(target)
                Path(target).parent.mkdir(mode=0o700, exist_ok=True)
                self.store.count(self._writer.finish(Path(target)))
                self._writer = None
                packs = (name, *packs)
        except OSError as error:
            self._failed(error)
            return
        replaced = self._lineage()
        mine = Lineage(self.place, packs, self.index.current, self.index.started_ns)
        others = tuple(lineage for lineage in self.lineages if lineage is not replaced)
        unchanged = (
            replaced is not None
            and self.lineages[0] is replaced
            and replaced.place == self.place
            and replaced.packs == packs
            and not self.index.changed
        )
        if not unchanged:
            self.store.save(HEADS, self.key, Head((mine, *others[: MAX_LINEAGES - 1])))

    def _lineage(self) -> Lineage | None:
        """The lineage this run continues: its directory's, else the one of which it is a
        copy (more than half of its files have the same bytes there, at the same paths),
        else none: a repository of its own."""
        if self.own is not None:
            return self.own
        current = self.index.current
        best, shared = None, len(current) // 2
        for lineage in self.lineages:
            same = sum(
                known[1] == current[path][1]
                for path, known in lineage.files.items()
                if path in current
            )
            if same > shared:
                best, shared = lineage, same
        return best

    def close(self) -> None:
        """Release the packs; an unfinished pack is removed. Safe to repeat."""
        for opened in self._opened:
            opened.reader.close()
        if self._writer is not None and os.getpid() == self._owner:
            self._writer.abandon()
            self._writer = None

    def _compact(self, kept: list[_Opened]) -> None:
        """Copy the entries read from ``kept`` into the run's own pack."""
        if self._writer is None:
            self._writer = PackWriter.create(self.store.directory / PACKS)
        for opened in kept:  # newest first: the first copy of a name is the one read
            for name in sorted(opened.used):
                if name in self._writer.index:
                    continue
                payload = opened.reader.get(name)
                if payload is not None:
                    self._writer.add(name, payload)

    def _failed(self, error: OSError) -> None:
        reason = error.strerror or str(error)
        self.store.write_failure = f"cannot write to the cache {self.store.directory}: {reason}"
        if self._writer is not None:
            with contextlib.suppress(OSError):
                self._writer.abandon()
            self._writer = None
