"""Inline suppressions: ``# trainc: ignore[CODE, ...]`` comments read from an input's text.

Like ruff's ``# noqa: CODE`` (https://docs.astral.sh/ruff/linter/#error-suppression) a
comment at the end of a line silences the named rules' findings on that line; like
kube-linter's ``ignore-check.kube-linter.io/<check>`` annotation, which exempts one
object (https://docs.kubelinter.io/#/configuring-kubelinter), a comment on its own line
above a YAML document's first line silences them in the whole document. The codes are
required: a bare ``# trainc: ignore`` would hide whatever a later edit gets wrong on
that line, the reason ruff's own ``PGH004`` refuses a bare ``noqa``.

The YAML parsers drop comments, so the comments are found in the text itself: a file
whose text does not hold ``trainc:`` (nearly every file) costs one substring search.
"""

from __future__ import annotations

import re

from trainc.load.source import SourceFile, split_lines
from trainc.records import dataclass

#: Where a directive may start: ``trainc:`` must appear in the text for any to exist.
MARKER = "trainc:"
#: A YAML comment (``#`` at the start of a line or after a blank) holding the directive;
#: ``codes`` is None when no brackets follow ``ignore``.
_DIRECTIVE = re.compile(r"(?:^|(?<=[ \t]))#[ \t]*trainc:[ \t]*ignore\b(?:\[(?P<codes>[^\]]*)\])?")
#: A line that starts or ends a YAML document (``---``, ``...``), at column 0 as YAML wants.
_DOCUMENT_MARK = re.compile(r"(?:---|\.\.\.)(?:[ \t]|$)")
#: A line that is no content: blank, a comment, or a directive such as ``%YAML 1.2``.
_NO_CONTENT = re.compile(r"[ \t]*(?:#.*)?|%.*")


@dataclass(frozen=True, slots=True)
class Suppression:
    """One ``# trainc: ignore[...]`` comment: where it is, the codes it names, and the
    lines it covers (``first`` to ``last``; its own line, or its whole document).

    ``problem`` says why it cannot work (no codes, or a comment on a line of its own in
    the middle of a document), for a ``suppression.invalid`` finding; it covers nothing.
    """

    file: str
    line: int
    column: int
    codes: tuple[str, ...]
    first: int
    last: int
    problem: str | None = None

    @property
    def whole_document(self) -> bool:
        """Whether it covers the document it heads rather than its own line."""
        return self.first != self.last or self.first != self.line

    def covers(self, line: int) -> bool:
        """Whether a finding on 1-based ``line`` is in its reach."""
        return self.problem is None and self.first <= line <= self.last


def find_suppressions(source: SourceFile) -> tuple[Suppression, ...]:
    """The suppressions written in ``source`` (a template's own text, where findings point).

    JSON has no comments: a ``.json`` file has none.
    """
    text = source.original if source.original is not None else source.text
    if MARKER not in text or source.path.endswith(".json"):
        return ()
    lines = split_lines(text)
    found: list[Suppression] = []
    start = 1  # the first line of the current document
    heading = True  # no content yet in the current document
    for number, line in enumerate(lines, 1):
        if _DOCUMENT_MARK.match(line):
            start, heading = number + 1, True
            continue
        match = _DIRECTIVE.search(line) if MARKER in line else None
        own_line = _NO_CONTENT.fullmatch(line) is not None
        if match is not None:
            span = (start, _document_end(lines, number)) if own_line else (number, number)
            found.append(
                _suppression(source.path, number, match, span, placed=heading or not own_line)
            )
        heading = heading and own_line
    return tuple(found)


def _document_end(lines: list[str], number: int) -> int:
    """The last line of the document that line ``number`` is in."""
    for index in range(number, len(lines)):
        if _DOCUMENT_MARK.match(lines[index]):
            return index
    return len(lines)


def _suppression(
    path: str, number: int, match: re.Match[str], span: tuple[int, int], *, placed: bool
) -> Suppression:
    raw = match["codes"]
    codes = tuple(code.strip() for code in (raw or "").split(",") if code.strip())
    problem = None
    if not codes:
        problem = "names no rule: write the codes it is for, `# trainc: ignore[CODE, ...]`"
    elif not placed:
        problem = (
            "is on a line of its own inside a document, where it covers nothing: put it at "
            "the end of the line the finding is on, or above the document's first line for "
            "the whole document"
        )
    return Suppression(path, number, match.start() + 1, codes, span[0], span[1], problem)
