"""What git knows of the repository: its input files as they were at a git revision
(``--base REF``), and which files of the working tree it tracks.

The only module that runs a subprocess: ``git``, with argument lists and no shell. Three
processes per ``--base`` run whatever the repository size: ``rev-parse``, ``ls-tree``
(which also gives sizes, so oversized blobs are never read) and one ``cat-file --batch``;
one ``ls-files`` for the tracked files.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic
from trainc.errors import UsageError
from trainc.load.globs import PathFilter
from trainc.load.packages import enclosing_package, packages_in
from trainc.load.reader import too_large

_SYMLINK_MODE = b"120000"


@dataclass(frozen=True, slots=True)
class Revision:
    """Input files at a commit, as (repo-relative path, bytes), sorted by path."""

    commit: str
    files: tuple[tuple[str, bytes], ...]
    diagnostics: tuple[Diagnostic, ...]
    selected: int


def read_revision(ref: str, *, root: Path, select: PathFilter, limits: InputLimits) -> Revision:
    """The files under ``root`` that ``select`` picks, as they were at ``ref``.

    Raises UsageError when ``root`` is not in a git repository or ``ref`` names no commit:
    both are mistakes on the command line. Symbolic links at the revision are not read
    (their blobs hold link targets, not YAML), nor are the files of the kustomize
    directories and Helm charts it holds, which discovery leaves out of the working tree
    alike (:mod:`trainc.load.packages`).
    """
    commit = (
        _git(root, "rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}", what=ref)
        .decode("ascii")
        .strip()
    )
    listing = _git(root, "ls-tree", "-r", "-z", "-l", "--end-of-options", commit, what=ref)
    entries = [_Entry.parse(entry) for entry in listing.split(b"\0") if entry]
    packages = packages_in(entry.path for entry in entries if entry.kind == b"blob")
    wanted: list[tuple[str, bytes]] = []
    diagnostics: list[Diagnostic] = []
    for mode, kind, object_id, size, path in entries:
        if (
            kind != b"blob"
            or mode == _SYMLINK_MODE
            or not select.selects(path)
            or enclosing_package(path, packages.get) is not None
        ):
            continue
        if int(size) > limits.max_file_bytes:
            diagnostics.append(too_large(path, int(size), limits))
        else:
            wanted.append((path, object_id))
    wanted.sort()
    contents = _cat_blobs(root, [object_id for _, object_id in wanted], what=ref)
    files = tuple((path, contents[object_id]) for path, object_id in wanted)
    return Revision(commit, files, tuple(diagnostics), len(wanted) + len(diagnostics))


class _Entry(NamedTuple):
    """One line of ``git ls-tree -r -z -l``."""

    mode: bytes
    kind: bytes
    object_id: bytes
    size: bytes
    path: str

    @classmethod
    def parse(cls, entry: bytes) -> _Entry:
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, object_id, size = meta.split()
        # Decoded as pathnames.repo_name reads a name of the working tree.
        return cls(mode, kind, object_id, size, raw_path.decode("utf-8", "surrogateescape"))


def _cat_blobs(root: Path, object_ids: list[bytes], *, what: str) -> dict[bytes, bytes]:
    """Contents of blobs by id, from one ``git cat-file --batch`` process."""
    if not object_ids:
        return {}
    output = _git(root, "cat-file", "--batch", what=what, stdin=b"\n".join(object_ids) + b"\n")
    blobs: dict[bytes, bytes] = {}
    offset = 0
    while offset < len(output):
        header_end = output.index(b"\n", offset)
        object_id, _, size = output[offset:header_end].split(b" ")
        start = header_end + 1
        blobs[object_id] = output[start : start + int(size)]
        offset = start + int(size) + 1  # each blob is followed by a newline
    return blobs


def tracked_files(root: Path) -> frozenset[str] | None:
    """The files under ``root`` that git's index holds (tracked, or staged to be), as
    repository-relative paths; None when ``root`` is in no git work tree or git is not
    installed.

    The index, not the last commit: what ``git commit`` would record, which is what the
    pre-commit hooks judge (https://git-scm.com/docs/git-ls-files: ``--cached``, the
    default, lists the index).
    """
    try:
        completed = _run(root, "ls-files", "-z", "--cached")
    except FileNotFoundError:
        return None
    if completed.returncode != 0:  # not a work tree: a plain directory, a bare repository
        return None
    return frozenset(
        path.decode("utf-8", "surrogateescape") for path in completed.stdout.split(b"\0") if path
    )


def _run(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """git ``args`` in ``root``; FileNotFoundError when git is not installed."""
    return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, check=False)


def _git(root: Path, *args: str, what: str, stdin: bytes | None = None) -> bytes:
    """Run git in ``root``; a failure is a UsageError quoting git's own message."""
    try:
        completed = _run(root, *args, stdin=stdin)
    except FileNotFoundError as error:
        raise UsageError(f"--base {what}: git is not installed") from error
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed"
        raise UsageError(f"--base {what}: {message}")
    return completed.stdout
