"""The one module that writes an output directory: atomically, and only over trainc's own files.

A :class:`TreeWriter` replaces ``<parent>/<name>`` under an exclusive lock on ``<parent>``,
taking the files one at a time, so a compile never holds its whole output in memory:

1. recover from an interrupted run (below);
2. refuse unless the directory is missing, empty, or holds only files its ownership
   manifest ``.trainc-owned`` lists: trainc never deletes a file it did not write;
3. write each file, as it comes, into a new tree in ``<parent>/.<name>.trainc-new``
   (beside the target, so on the same filesystem and renames are atomic), a file whose
   bytes are those of the old tree's as a hard link to that file (no data written, and
   the old tree is never changed, so a kill before the swap still leaves it whole; the
   bytes proven by the cache's record of the last write, :mod:`trainc.emit.tree_index`,
   or else read and compared); on
   :meth:`~TreeWriter.commit` the manifest, then the whole tree made durable, by one
   ``syncfs`` on Linux or a sync per file elsewhere (:mod:`trainc.emit.durable`);
4. rename the directory to ``.<name>.trainc-old``, rename the new tree into its place,
   sync ``<parent>``;
5. remove the old tree.

A writer closed without a commit (an error found in the input halfway through a
compile, an exception, Ctrl-C) removes its new tree: the old one is never touched before
step 4. A kill or crash at any moment leaves the previous tree or the new one, complete,
never a mix, with one window: between the two renames of step 4 (two consecutive system
calls) ``<name>`` does not exist, and a reader looking exactly then finds no tree at
all. POSIX cannot exchange two directories atomically (Linux's
``renameat2(RENAME_EXCHANGE)`` is not in the standard library), and a symlink flip would
put a symlink into the repository. A kill inside the window leaves the previous tree
complete at ``.<name>.trainc-old``.

Recovery, at the start of every write: ``.trainc-old`` beside a missing directory is that
window, and is renamed back (this run then writes its own tree); ``.trainc-old`` beside
an existing directory is a finished swap whose clean-up was cut short, and
``.trainc-new`` an unfinished build; both are removed. The lock makes these leftovers
certainly dead runs', never a concurrent writer's; the kernel drops it when its holder
dies. It needs ``fcntl``, so the writer is POSIX-only, as the rename protocol is.

The new tree is exactly the given files plus the manifest: files of jobs that no longer
exist disappear, and nothing else of the old tree survives unless given again
(:meth:`TreeWriter.carry` gives a file of the old tree as it is: a compile of some paths
keeps the other TrainJobs' files, :mod:`trainc.emit.selection`). Files get mode 0644 and
directories 0755 whatever the umask, bytes are written as given. Modification times are
real: a file written has the time it was written (faking it would let rsync-like tools
skip changed files of equal size), a file kept keeps its own.

:class:`TreeCheck` is the read-only twin for ``compile --check``, comparing file by file;
:func:`write_tree` and :func:`check_tree` take a whole mapping at once.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final, Literal, TypeAlias

from trainc.cache.store import Store
from trainc.config.file import OWNERSHIP_FILE_NAME
from trainc.emit.durable import Sync, barrier, default_sync, sync_each_file, sync_tree
from trainc.emit.tree_index import bytes_digest, keep_index, read_index
from trainc.errors import CompilerBug, UsageError

#: The ownership manifest: every other file of the tree, one sorted relative path a line.
OWNERSHIP_FILE: Final = OWNERSHIP_FILE_NAME
NEW_SUFFIX: Final = ".trainc-new"
OLD_SUFFIX: Final = ".trainc-old"

_FILE_MODE: Final = 0o644
_DIR_MODE: Final = 0o755
_FORBIDDEN_IN_PATHS: Final = ("\\", "\n", "\r", "\0")
_LISTED_FOREIGN_FILES: Final = 5
#: Bytes read of a file's first line: a generated header names one path, well within it.
_HEADER_BYTES: Final = 65536

Difference: TypeAlias = tuple[Literal["missing", "stale", "extra"], str]


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What a write changed; paths are relative POSIX paths, sorted."""

    changed: tuple[str, ...]
    """Files that are new or whose bytes changed (the manifest included)."""

    removed: tuple[str, ...]
    """Files of the previous tree that are gone."""

    recovered: tuple[str, ...]
    """Names of leftovers of an interrupted run, restored or removed before writing."""


