"""Reading a YAML stream with ruamel.yaml's pure-Python round-trip parser, failures as findings.

This is the loader's reference path: every input the fast path
(:mod:`trainc.load.fastyaml`) declines comes here, and only here are syntax errors,
tabs, control characters and over-deep nesting turned into ``load.*`` findings at the
parser's line. The documents before a syntax error are still converted.

ruamel composes; it does not type scalars: a scalar node keeps its written tag (empty
when it has none, ``!`` when it is the non-specific tag) and
:mod:`trainc.load.scalars` types it as kubectl's go-yaml v2 does.

Directives: kubectl and Argo CD cut a file into documents at every line that starts
with ``---`` before go-yaml sees it, so a ``%YAML`` or ``%TAG`` directive always ends up
in a piece of its own and kubectl fails (``did not find expected <document start>``;
go-yaml also refuses any ``%YAML`` but 1.1: ``found incompatible YAML document``).
trainc therefore reports every directive (``load.syntax`` at the first one of a
document) and reads the document by go-yaml's rules all the same; ``%YAML 1.2`` no
longer selects YAML 1.2 typing, which no tool on the way to the cluster applies.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from contextlib import closing
from pathlib import Path
from typing import Any

import ruamel.yaml
from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.parser import RoundTripParser
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.tag import Tag
from ruamel.yaml.tokens import DirectiveToken

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.convert import LOAD_SYNTAX, Converter, mark_finding, too_deep
from trainc.load.source import SourceFile, line_and_column

LOAD_TAB_INDENT = Rule(
    "load.tab-indent",
    Severity.ERROR,
    "a tab character is used where YAML allows only spaces",
)


#: Where ruamel.yaml's modules live, to tell its internal assertions from trainc's.
_RUAMEL_PACKAGE = str(Path(ruamel.yaml.__file__).parent)

#: How ruamel's scanner reads every document: as YAML 1.1, like libyaml and go-yaml.
_YAML_1_1 = (1, 1)

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


class _Malformed(Exception):  # noqa: N818  # a control-flow signal, caught below
    """ruamel failed on malformed text without a syntax error of its own (``mark``: where
    its reader stopped)."""

    def __init__(self, mark: Any) -> None:
        super().__init__("malformed")
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
        except AssertionError as error:
            # ruamel's comment bookkeeping asserts on some malformed layouts (a block
            # scalar indicator where a key should start, then a comment) instead of
            # raising a syntax error; go-yaml refuses the same text. Only ruamel's own
            # assertions are input errors: any other is a bug and propagates.
            if not _raised_in_ruamel(error):
                raise
            raise _Malformed(self.loader.reader.get_mark()) from None

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

    def compose_scalar_node(self, anchor: Any) -> Any:
        """A scalar node with its written tag (an empty one if none), not a resolved one."""
        event = self.parser.get_event()
        tag = event.ctag if event.ctag is not None else Tag(suffix="")
        node = ScalarNode(
            tag,
            event.value,
            event.start_mark,
            event.end_mark,
            style=event.style,
            comment=event.comment,
            anchor=anchor,
        )
        if anchor is not None:
            self.anchors[anchor] = node
        return node


class _Parser(RoundTripParser):
    """ruamel's parser, scanning every document without a ``%YAML`` directive as YAML 1.1
    and noting where a document's directives start (``directive_mark``).

    ruamel would scan a document after ``---`` by its default, 1.2, and one after a
    ``%YAML 1.2`` document by that document's version.
    """

    directive_mark: Any = None

    def process_directives(self) -> Any:
        if self.scanner.check_token(DirectiveToken):
            self.directive_mark = self.scanner.peek_token().start_mark
        directives = super().process_directives()
        if directives[0] is None:  # no %YAML directive in this document
            self.loader.version = _YAML_1_1
            self.scanner.yaml_version = None
        return directives


def read_stream(converter: Converter, limits: InputLimits) -> None:
    """Feed every document of ``converter.source`` to ``converter``, failures as findings."""
    source = converter.source
    yaml = YAML(typ="rt")
    yaml.version = _YAML_1_1
    yaml.Parser = _Parser
    yaml.Composer = _Composer
    composer = yaml.composer
    composer.warn_double_anchors = False  # YAML allows redefining an anchor
    composer.max_nesting = limits.max_depth
    parser = yaml.parser
    diagnostics = converter.diagnostics
    try:
        with closing(_compose(yaml, source.text)) as nodes:
            for index, node in enumerate(nodes):
                # The document's directives were read just before its node was composed.
                mark, parser.directive_mark = parser.directive_mark, None
                found = () if mark is None else (_directive_finding(source, mark),)
                if not converter.add(index, node, aliased=composer.aliased, findings=found):
                    break
    except MarkedYAMLError as error:
        diagnostics.append(_syntax_finding(source, error))
    except ReaderError as error:
        diagnostics.append(_reader_finding(source, error))
    except _TooDeep as error:
        mark = error.mark
        diagnostics.append(too_deep(source, limits.max_depth, mark.line, mark.column))
    except _Malformed as error:
        diagnostics.append(_malformed_finding(source, error.mark))


def _raised_in_ruamel(error: BaseException) -> bool:
    """Whether ``error`` was raised by ruamel.yaml's own code (its innermost frame)."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    return trace is not None and _RUAMEL_PACKAGE in trace.tb_frame.f_code.co_filename


