"""``trainc init``: a new repository from the scaffold (:mod:`trainc.scaffold`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from trainc.errors import UsageError, os_errors_as_usage
from trainc.scaffold import FILES


@dataclass(frozen=True, slots=True)
class Written:
    """One scaffold file written, and whether it replaced one that was there."""

    path: Path
    replaced: bool


def create_repository(directory: Path, *, force: bool) -> Iterator[Written]:
    """Write the scaffold's files into ``directory``, saying each as it is written.

    Existing files are replaced only with ``force``; anything but a regular file where a
    file goes (a symbolic link included) refuses the whole scaffold. Raises UsageError,
    before anything is written, for either, and for a file that cannot be written.
    """
    blocked = [path for path in FILES if _in_the_way(directory, path)]
    if blocked:
        raise UsageError(
            f"{directory}: cannot write {', '.join(blocked)}: a symbolic link, or a "
            "directory where a file goes (or the reverse), is in the way"
        )
    existing = [path for path in FILES if (directory / path).exists()]
    if existing and not force:
        raise UsageError(
            f"{directory}: would overwrite {', '.join(existing)}; use --force to replace them"
        )
    for path, text in FILES.items():
        target = directory / path
        with os_errors_as_usage("write", target):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        yield Written(target, replaced=path in existing)


def _in_the_way(directory: Path, path: str) -> bool:
    """Whether something other than a regular file (or nothing) is where ``path`` goes.

    A symbolic link counts, file or directory: writing through it could replace a file
    outside the repository, even with --force.
    """
    target = directory / path
    if target.is_symlink() or (target.exists() and not target.is_file()):
        return True
    folders = [directory / parent for parent in PurePosixPath(path).parents if parent.parts]
    return any(step.is_symlink() or (step.exists() and not step.is_dir()) for step in folders)