class _Paths:
    """The relative paths of one output tree, each checked as it is added."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.directories: set[str] = set()

    def add(self, path: str) -> list[str]:
        """Record ``path``; returns the directories it needs that no earlier path did.

        Raises CompilerBug for a path trainc never generates: absolute, with empty, ``.``
        or ``..`` parts, a backslash, line break or NUL, the manifest's name, a path
        given twice, or a file where another path needs a directory.
        """
        if path in self.files:
            raise CompilerBug(f"two outputs would both be written to {path}")
        parts = path.split("/")
        ancestors = ["/".join(parts[:depth]) for depth in range(1, len(parts))]
        if (
            path == OWNERSHIP_FILE
            or path in self.directories
            or any(part in ("", ".", "..") for part in parts)
            or any(char in path for char in _FORBIDDEN_IN_PATHS)
            or any(ancestor in self.files for ancestor in ancestors)
        ):
            raise CompilerBug(f"cannot write the output path {path!r}")
        self.files.add(path)
        needed = [ancestor for ancestor in ancestors if ancestor not in self.directories]
        self.directories.update(needed)
        return needed

    def manifest(self) -> bytes:
        """The ownership manifest's bytes: every path, sorted, one a line."""
        return "".join(f"{path}\n" for path in sorted(self.files)).encode()


def _list_tree(directory: Path) -> dict[str, bool]:
    """Every non-directory entry below ``directory`` → whether it is a regular file.

    A missing directory lists as empty. Symbolic links are entries, never followed.
    Contents are read later, one file at a time, by whoever needs them. Listed with
    ``os.scandir``, whose entries know their type from the directory itself: a re-run
    lists a tree of 10,000 files, without a ``stat`` each.
    """
    if not directory.exists():
        return {}
    if not directory.is_dir():
        raise UsageError(f"{directory} exists and is not a directory")
    found: dict[str, bool] = {}
    pending = [("", os.fspath(directory))]
    while pending:
        prefix, current = pending.pop()
        with os.scandir(current) as entries:
            for entry in entries:
                relative = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    pending.append((relative + "/", entry.path))
                else:
                    found[relative] = entry.is_file(follow_symlinks=False)
    return found


def _same_file(directory: Path, present: Mapping[str, bool], path: str, data: bytes) -> bool:
    """Whether ``directory`` holds ``path`` as a regular file with exactly ``data``."""
    return present.get(path, False) and _same_bytes(_under(directory, path), data)


def _same_bytes(file: str, data: bytes) -> bool:
    """Whether ``file`` holds exactly ``data``: a file of another size is not read."""
    with open(file, "rb") as opened:  # noqa: PTH123 - see _under
        return os.fstat(opened.fileno()).st_size == len(data) and opened.read() == data


def _under(directory: Path, path: str) -> str:
    """``directory/path`` as a string: a re-run compares and links every output file, and
    pathlib's joins cost more than the system calls."""
    return f"{os.fspath(directory)}{os.sep}{path}"


def _first_line(directory: Path, path: str) -> str:
    """The first line of ``directory/path``, without reading the rest of the file."""
    with (directory / path).open("rb") as file:
        return file.readline(_HEADER_BYTES).decode("utf-8", "replace")


def _previous_files(present: Mapping[str, bool]) -> list[str]:
    """The regular files a tree holds besides its manifest, sorted."""
    return sorted(path for path, regular in present.items() if regular and path != OWNERSHIP_FILE)


