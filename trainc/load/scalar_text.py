"""Where each character of a YAML string value stands in the file that writes it.

A finding about a spot inside a value (a CEL expression that fails to parse at its 40th
character) belongs on that character's line and column, not on the field's name. YAML
writes one string many ways: plain or quoted on one or several lines, with escapes, or as
a literal (``|``) or folded (``>``) block, so the value's text is read again here,
character by character, in the style it is written in
(https://yaml.org/spec/1.2.2/#chapter-7-flow-style-productions and
https://yaml.org/spec/1.2.2/#chapter-8-block-style-productions).

The reading is checked against the value the parser produced: when they differ (a form
this reading does not follow, such as an explicit indentation indicator) there is no
answer, and the caller keeps the field's own position.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from trainc.load.source import Position, SourceFile, split_lines

#: A mapping key (quoted or plain) and its ``:``, up to the value.
_KEY = re.compile(r"""("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^#]*?)\s*:(?=\s|$)""")
_BLOCK_HEADER = re.compile(r"[|>](?:[+-]?(?P<a>[1-9])?|(?P<b>[1-9])[+-])(?:\s+#.*)?\s*$")
_SIMPLE_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}

#: Each character of a value, with the 0-based line and column it is written at.
_Reading = list[tuple[str, int, int]]


def position_in_value(
    source: SourceFile, key: tuple[int, int], value: str, line: int, column: int
) -> Position | None:
    """Where character ``column`` of line ``line`` (both 1-based) of ``value`` is written.

    ``key`` is the 0-based position of the mapping key whose value is ``value``. None
    when the text at ``key`` does not read back as ``value`` or the spot is outside it.
    """
    reading = _read_value(split_lines(source.text), *key)
    if reading is None or not _same_text("".join(char for char, _, _ in reading), value):
        return None
    offset = sum(len(part) + 1 for part in value.split("\n")[: line - 1]) + column - 1
    if not 0 <= offset < len(reading):
        return None
    _, at_line, at_column = reading[offset]
    return Position(source.user_line(at_line + 1), at_column + 1)


def _same_text(read: str, value: str) -> bool:
    """Equal, but for the final line breaks a block scalar's chomping decides."""
    return read.rstrip("\n") == value.rstrip("\n")


def _read_value(lines: Sequence[str], line: int, column: int) -> _Reading | None:
    """The characters of the value of the key at (``line``, ``column``)."""
    start = _value_start(lines, line, column)
    if start is None:
        return None
    at_line, at_column = start
    first = lines[at_line][at_column]
    if first in "|>":
        header = _BLOCK_HEADER.match(lines[at_line], at_column)
        if header is None:
            return None
        given = header["a"] or header["b"]
        indent = column + int(given) if given else None
        return _block(lines, at_line + 1, column, indent, folded=first == ">")
    if first in "\"'":
        return _quoted(lines, at_line, at_column + 1, first)
    return _plain(lines, at_line, at_column, column)


def _value_start(lines: Sequence[str], line: int, column: int) -> tuple[int, int] | None:
    """Where the value of the key at (``line``, ``column``) starts: after its ``:``, or
    on the next line with text."""
    key = _KEY.match(lines[line], column) if line < len(lines) else None
    if key is None:
        return None
    rest = lines[line][key.end() :]
    start = key.end() + len(rest) - len(rest.lstrip())
    if start < len(lines[line]) and lines[line][start] != "#":
        return line, start
    line, start = _next_content(lines, line + 1)
    return (line, start) if line < len(lines) else None


def _next_content(lines: Sequence[str], line: int) -> tuple[int, int]:
    """The first non-blank character at or after ``line``."""
    while line < len(lines) and not lines[line].strip():
        line += 1
    if line >= len(lines):
        return line, 0
    return line, len(lines[line]) - len(lines[line].lstrip())


