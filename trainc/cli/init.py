"""``trainc init``: scaffold a repository that validates and compiles out of the box."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import click

from trainc.errors import UsageError, os_errors_as_usage
from trainc.scaffold import FILES


@click.command(
    "init",
    epilog="Exit codes: 0 created, 2 a file exists (nothing written) or another usage error.",
)
@click.argument(
    "directory",
    default=Path(),
    type=click.Path(path_type=Path, file_okay=False),
)
@click.option("--force", is_flag=True, help="Replace files that already exist.")
def init_command(*, directory: Path, force: bool) -> int:
    """Create a new trainc repository in DIRECTORY (default: the current directory).

    Writes trainc.yaml (every setting with its default), a PyTorch runtime, a TrainJob
    with a deadline, an organisation policy, a pre-commit configuration using trainc's
    hooks, and a README. Existing files are never overwritten without --force; other
    files in DIRECTORY are left alone.

    \b
    Examples:
      trainc init training-jobs     # a new directory
      trainc init                   # the current directory
      trainc init --force           # also replace the scaffold's own files
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
        verb = "replaced" if path in existing else "created"
        click.echo(f"{verb} {target}", err=True)
    click.echo(
        f"Next: cd {directory} && trainc validate && trainc compile (in a git repository, "
        "`git add` the new files first: without paths trainc reads what git tracks; and "
        "replace the sweeper image in trainc.yaml before deploying).",
        err=True,
    )
    return 0


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