def _check_owned(directory: Path, target: Path, present: Mapping[str, bool]) -> None:
    """Raise UsageError unless every file in ``target`` is one trainc wrote there."""
    if not present:
        return
    if not present.get(OWNERSHIP_FILE, False):
        raise UsageError(
            f"refusing to replace {directory}: it is not empty and has no {OWNERSHIP_FILE}, so "
            "trainc did not write it; choose a new or empty directory"
        )
    manifest = (target / OWNERSHIP_FILE).read_bytes()
    owned = {*manifest.decode(errors="replace").split("\n"), OWNERSHIP_FILE}
    foreign = sorted(path for path, regular in present.items() if path not in owned or not regular)
    if foreign:
        shown = ", ".join(foreign[:_LISTED_FOREIGN_FILES])
        more = len(foreign) - _LISTED_FOREIGN_FILES
        shown += f" and {more} more" if more > 0 else ""
        raise UsageError(
            f"refusing to replace {directory}: trainc did not write {shown}; "
            "move them out of the output directory and run again"
        )


class TreeCheck:
    """What a :class:`TreeWriter` given the same files would change, found file by file.

    The ``compile --check`` gate. Reads only; a missing directory lacks every file.
    """

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._present: dict[str, bool] | None = None
        self._paths = _Paths()
        self._found: list[Difference] = []

    def _listing(self) -> dict[str, bool]:
        if self._present is None:
            self._present = _list_tree(self._directory)
        return self._present

    def _compare(self, path: str, data: bytes) -> None:
        present = self._listing()
        if path not in present:
            self._found.append(("missing", path))
        elif not _same_file(self._directory, present, path, data):
            self._found.append(("stale", path))

    def add(self, path: str, data: bytes) -> None:
        """Compare one file of the expected tree with what the directory holds."""
        self._paths.add(path)
        self._compare(path, data)

    def previous(self) -> list[str]:
        """The files the directory holds now (its manifest aside), sorted."""
        return _previous_files(self._listing())

    def first_line(self, path: str) -> str:
        """The first line of one of :meth:`previous`."""
        return _first_line(self._directory, path)

    def carry(self, path: str) -> None:
        """Expect one of :meth:`previous` to stay as it is."""
        self._paths.add(path)

    def differences(self) -> list[str]:
        """Every difference, ``"<missing|stale|extra> <path>"``, sorted by path; empty: current."""
        self._compare(OWNERSHIP_FILE, self._paths.manifest())
        expected = {*self._paths.files, OWNERSHIP_FILE}
        extra = [("extra", path) for path in self._listing() if path not in expected]
        found = sorted([*self._found, *extra], key=lambda difference: difference[1])
        return [f"{status} {path}" for status, path in found]


def _resolved(path: Path) -> Path:
    """``path.resolve()``, a symbolic link loop failing as an OSError (ELOOP).

    Python 3.11's pathlib raises RuntimeError for a loop, which is no bug of trainc's
    but a path the user gave that leads nowhere.
    """
    try:
        return path.resolve()
    except RuntimeError as error:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from error


