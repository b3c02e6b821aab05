"""How the ``--check`` of a generating command reports a directory that is not current."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click


def report_check(directory: Path, problems: Sequence[str], *, fix: str, current: str | None) -> int:
    """Print each difference (``<missing|stale|extra> <path>``) and what to run; the exit code.

    1 when ``directory`` differs from what would be written (``fix`` says how to update
    it), 0 when it is current: then ``current`` is said after "is up to date", and
    nothing at all when it is None (``-q``).
    """
    for problem in problems:
        click.echo(f"{directory}: {problem}", err=True)
    if problems:
        click.echo(f"Run `{fix}` to update it.", err=True)
        return 1
    if current is not None:
        click.echo(f"{directory} is up to date{current}.", err=True)
    return 0
