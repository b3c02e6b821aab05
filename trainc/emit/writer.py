"""The one module that writes an output directory: atomically, and only over trainc's own files.

:func:`write_tree` replaces ``<parent>/<name>`` under an exclusive lock on ``<parent>``:

1. recover from an interrupted run (below);
2. refuse unless the directory is missing, empty, or holds only files its ownership
   manifest ``.trainc-owned`` lists: trainc never deletes a file it did not write;
3. build the complete new tree in ``<parent>/.<name>.trainc-new`` (beside the target, so on
   the same filesystem and renames are atomic), every file and directory fsynced;
4. rename the directory to ``.<name>.trainc-old``, rename the new tree into its place,
   fsync ``<parent>``;
5. remove the old tree.

A kill or crash at any moment leaves the previous tree or the new one, complete, never a
mix, with one window: between the two renames of step 4 (two consecutive system calls)
``<name>`` does not exist, and a reader looking exactly then finds no tree at all. POSIX
cannot exchange two directories atomically (Linux's ``renameat2(RENAME_EXCHANGE)`` is not
in the standard library), and a symlink flip would put a symlink into the repository. A
kill inside the window leaves the previous tree complete at ``.<name>.trainc-old``.

Recovery, at the start of every write: ``.trainc-old`` beside a missing directory is that
window, and is renamed back (this run then writes its own tree); ``.trainc-old`` beside
an existing directory is a finished swap whose clean-up was cut short, and
``.trainc-new`` an unfinished build; both are removed. The lock makes these leftovers
certainly dead runs', never a concurrent writer's; the kernel drops it when its holder
dies. It needs ``fcntl``, so the writer is POSIX-only, as the rename protocol is.

The new tree is exactly the given files plus the manifest: files of jobs that no longer
exist disappear, and nothing else of the old tree survives. Files get mode 0644 and
directories 0755 whatever the umask, bytes are written as given, paths are created in
sorted order. Modification times are real: faking them would let rsync-like tools skip
changed files of equal size.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, TypeAlias

from trainc.errors import CompilerBug, UsageError

#: The ownership manifest: every other file of the tree, one sorted relative path a line.
OWNERSHIP_FILE: Final = ".trainc-owned"
NEW_SUFFIX: Final = ".trainc-new"
OLD_SUFFIX: Final = ".trainc-old"

_FILE_MODE: Final = 0o644
_DIR_MODE: Final = 0o755
_FORBIDDEN_IN_PATHS: Final = ("\\", "\n", "\r", "\0")
_LISTED_FOREIGN_FILES: Final = 5

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


def _directories(paths: Iterable[str]) -> set[str]:
    """Every directory the relative ``paths`` lie in, ancestors included ("" not)."""
    found: set[str] = set()
    for path in paths:
        parts = path.split("/")
        found.update("/".join(parts[:depth]) for depth in range(1, len(parts)))
    return found


def _full_tree(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """``files`` plus the ownership manifest, after checking every path is a plain one."""
    directories = _directories(files)
    for path in files:
        parts = path.split("/")
        if (
            path == OWNERSHIP_FILE
            or path in directories
            or any(part in ("", ".", "..") for part in parts)
            or any(char in path for char in _FORBIDDEN_IN_PATHS)
        ):
            raise CompilerBug(f"cannot write the output path {path!r}")
    manifest = "".join(f"{path}\n" for path in sorted(files)).encode()
    return dict(sorted({**files, OWNERSHIP_FILE: manifest}.items()))


def _read_tree(directory: Path) -> dict[str, bytes | None]:
    """Every non-directory entry below ``directory`` → its bytes (None: not a regular file).

    A missing directory reads as empty. Symbolic links are entries, never followed.
    """
    if not directory.exists():
        return {}
    if not directory.is_dir():
        raise UsageError(f"{directory} exists and is not a directory")
    found: dict[str, bytes | None] = {}
    pending = [directory]
    while pending:
        current = pending.pop()
        for entry in current.iterdir():
            linked = entry.is_symlink()
            if entry.is_dir() and not linked:
                pending.append(entry)
            else:
                relative = entry.relative_to(directory).as_posix()
                found[relative] = entry.read_bytes() if entry.is_file() and not linked else None
    return dict(sorted(found.items()))


def _differences(
    expected: Mapping[str, bytes], actual: Mapping[str, bytes | None]
) -> list[Difference]:
    """Byte-exact differences of two trees, by path."""
    found: list[Difference] = []
    for path in sorted(expected.keys() | actual.keys()):
        if path not in actual:
            found.append(("missing", path))
        elif path not in expected:
            found.append(("extra", path))
        elif actual[path] != expected[path]:
            found.append(("stale", path))
    return found


def check_tree(directory: Path, files: Mapping[str, bytes]) -> list[str]:
    """What :func:`write_tree` would change, one ``"<missing|stale|extra> <path>"`` a line.

    The ``compile --check`` gate: empty when ``directory`` holds exactly ``files`` and
    their manifest, byte for byte. Reads only; a missing directory lacks every file.
    """
    differences = _differences(_full_tree(files), _read_tree(directory))
    return [f"{status} {path}" for status, path in differences]


def _check_owned(directory: Path, present: Mapping[str, bytes | None]) -> None:
    """Raise UsageError unless every file in ``directory`` is one trainc wrote there."""
    if not present:
        return
    manifest = present.get(OWNERSHIP_FILE)
    if manifest is None:
        raise UsageError(
            f"refusing to replace {directory}: it is not empty and has no {OWNERSHIP_FILE}, so "
            "trainc did not write it; choose a new or empty directory"
        )
    owned = {*manifest.decode(errors="replace").split("\n"), OWNERSHIP_FILE}
    foreign = [path for path, data in present.items() if path not in owned or data is None]
    if foreign:
        shown = ", ".join(foreign[:_LISTED_FOREIGN_FILES])
        more = len(foreign) - _LISTED_FOREIGN_FILES
        shown += f" and {more} more" if more > 0 else ""
        raise UsageError(
            f"refusing to replace {directory}: trainc did not write {shown}; "
            "move them out of the output directory and run again"
        )


def validate_output_location(directory: Path, inputs: Sequence[Path], root: Path) -> None:
    """Raise UsageError when the output directory is inside or contains an input path.

    Inside an input, the next run would read the manifests back as input; containing
    one, replacing the directory would remove the input. The repository ``root`` as an
    input is the exception to the first rule: compiling the whole repository into a
    directory committed beside it (``rendered/``, the Flux pattern of
    ``upstream-semantics.md`` §6.3) is the normal case, and the config's
    ``inputs.exclude`` keeps that directory out of discovery; the output still may not be
    the root or contain it. Relative paths are taken from the working directory, and
    symbolic links are resolved.
    """
    output = directory.resolve()
    repository = root.resolve()
    for given in inputs:
        source = given.resolve()
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


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _write_file(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, _FILE_MODE)
    try:
        os.fchmod(descriptor, _FILE_MODE)  # the umask may have cleared bits
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _make_directory(path: Path) -> None:
    path.mkdir(mode=_DIR_MODE)
    path.chmod(_DIR_MODE)  # mkdir's mode is filtered by the umask


def _build(base: Path, tree: Mapping[str, bytes]) -> None:
    """Create ``base`` holding exactly ``tree``, durable on disk before anyone renames it."""
    # Sorted, so each parent comes before its children; "" is ``base`` itself.
    directories = [base / relative for relative in sorted({"", *_directories(tree)})]
    for directory in directories:
        _make_directory(directory)
    for path in sorted(tree):
        _write_file(base / path, tree[path])
    for directory in reversed(directories):
        _fsync(directory)


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
    _fsync(directory.parent)
    if old.exists():
        shutil.rmtree(old)


def write_tree(directory: Path, files: Mapping[str, bytes]) -> WriteResult:
    """Atomically make ``directory`` hold exactly ``files`` (relative POSIX path → bytes).

    Raises UsageError when the directory holds files trainc did not write, or is not a
    directory; a missing parent is created. Symbolic links are resolved first, so a
    linked output directory is replaced where it lives and the link stays.
    """
    tree = _full_tree(files)
    target = directory.resolve()
    if target == target.parent:
        raise UsageError(f"cannot replace the filesystem root {directory}")
    target.parent.mkdir(parents=True, exist_ok=True)
    new = target.with_name(f".{target.name}{NEW_SUFFIX}")
    old = target.with_name(f".{target.name}{OLD_SUFFIX}")
    with _locked(target.parent):
        recovered = _recover(target, new, old)
        present = _read_tree(target)
        _check_owned(directory, present)
        _build(new, tree)
        _swap(new, target, old)
    differences = _differences(tree, present)
    return WriteResult(
        changed=tuple(path for status, path in differences if status != "extra"),
        removed=tuple(path for status, path in differences if status == "extra"),
        recovered=recovered,
    )
