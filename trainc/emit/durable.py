"""How the writer gets a staged output tree onto the disk before it swaps the tree in.

The swap (rename) must never make a tree visible whose files could still be lost in a
power cut: after a crash the directory holds the old tree or the new one, each complete.
Two ways to get there, measured in ``bench/RESULTS.md`` ("durable output without a sync
per file"):

``batched`` (Linux)
    Files are written without a sync; one ``syncfs(2)`` on the staging tree then flushes
    the whole filesystem it lives on, data and directory entries alike, in one go.
    https://man7.org/linux/man-pages/man2/syncfs.2.html: since Linux 5.8 it
    reports a writeback error of any file of that filesystem, so a failed write of the
    tree is not swapped in silently. The call is not in Python's standard library and
    is reached through the C library.
``per-file`` (everywhere else, or when the C library has no ``syncfs``)
    Each file is fsynced as it is written, then every directory of the tree, deepest
    first. Where the platform has ``F_FULLFSYNC`` (macOS, whose ``fsync`` leaves the
    data in the drive's cache, see
    https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man2/fsync.2.html)
    the tree's root gets it last: it flushes the drive's whole cache, every file's data
    included, once.

Either way the parent directory is synced after the rename (:func:`barrier`), so the
rename itself survives.
"""

from __future__ import annotations

import fcntl
import functools
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final, Literal, TypeAlias

from trainc.errors import CompilerBug

Sync: TypeAlias = Literal["batched", "per-file"]

_FULL_FSYNC: Final = getattr(fcntl, "F_FULLFSYNC", None)


@functools.cache
def _syncfs() -> Callable[[int], int] | None:
    """The C library's ``syncfs`` on Linux; None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # noqa: PLC0415  # only a compile that writes a directory needs it

    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):  # a C library without it
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    return function


def default_sync() -> Sync:
    """``batched`` where ``syncfs`` exists, else ``per-file``."""
    return "batched" if _syncfs() is not None else "per-file"


def sync_each_file(sync: Sync) -> bool:
    """Whether every file must be fsynced as it is written (the ``per-file`` way)."""
    return sync == "per-file"


def _opened(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_CLOEXEC)


def fsync_path(path: Path) -> None:
    """fsync the file or directory ``path``."""
    descriptor = _opened(path)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def barrier(path: Path) -> None:
    """Sync ``path`` as far as the platform allows: through the drive's cache where it can."""
    if _FULL_FSYNC is None:
        fsync_path(path)
        return
    descriptor = _opened(path)
    try:
        fcntl.fcntl(descriptor, _FULL_FSYNC)
    except OSError:  # a filesystem that does not support it: the plain sync
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def sync_tree(root: Path, directories: Iterable[str], sync: Sync) -> None:
    """Make the tree at ``root`` (with these relative ``directories``) durable.

    ``per-file``: its files were synced as written; the directories follow, deepest first.
    """
    if sync == "per-file":
        for directory in sorted(directories, reverse=True):
            fsync_path(root / directory)
        barrier(root)
        return
    syncfs = _syncfs()
    if syncfs is None:
        raise CompilerBug("a batched sync was asked for where there is no syncfs")
    descriptor = _opened(root)
    try:
        if syncfs(descriptor) != 0:
            import ctypes  # noqa: PLC0415  # loaded by _syncfs already

            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error), str(root))
    finally:
        os.close(descriptor)
