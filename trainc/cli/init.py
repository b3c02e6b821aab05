"""``trainc init``: scaffold a repository that validates and compiles out of the box."""

from __future__ import annotations

from pathlib import Path

import click

from trainc.app.init import create_repository


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
    for written in create_repository(directory, force=force):
        verb = "replaced" if written.replaced else "created"
        click.echo(f"{verb} {written.path}", err=True)
    click.echo(
        f"Next: cd {directory} && trainc validate && trainc compile (in a git repository, "
        "`git add` the new files first: without paths trainc reads what git tracks; and "
        "replace the sweeper image in trainc.yaml before deploying).",
        err=True,
    )
    return 0
