"""Parsing YAML text into documents with positions, and YAML failures into findings.

ruamel.yaml's round-trip loader composes each document of a stream into a node graph
(YAML 1.2 by default); :mod:`trainc.load.convert` turns that into plain data. A file
never raises: malformed YAML is a ``load.*`` finding at the parser's line, and the
documents before a syntax error are still returned.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.reader import ReaderError

from trainc.diagnostics import Diagnostic
from trainc.load.convert import Converter, Rejected, mark_finding
from trainc.load.documents import Document
from trainc.load.limits import Limits
from trainc.load.source import SourceFile

_TAB_PROBLEM = "found character '\\t' that cannot start any token"
#: ruamel's token names (``'<block end>'``), as a reader of the message would say them.
_TOKEN = re.compile(r"'?<([a-z ]+)>'?")
_TOKEN_WORDS = {
    "stream end": "the end of the file",
    "block end": "the end of the indented block",
    "block mapping start": "a new indented mapping",
    "block sequence start": "a new indented list",
    "scalar": "a value",
}


class _TooDeep(Exception):  # noqa: N818  # a control-flow signal, caught below
    """Composition stopped at a node nested deeper than the bound (``mark`` is where)."""

    def __init__(self, mark: Any) -> None:
        super().__init__("too deep")
        self.mark = mark


class _Composer(Composer):
    """ruamel's composer, bounding nesting and noting whether a document uses an alias.

    The bound is checked while composing, not after: ruamel's scanner does work per open
    flow level for every token, so ten thousand ``[`` would take seconds to compose only
    to be refused. Only documents with aliases can expand beyond their size, so only they
    pay for the expansion check in :class:`~trainc.load.convert.Converter`.
    """

    aliased = False
    max_nesting = 0
    nesting = 0

    def compose_document(self) -> Any:
        self.aliased = False
        try:
            return super().compose_document()
        except RecursionError:
            # Composition is recursive, so a configured bound beyond what the Python
            # stack holds ends here; the reader has stopped near the culprit.
            raise _TooDeep(self.loader.reader.get_mark()) from None

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.nesting += 1
        try:
            if self.nesting > self.max_nesting:
                raise _TooDeep(self.parser.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self.nesting -= 1

    def return_alias(self, a: Any) -> Any:
        self.aliased = True
        return a


@dataclass(frozen=True, slots=True)
class Parsed:
    """The non-empty documents of a file, in stream order, and what went wrong.

    ``findings`` holds, by document index, the part of ``diagnostics`` found inside that
    document's content (duplicate or non-string keys, mistyped tagged scalars), so that a
    caller can drop them for documents it turns out not to care about.
    """

    documents: tuple[Document, ...]
    diagnostics: tuple[Diagnostic, ...]
    findings: Mapping[int, tuple[Diagnostic, ...]] = field(default_factory=dict)


def parse_documents(source: SourceFile, limits: Limits) -> Parsed:
    """Every document of ``source.text``; empty documents (a bare ``---``) are skipped.

    ``Document.index`` counts all documents of the stream, empty ones included, so it
    matches what a reader counts by ``---`` separators.
    """
    yaml = YAML(typ="rt")
    # kubectl and Argo CD decode manifests with YAML 1.1 rules (``on`` and ``yes`` are
    # booleans, ``010`` is octal), so trainc reads them the same way: a value the API
    # server would receive as a boolean must fail here too. A ``%YAML 1.2`` directive
    # in a document still selects 1.2 for that document.
    yaml.version = (1, 1)
    yaml.Composer = _Composer
    composer = yaml.composer
    composer.warn_double_anchors = False  # YAML allows redefining an anchor
    composer.max_nesting = limits.max_depth
    converter = Converter(source, limits, yaml.constructor)
    documents: list[Document] = []
    diagnostics = converter.diagnostics
    findings: dict[int, tuple[Diagnostic, ...]] = {}
    try:
        with closing(_compose(yaml, source.text)) as nodes:
            for index, node in enumerate(nodes):
                before = len(diagnostics)
                try:
                    data, positions = converter.document(node, aliased=composer.aliased)
                except Rejected as rejected:
                    diagnostics.append(rejected.diagnostic)
                    if rejected.whole_file:
                        break
                    continue
                except RecursionError:  # aliases expanding past what the stack holds
                    mark = node.start_mark
                    diagnostics.append(_too_deep(source, limits, mark.line, mark.column))
                    continue
                if data is not None:
                    documents.append(Document(source, index, data, positions))
                    findings[index] = tuple(diagnostics[before:])
    except MarkedYAMLError as error:
        diagnostics.append(_syntax_finding(source, error))
    except ReaderError as error:
        diagnostics.append(_reader_finding(source, error))
    except _TooDeep as error:
        diagnostics.append(_too_deep(source, limits, error.mark.line, error.mark.column))
    return Parsed(tuple(documents), tuple(diagnostics), findings)


def _compose(yaml: YAML, text: str) -> Generator[Any, None, None]:
    """ruamel's node stream, typed as an iterator that can be closed early."""
    yield from yaml.compose_all(text)


def _too_deep(source: SourceFile, limits: Limits, line: int, column: int) -> Diagnostic:
    message = f"the document nests deeper than {limits.max_depth} levels; the rest is not read"
    return mark_finding(source, line, column, "load.too-deep", message)


def _syntax_finding(source: SourceFile, error: MarkedYAMLError) -> Diagnostic:
    mark = error.problem_mark or error.context_mark
    line, column = (mark.line, mark.column) if mark is not None else (0, 0)
    problem = error.problem or error.context or "malformed YAML"
    if problem == _TAB_PROBLEM:
        return mark_finding(
            source,
            line,
            column,
            "load.tab-indent",
            "a tab character is used for indentation; YAML allows only spaces there",
            hint="replace the tab with spaces",
        )
    problem = _TOKEN.sub(lambda match: _TOKEN_WORDS.get(match[1], match[1]), problem)
    context_mark = error.context_mark
    if error.context and error.problem and context_mark is not None and context_mark.line != line:
        where = source.user_line(context_mark.line + 1)
        problem = f"{problem} ({error.context} that starts on line {where})"
    return mark_finding(source, line, column, "load.syntax", problem)


def _reader_finding(source: SourceFile, error: ReaderError) -> Diagnostic:
    """A character YAML does not allow in a stream (control characters, mostly)."""
    position = int(error.position)
    text = source.text
    line = text.count("\n", 0, position)
    column = position - (text.rfind("\n", 0, position) + 1)
    character = error.character
    code_point = character if isinstance(character, int) else ord(character)
    message = f"the character U+{code_point:04X} is not allowed in YAML ({error.reason})"
    return mark_finding(source, line, column, "load.syntax", message)
