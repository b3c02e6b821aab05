"""One input file as trainc read it, with what reporters need to quote it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Position:
    """A 1-based line and column in the file the user edits."""

    line: int
    column: int


@dataclass(frozen=True, slots=True, eq=False)
class SourceFile:
    """A file's path and text.

    For a ``.j2`` template, ``text`` is the rendered YAML that was parsed, ``original`` the
    template, and ``line_map[i]`` the template line (1-based) that produced rendered
    line ``i + 1``; positions reported to users always point into the template.
    """

    path: str
    text: str
    original: str | None = None
    line_map: tuple[int, ...] | None = None

    def user_line(self, parsed_line: int) -> int:
        """Line in the file the user edits for a 1-based line of the parsed text."""
        if self.line_map is None:
            return parsed_line
        if not self.line_map:
            return 1
        index = min(max(parsed_line, 1), len(self.line_map)) - 1
        return self.line_map[index]

    def quote(self, line: int) -> str | None:
        """Text of a 1-based line of the file the user edits, for a caret display."""
        lines = (self.original if self.original is not None else self.text).splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else None
