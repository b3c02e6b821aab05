"""Cache entries on disk: written whole or not at all, read back only when intact.

An entry is a file named by its key under ``<root>/v2/<section>/``, holding a header, a
digest of the key and payload, and the payload. Reading checks all three, so a torn
write, a disk error, an entry copied from another key or another trainc's format is a
miss (the caller computes the result again and the entry is rewritten), never a result.
Writes go to a temporary file renamed over the entry, so concurrent runs sharing a
cache each see a whole entry or none; two runs writing one key write the same bytes.
Nothing is synced to disk: an entry lost in a crash is a miss. A read refreshes the
entry's modification time (at most hourly), and the bytes written are handed to
:attr:`Store.account` every few MiB and at :meth:`Store.flush`: the cache's size bound
(:mod:`.budget`) removes the least recently used entries, never those the run itself
read or wrote (:attr:`Store.live`).

Payloads are pickles of trainc's own data, so the directory must be the user's own:
the versioned directory is created private (0700) and a store whose directory belongs
to someone else, or that others may write, is not used at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import stat
import time
from collections.abc import Callable, Collection
from dataclasses import field
from pathlib import Path
from typing import TypeVar

from trainc.records import dataclass

Stored = TypeVar("Stored")

#: The layout's version: a change of the entry format changes the directory.
LAYOUT = "v2"
#: How the name of a file being written starts, until it is renamed over its entry.
TEMPORARY_PREFIX = ".tmp-"
#: The record of how much the layout holds (:mod:`.budget`), beside the sections.
USAGE_NAME = ".usage"
_MAGIC = b"trainc-cache-entry-1\n"
_DIGEST_SIZE = 32
#: How old a read entry's time must be before the read refreshes it: one write per
#: entry and hour at most, whatever the number of runs.
REFRESH_SECONDS = 3600
#: The disk space a write is counted in: the block of ext4, XFS and tmpfs, the file
#: systems an ``emptyDir`` or a home directory is on; a survey measures the real blocks.
ALLOCATION_UNIT = 4096
#: How many bytes a process writes before it hands them to :attr:`Store.account`.
ACCOUNT_BYTES = 4 * 1024 * 1024


def entry_digest(key: str, payload: bytes) -> bytes:
    """The digest an entry keeps of its key and payload, checked when it is read."""
    hasher = hashlib.blake2b(key.encode(), digest_size=_DIGEST_SIZE)
    hasher.update(b"\0")
    hasher.update(payload)
    return hasher.digest()


@dataclass(slots=True)
class Store:
    """The entries under one cache directory. Use :meth:`open`."""

    directory: Path
    #: Why writing stopped (a read-only or full disk), for the caller to tell once.
    write_failure: str | None = field(default=None)
    #: Told the bytes written, now and then, and :attr:`live` (see :mod:`.budget`); None
    #: keeps no count. Returns what to tell the user, if anything.
    account: Callable[[int, Collection[str]], str | None] | None = field(default=None)
    #: The entry files this run read or wrote (the head and packs of a whole-repository
    #: run, the entries of a run on named files): a trim the run triggers keeps them,
    #: or the next run would find nothing of this one.
    live: set[str] = field(default_factory=set)
    #: Why the cache is over its bound after this run (its own entries alone are), for
    #: the caller to tell once.
    over_bound: str | None = field(default=None)
    #: Bytes written and not yet told to :attr:`account`, by the process :attr:`writer`:
    #: a forked worker starts its own count, never telling its parent's bytes again.
    pending: int = field(default=0)
    writer: int = field(default_factory=os.getpid)
    #: When the store was opened: reads refresh entries older than that by an hour.
    opened: float = field(default_factory=time.time)

    @classmethod
    def open(cls, root: Path) -> Store | str:
        """The store under ``root``, created if needed, or why it cannot be used."""
        directory = root / LAYOUT
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = directory.stat()
        except OSError as error:
            return f"cannot use the cache directory {root}: {error.strerror or error}"
        if hasattr(os, "geteuid"):
            if info.st_uid != os.geteuid():
                return f"the cache directory {directory} belongs to another user: not used"
            if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return f"others may write to the cache directory {directory}: not used"
        return cls(directory)

    def get(self, section: str, key: str) -> bytes | None:
        """The payload stored for ``key``, or None when there is no intact entry."""
        path = self.path(section, key)
        try:
            with open(path, "rb") as entry:  # noqa: PTH123 - see path
                data = entry.read()
                self.refresh(path, entry.fileno())
        except OSError:
            return None
        self.live.add(path)
        start = len(_MAGIC) + _DIGEST_SIZE
        if len(data) < start or not data.startswith(_MAGIC):
            return None
        payload = data[start:]
        if data[len(_MAGIC) : start] != entry_digest(key, payload):
            return None
        return payload

    def load(self, section: str, key: str, kind: type[Stored]) -> Stored | None:
        """The ``kind`` pickled under ``key``, or None: no intact entry, or one that does
        not read back as a ``kind`` (another trainc's classes, say)."""
        return decoded(self.get(section, key), kind)

    def save(self, section: str, key: str, value: object) -> None:
        """Keep ``value`` pickled under ``key`` (see :meth:`put`)."""
        self.put(section, key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def has(self, section: str, key: str) -> bool:
        """Whether an entry exists for ``key`` (intact or not: :meth:`get` tells)."""
        return os.path.isfile(self.path(section, key))  # noqa: PTH113 - see path

    def put(self, section: str, key: str, payload: bytes) -> None:
        """Store ``payload`` for ``key``; after a failed write, stop writing."""
        if self.write_failure is not None:
            return
        name = self.path(section, key)
        path = Path(name)
        # One writer per process at a time, so the process id makes the name unique; a
        # name left by a dead process of the same id is simply written over.
        temporary = path.with_name(f"{TEMPORARY_PREFIX}{os.getpid()}-{path.name}")
        try:
            try:
                out = temporary.open("wb")
            except FileNotFoundError:  # the entry's directory is made on first use
                self._make_directories(path.parent)
                out = temporary.open("wb")
            try:
                with out:
                    out.write(_MAGIC + entry_digest(key, payload) + payload)
                temporary.replace(path)
                self.live.add(name)
            except BaseException:
                with contextlib.suppress(OSError):
                    temporary.unlink()
                raise
        except OSError as error:
            reason = error.strerror or str(error)
            self.write_failure = f"cannot write to the cache {self.directory}: {reason}"
            return
        self.count(len(_MAGIC) + _DIGEST_SIZE + len(payload))

    def count(self, size: int) -> None:
        """Count a file of ``size`` bytes written into the cache, in whole blocks."""
        if self.writer != os.getpid():
            self.writer, self.pending = os.getpid(), 0
        self.pending += -(-size // ALLOCATION_UNIT) * ALLOCATION_UNIT
        if self.pending >= ACCOUNT_BYTES:
            self.flush()

    def flush(self) -> None:
        """Tell :attr:`account` the bytes written since it was last told.

        Worker processes call it as they write (every :data:`ACCOUNT_BYTES`); what a
        worker wrote after that is found by the next survey of the cache.
        """
        written, self.pending = self.pending, 0
        if written and self.account is not None and self.writer == os.getpid():
            with contextlib.suppress(OSError):  # the bound is kept by a later run
                said = self.account(written, self.live)
                self.over_bound = self.over_bound or said

    def refresh(self, path: str, descriptor: int) -> None:
        """Mark an entry as used now, unless it was within the last hour: the size bound
        removes the least recently used first, and a warm run should not write per read."""
        if os.fstat(descriptor).st_mtime < self.opened - REFRESH_SECONDS:
            with contextlib.suppress(OSError):  # a read-only cache: its entries stay
                os.utime(descriptor if os.utime in os.supports_fd else path)

    def _make_directories(self, directory: Path) -> None:
        """``directory`` and those between it and the store's own, each private: the
        store's too, which a concurrent ``trainc cache clean`` may have removed."""
        current = self.directory
        current.mkdir(mode=0o700, exist_ok=True)
        for part in directory.relative_to(self.directory).parts:
            current = current / part
            current.mkdir(mode=0o700, exist_ok=True)

    def path(self, section: str, key: str) -> str:
        """The entry's file name. A string, not a Path: a warm run of a large repository
        reads tens of thousands of entries, and pathlib's joins cost more than the reads."""
        return f"{self.directory}{os.sep}{section}{os.sep}{key[:2]}{os.sep}{key[2:]}"


def decoded(payload: bytes | None, kind: type[Stored]) -> Stored | None:
    """The ``kind`` pickled in ``payload``, or None: no payload, or one that does not read
    back as a ``kind`` (another trainc's classes, say)."""
    if payload is None:
        return None
    try:
        value = pickle.loads(payload)  # noqa: S301 - the user's own entries (module docstring)
    except Exception:  # noqa: BLE001 - any undecodable entry is a miss
        return None
    return value if isinstance(value, kind) else None