def validate_output_location(directory: Path, inputs: Sequence[Path], root: Path) -> None:
    """Raise UsageError when the output directory is inside or contains an input path.

    Inside an input, the next run would read the manifests back as input; containing
    one, replacing the directory would remove the input. The repository ``root`` as an
    input is the exception to the first rule: compiling the whole repository into a
    directory committed beside it (``rendered/``, the Flux pattern of ``docs/flux.md``)
    is the normal case, and the config's
    ``inputs.exclude`` keeps that directory out of discovery; the output still may not be
    the root or contain it. Relative paths are taken from the working directory, and
    symbolic links are resolved.
    """
    output = _resolved(directory)
    repository = _resolved(root)
    for given in inputs:
        source = _resolved(given)
        if source.is_relative_to(output):
            raise UsageError(
                f"output directory {directory} contains the input {given}: "
                "writing it would replace the input files"
            )
        if source != repository and output.is_relative_to(source):
            raise UsageError(
                f"output directory {directory} is inside the input {given}: "
                "the next run would read the manifests as input"
            )


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``directory``; it serialises writers of its children."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _write_file(path: Path, data: bytes, *, sync: bool) -> os.stat_result:
    """Create ``path`` holding ``data``; with ``sync``, on disk before this returns.
    Returns what ``stat`` says of the file written."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, _FILE_MODE)
    try:
        os.fchmod(descriptor, _FILE_MODE)  # the umask may have cleared bits
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        if sync:
            os.fsync(descriptor)
        return os.fstat(descriptor)
    finally:
        os.close(descriptor)


def _make_directory(path: Path) -> None:
    path.mkdir(mode=_DIR_MODE)
    path.chmod(_DIR_MODE)  # mkdir's mode is filtered by the umask


def _recover(directory: Path, new: Path, old: Path) -> tuple[str, ...]:
    """Undo what an interrupted run left beside ``directory``; see the module docstring."""
    recovered: list[str] = []
    if old.exists():
        if directory.exists():
            shutil.rmtree(old)
        else:
            old.rename(directory)
        recovered.append(old.name)
    if new.exists():
        shutil.rmtree(new)
        recovered.append(new.name)
    return tuple(recovered)


def _swap(new: Path, directory: Path, old: Path) -> None:
    if directory.exists():
        directory.rename(old)
    # A kill here leaves no ``directory``: the window the module docstring describes.
    new.rename(directory)
    barrier(directory.parent)
    if old.exists():
        shutil.rmtree(old)


class _Staging:
    """An open write: the lock held, the old tree listed and vetted, the new tree begun;
    with a cache (``records``), the record of the old tree read
    (:mod:`trainc.emit.tree_index`)."""

    def __init__(
        self, directory: Path, stack: ExitStack, sync: Sync, records: Store | None
    ) -> None:
        self.sync = sync
        self.records = records
        self.target = _resolved(directory)
        if self.target == self.target.parent:
            raise UsageError(f"cannot replace the filesystem root {directory}")
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.new = self.target.with_name(f".{self.target.name}{NEW_SUFFIX}")
        self.old = self.target.with_name(f".{self.target.name}{OLD_SUFFIX}")
        stack.enter_context(_locked(self.target.parent))
        self.recovered = _recover(self.target, self.new, self.old)
        self.present = _list_tree(self.target)
        _check_owned(directory, self.target, self.present)
        self.index = read_index(records, self.target) if records is not None else None
        _make_directory(self.new)
        self.changed: list[str] = []

    def write(self, path: str, data: bytes, directories: Sequence[str]) -> None:
        """Write one file of the new tree, creating the ``directories`` it needs first."""
        for directory in directories:
            _make_directory(self.new / directory)
        index = self.index
        data_digest = bytes_digest(data) if index is not None else ""
        kept = self._linked(path, data, data_digest)
        if kept is None:
            kept = _write_file(self.new / path, data, sync=sync_each_file(self.sync))
            self.changed.append(path)
        if index is not None:
            index.record(path, kept, data_digest)

    def _linked(self, path: str, data: bytes, data_digest: str) -> os.stat_result | None:
        """The old tree's file ``path`` when its bytes are ``data`` and it became the new
        tree's by a hard link: nothing is written, and the file is on the disk already
        (the old tree was made durable before it was swapped in); None: write it.

        Only a file with the mode trainc gives; a file system without hard links writes a
        copy. Its bytes are known from the old tree's record (``data_digest`` is the new
        bytes') or else read and compared; a file of another size is not read."""
        if not self.present.get(path, False):
            return None
        source = _under(self.target, path)
        try:
            info = os.lstat(source)
            if stat.S_IMODE(info.st_mode) != _FILE_MODE or info.st_size != len(data):
                return None
            known = self.index.known_digest(path, info) if self.index is not None else None
            same = _same_bytes(source, data) if known is None else known == data_digest
            if not same:
                return None
            os.link(source, _under(self.new, path), follow_symlinks=False)
        except OSError:
            return None
        return info


