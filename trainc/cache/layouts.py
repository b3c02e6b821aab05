"""The layout directories trainc made under a cache root: found, measured and removed.

A cache root is often shared: the user's ``~/.cache``, an emptyDir, a CI cache path, or
a directory named by mistake. So only trainc's own directories are touched: a ``v<N>``
directly under the root (the layout of :mod:`.store`, or that of another trainc
version) that is a real directory (never a symbolic link), owned by this user, and
holds nothing but directories, entries (files named by hex digits) and the temporary
files of unfinished writes. A ``v<N>`` holding anything else is not trainc's and is left
whole; nothing beside the layouts is ever looked at.

Directories are opened without following symbolic links and worked on through their
descriptors, so a link put in place of a directory, even between the look and the
removal, leads nowhere outside the root. A run writing to the cache while it is being
removed is no harm: an entry it writes meanwhile is removed or kept, whole either way
(a directory still holding one stays), and what it finds gone it computes again.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from trainc.cache.store import TEMPORARY_PREFIX, USAGE_NAME
from trainc.records import dataclass

_LAYOUT_NAME = re.compile(r"v([1-9][0-9]*)")
_ENTRY_NAME = re.compile(r"[0-9a-f]+")
#: The unit of ``st_blocks`` (POSIX: 512 bytes, whatever the file system's block size).
_BLOCK_UNIT = 512
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: What rmdir says when a concurrent run wrote into the directory (EEXIST on some systems).
_NOT_EMPTY = frozenset({errno.ENOTEMPTY, errno.EEXIST})


@dataclass(frozen=True, slots=True)
class Layout:
    """A ``v<N>`` directory under a cache root: its entries, the bytes of its files and
    the disk space they take (:func:`allocated`, what the size bound counts)."""

    path: Path
    entries: int
    size: int
    #: Why the directory is not trainc's and is left alone; None when it is trainc's.
    foreign: str | None = None
    disk: int = 0


@dataclass(frozen=True, slots=True)
class Removal:
    """What removing one layout directory took away."""

    path: Path
    entries: int
    size: int
    #: Whether files written meanwhile (by a concurrent run) kept the directory.
    kept: bool


@dataclass(slots=True)
class _Tally:
    """The running count of a walk, and the first thing found that is not trainc's."""

    entries: int = 0
    size: int = 0
    disk: int = 0
    foreign: str | None = None
    kept: bool = False

    def add(self, name: str, info: os.stat_result) -> None:
        self.size += info.st_size
        self.disk += allocated(info)
        self.entries += _ENTRY_NAME.fullmatch(name) is not None


def find_layouts(root: Path) -> list[Layout]:
    """The ``v<N>`` directories directly under ``root``, by version, each measured.

    Empty when ``root`` does not exist (a cache not written yet).
    """
    try:
        names = sorted(child.name for child in root.iterdir())
    except FileNotFoundError:
        return []
    found = [(int(match[1]), name) for name in names if (match := _LAYOUT_NAME.fullmatch(name))]
    layouts = []
    for _, name in sorted(found):
        try:
            layouts.append(_survey(root, name))
        except FileNotFoundError:  # removed by a concurrent clean
            continue
    return layouts


def remove_layout(root: Path, layout: Layout) -> Removal:
    """Remove a layout :func:`find_layouts` found to be trainc's (``foreign`` is None)."""
    if layout.foreign is not None:
        raise ValueError(f"{layout.path} is not trainc's: {layout.foreign}")
    tally = _Tally()
    name = layout.path.name
    with _opened(root, None) as parent:
        try:
            with _opened(name, parent) as directory:
                _walk(directory, layout.path, tally, remove=True)
            os.rmdir(name, dir_fd=parent)
        except FileNotFoundError:
            pass
        except OSError as error:
            if error.errno not in _NOT_EMPTY:
                raise
            tally.kept = True
    return Removal(layout.path, tally.entries, tally.size, tally.kept)


def _survey(root: Path, name: str) -> Layout:
    """One ``v<N>`` under ``root``, measured, or why it is not trainc's."""
    path = root / name
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return Layout(path, 0, 0, "a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        return Layout(path, 0, 0, "not a directory")
    tally = _Tally()
    with _opened(root, None) as parent, _opened(name, parent) as directory:
        if hasattr(os, "geteuid") and os.fstat(directory).st_uid != os.geteuid():
            return Layout(path, 0, 0, "it belongs to another user")
        _walk(directory, path, tally, remove=False)
    return Layout(path, tally.entries, tally.size, tally.foreign, tally.disk)


def _walk(directory: int, path: Path, tally: _Tally, *, remove: bool) -> None:
    """Count (and with ``remove``, delete) what is trainc's under ``directory``.

    Counting stops at the first thing that is not trainc's, naming it in the tally;
    removing leaves such a thing (and the directories holding it) where it is.
    """
    with os.scandir(directory) as listing:
        items = sorted(listing, key=lambda item: item.name)
    for item in items:
        if tally.foreign is not None:
            return
        try:
            _visit(item, directory, path / item.name, tally, remove=remove)
        except FileNotFoundError:  # gone meanwhile: a concurrent clean
            continue
        except OSError as error:
            if remove and error.errno in _NOT_EMPTY:
                tally.kept = True
                continue
            if error.filename != item.name:  # named already, deeper down
                raise
            # Calls on a descriptor know only the name: say which file of the cache it was.
            raise OSError(error.errno, error.strerror, str(path / item.name)) from error


def _visit(
    item: os.DirEntry[str], directory: int, path: Path, tally: _Tally, *, remove: bool
) -> None:
    """One item of a directory :func:`_walk` works through (``path`` names it)."""
    if item.is_dir(follow_symlinks=False):
        with _opened(item.name, directory) as child:
            _walk(child, path, tally, remove=remove)
        if remove:
            os.rmdir(item.name, dir_fd=directory)
    elif item.is_file(follow_symlinks=False) and is_cache_file(item.name):
        info = item.stat(follow_symlinks=False)
        if remove:
            os.unlink(item.name, dir_fd=directory)
        tally.add(item.name, info)
    elif remove:
        tally.kept = True
    else:
        tally.foreign = f"{path} is not a cache entry"


def allocated(info: os.stat_result) -> int:
    """The disk space a file takes: whole blocks, as the kubelet measures a volume's use
    (``du``), about twice the bytes of a small entry; its size where blocks are unknown."""
    blocks = getattr(info, "st_blocks", None)
    return info.st_size if blocks is None else blocks * _BLOCK_UNIT


def is_cache_file(name: str) -> bool:
    """Whether a file of that name is one trainc writes in a layout: an entry, the
    temporary file of a write, or the usage record (:mod:`.budget`)."""
    return (
        _ENTRY_NAME.fullmatch(name) is not None
        or name.startswith(TEMPORARY_PREFIX)
        or name == USAGE_NAME
    )


@contextmanager
def _opened(name: str | Path, parent: int | None) -> Iterator[int]:
    """A descriptor of directory ``name`` (relative to ``parent``), never through a link.

    ``name`` itself may be a link only when there is no ``parent``: the cache root is
    wherever the user's settings point, links included.
    """
    flags = _DIRECTORY_FLAGS if parent is not None else _DIRECTORY_FLAGS & ~os.O_NOFOLLOW
    descriptor = os.open(name, flags, dir_fd=parent)
    try:
        yield descriptor
    finally:
        os.close(descriptor)