def _malformed_finding(source: SourceFile, mark: Any) -> Diagnostic:
    """Malformed YAML that ruamel could not report itself, where its reader stopped."""
    line, column = mark.line, mark.column
    message = "malformed YAML: the parser cannot place what is written here"
    hint = "check the indentation and the block scalar indicators ('|', '>') around this line"
    return mark_finding(source, line, column, LOAD_SYNTAX.code, message, hint=hint)


def _compose(yaml: YAML, text: str) -> Generator[Any, None, None]:
    """ruamel's node stream, typed as an iterator that can be closed early."""
    yield from yaml.compose_all(text)


def _directive_finding(source: SourceFile, mark: Any) -> Diagnostic:
    """A ``%YAML`` or ``%TAG`` directive, which kubectl and Argo CD cannot read."""
    message = (
        "kubectl and Argo CD cut files at every '---' line before parsing them, so a "
        "directive (%YAML, %TAG) ends up apart from its document and the file is refused "
        "(did not find expected <document start>)"
    )
    hint = "delete the directive lines; write full tags (!<tag:...>) instead of %TAG handles"
    return mark_finding(source, mark.line, mark.column, LOAD_SYNTAX.code, message, hint=hint)


def _syntax_finding(source: SourceFile, error: MarkedYAMLError) -> Diagnostic:
    mark = error.problem_mark or error.context_mark
    line, column = (mark.line, mark.column) if mark is not None else (0, 0)
    problem = error.problem or error.context or "malformed YAML"
    if problem == _TAB_PROBLEM:
        return mark_finding(
            source,
            line,
            column,
            LOAD_TAB_INDENT.code,
            "a tab character is used for indentation; YAML allows only spaces there",
            hint="replace the tab with spaces",
        )
    problem = _TOKEN.sub(lambda match: _TOKEN_WORDS.get(match[1], match[1]), problem)
    context_mark = error.context_mark
    if error.context and error.problem and context_mark is not None and context_mark.line != line:
        where = source.user_line(context_mark.line + 1)
        problem = f"{problem} ({error.context} that starts on line {where})"
    return mark_finding(source, line, column, LOAD_SYNTAX.code, problem)


def _reader_finding(source: SourceFile, error: ReaderError) -> Diagnostic:
    """A character YAML does not allow in a stream (control characters, mostly)."""
    line, column = line_and_column(source.text, int(error.position))
    character = error.character
    code_point = character if isinstance(character, int) else ord(character)
    message = f"the character U+{code_point:04X} is not allowed in YAML ({error.reason})"
    return mark_finding(source, line, column, LOAD_SYNTAX.code, message)
