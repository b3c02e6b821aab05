"""How the ``--check`` of a generating command reports a directory that is not current."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click


def report_check(directory: Path, problems: Sequence[str], *, fix: str, current: str) -> int:
    """Print each difference (``<missing|stale|extra> <path>``) and what to run; the exit code.

    1 when ``directory`` differs from what would be written (``fix`` says how to update
    it), 0 when it is current (``current`` is said then).
    """
    for problem in problems:
        click.echo(f"{directory}: {problem}", err=True)
    if problems:
        click.echo(f"Run `{fix}` to update it.", err=True)
        return 1
    click.echo(f"{directory} is up to date{current}.", err=True)
    return 0