class TreeWriter:
    """Atomically makes ``directory`` hold exactly the files added, once committed.

    Use it as a context manager. The first :meth:`add` (or :meth:`commit`) takes the
    lock and vets the old tree: UsageError when it holds files trainc did not write or
    is not a directory; a missing parent is created. Symbolic links are resolved, so a
    linked output directory is replaced where it lives and the link stays. Leaving the
    context without a commit removes the new tree and keeps the old one. ``sync`` says
    how the new tree is made durable before the swap (:mod:`trainc.emit.durable`); the
    default is the fastest way the platform has. ``records`` is the cache that keeps
    what each write left (:mod:`trainc.emit.tree_index`), so that the next links the
    unchanged files unread.
    """

    def __init__(
        self, directory: Path, *, sync: Sync | None = None, records: Store | None = None
    ) -> None:
        self._directory = directory
        self._sync = default_sync() if sync is None else sync
        self._records = records
        self._paths = _Paths()
        self._stack = ExitStack()
        self._staging: _Staging | None = None
        self._committed = False

    def __enter__(self) -> TreeWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _staged(self) -> _Staging:
        if self._committed:
            raise CompilerBug("the output tree was already committed")
        if self._staging is None:
            try:
                self._staging = _Staging(self._directory, self._stack, self._sync, self._records)
            except BaseException:
                self._stack.close()
                raise
        return self._staging

    def add(self, path: str, data: bytes) -> None:
        """Write one file (relative POSIX path) into the new tree."""
        directories = self._paths.add(path)
        self._staged().write(path, data, directories)

    def previous(self) -> list[str]:
        """The files of the tree being replaced (its manifest aside), sorted; opens the
        write, so they are vetted as trainc's."""
        return _previous_files(self._staged().present)

    def first_line(self, path: str) -> str:
        """The first line of one of :meth:`previous`."""
        return _first_line(self._staged().target, path)

    def carry(self, path: str) -> None:
        """Keep one of :meth:`previous` as it is in the new tree."""
        self.add(path, (self._staged().target / path).read_bytes())

    def commit(self) -> WriteResult:
        """Write the manifest, make the new tree durable and swap it in; release the lock."""
        staging = self._staged()
        staging.write(OWNERSHIP_FILE, self._paths.manifest(), ())
        sync_tree(staging.new, self._paths.directories, self._sync)
        _swap(staging.new, staging.target, staging.old)
        self._committed = True
        if staging.records is not None and staging.index is not None:
            keep_index(staging.records, staging.target, staging.index)  # under the lock
        self._stack.close()
        written = {*self._paths.files, OWNERSHIP_FILE}
        return WriteResult(
            changed=tuple(sorted(staging.changed)),
            removed=tuple(sorted(path for path in staging.present if path not in written)),
            recovered=staging.recovered,
        )

    def close(self) -> None:
        """Remove the new tree unless committed, and release the lock; safe to repeat."""
        staging = self._staging
        if staging is not None and not self._committed and staging.new.exists():
            shutil.rmtree(staging.new)
        self._stack.close()


def write_tree(
    directory: Path, files: Mapping[str, bytes], *, sync: Sync | None = None
) -> WriteResult:
    """Atomically make ``directory`` hold exactly ``files`` (relative POSIX path → bytes).

    Every path is checked before anything on disk is touched; the rest, ``sync``
    included, is :class:`TreeWriter`'s.
    """
    checked = _Paths()
    for path in files:
        checked.add(path)
    with TreeWriter(directory, sync=sync) as writer:
        for path in sorted(files):
            writer.add(path, files[path])
        return writer.commit()


def check_tree(directory: Path, files: Mapping[str, bytes]) -> list[str]:
    """What :func:`write_tree` would change, one ``"<missing|stale|extra> <path>"`` a line."""
    check = TreeCheck(directory)
    for path in sorted(files):
        check.add(path, files[path])
    return check.differences()
