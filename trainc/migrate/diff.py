"""A migration as a unified diff, as ``ruff format --diff`` and ``git diff`` print one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from trainc.migrate.document import FileMigration


def unified_diff(files: Iterable[FileMigration]) -> str:
    """One ``--- a/path`` / ``+++ b/path`` diff per changed file, in path order."""
    chunks: list[str] = []
    for file in sorted(files, key=lambda item: item.path):
        if not file.changed:
            continue
        lines = difflib.unified_diff(
            _lines(file.before), _lines(file.after), f"a/{file.path}", f"b/{file.path}"
        )
        chunks.append("".join(lines))
    return "".join(chunks)


def _lines(text: str) -> list[str]:
    """Lines with their endings; a last line without one is marked as diff marks it."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines
