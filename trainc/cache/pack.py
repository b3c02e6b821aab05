"""Pack files: the entries of one run in one file, written whole or not at all.

A warm re-run of a large repository used to open one entry file per input file and per
TrainJob, tens of thousands of ``open``/``read``/``close`` calls for results it already
had. A pack holds them all: the run opens a few packs (:class:`PackReader`) and reads
each payload with one ``pread`` at an offset its index gives; what it computes it writes
to one new pack (:class:`PackWriter`), written under a temporary name and renamed into
place when complete, as git writes its packs and loose objects. A pack never changes
once renamed, so concurrent runs see a whole pack or none.

The format: :data:`MAGIC`, the payloads back to back, the index (a pickle of entry
name → offset, length and the digest of the name and payload, :func:`entry_digest`),
then a trailer: the index's offset and length (8 bytes each, little-endian) and its
digest. Reading checks the trailer, the index and, on each read, the payload's digest:
a torn, damaged or foreign pack or payload is a miss, never a result.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import uuid
from dataclasses import field
from pathlib import Path
from typing import TypeAlias

from trainc.cache.store import TEMPORARY_PREFIX, entry_digest
from trainc.records import dataclass

MAGIC = b"trainc-cache-pack-1\n"
_DIGEST_SIZE = 32
_TRAILER = 8 + 8 + _DIGEST_SIZE


#: Where a payload is in its pack (offset, length), and the digest it must have. A plain
#: tuple: an index of 30,000 entries unpickles in milliseconds, as objects it would not.
Located: TypeAlias = tuple[int, int, bytes]


def entry_name(section: str, key: str) -> str:
    """The name an entry has in a pack: its section and key."""
    return f"{section}/{key}"


class PackReader:
    """One pack opened for reading: its index in memory, its payloads read on demand."""

    def __init__(self, descriptor: int, index: dict[str, Located]) -> None:
        self.descriptor = descriptor
        self.index = index

    @classmethod
    def open(cls, path: str) -> PackReader | None:
        """The pack at ``path``, or None when it is missing, cut short or not a pack."""
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        index = _read_index(descriptor)
        if index is None:
            os.close(descriptor)
            return None
        return cls(descriptor, index)

    def get(self, name: str) -> bytes | None:
        """The payload of entry ``name``, or None: not in this pack, or not intact."""
        return read_entry(self.descriptor, self.index, name)

    def close(self) -> None:
        """Release the pack's descriptor; safe to repeat."""
        if self.descriptor >= 0:
            os.close(self.descriptor)
            self.descriptor = -1


def read_entry(descriptor: int, index: dict[str, Located], name: str) -> bytes | None:
    """The payload of entry ``name`` of the pack open as ``descriptor``, or None: not in
    its ``index``, or not intact."""
    located = index.get(name)
    if located is None:
        return None
    offset, length, digest = located
    try:
        payload = os.pread(descriptor, length, offset)
    except OSError:
        return None
    if len(payload) != length or entry_digest(name, payload) != digest:
        return None
    return payload


def _read_index(descriptor: int) -> dict[str, Located] | None:
    """The index of the pack open as ``descriptor``, or None when it is not intact."""
    try:
        size = os.fstat(descriptor).st_size
        if size < len(MAGIC) + _TRAILER or os.pread(descriptor, len(MAGIC), 0) != MAGIC:
            return None
        trailer = os.pread(descriptor, _TRAILER, size - _TRAILER)
        offset = int.from_bytes(trailer[:8], "little")
        length = int.from_bytes(trailer[8:16], "little")
        if offset + length != size - _TRAILER:
            return None
        data = os.pread(descriptor, length, offset)
    except OSError:
        return None
    if entry_digest("index", data) != trailer[16:]:
        return None
    try:
        index = pickle.loads(data)  # noqa: S301 - the user's own cache (store's docstring)
    except Exception:  # noqa: BLE001 - an undecodable index is a miss
        return None
    return index if isinstance(index, dict) else None


@dataclass(slots=True)
class PackWriter:
    """A pack being written in ``directory``: payloads appended as they come, so a run
    never holds them all; readable (:meth:`get`) before it is finished."""

    directory: Path
    descriptor: int
    temporary: Path
    index: dict[str, Located] = field(default_factory=dict)
    size: int = 0

    @classmethod
    def create(cls, directory: Path) -> PackWriter:
        """A new pack in ``directory`` (created, private, if needed). Raises OSError."""
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = directory / f"{TEMPORARY_PREFIX}{os.getpid()}-{uuid.uuid4().hex}"
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        descriptor = os.open(temporary, flags, 0o600)
        writer = cls(directory, descriptor, temporary)
        try:
            writer._write(MAGIC)
        except BaseException:
            writer.abandon()
            raise
        return writer

    def add(self, name: str, payload: bytes) -> None:
        """Append entry ``name``; a name added again is read at its last place. Raises
        OSError."""
        offset = self.size
        self._write(payload)
        self.index[name] = (offset, len(payload), entry_digest(name, payload))

    def get(self, name: str) -> bytes | None:
        """A payload added to this pack, read back."""
        return read_entry(self.descriptor, self.index, name)

    def finish(self, target: Path) -> int:
        """Write the index and trailer and rename the pack to ``target`` (whose directory
        exists, on the same file system); returns its size. Raises OSError (the pack is
        then abandoned)."""
        try:
            data = pickle.dumps(self.index, protocol=pickle.HIGHEST_PROTOCOL)
            offset = self.size
            trailer = offset.to_bytes(8, "little") + len(data).to_bytes(8, "little")
            self._write(data + trailer + entry_digest("index", data))
            os.close(self.descriptor)
            self.descriptor = -1
            self.temporary.replace(target)
        except BaseException:
            self.abandon()
            raise
        return self.size

    def abandon(self) -> None:
        """Close and remove the unfinished pack; safe to repeat."""
        if self.descriptor >= 0:
            os.close(self.descriptor)
            self.descriptor = -1
        with contextlib.suppress(OSError):
            self.temporary.unlink()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.descriptor, view) :]
        self.size += len(data)