def _block(
    lines: Sequence[str], line: int, parent: int, indent: int | None, *, folded: bool
) -> _Reading | None:
    """A literal or folded block scalar's content, from its first line on; ``indent`` is
    the one its header gives, else its first line's.

    Only spaces indent a block scalar, so only a line of nothing but spaces is empty
    (``l-empty``, https://yaml.org/spec/1.2.2/#64-empty-lines). A tab is text wherever
    it stands past the indentation: a line of spaces and a tab is the scalar's first
    text line when it comes first, its spaces the indentation
    (https://yaml.org/spec/1.2.2/#8111-block-indentation-indicator), and in a folded
    scalar it is a more-indented line whose breaks are kept
    (https://yaml.org/spec/1.2.2/#813-folded-style). Taking it for empty would detect
    the indentation from a later line and drop the tab.
    """
    content: list[int] = []
    while line < len(lines):
        text = lines[line]
        leading = len(text) - len(text.lstrip(" "))
        if text.strip(" "):
            if indent is None:
                indent = leading
            if leading < indent or leading <= parent:
                break
        content.append(line)
        line += 1
    if indent is None:
        return None
    texts = [lines[number][indent:] for number in content]  # spaces past the indent are text
    reading: _Reading = []
    for index, (number, text) in enumerate(zip(content, texts, strict=True)):
        if index:
            after = next((later for later in texts[index:] if later), "")
            reading.append((_break(texts[index - 1], text, after, folded=folded), number, 0))
        reading.extend((char, number, indent + at) for at, char in enumerate(text))
    return [item for item in reading if item[0]]


def _break(previous: str, text: str, after: str, *, folded: bool) -> str:
    """What the line break between two lines of a block scalar reads as (``after`` is
    the next line with text from ``text`` on).

    Folding turns a break between two lines of text into a space, and drops the break
    before empty lines, each of which stands for one break; next to a line indented
    further, breaks are kept.
    """
    indented = (" ", "\t")
    if not folded or not previous or previous.startswith(indented):
        return "\n"
    if text:
        return "\n" if text.startswith(indented) else " "
    return "\n" if after.startswith(indented) else ""


def _quoted(lines: Sequence[str], line: int, column: int, quote: str) -> _Reading | None:
    """A single- or double-quoted scalar, from the character after its opening quote."""
    reading: _Reading = []
    while line < len(lines):
        text = lines[line]
        index = column
        escaped_break = False
        while index < len(text):
            char = text[index]
            if char == quote:
                if quote == "'" and text[index + 1 : index + 2] == "'":
                    reading.append(("'", line, index))
                    index += 2
                    continue
                return reading
            if char == "\\" and quote == '"':
                if index + 1 == len(text):
                    escaped_break = True  # reads as nothing, nor does the next indent
                    break
                escaped = _escape(text, index)
                if escaped is None:
                    return None
                reading.append((escaped[0], line, index))
                index += escaped[1]
                continue
            reading.append((char, line, index))
            index += 1
        if not escaped_break:
            _strip_trailing(reading, lines, line)
        line, column = _fold(lines, line + 1, reading, escaped=escaped_break)
    return None


def _escape(text: str, index: int) -> tuple[str, int] | None:
    """The character a double-quoted escape at ``index`` stands for, and its length."""
    code = text[index + 1]
    if code in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[code], 2
    digits = _HEX_ESCAPES.get(code)
    hex_text = text[index + 2 : index + 2 + digits] if digits else ""
    if digits is None or len(hex_text) != digits:
        return None
    try:
        return chr(int(hex_text, 16)), 2 + digits
    except ValueError:
        return None


def _strip_trailing(reading: _Reading, lines: Sequence[str], line: int) -> None:
    """Drop the spaces a flow scalar's line ends with: folding does not keep them (an
    escaped ``\\t`` is no such space)."""
    while reading and reading[-1][1] == line and lines[line][reading[-1][2]] in " \t":
        reading.pop()


def _fold(lines: Sequence[str], line: int, reading: _Reading, *, escaped: bool) -> tuple[int, int]:
    """Fold the break before ``line`` of a flow scalar into ``reading``; where it goes on.

    One break reads as a space, each empty line after it as a break; an escaped break
    reads as nothing. The next line's leading spaces are not part of the value.
    """
    empty = 0
    while line < len(lines) and not lines[line].strip():
        empty += 1
        line += 1
    at = (line - 1, len(lines[line - 1])) if line - 1 < len(lines) else (line, 0)
    if empty:
        reading.extend(("\n", *at) for _ in range(empty))
    elif not escaped:
        reading.append((" ", *at))
    if line >= len(lines):
        return line, 0
    return line, len(lines[line]) - len(lines[line].lstrip(" \t"))


def _plain(lines: Sequence[str], line: int, column: int, parent: int) -> _Reading:
    """A plain scalar: to a comment or the end of its lines, continued by lines indented
    beyond its key."""
    reading: _Reading = []
    while True:
        text = lines[line]
        end = text.find(" #", column)
        end = len(text) if end < 0 else end
        reading.extend((text[index], line, index) for index in range(column, end))
        _strip_trailing(reading, lines, line)
        following, indent = _next_content(lines, line + 1)
        if following >= len(lines) or indent <= parent or lines[following][indent] == "#":
            return reading
        line, column = _fold(lines, line + 1, reading, escaped=False)
