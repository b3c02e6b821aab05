"""The text format: compiler-style findings with the offending source line, for people.

It follows rustc and ruff: a ``path:line:col: error[code]: message`` heading editors can
jump to, the quoted line with a caret under the column, then ``= note`` and ``= help``.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO, assert_never

from trainc.diagnostics import Diagnostic, Severity, counted, rule_for
from trainc.load.source import SourceFile
from trainc.report.base import ReporterOptions, ReportInput, Summary, headline, notes, shown

#: Tab stops in quoted lines, as rustc renders them; tabs are expanded so the caret lines up.
_TAB_WIDTH = 4
#: Bidirectional controls can make a quoted line read differently from what the parser saw
#: ("Trojan Source", CVE-2021-42574), so they are shown escaped like other controls.
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_DIM = "2"
#: Lines after a message's first (the caret diagram of a CEL compile error) are indented
#: by this much, so that none can pass for the heading of another finding.
_CONTINUATION = "    "

#: Where the quoted line would be, for a file changed since the run released its text.
_CHANGED = "(line not quoted: the file changed after trainc read it)"


def _severity_style(severity: Severity) -> str:
    match severity:
        case Severity.ERROR:
            return "1;31"
        case Severity.WARNING:
            return "33"
        case Severity.INFO:
            return "36"
        case _:
            assert_never(severity)


@dataclass(frozen=True, slots=True)
class _Palette:
    """ANSI SGR styling that is a no-op when colour is off."""

    enabled: bool

    def paint(self, text: str, style: str) -> str:
        return f"\x1b[{style}m{text}\x1b[0m" if self.enabled and text else text


#: Control characters, and the line and paragraph separators U+2028 and U+2029, which
#: some terminals and log viewers take for line breaks: none ends a line of the file.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


def _is_unsafe(char: str) -> bool:
    return unicodedata.category(char) in _UNSAFE_CATEGORIES or char in _BIDI_CONTROLS


def _escape(char: str) -> str:
    """A control character as a visible escape (``\\x1b``).

    User text then cannot drive the terminal, nor start a line of its own: the line breaks
    of a message are shown by :func:`_block`, each following line indented.
    """
    return ascii(char)[1:-1]


def _printable(text: str) -> str:
    return "".join(_escape(char) if _is_unsafe(char) else char for char in text)


def _printable_fields(d: Diagnostic) -> Diagnostic:
    """The diagnostic with every field that may quote the user's files made printable."""

    def printable(text: str | None) -> str | None:
        return None if text is None else _printable(text)

    return replace(
        d,
        message=_printable(d.message),
        file=printable(d.file),
        kind=printable(d.kind),
        namespace=printable(d.namespace),
        name=printable(d.name),
        field_path=printable(d.field_path),
        hint=printable(d.hint),
    )


