"""One input file as trainc read it, with what reporters need to quote it, and what a line is.

A line ends at LF, CRLF or a lone CR: where the YAML parsers count a new line in the
marks they report (ruamel.yaml's reader; libyaml, which trainc's fast path hands only
texts without NEL, LS or PS), where Jinja2 counts template lines, and where an editor
or GitHub's diff starts one. Nothing else ends a line here, although other tools would
break at more: ``str.splitlines()`` also at ``\v``, ``\f``, ``\x1c``-``\x1e``, NEL,
LS and PS, and go-yaml (kubectl) at NEL (U+0085), LS (U+2028) and PS (U+2029) too
(``is_break`` in https://github.com/go-yaml/yaml/blob/v2.4.0/yamlprivateh.go). Every
line number trainc reports and every line it quotes are counted by :data:`LINE_BREAK`,
so the quoted line is the one the number names.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Final

from trainc.cache.keys import digest
from trainc.records import dataclass

#: What ends a line: see the module docstring.
LINE_BREAK: Final = re.compile("\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their breaks; a break at the very end starts no line."""
    lines = text.split("\n") if "\r" not in text else LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    """The 0-based line and column of character ``offset`` of ``text``, lines as above."""
    breaks = list(LINE_BREAK.finditer(text, 0, offset))
    line_start = breaks[-1].end() if breaks else 0
    return len(breaks), offset - line_start


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

    ``released`` is set when the run let the text go (:meth:`released_copy`): ``text`` is
    then empty and ``released`` is the :attr:`key` the text had, by which the file is
    read again, and recognised, when one of its lines is quoted (:meth:`quote`).
    """

    path: str
    text: str
    original: str | None = None
    line_map: tuple[int, ...] | None = None
    released: str | None = None

    @property
    def key(self) -> str:
        """A digest of the path and the text (and the template, for a rendered one): the
        same before and after the text is released."""
        if self.released is not None:
            return self.released
        return digest((self.path, self.text, self.original or ""))

    def released_copy(self) -> SourceFile:
        """This file without its text: what a run keeps of a file whose lines it will
        most likely never quote (about 1.7 KB a TrainJob, for the whole run). Only a
        file read as it is (no template) can be read again and recognised."""
        if self.original is not None or self.line_map is not None:
            raise ValueError(f"{self.path}: a rendered template keeps its text")
        return SourceFile(self.path, "", released=self.key)

    def user_line(self, parsed_line: int) -> int:
        """Line in the file the user edits for a 1-based line of the parsed text."""
        if self.line_map is None:
            return parsed_line
        if not self.line_map:
            return 1
        index = min(max(parsed_line, 1), len(self.line_map)) - 1
        return self.line_map[index]

    def quote(self, line: int, root: Path | None = None) -> str | None:
        """Text of a 1-based line of the file the user edits, for a caret display.

        A released file is read again under ``root``: None when it cannot be, or no
        longer holds the text the run checked (:meth:`changed`), rather than a line the
        findings were not made on."""
        if self.released is not None:
            text = _text_again(root, self.path, self.released) if root is not None else None
            lines = split_lines(text) if text is not None else []
        else:
            lines = split_lines(self.original if self.original is not None else self.text)
        return lines[line - 1] if 0 < line <= len(lines) else None

    def changed(self, root: Path | None) -> bool:
        """Whether the run released this file's text and the file under ``root`` no
        longer holds it (edited, removed or unreadable since it was checked)."""
        if self.released is None:
            return False
        return root is None or _text_again(root, self.path, self.released) is None


@functools.lru_cache(maxsize=4)
def _text_again(root: Path, path: str, key: str) -> str | None:
    """The text of ``path`` under ``root`` read again, when it is still the text keyed
    ``key``; None otherwise. Remembered for the few files a report is quoting."""
    # Imported here: only a report quoting a released file reads one again.
    from trainc.load.pathnames import os_name  # noqa: PLC0415
    from trainc.load.reader import decode_input  # noqa: PLC0415

    try:
        data = (root / os_name(path)).read_bytes()
    except OSError:
        return None
    text = decode_input(path, data)
    if not isinstance(text, str) or digest((path, text, "")) != key:
        return None
    return text
