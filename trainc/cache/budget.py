"""Keeping the cache within a size: usage counted as runs write, least recently used first out.

Entries accumulate with every change of a TrainJob, of ``trainc.yaml`` or of trainc, and
Argo CD's sidecar keeps the cache on an ``emptyDir`` whose ``sizeLimit``, once exceeded,
makes the kubelet evict the whole repo-server pod
(https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage).
So the cache has a bound on the disk space it takes (:data:`DEFAULT_MAX_SIZE`, a
quarter of the documented 1 GiB ``sizeLimit``), and when it is over it, the least
recently used entries are removed until it holds :data:`TRIM_TO` of the bound, so that
trimming is rare rather than every run.

Least recently used, not first written: a render reads the same unchanged files again
and again, and their entries were written long ago; removing the oldest writes would
remove the hottest entries. A read refreshes an entry's modification time (see
:meth:`trainc.cache.store.Store.get`), at most once an hour, so a
warm run costs no write per entry; access times are not used, as ``noatime`` and
``relatime`` mounts do not keep them.

Walking the cache costs time, so runs do not: each adds what it wrote to a small record,
:data:`USAGE_NAME` in the layout directory, and only a record over the bound, or older
than :data:`SURVEY_SECONDS` (which corrects what a crashed run never added), makes a run
walk and measure the cache. The record is read and written under an exclusive ``flock``,
so concurrent runs add up; a run trimming meanwhile is safe for the others, which
compute again what they find gone, and the temporary files of writes in flight are
never removed.

A trim never removes what the run that triggers it read or wrote (its ``keep``: the
head, the packs it named, the pack it wrote, :attr:`trainc.cache.store.Store.live`).
Removing them made a bound smaller than one run's entries a silent cliff: a run of a
large repository wrote its pack, trimmed it away with everything else, and every later
run was cold. What a trim had to keep counts as :attr:`Trimmed.kept`; when that alone
is over the bound, :func:`bounded` says so, with a bound to set instead.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import BinaryIO, Final, cast

from trainc.cache.layouts import allocated, is_cache_file
from trainc.cache.location import MAX_SIZE_VARIABLE
from trainc.cache.store import TEMPORARY_PREFIX, USAGE_NAME
from trainc.diagnostics import counted
from trainc.records import dataclass

_MIB: Final = 1024 * 1024
#: The default bound: well under the 1 GiB ``sizeLimit`` docs/argocd.md sets.
DEFAULT_MAX_SIZE: Final = 256 * _MIB
#: What a trim leaves: this share of the bound.
TRIM_TO: Final = 0.75
#: How stale the usage record may be before a run measures the cache again.
SURVEY_SECONDS: Final = 3600
#: How old a temporary file must be to be the leftover of a dead run, not a write.
STALE_TEMPORARY_SECONDS: Final = 3600
#: What a bound suggested to the user is rounded up to.
_SUGGESTION_STEP: Final = 64 * _MIB
_KIB: Final = 1024
_UNITS: Final = ("KiB", "MiB", "GiB", "TiB")
_RECORD: Final = re.compile(r"surveyed=(\d+) size=(\d+)\n")

try:  # POSIX; elsewhere runs add up without a lock, and a survey corrects them hourly
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Trimmed:
    """What a trim removed, and what the cache holds after it."""

    entries: int
    size: int
    remaining: int
    #: The disk space of the entries the trim was told to keep (the run's own).
    kept: int = 0


@dataclass(frozen=True, slots=True, order=True)
class _Entry:
    """An entry file, ordered least recently used first (its path breaks ties)."""

    mtime: float
    path: str
    size: int
    removable: bool


def account(
    directory: Path,
    written: int,
    limit: int,
    *,
    keep: Collection[str] = (),
    now: float | None = None,
) -> Trimmed | None:
    """Add ``written`` bytes to the usage of the cache in ``directory`` (``<root>/v2``);
    trim when over, never removing the entry files in ``keep``. OSError is the caller's:
    the cache only saves time."""
    return _settle(directory, written, limit, keep=keep, now=now, always=False)


def bounded(written: int, live: Collection[str], *, directory: Path, limit: int) -> str | None:
    """:func:`account` as a run's store calls it (:attr:`Store.account`): ``live`` are the
    entry files the run read or wrote. Returns what to tell the user when those alone are
    over the bound: the run keeps them, so the cache stays over it until the bound is
    raised (docs/cache.md, "Size bound")."""
    trimmed = account(directory, written, limit, keep=frozenset(live))
    if trimmed is None or trimmed.kept <= limit:
        return None
    return over_bound_warning(trimmed.kept, limit)


def over_bound_warning(kept: int, limit: int) -> str:
    """What a run whose own entries take ``kept`` bytes, over the bound ``limit``, says."""
    return (
        f"this run keeps {readable_size(kept)} in the cache, more than its bound of "
        f"{readable_size(limit)} ({MAX_SIZE_VARIABLE}): its entries stay, over the bound, "
        f"so that the next run can use them; set {MAX_SIZE_VARIABLE}="
        f'{suggested_bound(kept)} or more (docs/cache.md, "Size bound")'
    )


def suggested_bound(kept: int) -> str:
    """A bound for runs keeping ``kept`` bytes, as ``TRAINC_CACHE_MAX_SIZE`` is written:
    twice that (a run that compacts its packs, or changes the settings, writes a second
    set beside the first), rounded up to a multiple of 64 MiB."""
    steps = -(-2 * kept // _SUGGESTION_STEP)
    return f"{steps * _SUGGESTION_STEP // _MIB}Mi"


def readable_size(size: int) -> str:
    """``512 bytes``, ``48.0 KiB``, ``5.6 MiB``: a size for people, in binary units."""
    if size < _KIB:
        return counted(size, "byte")
    amount, unit = size / _KIB, 0
    while amount >= _KIB and unit < len(_UNITS) - 1:
        amount, unit = amount / _KIB, unit + 1
    return f"{amount:.1f} {_UNITS[unit]}"


def trim_to_bound(directory: Path, limit: int, *, now: float | None = None) -> Trimmed:
    """Measure the cache in ``directory`` and trim it as a run past ``limit`` would."""
    trimmed = _settle(directory, 0, limit, now=now, always=True)
    assert trimmed is not None  # noqa: S101 - always trims
    return trimmed


def _settle(
    directory: Path,
    written: int,
    limit: int,
    *,
    keep: Collection[str] = (),
    now: float | None,
    always: bool,
) -> Trimmed | None:
    """Update the usage record under its lock, measuring and trimming as needed."""
    now = time.time() if now is None else now
    with _record(directory) as record:
        surveyed, size = _read(record)
        if not always and now - surveyed > SURVEY_SECONDS:
            surveyed, size = int(now), sum(entry.size for entry in _entries(directory, now))
        elif not always:
            size += written
        trimmed = None
        if always or size > limit:
            trimmed = trim(directory, int(limit * TRIM_TO), keep=keep, now=now)
            surveyed, size = int(now), trimmed.remaining
        record.seek(0)
        record.truncate()
        record.write(f"surveyed={surveyed} size={size}\n".encode())
    return trimmed


def trim(
    directory: Path, target: int, *, keep: Collection[str] = (), now: float | None = None
) -> Trimmed:
    """Remove the least recently used entries of ``directory`` until ``target`` bytes remain,
    never the entry files in ``keep`` (paths as :meth:`Store.path` names them).

    Entries a concurrent run removes meanwhile count as removed; temporary files of
    writes in flight stay (those of dead runs go first).
    """
    now = time.time() if now is None else now
    entries = sorted(_entries(directory, now))
    remaining = sum(entry.size for entry in entries)
    kept = sum(entry.size for entry in entries if entry.path in keep)
    removed = freed = 0
    for entry in entries:
        if remaining <= target:
            break
        if not entry.removable or entry.path in keep:
            continue
        with contextlib.suppress(FileNotFoundError):
            Path(entry.path).unlink()
        remaining -= entry.size
        removed += 1
        freed += entry.size
    return Trimmed(removed, freed, remaining, kept)


@contextlib.contextmanager
def _record(directory: Path) -> Iterator[BinaryIO]:
    """The usage record, opened for reading and writing and locked for this run."""
    descriptor = os.open(
        directory / USAGE_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
    )
    with os.fdopen(descriptor, "r+b") as record:
        if fcntl is not None:
            fcntl.flock(record.fileno(), fcntl.LOCK_EX)
        yield cast(BinaryIO, record)


def _read(record: BinaryIO) -> tuple[int, int]:
    """(when the cache was last measured, its size since); (0, 0) when unknown."""
    found = _RECORD.fullmatch(record.read(64).decode("ascii", "replace"))
    return (int(found[1]), int(found[2])) if found else (0, 0)


def _entries(directory: Path, now: float) -> Iterator[_Entry]:
    """Every entry file of the layout (``<section>/<xx>/<rest>``), without following links."""
    for section in _directories(str(directory)):
        for bucket in _directories(section):
            with contextlib.suppress(FileNotFoundError), os.scandir(bucket) as listing:
                for item in listing:
                    if not (is_cache_file(item.name) and item.is_file(follow_symlinks=False)):
                        continue
                    try:
                        info = item.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    in_flight = item.name.startswith(TEMPORARY_PREFIX) and (
                        now - info.st_mtime < STALE_TEMPORARY_SECONDS
                    )
                    yield _Entry(info.st_mtime, item.path, allocated(info), not in_flight)


def _directories(path: str) -> list[str]:
    """The real directories (no links) directly in ``path``; none when it is gone."""
    try:
        with os.scandir(path) as listing:
            return [item.path for item in listing if item.is_dir(follow_symlinks=False)]
    except FileNotFoundError:
        return []