def _char_width(char: str) -> int:
    """Terminal cells a character takes: CJK and emoji take two, combining marks none."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _render(line: str, column: int | None) -> tuple[str, int | None]:
    """The quoted line as displayed, and the caret's offset in terminal cells.

    Columns count characters (1-based); tabs, escapes and wide characters are measured as
    displayed, so the caret sits under the character the column names. A column past the
    end points just after the line (a missing value).
    """
    pieces: list[str] = []
    offsets: list[int] = []
    width = 0
    for char in line:
        offsets.append(width)
        if char == "\t":
            piece = " " * (_TAB_WIDTH - width % _TAB_WIDTH)
        else:
            piece = _escape(char) if _is_unsafe(char) else char
        pieces.append(piece)
        width += sum(_char_width(c) for c in piece)
    if column is None or column < 1:
        return "".join(pieces), None
    if column <= len(offsets):
        return "".join(pieces), offsets[column - 1]
    return "".join(pieces), width + column - 1 - len(line)


def _snippet(
    diagnostic: Diagnostic, source: SourceFile | None, root: Path | None, palette: _Palette
) -> list[str]:
    """The gutter, the quoted line and the caret line; empty when the line is not known, or
    when it may hold secret text (a sensitive rule's). A file changed since the run
    released its text (:meth:`SourceFile.quote`) is said to be, not quoted."""
    if source is None or diagnostic.line is None or rule_for(diagnostic.code).sensitive:
        return []
    quoted = source.quote(diagnostic.line, root)
    if quoted is None:
        if source.changed(root):
            gutter = " " * len(str(diagnostic.line))
            return [palette.paint(f"{gutter} | {_CHANGED}", _DIM)]
        return []
    text, caret = _render(quoted, diagnostic.column)
    number = str(diagnostic.line)
    gutter = " " * len(number)
    lines = [palette.paint(f"{gutter} |", _DIM), palette.paint(f"{number} |", _DIM)]
    if text:
        lines[-1] += f" {text}"
    if caret is not None:
        lines.append(palette.paint(f"{gutter} | {' ' * caret}^", _DIM))
    return lines


def _block(diagnostic: Diagnostic, report: ReportInput, palette: _Palette) -> str:
    """One finding: heading (the message's further lines indented below it), quoted
    source, then its notes aligned with the gutter."""
    sources = report.sources
    source = sources.get(diagnostic.file) if diagnostic.file is not None else None
    first, *more = diagnostic.message.split("\n")
    clean = _printable_fields(replace(diagnostic, message=first))
    style = _severity_style(diagnostic.severity)
    lines = [headline(clean, style=lambda label: palette.paint(label, style))]
    lines += [f"{_CONTINUATION}{_printable(line)}" for line in more]
    lines += _snippet(diagnostic, source, report.root, palette)
    gutter = " " * len(str(diagnostic.line or 0))
    lines += [f"{gutter} = {label}: {text}" for label, text in notes(clean)]
    return "\n".join(lines)


def _grouped_by_file(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Findings of one file together, files in order of first appearance, order kept within."""
    groups: dict[str | None, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        groups.setdefault(diagnostic.file, []).append(diagnostic)
    return [diagnostic for group in groups.values() for diagnostic in group]


def _summary_line(report: ReportInput, summary: Summary) -> str:
    """``Found 2 errors and 1 warning in 3 files (5 objects checked).`` or the all-clear.

    INFO findings are counted but never make a run "not passed": they are not problems.
    A run on policy files alone (``trainc validate policies/``) counts those, and no
    objects, which policy files do not hold.
    """
    files, objects = report.files_checked, report.objects_checked
    policy_files = counted(report.policy_files_checked, "policy file")
    if report.policy_files_checked and not files:
        read, checked = policy_files, None
    else:
        read, checked = counted(files, "file"), counted(objects, "object")
        if report.policy_files_checked:
            read += f" and {policy_files}"
    if not summary.errors and not summary.warnings:
        return f"All checks passed: {read}{f', {checked}' if checked else ''}."
    counts = (
        (summary.errors, "error"),
        (summary.warnings, "warning"),
        (summary.infos, "info"),
    )
    found = [counted(number, noun) for number, noun in counts if number]
    listed = found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}"
    return f"Found {listed} in {read}{f' ({checked} checked)' if checked else ''}."


def _environ() -> Mapping[str, str]:
    return os.environ


@dataclass(frozen=True, slots=True)
class TextReporter:
    """Writes findings for a terminal or a CI log, then a one-line summary.

    ``environ`` is where ``NO_COLOR``/``FORCE_COLOR`` are read when the options leave
    colour to auto; tests pass their own.
    """

    options: ReporterOptions
    environ: Mapping[str, str] = field(default_factory=_environ)

    def write(self, report: ReportInput, stream: TextIO) -> None:
        """Write every shown finding, a blank line after each, then the summary line.

        Quiet, a report without findings is nothing at all.
        """
        palette = _Palette(enabled=self.options.color_for(stream, self.environ))
        diagnostics = shown(report, self.options)
        if self.options.quiet and not diagnostics:
            return
        for diagnostic in _grouped_by_file(diagnostics):
            stream.write(_block(diagnostic, report, palette) + "\n\n")
        summary = Summary.of(diagnostics)
        stream.write(_summary_line(report, summary) + "\n")
