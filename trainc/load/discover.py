"""Turning command-line paths into the sorted list of repository files to read.

Kustomize directories, Helm charts and trainc's own output are left out whole, with a
finding that says how to check them (:mod:`trainc.load.packages`).

Symbolic links are followed only while their real path stays inside the repository root:
a repository under review must not make trainc read ``/etc/passwd`` or a CI runner's
secrets into a report. Each real directory is walked at most once per run, and linked
directories only after every real one, so a file is named by its real location whenever
the run reaches it, and link cycles or fan-out cost nothing. Files are named in
repository form (:mod:`trainc.load.pathnames`), the same whatever the locale.

A run that walks the repository more than once passes its :class:`~.seen.Seen` to each
walk, so each directory is listed once per run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from trainc.cache.stat_index import file_stamp
from trainc.diagnostics import Diagnostic, Rule, Severity, finding
from trainc.errors import UsageError
from trainc.load.globs import PathFilter
from trainc.load.listings import Listings, Outcome
from trainc.load.packages import Package, enclosing_package, package_of, package_on_disk
from trainc.load.pathnames import repo_name
from trainc.load.reader import LOAD_UNREADABLE
from trainc.load.seen import Seen
from trainc.records import dataclass

LOAD_SYMLINK_ESCAPE = Rule(
    "load.symlink-escape",
    Severity.ERROR,
    "a symbolic link points outside the repository root",
)


_GIT_DIR = ".git"


@dataclass(frozen=True, slots=True)
class Discovery:
    """The files to read, as sorted repo-relative POSIX paths, and what was refused."""

    files: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]


def discover_files(
    paths: Iterable[str | Path],
    *,
    root: Path,
    select: PathFilter,
    seen: Seen | None = None,
    listings: Listings | None = None,
) -> Discovery:
    """Expand ``paths`` (files or directories) into the input files under ``root``.

    A named file is read even when the include globs would not select it, unless the
    exclude globs rule it out (pre-commit passes every changed ``*.yaml``, including the
    Helm charts a repository excludes), or it lies in a package (a kustomize directory,
    a Helm chart: see :mod:`trainc.load.packages`); a named directory is walked with
    ``select``, and packages met on the way are left out.
    ``seen``, shared by the walks of one run, spares listing a directory twice;
    ``listings``, kept between runs, spares listing the directories that did not change
    (:mod:`.listings`).
    Raises UsageError for a path that does not exist or lies outside the root: the
    command line is wrong, not the repository. A path inside the root that is a link out
    of it is a ``load.symlink-escape`` finding instead.
    """
    walk = _Walk(Path(os.path.realpath(root)), select, seen or Seen(), listings)
    for given in paths:
        absolute = Path(os.path.abspath(given))  # noqa: PTH100  # lexical on purpose
        relative = repo_path(given, root)
        if relative is None:
            raise UsageError(f"{given}: outside the repository root {root}")
        if not os.path.lexists(absolute):
            raise UsageError(f"{given}: no such file or directory")
        real = Path(os.path.realpath(absolute))
        package = enclosing_package(relative, walk.package_at)
        walk.named.add(relative)
        if package is not None:
            walk.diagnostics.append(package.finding(named=True))
        elif not real.is_relative_to(walk.root):
            walk.escaped(relative, absolute)
        elif real.is_dir():
            walk.queue(absolute, relative, real, linked=absolute.is_symlink())
        elif not select.excludes(relative):
            walk.files.add(relative)
    walk.run()
    return Discovery(tuple(sorted(walk.files)), tuple(walk.diagnostics))


def repo_path(given: str | Path, root: Path) -> str | None:
    """The repository form of the command-line path ``given`` ("" for the root itself),
    None when it lies outside ``root``.

    Lexical absolute paths (no link resolution), so a link named on the command line is
    judged as a link rather than as its target; the root is also tried resolved, for a
    root reached through a link.
    """
    path = Path(os.path.abspath(given))  # noqa: PTH100  # lexical on purpose
    for candidate in (Path(os.path.abspath(root)), Path(os.path.realpath(root))):  # noqa: PTH100
        if path.is_relative_to(candidate):
            relative = path.relative_to(candidate).as_posix()
            return "" if relative == "." else repo_name(relative)
    return None


_Pending = tuple[Path, str, Path]  # directory as listed, repo-relative, real path


class _Walk:
    """Accumulates the files and findings of one discovery run."""

    def __init__(self, root: Path, select: PathFilter, seen: Seen, kept: Listings | None) -> None:
        self.root = root
        self.select = select
        self._listings = seen.listings
        self._kept = kept
        self.files: set[str] = set()
        self.diagnostics: list[Diagnostic] = []
        self.named: set[str] = set()
        """The repo-relative paths the command line gave."""
        self._visited: set[Path] = set()
        self._real: list[_Pending] = []
        self._linked: list[_Pending] = []

    def escaped(self, relative: str, link: Path | str) -> None:
        """Refuse a link out of the root, quoting the link text (never the resolved path)."""
        try:
            target = f" ({Path(link).readlink()})"
        except OSError:
            target = ""  # a directory above the named path is the link
        self.diagnostics.append(
            finding(
                LOAD_SYMLINK_ESCAPE.code,
                f"symbolic link leads outside the repository root{target}; not read",
                file=relative,
                hint="copy the file into the repository or point the link inside it",
            )
        )

    def package_at(self, relative: str) -> Package | None:
        """What the repository directory ``relative`` is, by the files it holds."""
        return package_on_disk(self.root, relative)

    def queue(self, directory: Path, relative: str, real: Path, *, linked: bool) -> None:
        """Schedule a directory; linked ones wait until no real directory is left."""
        (self._linked if linked else self._real).append((directory, relative, real))

    def run(self) -> None:
        """Walk everything queued, with explicit stacks (no recursion limit)."""
        while self._real or self._linked:
            if not self._real:
                self._linked.sort(key=lambda pending: pending[1], reverse=True)
                self._real.append(self._linked.pop())
            directory, relative, real = self._real.pop()
            if real not in self._visited:
                self._visited.add(real)
                self._list(directory, relative, real)

    def _list(self, directory: Path, prefix: str, real_dir: Path) -> None:
        # Only a directory reached without a link is judged by its own stamp (.listings).
        kept = self._kept if real_dir == self.root / prefix else None
        stamp = file_stamp(str(real_dir)) if kept is not None else None
        outcome = kept.known(prefix, stamp) if kept is not None else None
        if outcome is not None:
            self._replay(directory, prefix, real_dir, outcome)
            return
        # A listing another walk of this run took is older than the stamp: not kept.
        fresh = real_dir not in self._listings
        listed = self._listed(directory, prefix, real_dir)
        if kept is not None and listed is not None and fresh:
            kept.record(prefix, stamp, listed)

    def _listed(self, directory: Path, prefix: str, real_dir: Path) -> Outcome | None:
        """List the directory and take in its entries; what a later run may replay of it,
        None when its listing must be taken again (unreadable, a package, links in it)."""
        try:
            entries = self._listings.get(real_dir)
            if entries is None:
                entries = self._listings[real_dir] = list(os.scandir(directory))
        except OSError as error:  # unreadable, or gone (or not a directory) since found
            self.diagnostics.append(
                finding(
                    LOAD_UNREADABLE.code,
                    f"cannot list the directory: {error.strerror}; its files are not read",
                    file=prefix or None,
                    hint="exclude it with inputs.exclude in trainc.yaml if it holds no inputs",
                )
            )
            return None
        package = package_of(prefix, {entry.name for entry in entries})
        if package is not None:
            self.diagnostics.append(package.finding(named=prefix in self.named))
            return None
        entered: list[str] = []
        selected: list[str] = []
        any_link = False
        for entry in entries:
            name = repo_name(entry.name)
            relative = f"{prefix}/{name}" if prefix else name
            linked = entry.is_symlink()
            any_link = any_link or linked
            real = Path(os.path.realpath(entry.path)) if linked else None
            if real is not None and not real.is_relative_to(self.root):
                if self.select.selects(relative) or real.is_dir():
                    self.escaped(relative, entry.path)
            elif _is_dir(entry):
                if entry.name != _GIT_DIR and not self.select.prunes(relative):
                    real = real or real_dir / entry.name
                    self.queue(Path(entry.path), relative, real, linked=linked)
                    entered.append(entry.name)
            elif self.select.selects(relative):
                # Regular files, and also dangling links or special files: reading reports those.
                selected.append(relative)
        self.files.update(selected)
        return None if any_link else (tuple(entered), tuple(selected))

    def _replay(self, directory: Path, prefix: str, real_dir: Path, outcome: Outcome) -> None:
        """What :meth:`_list` made of the unchanged directory, as a former run kept it."""
        entered, selected = outcome
        for name in entered:
            relative = f"{prefix}/{repo_name(name)}" if prefix else repo_name(name)
            self.queue(directory / name, relative, real_dir / name, linked=False)
        self.files.update(selected)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """``entry.is_dir()``, False for a link that loops (which raises ELOOP)."""
    try:
        return entry.is_dir()
    except OSError:
        return False
